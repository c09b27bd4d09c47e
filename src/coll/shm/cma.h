/*
 * Cross-memory attach (Linux process_vm_readv): a rank copies a peer's buffer straight into its
 * own, one copy instead of the two through the shared segment (docs/shm.md, "Single copy").
 *
 * The rules (docs/reliability.md, "Cross-memory attach"): only towards the ranks of this node's
 * communicator, whose pids are published in the node's private segment and who live in this
 * process's PID namespace; reads of what a peer published for the current call, and writes
 * only into the receive buffer a peer published for it (and the peer's check word), with the
 * caller's own credentials (the kernel allows both towards processes of the same user that it
 * could ptrace, PTRACE_MODE_ATTACH_REALCREDS); never ptrace itself, never a change of the
 * process's ptrace policy. Where the kernel says no (Yama ptrace_scope, a container's seccomp
 * profile, another user), the probe fails and the node moves data through its segment.
 */
#ifndef VRED_SHM_CMA_H
#define VRED_SHM_CMA_H

#include "coll/shm/region.h"

/* This rank's part of the node's probe (collective over s->comm, at the region's creation): 1
 * if VRED_CMA allows it, this rank can read a token that every peer of the node published, with
 * each peer in this rank's PID namespace, and the next rank could write this rank's word (and
 * it the next one's). The caller agrees on the verdict with every rank of the communicator
 * (node.c) and stores it in s->cma. */
int vred_cma_probe(vred_shm *s);

/* Read n bytes at address `remote` of node rank `peer` into `local`: 0, or the errno of the
 * failed read (the bytes read so far are in `local`). */
int vred_cma_read(const vred_shm *s, int peer, void *local, uint64_t remote, size_t n);

/* Write n bytes from `local` to address `remote` of node rank `peer`: 0, or the errno of the
 * failed write. Where the kernel refuses (a permission or a filter), it does so before moving
 * anything; a short write (an address the peer does not map: a bug, or an erroneous buffer)
 * returns EFAULT after having written part. */
int vred_cma_write(const vred_shm *s, int peer, const void *local, uint64_t remote, size_t n);

/* Publish `addr` as where this rank's peers read in the coming step (before vred_shm_post). */
static inline void vred_cma_publish(vred_shm *s, const void *addr)
{
    __atomic_store_n(&s->ctl[s->rank].cma_addr, (uint64_t)(uintptr_t)addr, __ATOMIC_RELAXED);
}

/* The address node rank `peer` published (after observing its post). */
static inline uint64_t vred_cma_addr(const vred_shm *s, int peer)
{
    return __atomic_load_n(&s->ctl[peer].cma_addr, __ATOMIC_RELAXED);
}

/* Report this rank's read for the coming step: err != 0 marks the step as failed here (and
 * says so on stderr, once per process). */
void vred_cma_report(vred_shm *s, int err, uint64_t step);

/* After every rank has posted `step` (wait_all): 1 if a read failed on any rank of the node,
 * then CMA is off for this node from now on (s->cma = 0). The same answer on every rank of the
 * node. */
int vred_cma_failed(vred_shm *s, uint64_t step);

#endif
