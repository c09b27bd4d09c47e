/*
 * Single-copy broadcast by cross-memory attach (cma.h): every rank publishes its buffer's
 * address; every other rank reads the head of the message from the root straight into its own
 * buffer while the root writes the tail into every reader's buffer (one copy per byte, done by
 * the kernel, on every core at once), and the root returns only when all are done (the caller
 * may reuse its buffer at once).
 *
 * The root's tail: with the readers alone copying, the root's core idles while they work. Cut
 * so that each reader reads (p - 1) / p of the message and the root writes the last 1 / p into
 * each of the p - 1 readers, every core copies (p - 1) / p of it: at 2 ranks half the time, where
 * the cores' copies run at once (Xeon family 6 model 207, Open MPI 4.1, back to back on malloc'd
 * buffers, 1 MiB: 66-89 us read whole, 33 split; 16 MiB 1.8-2.0 ms, 1.0: docs/shm.md "Single
 * copy"). Under TAIL_MIN bytes per share the second post costs more than the copy it splits,
 * and the readers read it all.
 *
 * Steps: with a tail, two per rank: the first publishes the address (the root needs the
 * readers' to write to), the second says this rank is done (and whether a transfer failed);
 * without, one: the root's announces its address, a reader's says it is done. Every rank then
 * waits for every other's last post, so all see the same failure reports: if a transfer failed
 * anywhere (the kernel refused after the probe had succeeded, e.g. a seccomp filter installed
 * since), every rank runs the pipeline for this call from the root's unchanged buffer, and the
 * node stays on the pipeline (vred_cma_failed).
 */
#include "coll/shm/shm.h"
#include "coll/shm/cma.h"

enum { TAIL_MIN = 16 << 10, PAGE = 4096 };

/* Where the readers' part ends: the root's tail is bytes / p rounded down to whole pages (each
 * side then pins whole pages of the other's buffer where the ranks' buffers share their page
 * offset, as SPMD programs' do), or none where that is under TAIL_MIN. The same on every rank. */
static size_t head_bytes(size_t bytes, int p)
{
    size_t tail = bytes / (size_t)p / PAGE * PAGE;
    return tail < TAIL_MIN ? bytes : bytes - tail;
}

int vred_shm_bcast_cma(const vred_shm_args *a)
{
    vred_shm *s = a->n->shm;
    int p = a->n->size, r = a->n->rank, root = a->root;
    size_t bytes = a->count * a->esize;
    if (bytes == 0) return MPI_SUCCESS;
    if (!s->cma) return vred_shm_bcast_pipe(a); /* a read failed on this node in an earlier call */
    size_t head = head_bytes(bytes, p);
    int tail = head < bytes;
    uint64_t step = s->seq + 1, last = step + (uint64_t)tail;
    int err = 0;
    if (r == root) {
        vred_cma_publish(s, a->sbuf);
        if (tail) {
            vred_shm_post(s);
            vred_shm_wait_all(s, step); /* every reader's address */
            for (int j = 1; j < p && !err; j++) {
                int q = (root + j) % p;
                err = vred_cma_write(s, q, (const char *)a->sbuf + head,
                                     vred_cma_addr(s, q) + head, bytes - head);
            }
        }
    } else {
        vred_cma_publish(s, a->rbuf);
        if (tail) vred_shm_post(s);
        vred_shm_wait(s, root, step);
        err = vred_cma_read(s, root, a->rbuf, vred_cma_addr(s, root), head);
    }
    vred_cma_report(s, err, last);
    vred_shm_post(s);
    vred_shm_wait_all(s, last);
    return vred_cma_failed(s, last) ? vred_shm_bcast_pipe(a) : MPI_SUCCESS;
}
