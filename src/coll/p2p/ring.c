/*
 * Ring: reduce-scatter in p-1 steps around the ring (each rank sends to rank+1, receives from
 * rank-1, one block per step), then a gather of the blocks to the root (reduce), a ring
 * allgather (allreduce), or nothing (reduce_scatter). Cost (p + log p) alpha + 2 (p-1)/p N beta
 * + (p-1)/p N gamma for reduce; the latency grows with p, but the blocks in flight are N/p and
 * no power of two is needed.
 *
 * At step s rank r sends block r-s-1 and receives block r-s-2 (mod p), so that after the last
 * step it holds its own block r, reduced. Step 0 sends straight from the send buffer; every
 * received block is folded into the partial sum from the send buffer with the 3-buffer kernel.
 */
#include <stdlib.h>
#include <string.h>
#include "coll/p2p/p2p.h"

static int mod(int x, int p) { return ((x % p) + p) % p; }

/*
 * The reduce-scatter ring over blocks disp[0..p]. Partial blocks go to `part(b)`: block b of
 * `acc` if acc is not NULL, else alternately two block-sized scratch buffers. The last block,
 * this rank's own, goes to `final`.
 */
static int ring_rs(const vred_coll_args *a, const size_t *disp, char *acc, char *final)
{
    int p = a->size, r = a->rank, right = mod(r + 1, p), left = mod(r - 1, p);
    size_t es = a->esize, maxb = 0;
    for (int i = 0; i < p; i++)
        if (disp[i + 1] - disp[i] > maxb) maxb = disp[i + 1] - disp[i];
    char *tmp[2] = {NULL, NULL};
    if (!acc) {
        tmp[0] = vred_scratch_get(a->scratch, VRED_SCRATCH_ACC, maxb * es);
        tmp[1] = vred_scratch_get(a->scratch, VRED_SCRATCH_ACC2, maxb * es);
        if (!tmp[0] || !tmp[1]) return MPI_ERR_NO_MEM;
    }
    const char *send = vred_at(a->sbuf, disp[mod(r - 1, p)], es);
    for (int s = 0; s < p - 1; s++) {
        int sb = mod(r - s - 1, p), rb = mod(r - s - 2, p);
        size_t sn = disp[sb + 1] - disp[sb], rn = disp[rb + 1] - disp[rb];
        char *out = s == p - 2 ? final : acc ? acc + disp[rb] * es : tmp[s % 2];
        /* The left neighbour's partial sum covers the ranks before this one. */
        int rc = vred_msg_sendrecv_reduce(a, send, sn, right, left,
                                          vred_at(a->sbuf, disp[rb], es), out, rn, 1);
        if (rc != MPI_SUCCESS) return rc;
        send = out;
    }
    return MPI_SUCCESS;
}

static size_t *even_disp(const vred_coll_args *a)
{
    size_t *d = malloc((size_t)(a->size + 1) * sizeof *d);
    if (d)
        for (int i = 0; i <= a->size; i++) d[i] = vred_block_lo(a->count, a->size, i);
    return d;
}

int vred_reduce_ring(const vred_coll_args *a)
{
    size_t *disp = even_disp(a);
    if (!disp) return MPI_ERR_NO_MEM;
    int p = a->size, r = a->rank, rc;
    size_t es = a->esize, mine = disp[r + 1] - disp[r];
    if (r == a->root) {
        /* In place, the send buffer is the receive buffer: partials must not land in it. */
        rc = ring_rs(a, disp, NULL, (char *)a->rbuf + disp[r] * es);
        for (int i = 0; rc == MPI_SUCCESS && i < p; i++)
            if (i != r)
                rc = vred_msg_recv(a, (char *)a->rbuf + disp[i] * es, disp[i + 1] - disp[i], i);
    } else {
        /* The final block needs a buffer apart from the two partials being forwarded. */
        char *own = vred_scratch_get(a->scratch, VRED_SCRATCH_OWN, mine * es);
        rc = own ? ring_rs(a, disp, NULL, own) : MPI_ERR_NO_MEM;
        if (rc == MPI_SUCCESS) rc = vred_msg_send(a, own, mine, a->root);
    }
    free(disp);
    return rc;
}

int vred_allreduce_ring(const vred_coll_args *a)
{
    size_t *disp = even_disp(a);
    if (!disp) return MPI_ERR_NO_MEM;
    int p = a->size, r = a->rank;
    size_t es = a->esize;
    char *acc = a->rbuf;
    int rc = ring_rs(a, disp, acc, acc + disp[r] * es);
    /* Ring allgather: pass on the block received in the previous step. */
    for (int s = 0; rc == MPI_SUCCESS && s < p - 1; s++) {
        int sb = mod(r - s, p), rb = mod(r - s - 1, p);
        rc = vred_msg_sendrecv(a, acc + disp[sb] * es, disp[sb + 1] - disp[sb], mod(r + 1, p),
                               acc + disp[rb] * es, disp[rb + 1] - disp[rb], mod(r - 1, p));
    }
    free(disp);
    return rc;
}

int vred_reduce_scatter_ring(const vred_coll_args *a)
{
    int p = a->size, r = a->rank;
    size_t *disp = malloc((size_t)(p + 1) * sizeof *disp);
    if (!disp) return MPI_ERR_NO_MEM;
    disp[0] = 0;
    for (int i = 0; i < p; i++) disp[i + 1] = disp[i] + a->counts[i];
    size_t es = a->esize, mine = a->counts[r];
    /* In place with the own block elsewhere than at the start, the result cannot go straight
     * to rbuf[0..]: it would overwrite input still to be read. */
    int direct = a->sbuf != a->rbuf || disp[r] == 0;
    char *own = direct ? a->rbuf : vred_scratch_get(a->scratch, VRED_SCRATCH_OWN, mine * es);
    /* An empty block may come with a null receive buffer: nothing is written to it. */
    int rc = own || !mine ? ring_rs(a, disp, NULL, own) : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && !direct && mine) memcpy(a->rbuf, own, mine * es);
    free(disp);
    return rc;
}
