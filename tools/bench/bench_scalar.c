/*
 * vred-bench scalar: reduce an array of floats to ONE value over all ranks, the fourth paper's
 * experiment (Genovese et al., "Vectorized MPI reduction optimization: enhancing performance
 * through AVX", figs 1-3: strong scaling with 2^29 floats in all, weak scaling with 2^25 per
 * process). Every rank holds its part of the array; the answer is the sum of every element,
 * on rank 0. Five ways, timed in the same processes, alternating:
 *
 *   vred      each rank vred_reduce_all() over its part (vectors, vred's canonical order), then
 *             MPI_Gather of the p partial sums and rank 0 adds them in rank order (the paper's
 *             "AVX + MPI_Gather")
 *   loop      the same with a plain C loop (`s += a[i]`, built -O3: without -ffast-math no
 *             compiler may vectorize a float sum, so this is one scalar add after another)
 *   mpi-O0    the paper's "MPI_Reduce": PMPI_Reduce (the MPI library's own) of the whole part,
 *             element-wise, into rank 0, then rank 0 sums that array with the loop built -O0
 *   mpi-O3    the same, the loop built -O3
 *   mpi+vred  MPI_Reduce (vred's when libvred-mpi is linked or preloaded) then vred_reduce_all at
 *             rank 0: what that program gets from vred without a code change
 *
 * Time = one whole reduction on the slowest rank (barrier before it; PMPI_Allreduce MAX after),
 * median over the repetitions; each repetition runs the five in a rotating order. OSU-style
 * table: one row per (mode, ranks), ratio columns = method time / vred time (> 1: vred faster).
 *
 * Data: integer-valued floats whose every partial sum, in any of the orders above, stays below
 * 2^24 (sign alternating per 64-element stripe, magnitude 1..3 by position, +1 on every 1024th
 * element so that the total is n/1024 per rank, not 0), so every method's
 * result is exact and --validate requires all five to equal the exact sum bit for bit; it also
 * recomputes rank 0's vred_reduce_all with a plain C implementation of the canonical order
 * (docs/semantics.md: 64 lanes, stripes, halving) and requires the same bits. Without the
 * integer data (--random) the values are uniform in [0, 1); then only the canonical-order check
 * is exact and the methods' totals are printed, differing by their rounding.
 *
 * Memory per rank: the part (strong: total / p floats) and, on rank 0, a receive array of the same
 * size; strong at 1 rank with 2^29 floats needs 4 GiB.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench_coll.h"
#include "bench_common.h"
#include "vred.h"

#ifndef VRED_BENCH_FLAVOR
#define VRED_BENCH_FLAVOR "mpi"
#endif

enum { S_VRED, S_LOOP, S_MPI_O0, S_MPI_O3, S_MPI_VRED, S_COUNT };
static const char *const s_name[S_COUNT] = {"vred", "loop", "mpi-O0", "mpi-O3", "mpi+vred"};

/* The loops, each built at its own optimization level whatever the build's flags. */
__attribute__((noinline, optimize("O3"))) static float sum_o3(const float *a, size_t n)
{
    float s = 0;
    for (size_t i = 0; i < n; i++) s += a[i];
    return s;
}

__attribute__((noinline, optimize("O0"))) static float sum_o0(const float *a, size_t n)
{
    float s = 0;
    for (size_t i = 0; i < n; i++) s += a[i];
    return s;
}

/* vred's canonical order (docs/semantics.md), written out in plain C for --validate. */
static float canonical_sum(const float *a, size_t n)
{
    enum { L = 256 / sizeof(float) };
    float acc[L];
    if (!n) return 0;
    size_t m = n < L ? n : L;
    for (size_t k = 0; k < m; k++) acc[k] = a[k];
    for (size_t i = m; i < n; i += L) {
        size_t r = n - i < L ? n - i : L;
        for (size_t k = 0; k < r; k++) acc[k] = a[i + k] + acc[k];
    }
    for (; m > 1; m -= m / 2) {
        size_t h = m / 2;
        for (size_t k = 0; k < h; k++) acc[k] = acc[k + m - h] + acc[k];
    }
    return acc[0];
}

/* Element i of rank r (global index gi): exact-sum data, or uniform [0,1). */
static void fill_part(float *a, size_t n, size_t first, int rank, int random)
{
    uint32_t s = 2463534242u ^ (uint32_t)(rank * 7919 + 1);
    for (size_t i = 0; i < n; i++) {
        size_t gi = first + i;
        if (random) {
            s ^= s << 13, s ^= s >> 17, s ^= s << 5;
            a[i] = (float)(s >> 8) * (1.0f / 16777216.0f);
        } else {
            /* stripes of 64 by the local index, so every rank's lanes cancel stripe by stripe */
            float mag = (float)(1 + (int)((i % 64 + (size_t)rank) % 3));
            a[i] = ((i / 64) % 2 == 0) ? mag : -mag;
            if (i % 1024 == 0) a[i] += 1; /* so the total is not 0: n/1024 per rank */
            (void)gi;
        }
    }
}

/* The exact sum of the integer data of all ranks (doubles hold these integers exactly). */
static double exact_total(size_t n_per_rank, int p)
{
    double t = 0;
    size_t full = n_per_rank / 128 * 128; /* whole +/- stripe pairs cancel */
    t += (double)p * (double)((n_per_rank + 1023) / 1024);
    for (int r = 0; r < p; r++)
        for (size_t i = full; i < n_per_rank; i++) {
            double mag = 1 + (double)((i % 64 + (size_t)r) % 3);
            t += ((i / 64) % 2 == 0) ? mag : -mag;
        }
    return t;
}

typedef struct {
    float *part, *recv, *gath;
    size_t n;
    int rank, p;
    MPI_Comm comm;
} sctx;

/* One whole reduction by method m; the result on rank 0. */
static float run_method(const sctx *c, int m)
{
    float local = 0, total = 0;
    switch (m) {
    case S_VRED:
    case S_LOOP:
        if (m == S_VRED) vred_reduce_all(VRED_OP_SUM, VRED_FLOAT, c->part, c->n, &local);
        else local = sum_o3(c->part, c->n);
        PMPI_Gather(&local, 1, MPI_FLOAT, c->gath, 1, MPI_FLOAT, 0, c->comm);
        if (c->rank == 0) {
            total = c->gath[0];
            for (int r = 1; r < c->p; r++) total = total + c->gath[r];
        }
        break;
    case S_MPI_O0:
    case S_MPI_O3:
        PMPI_Reduce(c->part, c->recv, (int)c->n, MPI_FLOAT, MPI_SUM, 0, c->comm);
        if (c->rank == 0) total = m == S_MPI_O0 ? sum_o0(c->recv, c->n) : sum_o3(c->recv, c->n);
        break;
    default:
        MPI_Reduce(c->part, c->recv, (int)c->n, MPI_FLOAT, MPI_SUM, 0, c->comm);
        if (c->rank == 0) vred_reduce_all(VRED_OP_SUM, VRED_FLOAT, c->recv, c->n, &total);
        break;
    }
    return total;
}

static void scalar_usage(FILE *f)
{
    fprintf(f,
        "usage: vred-bench scalar [--mode strong|weak|both] [--total N] [--per-rank N] [--reps R]\n"
        "                         [--methods LIST] [--validate] [--random] [--csv FILE] [--label NAME]\n"
        "  reduce an array of floats to one value on all ranks (the fourth paper's figs 1-3)\n"
        "  --mode      strong: --total floats split over the ranks; weak: --per-rank floats each\n"
        "              (default both)\n"
        "  --total N   strong-scaling size in floats (default 2^29 = 536870912; K/M/G suffixes)\n"
        "  --per-rank N  weak-scaling size per rank in floats (default 2^25 = 33554432)\n"
        "  --reps R    repetitions (default 5), each running every method once, order rotating\n"
        "  --methods   vred,loop,mpi-O0,mpi-O3,mpi+vred (default all)\n"
        "  --validate  every result must equal the exact sum bit for bit, and rank 0's\n"
        "              vred_reduce_all must equal a plain-C canonical-order sum (docs/semantics.md)\n"
        "  --random    uniform [0,1) data instead of the exact integer data (no exact total)\n"
        "  --csv FILE  append rows (header when the file is new)\n");
}

static size_t parse_count(const char *s)
{
    if (!strncmp(s, "2^", 2)) return (size_t)1 << atoi(s + 2);
    return bench_parse_bytes(s);
}

int cmd_scalar(int argc, char **argv)
{
    int rank, p;
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    size_t total = (size_t)1 << 29, per_rank = (size_t)1 << 25;
    int strong = 1, weak = 1, reps = 5, validate = 0, random = 0;
    int use[S_COUNT] = {1, 1, 1, 1, 1};
    const char *csv = NULL, *label = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--mode") && v) {
            strong = !strcmp(v, "strong") || !strcmp(v, "both");
            weak = !strcmp(v, "weak") || !strcmp(v, "both");
            i++;
        } else if (!strcmp(a, "--total") && v) total = parse_count(v), i++;
        else if (!strcmp(a, "--per-rank") && v) per_rank = parse_count(v), i++;
        else if (!strcmp(a, "--reps") && v) reps = atoi(v), i++;
        else if (!strcmp(a, "--validate")) validate = 1;
        else if (!strcmp(a, "--random")) random = 1;
        else if (!strcmp(a, "--csv") && v) csv = v, i++;
        else if (!strcmp(a, "--label") && v) label = v, i++;
        else if (!strcmp(a, "--methods") && v) {
            memset(use, 0, sizeof use);
            char list[256];
            snprintf(list, sizeof list, "%s", v);
            for (char *sv = NULL, *t = strtok_r(list, ",", &sv); t; t = strtok_r(NULL, ",", &sv)) {
                int k = 0;
                while (k < S_COUNT && strcmp(t, s_name[k])) k++;
                if (k == S_COUNT) {
                    if (!rank) fprintf(stderr, "vred-bench scalar: unknown method '%s'\n", t);
                    return 2;
                }
                use[k] = 1;
            }
            i++;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (!rank) scalar_usage(stdout);
            return 0;
        } else {
            if (!rank) fprintf(stderr, "vred-bench scalar: bad argument '%s'\n", a), scalar_usage(stderr);
            return 2;
        }
    }
    if ((!strong && !weak) || reps < 1 || !use[S_VRED]) {
        if (!rank) scalar_usage(stderr);
        return 2;
    }
    if (reps > 1000) reps = 1000;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int over = p > ncpu;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = 0;
    for (char *q = lib; *q; q++)
        if (*q == ',' || *q == '\t') *q = ';';
    char lab[64];
    snprintf(lab, sizeof lab, "%s", label ? label : VRED_BENCH_FLAVOR);

    /* The node's copy rate: every rank copies 64 MiB at once (the memory-bandwidth yardstick). */
    size_t cb = (size_t)64 << 20;
    char *src = malloc(cb), *dst = malloc(cb);
    if (!src || !dst) return fprintf(stderr, "vred-bench scalar: out of memory\n"), 1;
    memset(src, 1, cb), memset(dst, 2, cb);
    double best = 1e30;
    for (int k = 0; k < 3; k++) {
        PMPI_Barrier(comm);
        double t0 = bc_now();
        memcpy(dst, src, cb);
        double t = bc_now() - t0, tm;
        PMPI_Allreduce(&t, &tm, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (tm < best) best = tm;
    }
    free(src), free(dst);
    double copy_gbs = 2.0 * cb * p / best * 1e-9;

    FILE *cf = NULL;
    if (csv && !rank) {
        FILE *probe = fopen(csv, "r");
        int fresh = !probe;
        if (probe) {
            fseek(probe, 0, SEEK_END);
            fresh = ftell(probe) == 0;
            fclose(probe);
        }
        cf = fopen(csv, "a");
        if (!cf) return perror(csv), 1;
        if (fresh)
            fprintf(cf, "label,mpi_library,mode,ranks,cpus,oversubscribed,floats_total,floats_per_rank,"
                        "method,median_us,min_us,ratio_vs_vred,read_gbs,copy_gbs,result,exact,validation,reps\n");
    }
    if (!rank) {
        printf("# vred-bench scalar: an array of floats reduced to one value on rank 0 (fourth paper, figs 1-3)\n");
        printf("# MPI library: %s; %d ranks, %ld CPUs online%s\n", lib, p, ncpu,
               over ? "  -- OVERSUBSCRIBED: more ranks than cores, ranks share cores" : "");
        printf("# vred ISA %s; data: %s\n", vred_isa_name(vred_isa_active()),
               random ? "uniform [0,1) (results differ by rounding)" : "integer-valued, every partial sum exact");
        printf("# time = one whole reduction on the slowest rank, median of %d repetitions (methods alternating);\n"
               "# x:M = M time / vred time (> 1: vred faster); read GB/s = 4 x floats in all / vred time\n", reps);
        printf("# memcpy rate %.2f GB/s (read+write, all ranks at once): the memory-bandwidth yardstick\n", copy_gbs);
    }
    int total_bad = 0;
    for (int mode = 0; mode < 2; mode++) {
        if ((mode == 0 && !strong) || (mode == 1 && !weak)) continue;
        size_t n = mode == 0 ? total / (size_t)p : per_rank;
        if (n > (size_t)INT32_MAX) {
            if (!rank) fprintf(stderr, "vred-bench scalar: %zu floats per rank exceeds an int count\n", n);
            return 2;
        }
        sctx c = {.n = n, .rank = rank, .p = p, .comm = comm};
        c.part = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
        c.recv = rank == 0 ? aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64) : NULL;
        c.gath = malloc(sizeof(float) * (size_t)p);
        int ok = c.part && (rank || c.recv) && c.gath, all_ok;
        PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
        if (!all_ok) {
            if (!rank) fprintf(stderr, "vred-bench scalar: cannot allocate %zu floats per rank\n", n);
            return 1;
        }
        fill_part(c.part, n, (size_t)rank * n, rank, random);
        if (c.recv) memset(c.recv, 0, n * sizeof(float));
        double exact = random ? NAN : exact_total(n, p);
        /* canonical-order check of vred_reduce_all on this rank's real data */
        int canon_bad = 0;
        if (validate) {
            float a = 0, b = canonical_sum(c.part, n);
            vred_reduce_all(VRED_OP_SUM, VRED_FLOAT, c.part, n, &a);
            canon_bad = memcmp(&a, &b, sizeof a) != 0;
            int any;
            PMPI_Allreduce(&canon_bad, &any, 1, MPI_INT, MPI_MAX, comm);
            canon_bad = any;
        }
        int ms[S_COUNT], nm = 0;
        for (int m = 0; m < S_COUNT; m++)
            if (use[m]) ms[nm++] = m;
        double *t[S_COUNT];
        float res[S_COUNT];
        int bad[S_COUNT] = {0};
        for (int m = 0; m < S_COUNT; m++) t[m] = calloc((size_t)reps + 1, sizeof(double));
        for (int r = -1; r < reps; r++) { /* r = -1: one untimed warm-up round */
            for (int q = 0; q < nm; q++) {
                int m = ms[(q + (r < 0 ? 0 : r)) % nm];
                if (r >= 0 && r % 2) m = ms[(nm - 1 - q + r) % nm]; /* reversed every other round */
                PMPI_Barrier(comm);
                double t0 = bc_now();
                float v = run_method(&c, m);
                double dt = bc_now() - t0, dmax;
                PMPI_Allreduce(&dt, &dmax, 1, MPI_DOUBLE, MPI_MAX, comm);
                if (r >= 0) t[m][r] = dmax;
                res[m] = v;
                if (validate && !random && rank == 0 && (double)v != exact) bad[m]++;
            }
        }
        PMPI_Bcast(bad, S_COUNT, MPI_INT, 0, comm);
        double med[S_COUNT], mn[S_COUNT];
        for (int m = 0; m < S_COUNT; m++) {
            if (!use[m]) continue;
            mn[m] = 1e30;
            for (int r = 0; r < reps; r++) mn[m] = t[m][r] < mn[m] ? t[m][r] : mn[m];
            med[m] = bench_median(t[m], reps);
        }
        if (!rank) {
            const char *mname = mode == 0 ? "strong" : "weak";
            printf("\n# %s scaling: %zu floats %s, %zu per rank, %d ranks%s\n", mname, mode == 0 ? total : n * p,
                   mode == 0 ? "in all (fixed)" : "in all", n, p, over ? " (oversubscribed)" : "");
            printf("# Avg Latency(us) of each method (median), then x:M = M time / vred time, vred's GB/s\n");
            printf("# %-10s %5s %4s", "Size(B)", "ranks", "over");
            for (int q = 0; q < nm; q++) printf(" %12s", s_name[ms[q]]);
            for (int q = 1; q < nm; q++) printf(" %11s", "x:" );
            printf(" %8s%s\n", "GB/s", validate ? "  validation" : "");
            printf("# %-10s %5s %4s", "per rank", "", "");
            for (int q = 0; q < nm; q++) printf(" %12s", "(us)");
            for (int q = 1; q < nm; q++) printf(" %11s", s_name[ms[q]]);
            printf("\n");
            printf("  %-10zu %5d %4s", n * sizeof(float), p, over ? "yes" : "no");
            for (int q = 0; q < nm; q++) printf(" %12.1f", med[ms[q]] * 1e6);
            for (int q = 1; q < nm; q++) printf(" %11.2f", med[ms[q]] / med[S_VRED]);
            double gbs = 4.0 * (double)n * p / med[S_VRED] * 1e-9;
            printf(" %8.2f", gbs);
            if (validate) {
                int any = canon_bad;
                for (int q = 0; q < nm; q++) any |= bad[ms[q]];
                if (!any) printf("  ok");
                if (canon_bad) printf("  FAIL canonical order");
                for (int q = 0; q < nm; q++)
                    if (bad[ms[q]]) printf("  FAIL %s (got %.9g, exact %.17g)", s_name[ms[q]], res[ms[q]], exact);
            }
            printf("\n");
            if (random) {
                printf("# results:");
                for (int q = 0; q < nm; q++) printf(" %s %.9g", s_name[ms[q]], res[ms[q]]);
                printf("\n");
            }
            fflush(stdout);
            if (cf)
                for (int q = 0; q < nm; q++) {
                    int m = ms[q];
                    fprintf(cf, "%s,%s,%s,%d,%ld,%d,%zu,%zu,%s,%.3f,%.3f,%.4f,%.3f,%.3f,%.9g,%.17g,%s,%d\n", lab, lib,
                            mname, p, ncpu, over, mode == 0 ? total : n * p, n, s_name[m], med[m] * 1e6,
                            mn[m] * 1e6, med[m] / med[S_VRED], 4.0 * (double)n * p / med[m] * 1e-9, copy_gbs,
                            res[m], exact, validate ? ((bad[m] || (m == S_VRED && canon_bad)) ? "FAIL" : "ok") : "",
                            reps);
                }
        }
        for (int m = 0; m < S_COUNT; m++) total_bad += bad[m], free(t[m]);
        total_bad += canon_bad;
        free(c.part), free(c.recv), free(c.gath);
    }
    if (cf) fclose(cf);
    if (!rank && validate)
        printf("# validation: %s\n", total_bad ? "FAILED" : "every result equals the exact sum; vred_reduce_all follows the canonical order");
    return total_bad ? 1 : 0;
}
