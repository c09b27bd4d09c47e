/*
 * Single-copy broadcast by cross-memory attach (cma.h): the root publishes its buffer's
 * address, every other rank reads the whole message from there straight into its own buffer
 * (one copy per byte, done by the kernel), and the root returns only when all have read it (the
 * caller may reuse its buffer at once).
 *
 * One step per rank: the root's post announces the address; a reader's post says it is done
 * (and whether its read failed). Every rank then waits for every other's post, so all see the
 * same failure reports: if a read failed anywhere (the kernel refused after the probe had
 * succeeded, e.g. a seccomp filter installed since), every rank runs the pipeline for this call
 * from the root's unchanged buffer, and the node stays on the pipeline (vred_cma_failed).
 */
#include "coll/shm/shm.h"
#include "coll/shm/cma.h"

int vred_shm_bcast_cma(const vred_shm_args *a)
{
    vred_shm *s = a->n->shm;
    size_t bytes = a->count * a->esize;
    if (bytes == 0) return MPI_SUCCESS;
    if (!s->cma) return vred_shm_bcast_pipe(a); /* a read failed on this node in an earlier call */
    uint64_t step = s->seq + 1;
    if (a->n->rank == a->root) {
        vred_cma_publish(s, a->sbuf);
    } else {
        vred_shm_wait(s, a->root, step);
        vred_cma_report(s, vred_cma_read(s, a->root, a->rbuf, vred_cma_addr(s, a->root), bytes),
                        step);
    }
    vred_shm_post(s);
    vred_shm_wait_all(s, step);
    return vred_cma_failed(s, step) ? vred_shm_bcast_pipe(a) : MPI_SUCCESS;
}
