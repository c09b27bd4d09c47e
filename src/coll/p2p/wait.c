/*
 * Waiting for messages without holding a core another process needs.
 *
 * PMPI_Waitall busy-polls: MPICH 4.0 over UCX has no setting that makes it yield, and Open MPI
 * yields only where it knows its node is oversubscribed. Where processes that exchange messages
 * share cores without the MPI knowing (hosts as network namespaces on one machine, containers,
 * a node shared by two jobs), a waiting rank then spins through the time slice of the very rank
 * it waits for, and every message costs a slice: 3 namespaced hosts on 2 CPUs, MPICH, 1 MiB
 * allreduce at 10 Gbit/s, 10-44 ms where the link allows 1.1 ms (docs/multihost.md).
 *
 * So a wait tests (each test is the MPI's progress, as inside its own wait) for SPIN_NS, then
 * calls sched_yield between tests. Where the core is not wanted, sched_yield returns at once
 * (a fraction of a microsecond); a wait that has already lasted SPIN_NS loses nothing to it.
 */
#include "coll/p2p/wait.h"

#include <sched.h>
#include <stdint.h>
#include <time.h>

enum {
    SPIN_NS = 50000, /* busy-poll this long before yielding between tests */
    CLOCK_EVERY = 16 /* tests between two readings of the clock while spinning */
};

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Called after each test that found nothing done: spin, then yield. */
typedef struct {
    unsigned tests;
    int64_t start;
    int yielding;
} patience;

static void idle(patience *w)
{
    if (w->yielding) {
        sched_yield();
        return;
    }
    if (++w->tests % CLOCK_EVERY) return;
    int64_t t = now_ns();
    if (!w->start) w->start = t;
    else if (t - w->start > SPIN_NS) w->yielding = 1;
}

int vred_wait_all(int n, MPI_Request *reqs, MPI_Status *st)
{
    patience w = {0, 0, 0};
    for (;;) {
        int done = 0, rc = PMPI_Testall(n, reqs, &done, st);
        if (rc != MPI_SUCCESS || done) return rc;
        idle(&w);
    }
}

int vred_wait_any(int n, MPI_Request *reqs, int *index, MPI_Status *st)
{
    patience w = {0, 0, 0};
    for (;;) {
        int done = 0, rc = PMPI_Testany(n, reqs, index, &done, st);
        if (rc != MPI_SUCCESS || done) return rc;
        idle(&w);
    }
}
