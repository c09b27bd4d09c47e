/*
 * vred-kbench align: what a buffer's placement costs the on-node work of the collectives.
 * For each (send offset / receive offset) pair, measured from a 4096-aligned address, and each
 * operation a collective runs on user buffers against a page-aligned shared slice:
 *   fold       out = in op slice     (MA's last step into rbuf, DPML's reduce into rbuf)
 *   fold-ip    slice = in op slice   (MA's steps: the user's input into the shared slot)
 *   local      inout = in op inout   (MPI_Reduce_local: in at the send, inout at the receive offset)
 *   copy-out   rbuf = slice          (vred_copy, ordinary stores: allreduce/bcast copy-out)
 *   memcpy     rbuf = slice          (the C library, for reference)
 * in GB/s of the vector's bytes and as a ratio to the same operation at 0/0. Repetitions
 * rotate over every (pair, operation), so load drifts alike over all of them; medians.
 *
 *   vred-kbench align [--bytes 32K,1M] [--type f32|f64|u8] [--reps 9] [--csv FILE]
 *
 * The ISA is VRED_ISA's (cap it to see another's kernels). docs/kernels.md, "Alignment".
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
#include "vred.h"

enum { OP_FOLD, OP_FOLD_IP, OP_LOCAL, OP_COPY, OP_MEMCPY, OP_COUNT };
static const char *op_name[OP_COUNT] = {"fold", "fold-ip", "local", "copy-out", "memcpy"};

typedef struct {
    int s, r; /* bytes past a 4096-aligned address: send (in), receive (out/inout) */
} pair;

static const pair pairs[] = {{0, 0},  {4, 4},  {8, 8},   {16, 16}, {32, 32},
                             {48, 48}, {0, 16}, {16, 0}, {0, 4},   {1, 1}, {0, 1}};
enum { NPAIRS = sizeof pairs / sizeof pairs[0] };

/* Offsets a type is measured at: whole elements, and for elements of 8 bytes and more whole
 * dwords too (doubles at 4/4, 0/4: the AVX-512 kernels' pair form, avx512_realign.h). */
static int pair_runs(const pair *p, size_t es)
{
    int grain = es < 4 ? (int)es : 4;
    return p->s % grain == 0 && p->r % grain == 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Seconds per call of operation k on n bytes at placement p (calls enough for ~2 ms). */
static double time_op(int k, const pair *p, char *in, char *slice, char *out, size_t n,
                      vred_type t, size_t es)
{
    char *s = in + p->s, *r = out + p->r;
    size_t count = n / es;
    int calls = (int)(2e-3 * 20e9 / (double)n) + 1;
    double t0 = now_s();
    for (int i = 0; i < calls; i++) {
        switch (k) {
        case OP_FOLD: vred_reduce3(VRED_OP_SUM, t, s, slice, r, count); break;
        case OP_FOLD_IP: vred_reduce3(VRED_OP_SUM, t, s, slice, slice, count); break;
        case OP_LOCAL: vred_reduce(VRED_OP_SUM, t, s, r, count); break;
        case OP_COPY: vred_copy(r, slice, n, 0); break;
        default: memcpy(r, slice, n); break;
        }
        __asm__ volatile("" ::"r"(r) : "memory");
    }
    return (now_s() - t0) / calls;
}

static void usage(void)
{
    printf("usage: vred-kbench align [--bytes LIST] [--type f32|f64|u8] [--reps N] [--csv FILE]\n"
           "  per (send/receive offset from a 4096-aligned address, operation): GB/s and the\n"
           "  ratio to 0/0; operations fold (out = in op slice), fold-ip (slice = in op slice),\n"
           "  local (inout = in op inout), copy-out (vred_copy), memcpy\n");
}

int kbench_align(int argc, char **argv)
{
    const char *bytes_list = "32K,1M", *csv = NULL;
    vred_type t = VRED_FLOAT;
    int reps = 9;
    for (int i = 0; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--help")) return usage(), 0;
        if (!v) return usage(), 2;
        if (!strcmp(argv[i], "--bytes")) bytes_list = v;
        else if (!strcmp(argv[i], "--reps")) reps = atoi(v);
        else if (!strcmp(argv[i], "--csv")) csv = v;
        else if (!strcmp(argv[i], "--type")) {
            t = !strcmp(v, "f64") ? VRED_DOUBLE : !strcmp(v, "u8") ? VRED_UINT8 : VRED_FLOAT;
            if (t == VRED_FLOAT && strcmp(v, "f32")) return usage(), 2;
        } else return usage(), 2;
        i++;
    }
    if (reps < 3) reps = 3;
    size_t es = vred_type_size(t);
    FILE *out_csv = csv ? fopen(csv, "w") : NULL;
    if (out_csv) fprintf(out_csv, "isa,type,bytes,send_off,recv_off,op,gbs,ratio\n");
    printf("# vred-kbench align: isa %s, type %s (GB/s of the vector; ratio to 0/0; medians of %d)\n",
           vred_isa_name(vred_isa_active()), vred_type_name(t), reps);
    char list[256];
    snprintf(list, sizeof list, "%s", bytes_list);
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        size_t n = bench_parse_bytes(tok) / es * es;
        if (!n) continue;
        char *in = aligned_alloc(4096, n + 8192), *slice = aligned_alloc(4096, n + 8192),
             *out = aligned_alloc(4096, n + 8192);
        double *samples = malloc(sizeof(double) * (size_t)reps * NPAIRS * OP_COUNT);
        if (!in || !slice || !out || !samples) return fprintf(stderr, "out of memory\n"), 1;
        for (size_t i = 0; i < n + 8192; i++) in[i] = (char)(i * 7), slice[i] = (char)(i * 3), out[i] = 0;
        for (int rep = 0; rep < reps; rep++)
            for (int j = 0; j < NPAIRS * OP_COUNT; j++) {
                int idx = (j + rep * 7) % (NPAIRS * OP_COUNT); /* rotate the order */
                const pair *p = &pairs[idx / OP_COUNT];
                if (!pair_runs(p, es)) continue;
                samples[(size_t)idx * reps + rep] = time_op(idx % OP_COUNT, p, in, slice, out, n, t, es);
            }
        printf("# %zu bytes\n%-9s", n, "op");
        for (int q = 0; q < NPAIRS; q++)
            if (pair_runs(&pairs[q], es))
                printf(" %6d/%-6d", pairs[q].s, pairs[q].r);
        printf("\n");
        for (int k = 0; k < OP_COUNT; k++) {
            printf("%-9s", op_name[k]);
            double base = 0;
            for (int q = 0; q < NPAIRS; q++) {
                if (!pair_runs(&pairs[q], es)) continue;
                double *v = &samples[(size_t)(q * OP_COUNT + k) * reps];
                qsort(v, (size_t)reps, sizeof *v, cmp_d);
                double gbs = (double)n / v[reps / 2] / 1e9;
                if (q == 0) base = gbs;
                printf(" %5.1f %5.2fx", gbs, gbs / base);
                if (out_csv)
                    fprintf(out_csv, "%s,%s,%zu,%d,%d,%s,%.3f,%.4f\n",
                            vred_isa_name(vred_isa_active()), vred_type_name(t), n, pairs[q].s,
                            pairs[q].r, op_name[k], gbs, gbs / base);
            }
            printf("\n");
        }
        free(in), free(slice), free(out), free(samples);
    }
    if (out_csv) fclose(out_csv);
    return 0;
}
