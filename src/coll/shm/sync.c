/* Waiting on peers' control lines (see sync.h). */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <mpi.h>
#include "coll/shm/sync.h"

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Spin this many polls before yielding: long enough to catch a peer that is a few microseconds
 * behind on its own core, short enough not to starve a peer that shares ours. */
enum { SPIN = 4000, PROGRESS_EVERY = 64, CHECK_EVERY = 1 << 14 };

/* While we wait, a peer may be inside the MPI waiting for a message of ours from an earlier
 * point-to-point call that the MPI has not finished delivering (the end of a large transfer,
 * a control message queued behind a full FIFO): only our own MPI calls push it out. The MPI
 * promises no progress outside its calls, so a wait that never entered the MPI deadlocked
 * (found with a 128 MiB ring allreduce followed by a movement-avoiding one, Open MPI, 2 ranks).
 * An Iprobe on the node's communicator runs the MPI's progress engine and consumes nothing. */
static void progress(const vred_shm *s)
{
    int flag = 0;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, s->comm, &flag, MPI_STATUS_IGNORE);
}

/* A peer that no longer exists will never publish: end the job rather than hang. */
static void check_alive(const vred_shm *s, int peer)
{
    pid_t pid = __atomic_load_n(&s->ctl[peer].pid, __ATOMIC_RELAXED);
    if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH) {
        fprintf(stderr, "vred: node rank %d (pid %d) has died during a shared-memory "
                        "collective; aborting\n", peer, (int)pid);
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void wait_counter(const vred_shm *s, int peer, const uint64_t *counter, uint64_t value)
{
    if (__atomic_load_n(counter, __ATOMIC_ACQUIRE) >= value) return;
    for (unsigned long polls = 1;; polls++) {
        if (__atomic_load_n(counter, __ATOMIC_ACQUIRE) >= value) return;
        if (polls < SPIN) cpu_relax();
        else sched_yield();
        if (polls >= SPIN && polls % PROGRESS_EVERY == 0) progress(s);
        if (polls % CHECK_EVERY == 0 && s->check_peers) check_alive(s, peer);
    }
}

void vred_shm_wait(const vred_shm *s, int peer, uint64_t value)
{
    wait_counter(s, peer, &s->ctl[peer].seq, value);
}

void vred_shm_wait_all(const vred_shm *s, uint64_t value)
{
    for (int i = 0; i < s->size; i++)
        if (i != s->rank) vred_shm_wait(s, i, value);
}

char *vred_shm_round_begin(vred_shm *s)
{
    s->round++;
    if (s->round > 2)
        for (int i = 0; i < s->size; i++)
            if (i != s->rank) wait_counter(s, i, &s->ctl[i].round_done, s->round - 2);
    return s->bank[s->round & 1];
}
