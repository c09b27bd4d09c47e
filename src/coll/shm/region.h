/*
 * A node's shared region: one segment mapped by every rank of a node communicator, holding one
 * control line per rank and two data banks. Created lazily by the first shared-memory
 * collective on a communicator, cached with it, unmapped with it.
 *
 * Security and cleanup: the node's first rank makes the segment, mode 0600, with its pages
 * reserved (posix_fallocate: a full segment is an error here, not a SIGBUS later). By default
 * it is a memfd, which never has a name: the others open it through the first rank's
 * descriptor in /proc and check that it is that very file, the user's, mode 0600 (region.c).
 * Where they cannot, it is a file in /dev/shm made with O_CREAT|O_EXCL under an unpredictable
 * name (getrandom), which the others open and check likewise, unlinked as soon as every rank
 * has mapped it: after that no name is left in /dev/shm even if a rank is killed.
 */
#ifndef VRED_SHM_REGION_H
#define VRED_SHM_REGION_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <mpi.h>
#include "coll/shm/stores.h"

/* Size classes of the private per-size tables: log2 of a call's bytes. */
enum { VRED_SHM_CLASSES = 48 };

/* One rank's control line; written only by its owner, read by everyone. Pairs of cache lines, so
 * that the adjacent-line prefetcher does not make neighbours share; the first holds what every
 * step's waiters read (seq, round_done, the small calls' arguments). */
typedef struct {
    _Alignas(128) uint64_t seq; /* steps the owner has published (atomic, release/acquire) */
    uint64_t round_done;        /* rounds whose bank the owner has finished reading */
    /* The owner's arguments in the call of each round parity, in one word: a one-step bcast's
     * or allgather's (ok, root, layout key; small.c), a reduction's (count, datatype, root;
     * stamp.h); and in an agreement alone (ok, root, key, by the agreements' parity; small.c).
     * Two copies each, so that a rank one step ahead does not overwrite what a slower peer has
     * still to read. In the line with seq: a peer that sees the post has them in the same
     * transfer (2 ranks, Xeon guest, pipe, medians of 6 alternating runs: allgather 1 KiB
     * 0.90 -> 0.81 us, 4 KiB 1.44 -> 1.35; bcast 1 KiB 0.79 -> 0.70, 4 KiB 1.17 -> 1.12,
     * over Open MPI 4.1; the same direction over MPICH 4.0); the call's in one store, which
     * takes the line back from a polling peer once with the post's (stamp.h). */
    uint64_t call[2];
    int32_t agree[2][3];
    /* Cross-memory attach (cma.h): published before a post, read after observing it. */
    uint64_t cma_addr;          /* where peers read from in the owner's memory */
    uint64_t cma_out;           /* where peers write to in the owner's memory (cma_reduce.c):
                                   the receive buffer of the current call, or 0 */
    uint64_t cma_word;          /* a word of the owner's that peers may write (the probe's and
                                   each reduction's check that writes still work) */
    uint64_t cma_bad;           /* the step (seq value) whose read failed on the owner; 0 none */
    uint64_t cma_token;         /* the probe: the value peers must find at cma_addr */
    uint64_t cma_stamp;         /* a CMA reduction's arguments (stamp.h), or a CMA bcast's
                                   reader's bytes (bcast_cma.c); with cma_addr */
    uint64_t cma_step;          /* the step that published cma_stamp (cma_reduce.c) */
    int32_t cma_ready;          /* the owner can take part in the current CMA reduction
                                   (cma_reduce.c); published with cma_addr and cma_out */
    float cma_share;            /* a reduce's root: the share of the vector it reduces in the
                                   current call; an allreduce's rank: its part, a multiple of
                                   1/p (cma_split.h); published with cma_out */
    uint32_t cma_work_ns;       /* the owner's work in the current CMA reduction (steps 2
                                   and 3, waits left out), ns, saturated; published with its
                                   last post */
    uint32_t cma_bcast_ns;      /* a CMA bcast's reader's read, ns, saturated; apart from
                                   cma_work_ns, which a peer still reads after an allreduce
                                   while this rank may already be in a bcast (bcast_cma.c) */
    /* A long wait (sync.c): published once the owner has waited CHECK_S, never on a wait's
     * fast path, and read only by peers that wait long too (the deadlock check). In lines of
     * their own: writing them does not disturb peers polling seq. */
    _Alignas(128) uint64_t wait_serial; /* nonzero (the owner's count of long waits) while it
                                           waits long; 0 otherwise */
    uint64_t wait_value;        /* the value it waits for, in node rank wait_peer's counter */
    int32_t wait_peer;
    int32_t wait_round;         /* 1: the counter is round_done, 0: seq */
    uint64_t mpi_serial;        /* nonzero (the owner's count of such calls) while the MPI
                                   serves its current call on the region's communicator: passed
                                   on, or the calibration of a size class (vred_shm_mpi_begin) */
    int32_t call_coll;          /* the collective it is in (vred_coll; -1 unknown), */
    int32_t call_alg;           /* the algorithm serving it (vred_alg), */
    uint64_t call_bytes;        /* and its bytes (vred_shm_note_call) */
    /* Written once, when the region is made; read by the probe and the dead-peer check. */
    uint64_t pidns_dev, pidns_ino; /* the owner's PID namespace (its /proc/self/ns/pid) */
    pid_t pid;                  /* the owner, for telling a dead peer from a slow one */
} vred_shm_ctl;
_Static_assert(sizeof(vred_shm_ctl) == 256, "a control line is two cache lines for the steps "
                                            "and two for a long wait's record");

typedef struct {
    void *base;          /* the mapping */
    size_t map_bytes;
    vred_shm_ctl *ctl;   /* ctl[i]: node rank i */
    char *bank[2];       /* the data banks, each bank_bytes, 4 KiB aligned */
    size_t bank_bytes;   /* at least slices_bytes; more where a bank is made to hold a core's
                            private cache (region.c, bank_floor): rounds rotate through it
                            (sync.h), and the pipelined bcast's largest slices fill it */
    size_t slices_bytes; /* p slices of slice_max, what the per-rank algorithms use of a bank */
    size_t share;        /* what the region costs this rank's VRED_SHM_LIMIT (budget.h) */
    int reduced;         /* slice_max is below what was asked for: the budget was short */
    size_t slice_max;    /* I_max: the largest slice an algorithm puts per rank in a bank */
    int rank, size;      /* in the node */
    int check_peers;     /* the peers' pids are visible here (same PID namespace): a waiter can
                            tell a dead peer from a slow one */
    int yield;           /* the node's ranks outnumber the CPUs they may run on: a waiter gives
                            its core away (sync.c, vred_shm_oversubscribed) */
    int cma;             /* cross-memory attach to every peer works (reads and writes), agreed
                            by all ranks of the communicator at creation (cma.h); 0 after a
                            read or write failed in a call */
    uint64_t cma_probe;  /* private: the token peers read here when probing (cma.c) */
    uint64_t cma_word;   /* private: the word peers write (vred_shm_ctl.cma_word points here) */
    void *cma_buf;       /* private: the reductions' two blocks (cma_reduce.c), made at their
                            first call; NULL before */
    char *cma_hold;      /* private: an in-place reduce_scatter's sum held until every rank has
                            read its input (cma_reduce.c), cma_hold_bytes long; NULL before */
    size_t cma_hold_bytes;
    float cma_part[VRED_SHM_CLASSES]; /* private: this rank's part of an allreduce, by size
                                         class (cma_split.h); 0: not yet (the even part) */
    float *cma_parts;    /* private: the parts the node's ranks published for the current
                            allreduce (size floats), made with cma_buf */
    float cma_share[VRED_SHM_CLASSES]; /* private: this rank's share as a reduce's root, by
                                          size class (log2 bytes; cma_split.h); 0: not yet */
    float cma_bcast_share[VRED_SHM_CLASSES]; /* private: the same as a bcast's root: the part
                                                it writes into each reader (bcast_cma.c) */
    MPI_Comm comm;       /* the node's communicator: a long wait drives the MPI's progress on it
                            (sync.c) */
    vred_stores_table stores; /* private: how this rank's copies into the banks ran, by use and
                                 size class (stores.h) */
    /* This rank's counters; equal on every rank between collectives, because every rank runs
     * the same algorithm with the same number of steps and rounds. */
    uint64_t seq;
    uint64_t round;
    uint64_t agreements; /* vred_shm_agree calls (small.c) */
    size_t bank_next[2]; /* where the next round in each bank starts (sync.h, round_begin) */
} vred_shm;

/* The least slice a region is made with (a smaller budget makes no region). */
enum { VRED_SHM_SLICE_MIN = 4096 };

/* Creates and maps the region of `node` (collective over node): banks of slice_max per rank, or
 * smaller slices (down to VRED_SHM_SLICE_MIN) where that does not fit the least VRED_SHM_LIMIT
 * budget left on the node (budget.h). Returns NULL on every rank if any rank failed or could
 * not afford it (then *why says why on this rank: "" if this rank was fine). */
vred_shm *vred_shm_create(MPI_Comm node, size_t slice_max, const char **why);
void vred_shm_destroy(vred_shm *s);

#endif
