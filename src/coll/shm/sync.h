/*
 * Synchronisation through the region's control lines: C11 atomics, release on publish, acquire
 * on observe, so that data written before a publish is visible to whoever sees the count.
 *
 * Two monotonic counters per rank:
 *  - seq: steps published. All ranks of a node run the same steps, so a rank that wants its
 *    peer's k-th step of this collective waits for peer.seq >= (its own seq at entry) + k.
 *  - round_done: the last round whose bank the rank has finished reading. A round (a whole small
 *    collective, or one chunk of a large one) uses bank round & 1; before writing that bank,
 *    a rank waits until every peer is done with the round two before. Banks alternate, so a
 *    fast rank runs a round ahead without a barrier.
 *
 * Waiting spins (with pause). With more ranks than CPUs on the node (s->yield) a waiter yields
 * its core after a short spin, since the peer it waits for may need that very core. Otherwise it
 * spins about a millisecond first, as the MPIs' own busy-polling does not yield: a yield hands
 * the core to whatever other process is runnable (a daemon, a niced job) for the rest of a
 * scheduler tick, and every rank then waits milliseconds for a step of microseconds. A peer that has died (kill(pid, 0)
 * fails) ends the job with a message instead of a hang.
 */
#ifndef VRED_SHM_SYNC_H
#define VRED_SHM_SYNC_H

#include "config.h"
#include "coll/shm/region.h"

/* Publish one step: everything this rank wrote before is visible to a peer that observes it. */
static inline void vred_shm_post(vred_shm *s)
{
    s->seq++;
    __atomic_store_n(&s->ctl[s->rank].seq, s->seq, __ATOMIC_RELEASE);
}

/* 1 if the node's ranks outnumber the CPUs in the union of their affinity masks (more ranks
 * than cores: oversubscribed), else 0. Collective over node (one allreduce of the masks). */
int vred_shm_oversubscribed(MPI_Comm node, int size);

/* Wait until `peer` has published its step number `value` (absolute). A wait that lasts goes on
 * driving the MPI's progress, ends the job if the peer has died, and ends it with a message if
 * every rank of the node waits so with none able to go on (sync.c: a deadlock, from ranks that
 * passed different arguments). */
void vred_shm_wait(const vred_shm *s, int peer, uint64_t value);

/* The collective this thread runs now (a vred_coll, the vred_alg serving it, its bytes), named
 * by a deadlock's message. The front sets it before each call it serves. */
void vred_shm_note_call(int coll, int alg, uint64_t bytes);

/* The MPI serves this thread's current call (a vred_coll of `bytes`) on the communicator of s,
 * one node's (passed on by the selection, or calibrating a size class): marked in this rank's
 * control line until vred_shm_mpi_end, so that peers left waiting in the region for a step of
 * this rank can tell a deadlock (sync.c). s may be NULL (nothing marked). */
void vred_shm_mpi_begin(vred_shm *s, int coll, uint64_t bytes);
/* (the mark, NULL if none: a pass the front already knew leaves none, and pays one load) */
extern VRED_TLS vred_shm_ctl *vred_shm_mpi_mark;
void vred_shm_mpi_unmark(void);
static inline void vred_shm_mpi_end(void)
{
    if (vred_shm_mpi_mark) vred_shm_mpi_unmark();
}

/* Wait until the word at `flag`, which `peer` stores into, reaches `value` (acquire), polling
 * as vred_shm_wait does (progress, the dead-peer check, yielding when oversubscribed). For
 * flags in a bank (the bcast's cells, bcast_pipe.c): the peer sets them while it copies, after
 * a post, and waits for nothing between, so only its death can hold a waiter; the deadlock
 * watch, which reads the control lines' counters, does not count such a wait. */
void vred_shm_wait_flag(const vred_shm *s, int peer, const uint64_t *flag, uint64_t value);

/* Wait until every other rank has published step `value`. */
void vred_shm_wait_all(const vred_shm *s, uint64_t value);

/* vred_shm_wait, then the peer's call word of this round (region.h), from the same transfer of
 * its line. */
uint64_t vred_shm_wait_call(const vred_shm *s, int peer, uint64_t value);

/* vred_shm_wait_all; 1 if every other rank's call word of this round is `word`. */
int vred_shm_wait_all_call(const vred_shm *s, uint64_t value, uint64_t word);

/* Begin a round that uses `bytes` of a bank (the same on every rank): where this round writes
 * and reads, in bank round & 1, once every peer has finished reading that bank in the round
 * two before. Successive rounds in a bank start where the last one ended (in whole pages, so
 * that every address keeps its offset in the page), from the start again when the rest of the
 * bank is too short; rounds of a few KiB stay at the bank's start (sync.c). Why rotate: a rank
 * storing into lines that another core read from the bank a round before waits for each line
 * to be taken back from that core's cache; lines last used a bank and more ago have left it.
 * 2 ranks on Zen 4, 64 KiB written by one core and copied out by the other, over and over:
 * the stores took 7.9-10.2 us in one place, 1.8 at rotating places of a 2 MiB region. */
char *vred_shm_round_begin(vred_shm *s, size_t bytes);

/* Take back the round just begun, of which nothing was posted (no peer has seen it), or whose
 * place in the bank no peer reads (the DPML root's, dpml.c): its number and its bank's next
 * place return to what they were. `next`: that bank's bank_next
 * before vred_shm_round_begin (s->bank_next[(s->round + 1) & 1] then). */
static inline void vred_shm_round_cancel(vred_shm *s, size_t next)
{
    s->bank_next[s->round & 1] = next;
    s->round--;
}

/* This rank has read all it needs from the current round's bank. */
static inline void vred_shm_round_end(vred_shm *s)
{
    __atomic_store_n(&s->ctl[s->rank].round_done, s->round, __ATOMIC_RELEASE);
}

#endif
