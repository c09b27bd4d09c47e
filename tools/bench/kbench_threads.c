/*
 * vred-kbench threads: a 3-buffer reduction (out = a op b) on 1 thread (one kernel call) against
 * the thread pool forced to 2 threads (and N with --threads N), and against vred_par_reduce3 with
 * the threshold applied (what the library does), for output sizes 64 KiB .. 128 MiB.
 *
 *   vred-kbench threads [--threads N] [--case f32:sum,u8:sum,f64:sum] [--min-kib 64]
 *                       [--max-mib 128] [--reps 15] [--cold-mib 1024] [--batch-us 1000]
 *                       [--gap-us 1000] [--scenario warm,idle,cold] [--csv FILE]
 *
 * Scenarios:
 *   warm  the same three buffers every call (in cache when they fit), back-to-back calls timed in
 *         batches of >= batch-us: the workers are still spinning when the next call comes;
 *   idle  the same buffers, one call timed after a pause of gap-us (longer than the workers' spin),
 *         so the workers must be woken from the condition variable: the cost a reduction pays
 *         when it comes after communication;
 *   cold  each call takes the next of the buffer sets of an arena of cold-mib (more than the LLC),
 *         back-to-back: operands come from memory.
 * Each repetition runs every mode once, the order rotating between repetitions (warm and idle
 * samples start with one untimed call of their own mode); the table gives medians. Speedup = 1-thread time / mode time. GB/s counts 3 x size (read a, read b, write out).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "vred.h"
#include "bench_common.h"
#include "kbench.h"
#include "kernel.h"
#include "dispatch.h"
#include "local/threads.h"

enum { MODE_1, MODE_2, MODE_N, MODE_APPLIED, MODE_COUNT };
static const char *mode_name[MODE_COUNT] = {"1T", "2T", "NT", "applied"};
enum { SC_WARM, SC_IDLE, SC_COLD, SC_COUNT };
static const char *sc_name[SC_COUNT] = {"warm", "idle", "cold"};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Idle share of all CPUs since the last call (from /proc/stat; -1 if unreadable): the machine's
 * other load, which a 2-thread measurement needs to know about. */
static double idle_share(void)
{
    static unsigned long long last_idle, last_total;
    unsigned long long v[10] = {0}, total = 0;
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return -1;
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
    fclose(f);
    if (n < 5) return -1;
    for (int i = 0; i < 8; i++) total += v[i];
    unsigned long long idle = v[3] + v[4];
    double share = total > last_total ? (double)(idle - last_idle) / (double)(total - last_total) : -1;
    last_idle = idle;
    last_total = total;
    return share;
}

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

typedef struct {
    int nthreads, reps, scen[SC_COUNT];
    size_t min_bytes, max_bytes, cold_bytes;
    long batch_us, gap_us;
    FILE *csv;
} opts;

typedef struct {
    const vred_entry *e;
    size_t esize;
    char *arena;      /* sets of [a | b | out], each 3 x bytes, one after the other */
    size_t nsets, next;
} ctx;

static void one(const opts *o, ctx *c, int mode, size_t bytes, int rotate)
{
    char *s = c->arena;
    if (rotate) {
        s = c->arena + c->next * 3 * bytes;
        c->next = (c->next + 1) % c->nsets;
    }
    const char *a = s, *b = s + bytes;
    char *out = s + 2 * bytes;
    size_t count = bytes / c->esize;
    switch (mode) {
    case MODE_1: c->e->fn(a, b, out, count * c->e->scale); break;
    case MODE_2: vred_par_reduce3_n(c->e, c->esize, a, b, out, count, 2); break;
    case MODE_N: vred_par_reduce3_n(c->e, c->esize, a, b, out, count, o->nthreads); break;
    default: vred_par_reduce3(c->e, c->esize, a, b, out, count); break;
    }
}

/* ns per call of one sample. */
static double sample(const opts *o, ctx *c, int sc, int mode, size_t bytes, int calls)
{
    /* Warm and idle reuse the buffers: one untimed call first, so that where the previous mode
     * left the lines (one core's L2, or split between two) does not count against this one. */
    if (sc != SC_COLD) one(o, c, mode, bytes, 0);
    if (sc == SC_IDLE) {
        sleep_us(o->gap_us);
        double t0 = now_ns();
        one(o, c, mode, bytes, 0);
        return now_ns() - t0;
    }
    double t0 = now_ns();
    for (int i = 0; i < calls; i++) one(o, c, mode, bytes, sc == SC_COLD);
    return (now_ns() - t0) / calls;
}

static void fill(char *p, size_t n, vred_type ty)
{
    if (ty == VRED_FLOAT)
        for (size_t i = 0; i < n / 4; i++) ((float *)(void *)p)[i] = (float)(i % 1000) * 0.5f;
    else if (ty == VRED_DOUBLE)
        for (size_t i = 0; i < n / 8; i++) ((double *)(void *)p)[i] = (double)(i % 1000) * 0.25;
    else
        for (size_t i = 0; i < n; i++) p[i] = (char)(i * 131u >> 3);
}

static int run_case(const opts *o, vred_op op, vred_type ty)
{
    ctx c = {0};
    c.e = &vred_entries[op][ty];
    c.esize = vred_type_size(ty);
    size_t arena_bytes = o->cold_bytes > 3 * o->max_bytes * 2 ? o->cold_bytes : 3 * o->max_bytes * 2;
    c.arena = aligned_alloc(4096, arena_bytes);
    if (!c.arena) return fprintf(stderr, "vred-kbench threads: out of memory\n"), 1;
    fill(c.arena, arena_bytes, ty);
    char *check = aligned_alloc(4096, o->max_bytes);
    if (!check) return free(c.arena), 1;

    int modes[MODE_COUNT], nm = 0;
    modes[nm++] = MODE_1;
    modes[nm++] = MODE_2;
    if (o->nthreads > 2) modes[nm++] = MODE_N;
    modes[nm++] = MODE_APPLIED;

    for (int sc = 0; sc < SC_COUNT; sc++) {
        if (!o->scen[sc]) continue;
        idle_share();
        printf("\n# %s:%s %s, %d threads max, threshold %zu KiB, medians of %d\n",
               vred_type_name(ty), vred_op_name(op), sc_name[sc], vred_threads_count(),
               vred_threads_min_bytes() >> 10, o->reps);
        printf("%9s %10s %8s %10s %8s %7s", "size", "1T us", "1T GB/s", "2T us", "2T GB/s", "2T/1T");
        if (o->nthreads > 2) printf(" %10s %7s", "NT us", "NT/1T");
        printf(" %4s %10s %7s\n", "thr", "applied us", "app/1T");
        for (size_t bytes = o->min_bytes; bytes <= o->max_bytes; bytes *= 2) {
            size_t count = bytes / c.esize;
            c.nsets = arena_bytes / (3 * bytes);
            c.next = 0;
            /* The applied result is the one-call result. */
            c.e->fn(c.arena, c.arena + bytes, check, count * c.e->scale);
            vred_par_reduce3(c.e, c.esize, c.arena, c.arena + bytes, c.arena + 2 * bytes, count);
            if (memcmp(check, c.arena + 2 * bytes, count * c.esize)) {
                fprintf(stderr, "vred-kbench threads: %s:%s %zu bytes: split result differs\n",
                        vred_type_name(ty), vred_op_name(op), bytes);
                return free(check), free(c.arena), 1;
            }
            /* Calls per batch: from one 1-thread call. */
            double t0 = now_ns();
            one(o, &c, MODE_1, bytes, sc == SC_COLD);
            double est = now_ns() - t0;
            int calls = (int)(o->batch_us * 1e3 / (est > 1 ? est : 1));
            if (calls < 1) calls = 1;
            for (int m = 0; m < nm; m++) sample(o, &c, sc, modes[m], bytes, calls); /* warm-up */
            double *t[MODE_COUNT];
            for (int m = 0; m < nm; m++) t[m] = malloc(sizeof(double) * (size_t)o->reps);
            for (int r = 0; r < o->reps; r++)
                for (int k = 0; k < nm; k++) {
                    int m = (k + r) % nm;
                    t[m][r] = sample(o, &c, sc, modes[m], bytes, calls);
                }
            double med[MODE_COUNT];
            for (int m = 0; m < nm; m++) med[m] = bench_median(t[m], o->reps), free(t[m]);
            double gbs = 3.0 * (double)bytes;
            char sz[32];
            if (bytes >= 1 << 20) snprintf(sz, sizeof sz, "%zu MiB", bytes >> 20);
            else snprintf(sz, sizeof sz, "%zu KiB", bytes >> 10);
            printf("%9s %10.1f %8.1f %10.1f %8.1f %7.2f", sz, med[0] / 1e3, gbs / med[0],
                   med[1] / 1e3, gbs / med[1], med[0] / med[1]);
            int a = nm - 1;
            if (o->nthreads > 2) printf(" %10.1f %7.2f", med[2] / 1e3, med[0] / med[2]);
            printf(" %4d %10.1f %7.2f\n", vred_threads_for(bytes), med[a] / 1e3, med[0] / med[a]);
            fflush(stdout);
            if (o->csv)
                for (int m = 0; m < nm; m++)
                    fprintf(o->csv, "%s,%s,%s,%zu,%s,%d,%.1f\n", vred_type_name(ty),
                            vred_op_name(op), sc_name[sc], bytes, mode_name[modes[m]],
                            modes[m] == MODE_1 ? 1 : modes[m] == MODE_2 ? 2
                            : modes[m] == MODE_N ? o->nthreads : vred_threads_for(bytes),
                            med[m]);
        }
        double idle = idle_share();
        if (idle >= 0)
            printf("# CPUs idle %.0f%% of this table's time (this benchmark keeps 1 of %ld busy, 2 in "
                   "the 2-thread runs): %s\n", 100 * idle, sysconf(_SC_NPROCESSORS_ONLN),
                   idle < 0.25 ? "other load: 2-thread figures are not trustworthy" : "quiet enough");
    }
    free(check);
    free(c.arena);
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: vred-kbench threads [--threads N] [--case f32:sum,u8:sum,f64:sum]\n"
               "         [--min-kib 64] [--max-mib 128] [--reps 15] [--cold-mib 1024]\n"
               "         [--batch-us 1000] [--gap-us 1000] [--scenario warm,idle,cold] [--csv FILE]\n");
}

int kbench_threads(int argc, char **argv)
{
    opts o = {.nthreads = 2, .reps = 15, .min_bytes = 64 << 10, .max_bytes = (size_t)128 << 20,
              .cold_bytes = (size_t)1024 << 20, .batch_us = 1000, .gap_us = 1000,
              .scen = {1, 1, 1}};
    const char *cases = "f32:sum,u8:sum,f64:sum", *csv = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--threads") && v) o.nthreads = atoi(v), i++;
        else if (!strcmp(a, "--case") && v) cases = v, i++;
        else if (!strcmp(a, "--min-kib") && v) o.min_bytes = (size_t)atol(v) << 10, i++;
        else if (!strcmp(a, "--max-mib") && v) o.max_bytes = (size_t)atol(v) << 20, i++;
        else if (!strcmp(a, "--reps") && v) o.reps = atoi(v), i++;
        else if (!strcmp(a, "--cold-mib") && v) o.cold_bytes = (size_t)atol(v) << 20, i++;
        else if (!strcmp(a, "--batch-us") && v) o.batch_us = atol(v), i++;
        else if (!strcmp(a, "--gap-us") && v) o.gap_us = atol(v), i++;
        else if (!strcmp(a, "--scenario") && v) {
            for (int s = 0; s < SC_COUNT; s++) o.scen[s] = strstr(v, sc_name[s]) != NULL;
            i++;
        } else if (!strcmp(a, "--csv") && v) csv = v, i++;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout), 0;
        else return usage(stderr), 2;
    }
    if (o.nthreads < 2 || o.nthreads > VRED_THREADS_MAX || o.reps < 1 || o.min_bytes < 64 ||
        o.max_bytes < o.min_bytes)
        return usage(stderr), 2;
    if (csv && !(o.csv = fopen(csv, "w"))) return perror(csv), 1;
    if (o.csv) fprintf(o.csv, "type,op,scenario,bytes,mode,threads,ns\n");
    /* The applied mode uses up to --threads threads (not the affinity default). */
    vred_threads_set_override(o.nthreads);
    printf("# vred-kbench threads: ISA %s, out = a op b, 1 thread vs %d, threshold applied = "
           "vred_par_reduce3\n", vred_isa_name(vred_isa_active()), o.nthreads);
    int rc = 0;
    char list[256];
    snprintf(list, sizeof list, "%s", cases);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok && !rc;
         tok = strtok_r(NULL, ",", &save)) {
        vred_op op;
        vred_type ty;
        if (!bench_parse_case(tok, &op, &ty)) {
            fprintf(stderr, "vred-kbench threads: unknown case '%s'\n", tok);
            rc = 2;
            break;
        }
        rc = run_case(&o, op, ty);
    }
    if (o.csv) fclose(o.csv);
    return rc;
}
