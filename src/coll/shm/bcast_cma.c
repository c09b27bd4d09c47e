/*
 * Single-copy broadcast by cross-memory attach (cma.h): every rank publishes its buffer's
 * address; every other rank reads the head of the message from the root straight into its own
 * buffer while the root writes the tail into every reader's buffer (one copy per byte, done by
 * the kernel, on every core at once), and the root returns only when all are done (the caller
 * may reuse its buffer at once).
 *
 * The root's tail: with the readers alone copying, the root's core idles while they work. The
 * root writes the last `share` of the message into each of the p - 1 readers, and each reader
 * reads the rest; where the kernel's reads and writes run alike, 1/p gives every core (p - 1)/p
 * of the message to copy: at 2 ranks half the time where the cores' copies run at once (Xeon
 * family 6 model 207, Open MPI 4.1, back to back on malloc'd buffers: 1 MiB 67-92 us read
 * whole, 24-33 split; 16 MiB 1.66 ms, 0.75-1.05; shares of 40% and 60% 10-20% slower than 50%:
 * docs/shm.md "Single copy"). Where they do not, the root moves its share after every call
 * towards the split at which all would have finished together, per size class, as a reduce's
 * root does (cma_split.h; VRED_CMA_ROOT_SHARE pins it). Under TAIL_MIN bytes per reader's
 * share at 1/p the second post costs more than the copy it splits: the readers read it all.
 *
 * Steps: with a tail, two per rank: the first publishes the address (the root needs the
 * readers' to write to; the root's also says where its tail starts), the second says this rank
 * is done (and whether a transfer failed, and how long its copy took); without, one: the root's
 * announces its address, a reader's says it is done. Every rank then waits for every other's
 * last post, so all see the same failure reports: if a transfer failed anywhere (the kernel
 * refused after the probe had succeeded, e.g. a seccomp filter installed since), every rank runs
 * the pipeline for this call from the root's unchanged buffer, and the node stays on the
 * pipeline (vred_cma_failed).
 */
#include "coll/clock.h"
#include "coll/shm/shm.h"
#include "coll/shm/cma.h"
#include "coll/shm/cma_split.h"

enum { TAIL_MIN = 16 << 10, PAGE = 4096 };

/* Ranks whose counts differ (erroneous, and caught by the front's agreement for MPI_Bcast
 * itself, but not where a hierarchical reduction hands its result back by its own count: a rank
 * that passed fewer elements to an allreduce had 512 KiB past its buffer overwritten by the
 * root's tail): each reader publishes its bytes with its address; the root writes only into a
 * reader whose bytes are its own, and a reader reads no more than its own. Such a call's ranks
 * may then post unlike (has_tail), and the job ends at the reduction's error anyway; no byte
 * outside a buffer is written.
 *
 * 1 if the root takes a tail: the same answer on every rank that passed the same count (the
 * steps depend on it). */
static int has_tail(size_t bytes, int p)
{
    return bytes / (size_t)p >= TAIL_MIN;
}

/* The root's share for a call of `bytes`: pinned, learned for its class, or first 1/p. */
static double root_share(const vred_shm *s, int p, size_t bytes)
{
    int pinned = vred_config_get()->cma_root_share;
    if (pinned) return pinned / 100.0;
    float learned = s->cma_bcast_share[vred_cma_class(bytes, VRED_SHM_CLASSES)];
    return learned > 0 ? learned : 1.0 / p;
}

/* Where the readers' part ends (the root only; it publishes it): the tail is the share rounded
 * down to a whole number of pages. (Its start is not placed on a page boundary: where the
 * message is not a multiple of 4 KiB each side pins one page the other also pins; not
 * measured.) */
static size_t head_at(size_t bytes, double share)
{
    size_t tail = (size_t)((double)bytes * share) / PAGE * PAGE;
    return tail < bytes ? bytes - tail : 0;
}

/* After a call with a tail (every rank's last post seen): the root moves its share towards the
 * split at which its writes and the slowest reader's read would have ended together. */
static void rebalance(vred_shm *s, int p, int root, size_t bytes, size_t head, double share,
                      double t_root)
{
    if (vred_config_get()->cma_root_share) return;
    double t_other = 0;
    for (int q = 0; q < p; q++)
        if (q != root) {
            double t = 1e-9 * __atomic_load_n(&s->ctl[q].cma_bcast_ns, __ATOMIC_RELAXED);
            if (t > t_other) t_other = t;
        }
    size_t written = (bytes - head) * (size_t)(p - 1);
    s->cma_bcast_share[vred_cma_class(bytes, VRED_SHM_CLASSES)] =
        (float)vred_cma_share_next(share, p, t_root, written, t_other, head);
}

static uint32_t ns_of(double t)
{
    return t < 4.0 ? (uint32_t)(t * 1e9) : UINT32_MAX;
}

int vred_shm_bcast_cma(const vred_shm_args *a)
{
    vred_shm *s = a->n->shm;
    int p = a->n->size, r = a->n->rank, root = a->root;
    size_t bytes = a->count * a->esize;
    if (bytes == 0) return MPI_SUCCESS;
    if (!s->cma) return vred_shm_bcast_pipe(a); /* a read failed on this node in an earlier call */
    int tail = has_tail(bytes, p);
    uint64_t step = s->seq + 1, last = step + (uint64_t)tail;
    vred_shm_ctl *me = &s->ctl[r];
    int err = 0;
    double t0, t = 0, share = 0;
    size_t head = bytes;
    if (r == root) {
        vred_cma_publish(s, a->sbuf);
        if (tail) {
            share = root_share(s, p, bytes);
            head = head_at(bytes, share);
            __atomic_store_n(&me->cma_out, (uint64_t)head, __ATOMIC_RELAXED);
            vred_shm_post(s);
            vred_shm_wait_all(s, step); /* every reader's address */
            t0 = vred_clock_s();
            for (int j = 1; j < p && !err; j++) {
                int q = (root + j) % p;
                if (__atomic_load_n(&s->ctl[q].cma_stamp, __ATOMIC_RELAXED) != bytes)
                    continue; /* erroneous: a shorter buffer there (below) */
                err = vred_cma_write(s, q, (const char *)a->sbuf + head,
                                     vred_cma_addr(s, q) + head, bytes - head);
            }
            t = vred_clock_s() - t0;
        }
    } else {
        vred_cma_publish(s, a->rbuf);
        __atomic_store_n(&me->cma_stamp, (uint64_t)bytes, __ATOMIC_RELAXED);
        if (tail) vred_shm_post(s);
        vred_shm_wait(s, root, step);
        if (tail) head = (size_t)__atomic_load_n(&s->ctl[root].cma_out, __ATOMIC_RELAXED);
        if (head > bytes) head = bytes;
        t0 = vred_clock_s();
        err = vred_cma_read(s, root, a->rbuf, vred_cma_addr(s, root), head);
        __atomic_store_n(&me->cma_bcast_ns, ns_of(vred_clock_s() - t0), __ATOMIC_RELAXED);
    }
    vred_cma_report(s, err, last);
    vred_shm_post(s);
    vred_shm_wait_all(s, last);
    if (vred_cma_failed(s, last)) return vred_shm_bcast_pipe(a);
    if (r == root && tail) rebalance(s, p, root, bytes, head, share, t);
    return MPI_SUCCESS;
}
