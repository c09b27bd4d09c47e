/*
 * Single-copy allgather by cross-memory attach (cma.h): every rank publishes the address of its
 * block (its send buffer, or its place in the receive buffer when in place), then reads the
 * other p - 1 blocks straight from their owners into its receive buffer: one copy per byte
 * instead of the pipeline's two through the segment.
 *
 * Two steps per rank: the first publishes the address; the second says this rank has read
 * every peer (and whether a read failed), after which its own block may be reused, so every
 * rank waits for every other's second step before returning. All then see the same failure
 * reports: if a read failed anywhere, every rank runs the pipeline for this call (the blocks
 * are unchanged: reads write only other ranks' places in rbuf), and the node stays on the
 * pipeline (vred_cma_failed).
 */
#include "coll/shm/shm.h"
#include "coll/shm/cma.h"

#include "local/copy.h"

int vred_shm_allgather_cma(const vred_shm_args *a)
{
    vred_shm *s = a->n->shm;
    int p = a->n->size, r = a->n->rank;
    size_t block = a->count * a->esize;
    if (block == 0) return MPI_SUCCESS;
    if (!s->cma) return vred_shm_allgather_pipe(a); /* a read failed here in an earlier call */
    char *rbuf = a->rbuf;
    const char *mine = a->sbuf;
    uint64_t step = s->seq + 1;
    vred_cma_publish(s, mine);
    vred_shm_post(s);
    vred_shm_wait_all(s, step);
    /* Starting after this rank, so that the ranks spread over the owners they read from. */
    int err = 0;
    for (int j = 1; j < p && !err; j++) {
        int q = (r + j) % p;
        err = vred_cma_read(s, q, rbuf + (size_t)q * block, vred_cma_addr(s, q), block);
    }
    if (mine != rbuf + (size_t)r * block) vred_copy(rbuf + (size_t)r * block, mine, block, 0);
    vred_cma_report(s, err, step + 1);
    vred_shm_post(s);
    vred_shm_wait_all(s, step + 1);
    return vred_cma_failed(s, step + 1) ? vred_shm_allgather_pipe(a) : MPI_SUCCESS;
}
