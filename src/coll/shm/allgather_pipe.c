/*
 * Pipelined allgather through the region's two banks (the second paper, sec. 4.3.3, algorithm
 * 4). Each rank's block is cut into slices; in round k every rank copies its slice k into its
 * part of bank k & 1 and its own slice to its receive buffer, and once all have stored theirs,
 * copies the other p - 1 parts out to their places. The banks alternate, so a rank that is done
 * copying out round k fills round k + 1 while slower ranks still read round k.
 *
 * Adaptive copy as in the paper: into the bank with ordinary stores (every rank reads it at
 * once; unless they crawl, stores.h), out to the receive buffer (read only after the
 * collective) with streaming stores when the working set W = s p + s p^2 + 2 p I exceeds the
 * cache (s: one rank's block).
 */
#include "coll/shm/shm.h"

#include "local/copy.h"

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }
static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* Bytes per rank per round: the whole block if the bank holds p of them, else the largest
 * slice (whole cache lines, at most I_max) of which p fit. Slicing a block that fits gains
 * nothing here: every rank both copies in and copies out, so there is no overlap to win. */
static size_t gather_slice(const vred_shm *s, size_t block, int p)
{
    size_t cap = min_size(s->slice_max, s->slices_bytes / (size_t)p) / 64 * 64;
    if (cap == 0) cap = 64; /* a region too small to be useful still works, slowly */
    return min_size(block, cap);
}

/* Copy round k's other p - 1 parts (each `n` bytes at `stride` in the bank) to their blocks in
 * rbuf, starting after this rank's part so the ranks spread over the parts. */
static void copy_out(const char *bank, size_t stride, char *rbuf, size_t block, size_t off,
                     size_t n, int rank, int p, int nt)
{
    for (int j = 1; j < p; j++) {
        int q = (rank + j) % p;
        vred_copy(rbuf + (size_t)q * block + off, bank + (size_t)q * stride, n, nt);
    }
}

int vred_shm_allgather_pipe(const vred_shm_args *a)
{
    vred_shm *s = a->n->shm;
    int p = a->n->size, r = a->n->rank;
    size_t block = a->count * a->esize;
    if (block == 0) return MPI_SUCCESS;
    char *rbuf = a->rbuf;
    const char *mine = a->sbuf;
    int inplace = mine == rbuf + (size_t)r * block;
    size_t slice = gather_slice(s, block, p);
    size_t stride = round_up(slice, 64); /* every part starts on its own cache line */
    if ((size_t)p * stride > s->slices_bytes) stride = slice; /* tiny region: pack the parts */
    size_t w = block * (size_t)p + block * (size_t)p * (size_t)p + 2 * (size_t)p * slice;
    int nt = vred_copy_use_nt(1, w);
    uint64_t seq0 = s->seq;
    uint64_t k = 0;
    vred_stores_call in; /* ordinary stores, read next, unless they crawl (stores.h) */
    vred_stores_begin(&in, &s->stores, VRED_STORES_GATHER, block * (size_t)p, slice);
    for (size_t off = 0; off < block; off += slice, k++) {
        size_t n = min_size(slice, block - off);
        char *bank = vred_shm_round_begin(s, (size_t)p * stride);
        vred_stores_copy(&in, bank + (size_t)r * stride, mine + off, n, n == slice);
        vred_shm_post(s);
        /* The own part from the send buffer while the others store theirs (unless in place):
         * from the bank after the wait it cost 1.6-1.75x at 256 KiB-4 MiB (docs/shm.md). In
         * the copy form measured faster (copy.h): the receive buffer has left this core's
         * cache by now. */
        if (!inplace && nt) vred_copy(rbuf + (size_t)r * block + off, mine + off, n, 1);
        else if (!inplace) vred_copy_measured(rbuf + (size_t)r * block + off, mine + off, n);
        vred_shm_wait_all(s, seq0 + k + 1);
        copy_out(bank, stride, rbuf, block, off, n, r, p, nt);
        vred_shm_round_end(s);
    }
    vred_stores_end(&in);
    /* The streamed stores went to this rank's own buffer: one fence, as memcpy gives, before
     * the caller hands it on. */
    if (nt) vred_copy_fence();
    return MPI_SUCCESS;
}
