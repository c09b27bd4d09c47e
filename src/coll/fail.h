/*
 * One rank failing inside a collective algorithm (docs/reliability.md, "One rank failing").
 *
 * Once an algorithm has started, its peers may be waiting for this rank (a message, a step in
 * the shared region): a rank that cannot go on cannot tell them without a round trip that every
 * call would pay, so vred ends the job, with a message naming the rank, the collective and the
 * error, rather than leave them waiting. The fronts call vred_fail for any error an algorithm
 * returns on a communicator of two or more ranks.
 *
 * Test-only failure injection (VRED_TEST_FAIL=POINT:RANK[:N], config.c): vred_fail_inject says
 * whether this rank fails here; inert (one load and a branch) when the knob is off.
 */
#ifndef VRED_COLL_FAIL_H
#define VRED_COLL_FAIL_H

#include <mpi.h>

typedef enum {
    VRED_FAIL_ALLOC = 1,
    VRED_FAIL_PMPI = 2,
    VRED_FAIL_STEP = 3,
    VRED_FAIL_MEMFD = 4 /* node rank 0 cannot make the memfd, another cannot open it (region.c) */
} vred_fail_point;

/* 1 if VRED_TEST_FAIL says this rank fails at `point` now (its N-th time here). */
int vred_fail_inject(vred_fail_point point);

/* Prints one line (rank, what failed, the MPI error's text) and aborts the job: never returns. */
_Noreturn void vred_fail(const char *what, int rc);

/* Ends the job after a message on stderr (vred_fail's, a dead peer's, a deadlock's), giving the
 * launcher a moment to forward it first. */
_Noreturn void vred_abort_job(void);

#endif
