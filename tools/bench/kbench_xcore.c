/*
 * vred-kbench xcore: how fast one core reads what another core has just written, the limit of
 * every intra-node collective (the peer's contribution and the peer's result must cross), next
 * to the same copy of data the reading core wrote itself.
 *
 *   vred-kbench xcore [--cpus A,B] [--sizes 64K,1M,4M,16M] [--reps 21] [--watch S]
 *
 * Two threads pinned to CPUs A and B (default: the first two of the affinity mask). Per
 * repetition the writer fills the buffer with new bytes (every line then lives modified in its
 * cache or beyond) and hands it over; the reader copies it into its own buffer, timed. The local
 * column times the reader copying a buffer it filled itself. GB/s counts the bytes copied.
 *
 * --watch S repeats the 1 MiB cross-core copy for S seconds and prints the median of each
 * quarter second: on shared virtual machines the rate can change for seconds at a time (the
 * host moving a vCPU: 5x slower after ~0.75 s of sustained traffic, measured on this project's
 * 2-core Zen 4 machines), which decides how far apart two benchmark runs may land.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_common.h"
#include "kbench.h"

typedef struct {
    int cpu[2];
    size_t bytes;
    unsigned char *shared, *priv; /* the writer fills shared; the reader copies it to priv */
    uint64_t seq_w, seq_r;        /* handed over / copied, updated atomically */
    int stop;
} xcore;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

/* The writer: new bytes into the shared buffer each time the reader has copied the last ones. */
static void *writer(void *arg)
{
    xcore *x = arg;
    pin(x->cpu[0]);
    for (uint64_t k = 1;; k++) {
        while (__atomic_load_n(&x->seq_r, __ATOMIC_ACQUIRE) != k - 1)
            if (__atomic_load_n(&x->stop, __ATOMIC_RELAXED)) return NULL;
        memset(x->shared, (int)(k & 0xff), x->bytes);
        __atomic_store_n(&x->seq_w, k, __ATOMIC_RELEASE);
    }
}

/* The reader's copy of hand-over k, in ns. */
static double read_one(xcore *x, uint64_t k)
{
    while (__atomic_load_n(&x->seq_w, __ATOMIC_ACQUIRE) != k) {
    }
    double t = now_ns();
    memcpy(x->priv, x->shared, x->bytes);
    __asm__ __volatile__("" ::: "memory");
    t = now_ns() - t;
    __atomic_store_n(&x->seq_r, k, __ATOMIC_RELEASE);
    return t;
}

/* The reader copying bytes it wrote itself (the same buffers, written on this core). */
static double local_one(xcore *x, int k)
{
    memset(x->shared, k & 0xff, x->bytes);
    double t = now_ns();
    memcpy(x->priv, x->shared, x->bytes);
    __asm__ __volatile__("" ::: "memory");
    return now_ns() - t;
}

/* Cross-core copies of x->bytes with a writer thread on cpu[0]; fills t[0..n) (ns), or, with
 * watch_s > 0, prints the median of each quarter second for watch_s seconds. */
static int run_cross(xcore *x, double *t, int n, double watch_s)
{
    pthread_t w;
    x->seq_w = x->seq_r = 0;
    x->stop = 0;
    if (pthread_create(&w, NULL, writer, x) != 0) return -1;
    uint64_t k = 1;
    if (watch_s <= 0) {
        read_one(x, k++); /* first touch */
        for (int i = 0; i < n; i++) t[i] = read_one(x, k++);
    } else {
        enum { MAXQ = 4096 };
        static double q[MAXQ];
        double end = now_ns() + watch_s * 1e9;
        while (now_ns() < end) {
            double q_end = now_ns() + 0.25e9;
            int m = 0;
            while (now_ns() < q_end && m < MAXQ) q[m++] = read_one(x, k++);
            printf("%.1f ", bench_median(q, m) / 1e3);
            fflush(stdout);
        }
        printf("(us per %zu-byte copy, each a quarter second's median)\n", x->bytes);
    }
    __atomic_store_n(&x->stop, 1, __ATOMIC_RELAXED);
    pthread_join(w, NULL);
    return 0;
}

static int default_cpus(int cpu[2])
{
    cpu_set_t s;
    if (sched_getaffinity(0, sizeof s, &s) != 0) return -1;
    int n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
        if (CPU_ISSET(c, &s)) cpu[n++] = c;
    return n == 2 ? 0 : -1;
}

int kbench_xcore(int argc, char **argv)
{
    const char *sizes = "64K,1M,4M,16M";
    int reps = 21;
    double watch = 0;
    xcore x = {.cpu = {-1, -1}};
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--cpus") && i + 1 < argc) {
            if (sscanf(argv[++i], "%d,%d", &x.cpu[0], &x.cpu[1]) != 2) goto usage;
        } else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) sizes = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--watch") && i + 1 < argc) watch = atof(argv[++i]);
        else goto usage;
    }
    if (reps < 1 || reps > 10000) goto usage;
    if (x.cpu[0] < 0 && default_cpus(x.cpu) != 0) {
        fprintf(stderr, "vred-kbench xcore: needs two CPUs in the affinity mask (--cpus A,B)\n");
        return 77; /* not an error of the tool: nothing to measure here (ctest skips) */
    }
    if (pin(x.cpu[1]) != 0) {
        fprintf(stderr, "vred-kbench xcore: cannot run on CPU %d\n", x.cpu[1]);
        return 2;
    }
    printf("# cross-core copy: CPU %d writes new bytes, CPU %d copies them out (memcpy); local: CPU %d "
           "copies bytes it wrote; medians of %d\n", x.cpu[0], x.cpu[1], x.cpu[1], reps);
    if (watch > 0) {
        x.bytes = 1 << 20;
        x.shared = aligned_alloc(4096, x.bytes), x.priv = aligned_alloc(4096, x.bytes);
        if (!x.shared || !x.priv) return 1;
        memset(x.priv, 0, x.bytes);
        int rc = run_cross(&x, NULL, 0, watch);
        free(x.shared), free(x.priv);
        return rc ? 1 : 0;
    }
    printf("%10s %12s %10s %12s %10s %8s\n", "bytes", "cross(us)", "GB/s", "local(us)", "GB/s",
           "cross/local");
    double *t = malloc((size_t)reps * sizeof *t);
    char list[256];
    snprintf(list, sizeof list, "%s", sizes);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        size_t b = bench_parse_bytes(tok);
        if (!b || !t) goto usage;
        x.bytes = b;
        x.shared = aligned_alloc(4096, (b + 4095) / 4096 * 4096);
        x.priv = aligned_alloc(4096, (b + 4095) / 4096 * 4096);
        if (!x.shared || !x.priv) return 1;
        memset(x.priv, 0, b);
        if (run_cross(&x, t, reps, 0) != 0) return 1;
        double cross = bench_median(t, reps);
        local_one(&x, 0);
        for (int i = 0; i < reps; i++) t[i] = local_one(&x, i + 1);
        double local = bench_median(t, reps);
        printf("%10zu %12.1f %10.2f %12.1f %10.2f %8.2f\n", b, cross / 1e3, b / cross, local / 1e3,
               b / local, local / cross);
        free(x.shared), free(x.priv);
    }
    free(t);
    return 0;
usage:
    fprintf(stderr, "usage: vred-kbench xcore [--cpus A,B] [--sizes 64K,1M,...] [--reps N] "
                    "[--watch SECONDS]\n");
    return 2;
}
