/*
 * The shared-memory algorithms inside one node (the second paper, YHCCL). Each works on the
 * ranks of one node (vred_node, ranks are node ranks) with the node's region, and is used
 * directly when the communicator is one node, or as the intra-node stage of the hierarchical
 * algorithms (hier.c) when it spans several.
 */
#ifndef VRED_SHM_H
#define VRED_SHM_H

#include "coll/shm/node.h"
#include "coll/shm/sync.h"

typedef struct {
    vred_node *n;
    const vred_entry *e;  /* the kernel (NULL for bcast/allgather) */
    size_t esize;         /* bytes per element */
    const void *sbuf;     /* == rbuf: in place */
    void *rbuf;
    size_t count;         /* elements: reduce/allreduce/bcast; allgather: per rank; reduce_scatter: sum */
    const size_t *counts; /* reduce_scatter: each node rank's block; NULL otherwise */
    int root;             /* node rank (reduce, bcast) */
} vred_shm_args;

/* Slice size in elements for a message of `count` elements split over p ranks: the paper's
 * I = max(min(s/p, I_max), cache line). */
size_t vred_shm_slice(const vred_shm *s, size_t count, size_t esize, int p);

/* Movement-avoiding (ma_*.c; socket-aware when n->sockets > 1) and DPML-like (dpml.c).
 * MPI_SUCCESS, or (the MA engine of ma.c: allreduce, reduce_scatter, and reduce over socket
 * groups) an MPI error class negated where the ranks found that they passed different counts,
 * datatypes or roots: every rank of the node returns it, with the region's state equal on all
 * (ma.c, put_args). */
int vred_shm_reduce_scatter_ma(const vred_shm_args *a);
int vred_shm_allreduce_ma(const vred_shm_args *a);
int vred_shm_reduce_ma(const vred_shm_args *a);
int vred_shm_reduce_scatter_dpml(const vred_shm_args *a);
int vred_shm_allreduce_dpml(const vred_shm_args *a);
int vred_shm_reduce_dpml(const vred_shm_args *a);
/* Pipelined through double-buffered slices (bcast_pipe.c, allgather_pipe.c). */
int vred_shm_bcast_pipe(const vred_shm_args *a);
int vred_shm_allgather_pipe(const vred_shm_args *a);
/* Single copy by cross-memory attach where the node agreed it works (bcast_cma.c,
 * allgather_cma.c; cma.h); the pipeline above otherwise. */
int vred_shm_bcast_cma(const vred_shm_args *a);
int vred_shm_allgather_cma(const vred_shm_args *a);
/* The reductions by cross-memory attach (cma_reduce.c): each rank reduces its block reading the
 * peers' send buffers and writes the sum into the receive buffers that need it; the
 * movement-avoiding algorithm where the node has no cross-memory attach. */
int vred_shm_allreduce_cma(const vred_shm_args *a);
int vred_shm_reduce_cma(const vred_shm_args *a);
int vred_shm_reduce_scatter_cma(const vred_shm_args *a);

/* bcast and allgather of a few KiB in one step that also carries the front's agreement
 * (small.c), on a one-node communicator whose node ranks are its ranks. fits: 1 if a call of
 * `block` bytes (allgather: per rank) is small enough. */
int vred_shm_small_fits(const vred_shm *s, int bcast, size_t block, int p);
/* allgather: every rank's ok and place into out[] as vred_front_agree gives them (out[0] all
 * ok, out[1] / -out[2] the least / greatest root, all 0 here, out[3] / -out[4] the least /
 * greatest place of the call in the bank: ranks that differ there, only after erroneous input,
 * get out[0] = 0); 1 if every rank was ok, and then every rank's rbuf holds the whole result,
 * else 0 and nothing any rank wrote is read. */
int vred_shm_small_allgather(vred_shm *s, const void *sbuf, void *rbuf, size_t block, int ok,
                             int out[5]);
/* bcast: the root (ok: it can be served) returns once its message is in the bank; a receiver
 * (ok: buf takes block bytes contiguously) waits for every rank's post and decides from the
 * root's arguments. Returns MPI_SUCCESS (served on this rank), VRED_SMALL_PASS (the root
 * cannot be served, or no rank names a valid root: every rank passes the call to the MPI), or
 * an error class for this rank alone: MPI_ERR_ROOT (the ranks name different roots; not seen
 * by a rank that names itself), MPI_ERR_TRUNCATE (the root's message is longer than block),
 * MPI_ERR_BUFFER (a receiver not ok without unpack), or what unpack returned: a receiver not ok
 * but given unpack (its datatype is not contiguous) is served by unpack(ctx, the root's bytes,
 * their count). */
enum { VRED_SMALL_PASS = -1 };
typedef int (*vred_small_unpack)(void *ctx, const void *bytes, size_t n);
int vred_shm_small_bcast(vred_shm *s, void *buf, size_t block, int root, int ok,
                         vred_small_unpack unpack, void *ctx);

/* The host's slow spells (spell.c): the time of rounds that carry 64 KiB from one of the node's
 * cores to the others through the banks with ordinary stores over their time with streaming
 * stores (under 1 on a quiet machine, several times 1 in a spell); 0 where there is nothing to
 * measure (one rank, banks of a few pages, no memory). Collective over the node. */
double vred_shm_spell_ratio(vred_shm *s);

/* The front's agreement alone (vred_front_agree, for a call the one-step path does not take),
 * through the control lines: one post and a wait for every peer's, no round, nothing in the
 * banks. out[] as for vred_shm_small_allgather. */
void vred_shm_agree(vred_shm *s, int root, int ok, int key, int out[5]);
/* The same agreement in two halves, for an algorithm that has work to do before it needs the
 * answer: begin publishes this rank's arguments and posts; end waits for every peer's post and
 * gathers. vred_shm_agree is begin then end. */
void vred_shm_agree_begin(vred_shm *s, int root, int ok, int key);
void vred_shm_agree_end(vred_shm *s, int out[5]);

/* A pipelined bcast on one node whose agreement the front has begun (vred_shm_agree_begin,
 * with the message's bytes as key): the root stores its first slice before it waits for the
 * others' arguments, so that in a loop of calls that copy overlaps the receivers' last copies
 * of the call before, where waiting first left the pipeline empty at every call's start. ok:
 * this rank's own verdict (as for the agreement). Fills out[] as vred_shm_agree does and
 * returns 1 if the call was served: every rank ok, one root, one message size; else nothing
 * was moved (0) and the front decides (bcast_pipe.c). */
int vred_shm_bcast_pipe_agreeing(const vred_shm_args *a, int ok, int out[5]);

/* 1 if a message of `bytes` fits the DPML-like algorithm: every rank's whole buffer in one bank
 * (dpml.c; asked by entry.c only). */
int vred_shm_dpml_fits(const vred_shm *s, size_t bytes);

#endif
