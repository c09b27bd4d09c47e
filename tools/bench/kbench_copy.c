/*
 * vred-kbench copy: the second paper's table 4. A large array is copied slice by slice (the
 * granularity of the pipelined collectives' copies) with
 *   memmove  the C library's copy, which picks streaming stores by size alone;
 *   t-copy   vred_copy(nt = 0): ordinary stores (memcpy);
 *   nt-copy  vred_copy(nt = 1): streaming stores for the aligned body, and vred_copy_fence()
 *            after every slice, as a collective must before it publishes the slice;
 * for slice sizes 64K .. 4M. Bandwidth counts the bytes read plus the bytes written (STREAM's
 * COPY convention), so the figures compare with the paper's; nt/t is the ratio of the two
 * bandwidths. Each repetition runs every (slice, method) pass once, the method order rotating
 * between repetitions; the table gives medians.
 *
 *   vred-kbench copy [--bytes 1G] [--reps 5] [--slices 64K,256K,512K,1M,2M,4M] [--csv FILE]
 *
 * With an array larger than C (vred_copy_cache_bytes), the adaptive rule streams the copy-out
 * of a pipelined collective; with one that fits, it does not. The header says which applies.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_common.h"
#include "kbench.h"
#include "kernel.h"
#include "local/copy.h"
#include "local/topo.h"

enum { M_MEMMOVE, M_T, M_NT, M_COUNT };
static const char *method_name[M_COUNT] = {"memmove", "t-copy", "nt-copy"};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One pass: the whole array, slice by slice; seconds. */
static double pass(int m, char *dst, const char *src, size_t bytes, size_t slice)
{
    double t0 = now_s();
    for (size_t off = 0; off < bytes; off += slice) {
        size_t n = bytes - off < slice ? bytes - off : slice;
        switch (m) {
        case M_MEMMOVE: memmove(dst + off, src + off, n); break;
        case M_T: vred_copy(dst + off, src + off, n, 0); break;
        default:
            vred_copy(dst + off, src + off, n, 1);
            vred_copy_fence();
            break;
        }
    }
    return now_s() - t0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: vred-kbench copy [--bytes 1G] [--reps 5] [--slices 64K,256K,512K,1M,2M,4M]"
               " [--csv FILE]\n");
}

static void print_size(char *buf, size_t len, size_t b)
{
    if (b >= (1u << 30) && b % (1u << 30) == 0) snprintf(buf, len, "%zuG", b >> 30);
    else if (b >= (1u << 20) && b % (1u << 20) == 0) snprintf(buf, len, "%zuM", b >> 20);
    else if (b >= 1024 && b % 1024 == 0) snprintf(buf, len, "%zuK", b >> 10);
    else snprintf(buf, len, "%zu", b);
}

int kbench_copy(int argc, char **argv)
{
    size_t bytes = (size_t)1 << 30;
    int reps = 5;
    const char *slices_arg = "64K,256K,512K,1M,2M,4M", *csv_path = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--bytes") && v) bytes = bench_parse_bytes(v), i++;
        else if (!strcmp(a, "--reps") && v) reps = atoi(v), i++;
        else if (!strcmp(a, "--slices") && v) slices_arg = v, i++;
        else if (!strcmp(a, "--csv") && v) csv_path = v, i++;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout), 0;
        else return usage(stderr), 2;
    }
    size_t slices[32];
    int ns = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", slices_arg);
    for (char *save, *tok = strtok_r(buf, ",", &save); tok && ns < 32; tok = strtok_r(NULL, ",", &save)) {
        size_t s = bench_parse_bytes(tok);
        if (!s) return fprintf(stderr, "vred-kbench copy: bad slice size '%s'\n", tok), 2;
        slices[ns++] = s;
    }
    if (bytes == 0 || reps < 1 || ns == 0) return usage(stderr), 2;

    FILE *csv = NULL;
    if (csv_path && !(csv = fopen(csv_path, "w")))
        return fprintf(stderr, "vred-kbench copy: cannot write %s\n", csv_path), 1;

    /* Page-aligned, so that slice boundaries are line-aligned as in a shared region; touched
     * once before timing so that no pass pays the page faults. */
    size_t alloc = (bytes + 4095) & ~(size_t)4095;
    char *src = aligned_alloc(4096, alloc), *dst = aligned_alloc(4096, alloc);
    if (!src || !dst) {
        free(src), free(dst);
        if (csv) fclose(csv);
        return fprintf(stderr, "vred-kbench copy: cannot allocate 2 x %zu bytes\n", bytes), 1;
    }
    for (size_t i = 0; i < alloc; i += 64) src[i] = (char)(i >> 6);
    memset(dst, 1, alloc);

    const vred_topo *t = vred_topo_get();
    size_t c = vred_copy_cache_bytes();
    char sz[32];
    print_size(sz, sizeof sz, bytes);
    printf("# vred-kbench copy: %s array, slice by slice, median of %d passes; ISA %s\n", sz, reps,
           vred_isa_name(vred_isa_active()));
    printf("# topology: LLC %.1f MiB (inclusive: %s, shared by %d cores), private %.2f MiB/core, "
           "%d cores, %d socket(s), this thread on socket %d\n",
           t->llc_bytes / 1048576.0, t->llc_inclusive < 0 ? "unknown" : t->llc_inclusive ? "yes" : "no",
           t->cores_per_llc, t->private_bytes / 1048576.0, t->cores, t->sockets, vred_topo_my_socket());
    printf("# C = %.1f MiB; W = 2 x array = %.1f MiB %s C: the adaptive rule %s this copy-out\n",
           c / 1048576.0, 2.0 * bytes / 1048576.0, 2 * bytes > c ? ">" : "<=",
           vred_copy_use_nt(1, 2 * bytes) ? "streams" : "does not stream");
    printf("# GB/s = (bytes read + bytes written) / time, as STREAM COPY\n");
    printf("# %-8s %12s %12s %12s %8s\n", "slice", method_name[0], method_name[1], method_name[2], "nt/t");
    if (csv) fprintf(csv, "bytes,slice,memmove_gbs,tcopy_gbs,ntcopy_gbs,nt_over_t\n");

    double *samples = malloc(sizeof(double) * (size_t)reps * M_COUNT);
    if (!samples) return free(src), free(dst), 1;
    for (int s = 0; s < ns; s++) {
        pass(M_T, dst, src, bytes, slices[s]); /* warm-up: TLB, frequency */
        for (int r = 0; r < reps; r++)
            for (int k = 0; k < M_COUNT; k++) {
                int m = (k + r) % M_COUNT;
                samples[m * reps + r] = pass(m, dst, src, bytes, slices[s]);
            }
        double gbs[M_COUNT];
        for (int m = 0; m < M_COUNT; m++) gbs[m] = 2.0 * bytes / bench_median(samples + m * reps, reps) / 1e9;
        if (memcmp(dst, src, bytes) != 0) fprintf(stderr, "vred-kbench copy: copy is wrong!\n");
        print_size(sz, sizeof sz, slices[s]);
        printf("  %-8s %12.2f %12.2f %12.2f %8.3f\n", sz, gbs[M_MEMMOVE], gbs[M_T], gbs[M_NT],
               gbs[M_NT] / gbs[M_T]);
        if (csv)
            fprintf(csv, "%zu,%zu,%.4f,%.4f,%.4f,%.4f\n", bytes, slices[s], gbs[M_MEMMOVE], gbs[M_T],
                    gbs[M_NT], gbs[M_NT] / gbs[M_T]);
        fflush(stdout);
    }
    free(samples);
    free(src);
    free(dst);
    if (csv) fclose(csv);
    return 0;
}
