/* Waiting on peers' control lines (see sync.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "coll/shm/sync.h"
#include "coll/fail.h"
#include "next/next.h"

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Polls (a pause each, some tens of ns) before a waiter starts yielding its core. Oversubscribed
 * (s->yield): SPIN, a couple of microseconds, enough for a peer running on another core that is
 * about to publish; the peer more likely shares our core and runs only once we yield. 4000
 * polls (~0.1 ms) there made 4 ranks on 2 CPUs take 114 us per 4 KiB MA allreduce, 24 with 64;
 * on namespaced hosts of one CPU and 2 ranks each a 4 MiB allreduce went from 1.14-1.24x the
 * MPI's speed to 1.23-1.39x (the other rank's spin held the core the leader's TCP transfer
 * needed). Otherwise SPIN_ALONE, about a millisecond: a step takes microseconds, so a yield
 * there would hand the core to any runnable background process for a time slice (sync.h), but
 * a wait that long means the peer is not running (another job on the node took its core), and
 * then yielding lets it run sooner.
 * While yielding, every PROGRESS_YIELD-th poll drives the MPI (below); while spinning, every
 * PROGRESS_SPIN-th: a few tens of microseconds apart either way. */
enum { SPIN = 64, SPIN_ALONE = 40000, PROGRESS_YIELD = 64, PROGRESS_SPIN = 1024 };
/* How often a waiter that yields asks whether its peer still lives. By the clock, not by polls:
 * on a busy machine one sched_yield can give the core away for a whole time slice (ms), and a
 * count of 16,384 polls then took minutes, so a job with a dead rank looked hung. */
static const double CHECK_S = 0.1;

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

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* 1 if pid has exited: gone (ESRCH), or a zombie its parent has not reaped yet (kill() still
 * succeeds on those; a launcher that keeps going after a rank died may reap late or never). */
static int has_exited(pid_t pid)
{
    if (kill(pid, 0) != 0) return errno == ESRCH;
    char path[32], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    /* "pid (comm) S ...": the state follows the last ')' (comm may hold one). */
    const char *r = strrchr(buf, ')');
    return r && (r[2] == 'Z' || r[2] == 'X');
}

/* A peer that no longer exists will never publish: end the job rather than hang. */
static void check_alive(const vred_shm *s, int peer)
{
    pid_t pid = __atomic_load_n(&s->ctl[peer].pid, __ATOMIC_RELAXED);
    if (pid > 0 && has_exited(pid)) {
        fprintf(stderr, "vred: node rank %d (pid %d) has died during a shared-memory "
                        "collective; aborting\n", peer, (int)pid);
        PMPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void wait_counter(const vred_shm *s, int peer, const uint64_t *counter, uint64_t value)
{
    if (__atomic_load_n(counter, __ATOMIC_ACQUIRE) >= value) return;
    double next_check = 0;
    unsigned long spin = s->yield ? SPIN : SPIN_ALONE;
    for (unsigned long polls = 1;; polls++) {
        if (__atomic_load_n(counter, __ATOMIC_ACQUIRE) >= value) return;
        if (polls < spin) {
            cpu_relax();
            if (polls % PROGRESS_SPIN) continue;
        } else {
            sched_yield();
            if (polls % PROGRESS_YIELD) continue;
        }
        progress(s);
        if (!s->check_peers) continue;
        double t = now();
        if (next_check == 0) next_check = t + CHECK_S;
        else if (t >= next_check) {
            check_alive(s, peer);
            next_check = t + CHECK_S;
        }
    }
}

int vred_shm_oversubscribed(MPI_Comm node, int size)
{
    /* The masks' union, not this rank's mask: ranks bound one per core have one CPU each and
     * are not oversubscribed; unbound ranks share them all. A mask that cannot be read (more
     * CPUs than cpu_set_t holds) counts as every CPU online. */
    cpu_set_t mine;
    CPU_ZERO(&mine);
    if (sched_getaffinity(0, sizeof mine, &mine) != 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        for (long c = 0; c < n && c < CPU_SETSIZE; c++) CPU_SET((int)c, &mine);
    }
    enum { WORDS = sizeof(cpu_set_t) / sizeof(unsigned long) };
    unsigned long all[WORDS];
    memcpy(all, &mine, sizeof all);
    if (vred_next()->Allreduce(MPI_IN_PLACE, all, WORDS, MPI_UNSIGNED_LONG, MPI_BOR, node) !=
        MPI_SUCCESS)
        return 1; /* unknown: yielding is the safe side (never a peer starved of its core) */
    cpu_set_t u;
    memcpy(&u, all, sizeof u);
    return size > CPU_COUNT(&u);
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

/* Rounds of fewer bytes stay at their bank's start: a few lines that both cores keep in their
 * caches cost less than fresh ones (2 ranks, Zen 4: MA reduce of 4 KiB 0.35-0.41 us in place,
 * 0.49-0.52 rotating; from 16 KiB rotating wins, 0.76-0.81 against 1.73-2.39). */
enum { ROTATE_MIN = 8 << 10 };

char *vred_shm_round_begin(vred_shm *s, size_t bytes)
{
    /* (testing: a rank that cannot go on in the middle of a shared-memory algorithm; nothing
     * there can fail for real, short of the process dying, which check_alive covers) */
    if (vred_fail_inject(VRED_FAIL_STEP))
        vred_fail("a shared-memory round (VRED_TEST_FAIL)", MPI_ERR_OTHER);
    s->round++;
    if (s->round > 2)
        for (int i = 0; i < s->size; i++)
            if (i != s->rank) wait_counter(s, i, &s->ctl[i].round_done, s->round - 2);
    /* Every round of this bank before this one is read by all (the wait above): a round may
     * overlap any of them. */
    if (bytes < ROTATE_MIN) return s->bank[s->round & 1];
    size_t *next = &s->bank_next[s->round & 1], at = *next, step = (bytes + 4095) / 4096 * 4096;
    if (at + step > s->bank_bytes) at = 0;
    *next = at + step;
    return s->bank[s->round & 1] + at;
}
