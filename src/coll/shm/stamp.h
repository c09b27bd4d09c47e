/*
 * A reduction's arguments as every rank of the node must pass them (MPI-4.1 6.9.1: the same
 * count, datatype and root), published by each rank in its control line where an algorithm's
 * ranks would otherwise run different numbers of rounds, or take different places in a bank, on
 * erroneous input, and compared once the algorithm's own waits have made them visible
 * (docs/reliability.md, "Mismatched counts").
 *
 * Why: ranks that cut a message by different counts run different numbers of rounds, or take
 * places of different sizes in a bank, after which their counters and places stay apart and
 * every later valid call reads the wrong data. The users: the MA engine (ma.c), the reduce's
 * chain at one socket (ma_reduce.c) and the DPML-like small reductions (dpml.c).
 *
 * Where: one word, call[round parity] of the line every step's waiter reads anyway (region.h;
 * the round protocol keeps a peer two rounds back from reading it while it is rewritten; the
 * one-step bcast and allgather keep theirs there too), stored right before the post.
 */
#ifndef VRED_SHM_STAMP_H
#define VRED_SHM_STAMP_H

#include <stdint.h>
#include "coll/shm/region.h"

/* Whose steps a rank runs: ranks in different algorithms cannot be kept in step. */
typedef enum { VRED_STAMP_MA = 1, VRED_STAMP_CHAIN = 2, VRED_STAMP_DPML = 3 } vred_stamp_alg;

/* Bits 0-31 the count (below 2^31; else mixed, with bit 31 set), 32-39 the element size, 40-41
 * the algorithm, 42-63 the root + 1 (0: none). */
typedef uint64_t vred_shm_stamp;

enum { VRED_STAMP_ES_SHIFT = 32, VRED_STAMP_ALG_SHIFT = 40, VRED_STAMP_ROOT_SHIFT = 42 };

/* count: elements (the whole message's for reduce_scatter); root: a node rank, or -1. Element
 * sizes above 255 (none of vred's types) and roots above 2^22 keep their low bits: a difference
 * there could pass unseen, never a valid call refused. Inline: it is on every small
 * reduction's path. */
static inline vred_shm_stamp vred_shm_stamp_of(vred_stamp_alg alg, size_t esize, int root,
                                               uint64_t count)
{
    uint64_t mixed = count * 0x9E3779B97F4A7C15ull; /* every bit of the count in the upper half */
    uint64_t c = count < (1ull << 31) ? count : ((mixed >> 32 ^ mixed) & 0xFFFFFFFFu) | 1ull << 31;
    return c | (uint64_t)(esize & 0xFF) << VRED_STAMP_ES_SHIFT |
           (uint64_t)alg << VRED_STAMP_ALG_SHIFT |
           (uint64_t)(uint32_t)(root + 1) << VRED_STAMP_ROOT_SHIFT;
}
size_t vred_shm_stamp_esize(vred_shm_stamp t);
int vred_shm_stamp_alg(vred_shm_stamp t); /* a vred_stamp_alg */
int vred_shm_stamp_root(vred_shm_stamp t);
/* The count, or UINT64_MAX where it is 2^31 or more (kept mixed, not exact, then). */
uint64_t vred_shm_stamp_count(vred_shm_stamp t);

/* Into this rank's control line, right before the post that makes it visible to the peers. */
static inline void vred_shm_stamp_publish(vred_shm *s, vred_shm_stamp mine)
{
    __atomic_store_n(&s->ctl[s->rank].call[s->round & 1], mine, __ATOMIC_RELAXED);
}

/* Node rank `peer`'s stamp of the current round: only after a wait that has seen its post of
 * this round (directly or through a peer that waited for it). */
static inline vred_shm_stamp vred_shm_stamp_read(const vred_shm *s, int peer)
{
    return __atomic_load_n(&s->ctl[peer].call[s->round & 1], __ATOMIC_RELAXED);
}

/* MPI_SUCCESS if every other rank's arguments equal mine, else the error class the difference
 * earns: MPI_ERR_TYPE (element sizes differ), MPI_ERR_ROOT, MPI_ERR_COUNT; ranks in another
 * algorithm differ in count (the selection depends on nothing else). The same class on every
 * rank that compares them all. Only after waits that have seen every peer's post of this round
 * (directly or through a peer that waited for it). The common case, one peer's word equal to
 * mine, is vred_shm_wait_call's (sync.h), read with the post. */
int vred_shm_stamp_verdict(const vred_shm *s, vred_shm_stamp mine);

/* The same over words kept elsewhere in the control lines: `read` gives node rank i's (the
 * reductions by cross-memory attach keep theirs with their addresses, cma_reduce.c). */
typedef vred_shm_stamp (*vred_shm_stamp_reader)(const vred_shm *s, int i);
int vred_shm_stamp_verdict_by(const vred_shm *s, vred_shm_stamp mine, vred_shm_stamp_reader read);

/* Ranks whose calls differ so that they cannot be kept in step: one line naming each rank's
 * (mine for this rank, the published one for the others), then the job ends. */
_Noreturn void vred_shm_stamp_abort(const vred_shm *s, vred_shm_stamp mine, const char *coll);

#endif
