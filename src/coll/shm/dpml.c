/*
 * DPML-like reduction for small messages (the second paper's small-message algorithm, after
 * DPML): every rank copies its whole input into its own part of one bank and publishes it, a
 * single synchronisation, then every rank that needs a result reduces it itself from the p
 * copies. Data access s (7p - 1) for allreduce against MA's s (5p - 1), but one
 * synchronisation instead of p per chunk: the right trade while the message is small.
 *
 * Buffers are always read in the fixed order 0, 1, ..., p-1 (out = buf0 op buf1, then
 * out = out op buf2, ...), so every rank computing the same elements gets identical bits. The
 * copy-in comes first, so in place needs no care: the input is safe in the bank before rbuf
 * is written.
 */
#include "coll/shm/shm.h"
#include "coll/shm/stamp.h"
#include "local/copy.h"

/* The one place that decides whether a message fits DPML: every rank's whole buffer in one
 * bank. entry.c asks before it runs DPML and runs MA instead when not (the same answer on every
 * rank: it depends only on the arguments); select.c only prefers DPML below the measured switch
 * point, before any region exists. */
int vred_shm_dpml_fits(const vred_shm *s, size_t bytes)
{
    return s->size > 0 && bytes <= s->slices_bytes / (size_t)s->size / 64 * 64;
}

/* Each rank's part of the bank starts on a cache line of its own. */
static size_t dpml_stride(size_t bytes) { return (bytes + 63) / 64 * 64; }

/* out = buf_0 op buf_1 op ... op buf_{p-1} over elements [lo, lo + n) of the p copies. */
static void reduce_all(const vred_shm_args *a, const char *bank, size_t stride, size_t lo,
                       size_t n, void *out)
{
    int p = a->n->size;
    const char *x = vred_at(bank, lo, a->esize);
    vred_par_reduce3(a->e, a->esize, x, x + stride, out, n);
    for (int q = 2; q < p; q++)
        vred_par_reduce3(a->e, a->esize, out, x + (size_t)q * stride, out, n);
}

/*
 * The end of a round whose ranks passed different arguments (an erroneous call, seen by this
 * rank in the keys: stamp.h), having posted like the others: the class, with every counter and
 * bank place kept in step for the calls after it, or the end of the job where they cannot be.
 * Every rank that reduces saw the keys; their rounds took places of different sizes in the bank.
 * allreduce and reduce_scatter: every rank saw the difference, and each starts this bank again
 * at its start. reduce: only the root did; where the others all passed the same call, the root
 * takes their place (this round taken back and begun again at their size: no peer reads the
 * root's part, and it reads nothing more) and returns the class, on the root only. A rank in another algorithm (the MA engine,
 * for a larger count) runs other steps: the job ends, with each rank's arguments.
 */
static int refused(const vred_shm_args *a, int root, vred_shm_stamp mine, size_t next, int rc)
{
    vred_shm *s = a->n->shm;
    const char *coll = root >= 0 ? "MPI_Reduce" : "a reduction";
    vred_shm_stamp t = vred_shm_stamp_read(s, a->n->rank == 0 ? 1 : 0);
    for (int i = 0; i < s->size; i++) {
        vred_shm_stamp o = i == s->rank ? mine : vred_shm_stamp_read(s, i);
        if (vred_shm_stamp_alg(o) != VRED_STAMP_DPML) vred_shm_stamp_abort(s, mine, coll);
        if (root >= 0 && i != s->rank && o != t) vred_shm_stamp_abort(s, mine, coll);
    }
    if (root < 0) {
        s->bank_next[s->round & 1] = 0;
        return rc;
    }
    uint64_t count = vred_shm_stamp_count(t);
    if (vred_shm_stamp_root(t) != root || count == UINT64_MAX) vred_shm_stamp_abort(s, mine, coll);
    vred_shm_round_cancel(s, next);
    (void)vred_shm_round_begin(s, (size_t)s->size * dpml_stride(count * vred_shm_stamp_esize(t)));
    return rc;
}

/* One round: publish this rank's input, then, if this rank reduces (`reduces`), check the
 * ranks' arguments and reduce elements [lo, lo + n) into out. MPI_SUCCESS or the class of the
 * ranks' difference, negated (shm.h). root: -1 for allreduce and reduce_scatter. */
static int dpml_round(const vred_shm_args *a, int root, int reduces, size_t lo, size_t n,
                      void *out)
{
    vred_shm *s = a->n->shm;
    size_t bytes = a->count * a->esize, stride = dpml_stride(bytes);
    size_t next = s->bank_next[(s->round + 1) & 1];
    char *bank = vred_shm_round_begin(s, (size_t)a->n->size * stride);
    /* Temporal: every rank reads it right after the synchronisation. */
    vred_copy(bank + (size_t)a->n->rank * stride, a->sbuf, bytes, 0);
    vred_shm_stamp mine = vred_shm_stamp_of(VRED_STAMP_DPML, a->esize, root, a->count);
    vred_shm_stamp_publish(s, mine); /* right before the post: the line is taken back once */
    vred_shm_post(s);
    int rc = MPI_SUCCESS;
    if (reduces) {
        if (!vred_shm_wait_all_call(s, s->seq, mine))
            rc = refused(a, root, mine, next, vred_shm_stamp_verdict(s, mine));
        else if (n) reduce_all(a, bank, stride, lo, n, out);
    }
    /* A rank with nothing to compute leaves at once; its input stays in the bank until the
     * others are done, because the bank is not rewritten before they end this round. */
    vred_shm_round_end(s);
    return -rc;
}

/* The callers (entry.c, hier.c) have checked vred_shm_dpml_fits and the one-rank case. */
int vred_shm_allreduce_dpml(const vred_shm_args *a)
{
    return a->count ? dpml_round(a, -1, 1, 0, a->count, a->rbuf) : MPI_SUCCESS;
}

int vred_shm_reduce_dpml(const vred_shm_args *a)
{
    if (!a->count) return MPI_SUCCESS;
    return dpml_round(a, a->root, a->n->rank == a->root, 0, a->count, a->rbuf);
}

/* Every rank checks, those whose block is empty too: every rank must see a difference. */
int vred_shm_reduce_scatter_dpml(const vred_shm_args *a)
{
    if (a->count == 0) return MPI_SUCCESS;
    size_t lo = 0;
    for (int q = 0; q < a->n->rank; q++) lo += a->counts[q];
    return dpml_round(a, -1, 1, lo, a->counts[a->n->rank], a->rbuf);
}
