/*
 * The local layer's thread pool: one owner at a time splits an element-wise reduction into one
 * part per thread (whole elements, on 64-byte boundaries of out), each part into chunks of
 * ~CHUNK_BYTES, and every thread, the owner included, claims chunks: its own part's first, then
 * what is left of the others'. See threads.h for the contract and docs/threads.md for the
 * measurements behind the constants below.
 *
 * Why claims and not fixed parts: a worker that is slow to start (woken from sleep: ~10-50 us in
 * a VM; or its core taken by another rank) does not hold the owner up: the owner does the work
 * itself and waits at most for chunks a worker has actually started. Fixed parts made a 2-thread
 * reduction slower than 1 thread whenever the second core was busy.
 *
 * Protocol. `gen` packs a sequence number (high bits) and the number of parts (low 9 bits; 0 =
 * stop). The owner (holder of `busy`) writes `job`, stores each part's cursor (sequence | chunks |
 * next chunk) with release, sets `remaining` to the number of chunks and publishes `gen`; it
 * broadcasts `go` only if some worker sleeps. A worker that sees a new `gen` claims chunks with a
 * compare-and-swap that also checks the sequence, so a worker late for a finished job claims
 * nothing and never reads `job` (which may already be the next one). A claimed chunk keeps
 * `remaining` above 0, so `job` cannot change while it runs. Whoever finishes the last chunk wakes
 * the owner if it sleeps; the owner releases `busy` when `remaining` is 0.
 *
 * Waiting: spin (with a pause instruction) for up to SPIN_NS, then block on a condition variable
 * whose predicate is re-checked under the mutex; the sleeper counts and the words they guard are
 * sequentially consistent, so no wake-up is lost.
 */
#define _GNU_SOURCE
#include <fenv.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "local/threads.h"
#include "config.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ __volatile__("yield" ::: "memory")
#else
#define cpu_relax() __asm__ __volatile__("" ::: "memory")
#endif

/*
 * Output bytes below which one thread is used (2 threads need >= this, each thread >= half).
 * Measured on the project's 2-core VM (Xeon, AVX-512 kernels, 2 MiB L2 per core), second core
 * free, with   vred-kbench threads --reps 21   (docs/threads.md, 2026-11-22; f32/u8/f64 SUM).
 * Time with 1 thread / time with 2:
 *                    64K   256K  512K  1M    2M    4M    8M    16M   >=32M
 *   warm (spinning)  1.15  1.56  1.8   3.6-4.5 1.6-2.2 1.5-2.1 1.6-2.0 1.6-2.1 1.8-1.95
 *   cold (memory)    1.5   1.7   1.7   1.7   1.7   1.6-1.7 1.7-1.8 1.7-1.8 1.8   (16 -> 28-30 GB/s)
 *   idle (asleep)    0.1   0.75  0.5-0.95 0.8-0.9 0.85-0.9 0.93-0.97 0.95-1.0 0.95-1.98 1.8-1.9
 * "idle" is a reduction that follows 1 ms without one (a collective's reduction after its
 * communication): a sleeping worker is woken by the caller (~16 us of the caller's time here) and
 * helps only ~1 ms later on this VM. 16 MiB is the smallest size where every scenario gains
 * (idle 1.93-1.98x there, 0.92-0.97x at 4-8 MiB): the threshold must never make a reduction
 * slower, so it gives up the warm and cold gains between 4 and 16 MiB. A machine that wakes
 * threads faster (bare metal) could use ~256 KiB.
 */
#define MIN_BYTES_DEFAULT ((size_t)16 << 20)

/* How long an idle worker (or the owner waiting for its workers) spins before it blocks. Long
 * enough to cover back-to-back reductions (a pipelined collective's next chunk), short enough not
 * to burn a core the application or another rank wants. */
#define SPIN_NS 20000

/* Claims are of ~this many output bytes: small enough that the owner never waits long for a worker's
 * last chunk (and a worker that wakes late finds its part done by the owner), large enough that the
 * claim (one compare-and-swap) costs nothing. */
#define CHUNK_BYTES (32 << 10)

#define PARTS_BITS 9u
#define PARTS_MASK ((1u << PARTS_BITS) - 1)

typedef struct {
    const vred_entry *e;
    size_t esize, chunk;                 /* chunk: elements per claim */
    size_t first;                        /* first element of out on a 64-byte boundary (or 0) */
    const char *a, *b;
    char *out;
    size_t bounds[VRED_THREADS_MAX + 1]; /* part k: elements [bounds[k], bounds[k + 1]) */
    fenv_t env;                          /* the owner's floating-point environment */
} job_t;

struct pool;
typedef struct {
    struct pool *p;
    int idx;       /* 1 .. nworkers: the part this worker starts on */
    uint64_t gen0; /* gen when it was created */
} warg_t;

/* One part's claim cursor, alone on its cache line: sequence (32) | chunks (16) | next (16). */
typedef struct {
    _Alignas(64) _Atomic uint64_t v;
} cursor_t;

typedef struct pool {
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    _Alignas(64) _Atomic uint64_t gen; /* 64-bit: the sequence never wraps */
    _Atomic int sleepers;                  /* workers blocked (or about to block) on go */
    _Alignas(64) _Atomic size_t remaining; /* chunks of the current job not yet finished */
    _Atomic int owner_sleeps;              /* the owner is blocked (or about to) on done */
    _Atomic int raised;                    /* FE_* flags the workers' chunks raised */
    cursor_t cur[VRED_THREADS_MAX];
    job_t job;
    int nworkers;
    pthread_t tid[VRED_THREADS_MAX];
    warg_t arg[VRED_THREADS_MAX];
} pool_t;

static pool_t *pool;                      /* read and written only by the holder of busy */
static atomic_flag busy = ATOMIC_FLAG_INIT;
static _Atomic int shut;                  /* the destructor ran: stay single-threaded */
static _Atomic int override_n, auto_n, affinity_n;
static _Atomic size_t min_bytes = MIN_BYTES_DEFAULT;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Chunk i > 0 of part k starts at part_base + i * chunk: on the 64-byte grid of out (part 0 starts
 * at element 0, which may be off the grid: its first chunk is longer). */
static size_t part_base(const job_t *j, int k)
{
    return k ? j->bounds[k] : j->first < j->bounds[1] ? j->first : j->bounds[1];
}

static size_t part_chunks(const job_t *j, int k)
{
    size_t base = part_base(j, k), end = j->bounds[k + 1];
    if (end == j->bounds[k]) return 0;
    size_t n = (end - base + j->chunk - 1) / j->chunk;
    return n ? n : 1;
}

/* Claim the next chunk of part k of job `seq`; -1 if none is left or the job is over. */
static long claim(pool_t *p, int k, uint32_t seq)
{
    uint64_t c = atomic_load_explicit(&p->cur[k].v, memory_order_acquire);
    for (;;) {
        if ((uint32_t)(c >> 32) != seq) return -1;
        unsigned n = (unsigned)(c >> 16) & 0xffff, next = (unsigned)c & 0xffff;
        if (next >= n) return -1;
        if (atomic_compare_exchange_weak_explicit(&p->cur[k].v, &c, c + 1, memory_order_acq_rel,
                                                  memory_order_acquire))
            return (long)next;
    }
}

/* Run chunks of job `seq`, own part first, then the others' leftovers. Returns chunks run.
 * A worker (self > 0) runs them in the owner's floating-point environment, taken at its first
 * claim, and hands the flags they raised to the owner: the rounding mode (fesetround), FTZ/DAZ
 * and the flags are per thread, and a split reduction must round and report as the owner's
 * own loop would (FE_UPWARD: a worker's half of an 80 MiB float sum rounded to nearest). */
static size_t run_chunks(pool_t *p, int self, int parts, uint32_t seq)
{
    size_t ran = 0;
    for (int d = 0; d < parts; d++) {
        int k = (self + d) % parts;
        long i;
        while ((i = claim(p, k, seq)) >= 0) {
            const job_t *j = &p->job; /* stable: the job cannot end while this chunk is claimed */
            if (self && !ran) {
                fesetenv(&j->env);
                feclearexcept(FE_ALL_EXCEPT);
            }
            size_t base = part_base(j, k);
            size_t lo = i ? base + (size_t)i * j->chunk : j->bounds[k];
            size_t hi = base + ((size_t)i + 1) * j->chunk;
            if (hi > j->bounds[k + 1]) hi = j->bounds[k + 1];
            j->e->fn(j->a + lo * j->esize, j->b + lo * j->esize, j->out + lo * j->esize,
                     (hi - lo) * j->e->scale);
            ran++;
        }
    }
    int raised = self && ran ? fetestexcept(FE_ALL_EXCEPT) : 0;
    if (raised) atomic_fetch_or(&p->raised, raised); /* before finish(): the owner waits for it */
    return ran;
}

/* Spin, then block, until gen != seen; returns the new gen. */
static uint64_t wait_gen(pool_t *p, uint64_t seen)
{
    uint64_t g;
    uint64_t t0 = 0;
    for (unsigned i = 0;; i++) {
        if ((g = atomic_load_explicit(&p->gen, memory_order_acquire)) != seen) return g;
        cpu_relax();
        if ((i & 63) == 63) {
            uint64_t t = now_ns();
            if (!t0) t0 = t;
            else if (t - t0 > SPIN_NS) break;
        }
    }
    /* sleepers and gen are both sequentially consistent: either publish() sees sleepers > 0 and
     * broadcasts (under mu, so not before this thread waits), or this load sees the new gen. */
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add(&p->sleepers, 1);
    while ((g = atomic_load(&p->gen)) == seen) pthread_cond_wait(&p->go, &p->mu);
    atomic_fetch_sub(&p->sleepers, 1);
    pthread_mutex_unlock(&p->mu);
    return g;
}

/* The owner, after its own chunks: only chunks that workers are running are left. */
static void wait_done(pool_t *p)
{
    uint64_t t0 = 0;
    for (unsigned i = 0;; i++) {
        if (atomic_load_explicit(&p->remaining, memory_order_acquire) == 0) return;
        cpu_relax();
        if ((i & 63) == 63) {
            uint64_t t = now_ns();
            if (!t0) t0 = t;
            else if (t - t0 > SPIN_NS) break;
        }
    }
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->owner_sleeps, 1);
    while (atomic_load(&p->remaining) != 0) pthread_cond_wait(&p->done, &p->mu);
    atomic_store(&p->owner_sleeps, 0);
    pthread_mutex_unlock(&p->mu);
}

/* Count `ran` chunks as finished; the thread that finishes the job wakes the owner. */
static void finish(pool_t *p, size_t ran, int wake)
{
    if (!ran) return;
    /* As in wait_gen: the seq_cst decrement and owner_sleeps pair up with wait_done's. */
    if (atomic_fetch_sub(&p->remaining, ran) == ran && wake && atomic_load(&p->owner_sleeps)) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_signal(&p->done);
        pthread_mutex_unlock(&p->mu);
    }
}

static void *worker(void *arg)
{
    warg_t *w = arg;
    pool_t *p = w->p;
    uint64_t seen = w->gen0;
    for (;;) {
        seen = wait_gen(p, seen);
        unsigned parts = (unsigned)(seen & PARTS_MASK);
        if (parts == 0) break; /* stop */
        if (w->idx >= (int)parts) continue;
        finish(p, run_chunks(p, w->idx, (int)parts, (uint32_t)(seen >> PARTS_BITS)), 1);
    }
    return NULL;
}

/* Spinning workers see the new gen by themselves; the system call of a wake-up (several µs in a
 * VM, where it is an inter-processor interrupt to a halted vCPU) is paid only for sleeping ones. */
static void publish(pool_t *p, uint64_t g)
{
    atomic_store(&p->gen, g);
    if (atomic_load(&p->sleepers) > 0) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->go);
        pthread_mutex_unlock(&p->mu);
    }
}

static uint64_t next_gen(pool_t *p, unsigned parts)
{
    uint64_t g = atomic_load_explicit(&p->gen, memory_order_relaxed);
    return ((g >> PARTS_BITS) + 1) << PARTS_BITS | parts;
}

/* Child of fork(): the workers do not exist there. The parent's pool is left allocated (its mutex
 * may have been held by a thread that is gone); the next large call makes a new one. */
static void atfork_child(void)
{
    pool = NULL;
    atomic_flag_clear(&busy);
    atomic_store(&affinity_n, 0);
}

static void register_atfork(void) { pthread_atfork(NULL, NULL, atfork_child); }

/* Holder of busy only. A pool with at least `want` threads (caller included) if possible. */
static pool_t *pool_get(int want)
{
    pool_t *p = pool;
    if (!p) {
        pthread_once(&atfork_once, register_atfork);
        p = aligned_alloc(64, (sizeof *p + 63) / 64 * 64);
        if (!p) return NULL;
        memset(p, 0, sizeof *p);
        pthread_mutex_init(&p->mu, NULL);
        pthread_cond_init(&p->go, NULL);
        pthread_cond_init(&p->done, NULL);
        atomic_init(&p->gen, (uint64_t)0);
        atomic_init(&p->remaining, (size_t)0);
        atomic_init(&p->sleepers, 0);
        atomic_init(&p->owner_sleeps, 0);
        for (int k = 0; k < VRED_THREADS_MAX; k++) atomic_init(&p->cur[k].v, (uint64_t)0);
        pool = p;
    }
    if (p->nworkers + 1 < want) {
        /* Workers take no signals: the application's handlers run on its own threads. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        while (p->nworkers + 1 < want && p->nworkers < VRED_THREADS_MAX - 1) {
            warg_t *w = &p->arg[p->nworkers];
            w->p = p;
            w->idx = p->nworkers + 1;
            w->gen0 = atomic_load_explicit(&p->gen, memory_order_relaxed);
            if (pthread_create(&p->tid[p->nworkers], NULL, worker, w) != 0) break;
            p->nworkers++;
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    return p;
}

static size_t gcd(size_t a, size_t b)
{
    while (b) {
        size_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Part boundaries on whole elements, at 64-byte boundaries of out where any element starts on
 * one (else on the same period from element 0), as close to equal parts as that allows. */
static size_t split(job_t *j, size_t count, int parts)
{
    size_t esize = j->esize;
    size_t step = 64 / gcd(esize, 64); /* elements from one aligned element start to the next */
    uintptr_t o = (uintptr_t)j->out;
    size_t first = 0;
    for (size_t i = 0; i < step; i++)
        if ((o + i * esize) % 64 == 0) {
            first = i;
            break;
        }
    j->first = first;
    j->bounds[0] = 0;
    j->bounds[parts] = count;
    for (int k = 1; k < parts; k++) {
        size_t ideal = count / (size_t)parts * (size_t)k + count % (size_t)parts * (size_t)k / (size_t)parts;
        size_t b = ideal <= first ? first : first + (ideal - first + step / 2) / step * step;
        if (b < j->bounds[k - 1]) b = j->bounds[k - 1];
        if (b > count) b = count;
        j->bounds[k] = b;
    }
    return step;
}

void vred_par_reduce3_n(const vred_entry *e, size_t esize, const void *a, const void *b, void *out,
                        size_t count, int nthreads)
{
    if (nthreads > VRED_THREADS_MAX) nthreads = VRED_THREADS_MAX;
    if ((size_t)nthreads > count) nthreads = (int)count;
    if (nthreads <= 1 || atomic_load_explicit(&shut, memory_order_relaxed) ||
        atomic_flag_test_and_set_explicit(&busy, memory_order_acquire)) {
        if (count) e->fn(a, b, out, count * e->scale);
        return;
    }
    pool_t *p = pool_get(nthreads);
    int parts = p ? (p->nworkers + 1 < nthreads ? p->nworkers + 1 : nthreads) : 1;
    if (parts <= 1) {
        atomic_flag_clear_explicit(&busy, memory_order_release);
        e->fn(a, b, out, count * e->scale);
        return;
    }
    job_t *j = &p->job;
    j->e = e;
    j->esize = esize;
    j->a = a;
    j->b = b;
    j->out = out;
    size_t step = split(j, count, parts);
    /* Chunks of ~CHUNK_BYTES, a whole number of 64-byte periods, at most 0xffff per part. */
    size_t longest = 0;
    for (int k = 0; k < parts; k++)
        if (j->bounds[k + 1] - j->bounds[k] > longest) longest = j->bounds[k + 1] - j->bounds[k];
    size_t chunk = CHUNK_BYTES / esize / step * step;
    if (chunk < step) chunk = step;
    if ((longest + chunk - 1) / chunk > 0xfff0) chunk = ((longest + 0xffef) / 0xfff0 + step - 1) / step * step;
    j->chunk = chunk;
    uint64_t g = next_gen(p, (unsigned)parts);
    uint32_t seq = (uint32_t)(g >> PARTS_BITS);
    size_t total = 0;
    for (int k = 0; k < parts; k++) {
        uint64_t n = part_chunks(j, k);
        total += n;
        atomic_store_explicit(&p->cur[k].v, (uint64_t)seq << 32 | n << 16, memory_order_release);
    }
    atomic_store_explicit(&p->remaining, total, memory_order_relaxed);
    atomic_store_explicit(&p->raised, 0, memory_order_relaxed);
    fegetenv(&j->env);
    publish(p, g);
    finish(p, run_chunks(p, 0, parts, seq), 0);
    wait_done(p);
    int raised = atomic_load(&p->raised);
    atomic_flag_clear_explicit(&busy, memory_order_release);
    if (raised) feraiseexcept(raised);
}

static int affinity_cpus(void)
{
    int n = atomic_load_explicit(&affinity_n, memory_order_relaxed);
    if (n > 0) return n;
    cpu_set_t set;
    n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    if (n < 1) n = 1;
    atomic_store_explicit(&affinity_n, n, memory_order_relaxed);
    return n;
}

int vred_threads_count(void)
{
    int n = atomic_load_explicit(&override_n, memory_order_relaxed);
    if (n <= 0) n = vred_config_get()->threads;
    if (n <= 0) n = atomic_load_explicit(&auto_n, memory_order_relaxed);
    if (n <= 0) n = affinity_cpus();
    return n > VRED_THREADS_MAX ? VRED_THREADS_MAX : n < 1 ? 1 : n;
}

void vred_threads_set_auto(int n) { atomic_store(&auto_n, n > 0 ? n : 0); }
void vred_threads_set_override(int n) { atomic_store(&override_n, n > 0 ? n : 0); }

size_t vred_threads_min_bytes(void) { return atomic_load_explicit(&min_bytes, memory_order_relaxed); }

void vred_threads_set_min_bytes(size_t bytes)
{
    atomic_store(&min_bytes, bytes == (size_t)-1 ? MIN_BYTES_DEFAULT : bytes);
}

int vred_threads_for(size_t bytes)
{
    size_t m = vred_threads_min_bytes();
    if (bytes < m) return 1;
    int n = vred_threads_count();
    if (n <= 1) return 1;
    size_t half = m / 2 ? m / 2 : 1;
    size_t by_size = bytes / half;
    return by_size < (size_t)n ? (int)(by_size < 2 ? 2 : by_size) : n;
}

void vred_par_reduce3(const vred_entry *e, size_t esize, const void *a, const void *b, void *out,
                      size_t count)
{
    vred_par_reduce3_n(e, esize, a, b, out, count, vred_threads_for(count * esize));
}

int vred_threads_pool_size(void)
{
    int n = 1;
    if (!atomic_flag_test_and_set_explicit(&busy, memory_order_acquire)) {
        if (pool) n = pool->nworkers + 1;
        atomic_flag_clear_explicit(&busy, memory_order_release);
    }
    return n;
}

/* At exit (or dlclose of the library): stop and join the workers, unless another thread is
 * reducing right now (then the process exit ends them; joining could wait on that thread). */
__attribute__((destructor)) static void pool_shutdown(void)
{
    atomic_store(&shut, 1);
    if (atomic_flag_test_and_set_explicit(&busy, memory_order_acquire)) return;
    pool_t *p = pool;
    if (p) {
        publish(p, next_gen(p, 0));
        for (int i = 0; i < p->nworkers; i++) pthread_join(p->tid[i], NULL);
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->go);
        pthread_cond_destroy(&p->done);
        free(p);
        pool = NULL;
    }
    atomic_flag_clear_explicit(&busy, memory_order_release);
}
