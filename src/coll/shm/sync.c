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
#include "config.h"
#include "coll/fail.h"
#include "next/next.h"
#include "coll/clock.h"

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


/* pid's state letter in /proc/PID/stat (R, S, T, Z, ...), or 0 if it cannot be read. */
static char proc_state(pid_t pid)
{
    char path[32], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    /* "pid (comm) S ...": the state follows the last ')' (comm may hold one). */
    const char *r = strrchr(buf, ')');
    return r && r[1] == ' ' ? r[2] : 0;
}

/* 1 if pid has exited: gone (ESRCH), or a zombie its parent has not reaped yet (kill() still
 * succeeds on those; a launcher that keeps going after a rank died may reap late or never). */
static int has_exited(pid_t pid)
{
    if (kill(pid, 0) != 0) return errno == ESRCH;
    char st = proc_state(pid);
    return st == 'Z' || st == 'X';
}

/* A peer that no longer exists will never publish: end the job rather than hang. */
static void check_alive(const vred_shm *s, int peer)
{
    pid_t pid = __atomic_load_n(&s->ctl[peer].pid, __ATOMIC_RELAXED);
    if (pid > 0 && has_exited(pid)) {
        fprintf(stderr, "vred: node rank %d (pid %d) has died during a shared-memory "
                        "collective; aborting\n", peer, (int)pid);
        vred_abort_job();
    }
}

/* The collective this thread is in, for a long wait's record (vred_shm_note_call). */
static VRED_TLS int call_coll = -1, call_alg = -1;
static VRED_TLS uint64_t call_bytes;

void vred_shm_note_call(int coll, int alg, uint64_t bytes)
{
    call_coll = coll, call_alg = alg, call_bytes = bytes;
}

/* This thread's mark that the MPI serves its call (vred_shm_mpi_begin): its control line, NULL
 * if none. */
VRED_TLS vred_shm_ctl *vred_shm_mpi_mark;

void vred_shm_mpi_begin(vred_shm *s, int coll, uint64_t bytes)
{
    if (!s) return;
    static VRED_TLS uint64_t calls;
    vred_shm_ctl *me = &s->ctl[s->rank];
    __atomic_store_n(&me->call_coll, coll, __ATOMIC_RELAXED);
    __atomic_store_n(&me->call_alg, -1, __ATOMIC_RELAXED);
    __atomic_store_n(&me->call_bytes, bytes, __ATOMIC_RELAXED);
    __atomic_store_n(&me->mpi_serial, ++calls, __ATOMIC_RELEASE);
    vred_shm_mpi_mark = me;
}

void vred_shm_mpi_unmark(void)
{
    __atomic_store_n(&vred_shm_mpi_mark->mpi_serial, 0, __ATOMIC_RELEASE);
    vred_shm_mpi_mark = NULL;
}

/*
 * Deadlock: every rank of the node is stuck, and nothing moves for DEADLOCK_S. Stuck: waiting
 * long for a counter its peer has not reached (no rank can post while it waits, so if all wait
 * so, no wait can ever end), or inside the MPI on the region's communicator in a call the front
 * passed on or a calibration (vred_shm_mpi_begin), while the others wait in the region for it:
 * its MPI collective needs them, and they are in another call (for DEADLOCK_MPI_S, longer: a
 * rank may legitimately still be finishing an MPI call its peers have left, if it gets no
 * core). Either way the ranks run different calls or steps: an erroneous program (counts,
 * roots or collectives that differ between ranks make them take different algorithms, or one
 * rank measure a size class the others do not: docs/reliability.md). A rank whose wait is over
 * but that has not run since (descheduled, stopped in a debugger) is not stuck: its counter is
 * reached. Such a job would hang for ever; it ends with a message naming what each rank is in
 * instead. Only ranks that wait long look (the record is written after CHECK_S of waiting),
 * so the check costs nothing on a wait that ends in time.
 */
static const double DEADLOCK_S = 2.0, DEADLOCK_MPI_S = 10.0;

typedef struct {
    uint64_t serials; /* a hash of every rank's wait_serial and mpi_serial, as last seen */
    double since;     /* when every rank was first seen stuck with those; 0: not all stuck */
    int in_mpi;       /* some rank was stuck inside the MPI */
} deadlock_watch;

static const uint64_t *counter_of(const vred_shm *s, int peer, int round)
{
    return round ? &s->ctl[peer].round_done : &s->ctl[peer].seq;
}

/* This rank's long wait into its record (what it waits for and what it is in), or out (0). */
static void publish_wait(const vred_shm *s, int peer, int round, uint64_t value, int on)
{
    vred_shm_ctl *me = &s->ctl[s->rank];
    if (!on) {
        __atomic_store_n(&me->wait_serial, 0, __ATOMIC_RELEASE);
        return;
    }
    __atomic_store_n(&me->wait_value, value, __ATOMIC_RELAXED);
    __atomic_store_n(&me->wait_peer, peer, __ATOMIC_RELAXED);
    __atomic_store_n(&me->wait_round, round, __ATOMIC_RELAXED);
    __atomic_store_n(&me->call_coll, call_coll, __ATOMIC_RELAXED);
    __atomic_store_n(&me->call_alg, call_alg, __ATOMIC_RELAXED);
    __atomic_store_n(&me->call_bytes, call_bytes, __ATOMIC_RELAXED);
    static VRED_TLS uint64_t waits;
    __atomic_store_n(&me->wait_serial, ++waits, __ATOMIC_RELEASE);
}

/* 1 if node rank i's process is stopped (SIGSTOP, a debugger's stop): it goes on once
 * continued, so it is not stuck whatever it waits for or is in. Only where the ranks' pids are
 * this process's namespace's (check_peers). */
static int stopped(const vred_shm *s, int i)
{
    if (!s->check_peers) return 0;
    char st = proc_state(__atomic_load_n(&s->ctl[i].pid, __ATOMIC_RELAXED));
    return st == 'T' || st == 't';
}

/* 1 if rank i waits long for a counter not reached (*serial: that wait's), 2 if it is inside
 * the MPI (*serial: that call's), else 0. A rank stopped inside the MPI (gdb attached to it
 * for more than DEADLOCK_MPI_S) counted as stuck there and ended a correct job. */
static int stuck(const vred_shm *s, int i, uint64_t *serial)
{
    const vred_shm_ctl *c = &s->ctl[i];
    int how;
    *serial = __atomic_load_n(&c->wait_serial, __ATOMIC_ACQUIRE);
    if (*serial) {
        int peer = __atomic_load_n(&c->wait_peer, __ATOMIC_RELAXED);
        int round = __atomic_load_n(&c->wait_round, __ATOMIC_RELAXED);
        uint64_t value = __atomic_load_n(&c->wait_value, __ATOMIC_RELAXED);
        how = peer >= 0 && peer < s->size &&
              __atomic_load_n(counter_of(s, peer, round), __ATOMIC_ACQUIRE) < value;
    } else {
        *serial = __atomic_load_n(&c->mpi_serial, __ATOMIC_ACQUIRE);
        how = *serial ? 2 : 0;
    }
    return how && stopped(s, i) ? 0 : how;
}

/* 1 if every rank is stuck, and in the same waits and calls as at the last look (w->serials);
 * w updated. */
static int all_stuck(const vred_shm *s, deadlock_watch *w)
{
    uint64_t h = 0, serial;
    int in_mpi = 0;
    for (int i = 0; i < s->size; i++) {
        int how = stuck(s, i, &serial);
        if (!how) return 0;
        in_mpi |= how == 2;
        h = (h ^ serial ^ (uint64_t)how << 62) * 0x100000001b3ull; /* a new wait or call changes it */
    }
    int same = h == w->serials;
    w->serials = h;
    w->in_mpi = in_mpi;
    return same;
}

static void report_deadlock(const vred_shm *s)
{
    fprintf(stderr, "vred: the ranks of a node wait for each other in shared-memory collectives "
                    "and none can go on: they are in different collectives, or passed counts, "
                    "roots or operations that differ between ranks (an erroneous program; "
                    "without vred the MPI may report it, or hang too). Aborting. The ranks:\n");
    for (int i = 0; i < s->size; i++) {
        const vred_shm_ctl *c = &s->ctl[i];
        uint64_t serial;
        int coll = __atomic_load_n(&c->call_coll, __ATOMIC_RELAXED);
        if (stuck(s, i, &serial) == 2) {
            fprintf(stderr, "vred:   node rank %d (pid %d): in %s of %llu bytes, inside the MPI "
                            "(passed on, or measuring this size for vred's selection)\n",
                    i, (int)__atomic_load_n(&c->pid, __ATOMIC_RELAXED),
                    coll >= 0 ? vred_coll_name((vred_coll)coll) : "?",
                    (unsigned long long)__atomic_load_n(&c->call_bytes, __ATOMIC_RELAXED));
            continue;
        }
        int peer = __atomic_load_n(&c->wait_peer, __ATOMIC_RELAXED);
        int round = __atomic_load_n(&c->wait_round, __ATOMIC_RELAXED);
        int alg = __atomic_load_n(&c->call_alg, __ATOMIC_RELAXED);
        fprintf(stderr, "vred:   node rank %d (pid %d): in %s of %llu bytes (vred's %s), "
                        "waits for node rank %d's %s %llu (it is at %llu)\n",
                i, (int)__atomic_load_n(&c->pid, __ATOMIC_RELAXED),
                coll >= 0 ? vred_coll_name((vred_coll)coll) : "?",
                (unsigned long long)__atomic_load_n(&c->call_bytes, __ATOMIC_RELAXED),
                alg >= 0 ? vred_alg_name((vred_alg)alg) : "?", peer,
                round ? "round" : "step",
                (unsigned long long)__atomic_load_n(&c->wait_value, __ATOMIC_RELAXED),
                (unsigned long long)__atomic_load_n(counter_of(s, peer, round),
                                                    __ATOMIC_RELAXED));
    }
    vred_abort_job();
}

/* A look, every CHECK_S of a long wait: a dead peer ends the job (check_alive); so does a
 * deadlock that has lasted DEADLOCK_S (DEADLOCK_MPI_S), reported by the lowest waiting rank,
 * or by any rank after twice that (that rank may not get the core). */
static void look(const vred_shm *s, int peer, deadlock_watch *w, double t)
{
    if (s->check_peers) check_alive(s, peer);
    if (!all_stuck(s, w)) {
        w->since = 0;
        return;
    }
    int first = 0;
    while (first < s->size && !__atomic_load_n(&s->ctl[first].wait_serial, __ATOMIC_RELAXED))
        first++;
    double limit = (w->in_mpi ? DEADLOCK_MPI_S : DEADLOCK_S) * (s->rank == first ? 1 : 2);
    if (w->since == 0) w->since = t;
    else if (t - w->since >= limit) report_deadlock(s);
}

/* The wait once the counter was seen short: out of line, so that the callers keep the first
 * look inline (the steps of small calls mostly find the peer there already). */
static __attribute__((noinline)) void wait_polling(const vred_shm *s, int peer, int round,
                                                   const uint64_t *counter, uint64_t value)
{
    double next_check = 0;
    int published = 0;
    deadlock_watch w = {0, 0, 0};
    unsigned long spin = s->yield ? SPIN : SPIN_ALONE;
    for (unsigned long polls = 1;; polls++) {
        if (__atomic_load_n(counter, __ATOMIC_ACQUIRE) >= value) break;
        if (polls < spin) {
            cpu_relax();
            if (polls % PROGRESS_SPIN) continue;
        } else {
            sched_yield();
            if (polls % PROGRESS_YIELD) continue;
        }
        progress(s);
        double t = vred_clock_s();
        if (next_check == 0) next_check = t + CHECK_S;
        else if (t >= next_check) {
            /* A flag (round < 0) is not published: the deadlock watch reads counters. */
            if (!published && round >= 0) publish_wait(s, peer, round, value, published = 1);
            look(s, peer, &w, t);
            next_check = t + CHECK_S;
        }
    }
    if (published) publish_wait(s, peer, round, value, 0);
}

static inline void wait_counter(const vred_shm *s, int peer, int round, uint64_t value)
{
    const uint64_t *counter = counter_of(s, peer, round);
    if (__atomic_load_n(counter, __ATOMIC_ACQUIRE) < value)
        wait_polling(s, peer, round, counter, value);
}

void vred_shm_wait_flag(const vred_shm *s, int peer, const uint64_t *flag, uint64_t value)
{
    if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < value) wait_polling(s, peer, -1, flag, value);
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
    wait_counter(s, peer, 0, value);
}

void vred_shm_wait_all(const vred_shm *s, uint64_t value)
{
    for (int i = 0; i < s->size; i++)
        if (i != s->rank) vred_shm_wait(s, i, value);
}

/* The word is read right after the counter, while the line is here: a peer that stores into
 * it again soon after its post (round_done, when it has nothing to wait for) would otherwise
 * have it fetched again, and take it back once more for its next store (2 ranks, Zen 5, DPML
 * reduce of 1 KiB with the word read after vred_shm_wait_all: 99 -> 111 ns a call). */
uint64_t vred_shm_wait_call(const vred_shm *s, int peer, uint64_t value)
{
    wait_counter(s, peer, 0, value);
    return __atomic_load_n(&s->ctl[peer].call[s->round & 1], __ATOMIC_RELAXED);
}

int vred_shm_wait_all_call(const vred_shm *s, uint64_t value, uint64_t word)
{
    int same = 1;
    for (int i = 0; i < s->size; i++)
        if (i != s->rank) same &= vred_shm_wait_call(s, i, value) == word;
    return same;
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
            if (i != s->rank) wait_counter(s, i, 1, s->round - 2);
    /* Every round of this bank before this one is read by all (the wait above): a round may
     * overlap any of them. */
    if (bytes < ROTATE_MIN) return s->bank[s->round & 1];
    size_t *next = &s->bank_next[s->round & 1], at = *next, step = (bytes + 4095) / 4096 * 4096;
    if (at + step > s->bank_bytes) at = 0;
    *next = at + step;
    return s->bank[s->round & 1] + at;
}
