/*
 * MPI_Scan / MPI_Exscan by recursive doubling: at step k a rank swaps its partial (the fold of
 * the 2^k ranks of its group) with the rank whose bit k differs; a partial from below is folded
 * into the result and the partial, one from above into the partial only. Lower ranks' data is
 * always the left operand: the fold is in rank order. log p (alpha + N beta + 2 N gamma).
 *
 * The send buffer is read, never copied: the first fold writes the partial to scratch and the
 * result to rbuf with the 3-buffer kernel (in place, the partial is folded first, while the
 * input is intact).
 */
#include <string.h>
#include "coll/p2p/p2p.h"

int vred_scan_recdbl(const vred_coll_args *a)
{
    int p = a->size, r = a->rank;
    size_t n = a->count, es = a->esize;
    char *part = vred_scratch_get(a->scratch, VRED_SCRATCH_ACC, n * es);
    char *in = vred_scratch_get(a->scratch, VRED_SCRATCH_ACC2, n * es);
    if (!part || !in) return MPI_ERR_NO_MEM;
    const void *partial = a->sbuf; /* the fold of this rank's group so far */
    /* Inclusive: the result starts as the own data (still in sbuf); exclusive: as nothing. */
    const void *result = a->exclusive ? NULL : a->sbuf;
    for (int mask = 1; mask < p; mask <<= 1) {
        int peer = r ^ mask;
        if (peer >= p) continue;
        int rc = vred_msg_sendrecv(a, partial, n, peer, in, n, peer);
        if (rc != MPI_SUCCESS) return rc;
        if (peer < r) {
            vred_par_reduce3(a->e, a->esize, in, partial, part, n);
            if (!result) memcpy(a->rbuf, in, n * es);
            else vred_par_reduce3(a->e, a->esize, in, result, a->rbuf, n);
            result = a->rbuf;
        } else {
            vred_par_reduce3(a->e, a->esize, partial, in, part, n);
        }
        partial = part;
    }
    if (result && result != a->rbuf) memcpy(a->rbuf, result, n * es);
    return MPI_SUCCESS;
}
