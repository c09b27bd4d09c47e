/*
 * vred-kbench sparse: pack and unpack rates of the Bits and Idx formats vs density.
 *
 *   vred-kbench sparse [--mib 1,64] [--esize 4] [--density 0,1,5,10,...,100] [--reps N]
 *                      [--link-gbs 2.0] [--isa NAME]
 *
 * For each array size and density (fraction of non-zero elements, uniformly placed), times
 * vred_sparse_pack and vred_sparse_unpack (which validates the message first) of both formats,
 * under the scalar cap and under the best ISA (or --isa NAME); prints the medians in GB/s of dense data
 * (n * esize / time). Then the cost model t = D*(a + b*d + c*4d(1-d)) fitted by least squares over the densities
 * (the constants of vred_sparse_choose), and for the link rate the measured total time
 * pack + send + unpack against a dense send, with the break-even density of each format and
 * what vred_sparse_choose picks.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "vred.h"
#include "bench_common.h"
#include "kbench.h"
#include "kernel.h"
#include "config.h"
#include "local/sparse.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

static void fill(unsigned char *b, size_t n, size_t es, double d)
{
    uint64_t thr = (uint64_t)(d * 18446744073709551615.0);
    if (d >= 1.0) thr = UINT64_MAX;
    memset(b, 0, n * es);
    for (size_t i = 0; i < n; i++) {
        if (d <= 0.0 || (d < 1.0 && rnd() >= thr)) continue;
        float f = 1.0f + (float)(rnd() & 0xffff);
        for (size_t o = 0; o < es; o += 4) memcpy(b + i * es + o, &f, es - o < 4 ? es - o : 4);
    }
}

enum { OP_PB, OP_UB, OP_PI, OP_UI, NOPS };
static const char *op_names[NOPS] = {"pack-bits", "unpack-bits", "pack-idx", "unpack-idx"};

/* Median seconds of each op, at cap (0 scalar, 1 best). */
static void measure(const unsigned char *src, size_t n, size_t es, int reps, unsigned char *pk,
                    unsigned char *out, double t[NOPS])
{
    size_t nnz = vred_sparse_nonzeros(src, n, es);
    double *v = malloc(sizeof(double) * (size_t)reps);
    for (int op = 0; op < NOPS; op++) {
        vred_sparse_fmt f = op < OP_PI ? VRED_FMT_BITS : VRED_FMT_IDX;
        size_t sz = vred_sparse_pack(f, src, n, es, nnz, pk);
        if (!sz) { fprintf(stderr, "pack failed\n"); exit(1); }
        for (int r = 0; r < reps; r++) {
            double t0 = now_s();
            if (op == OP_PB || op == OP_PI) vred_sparse_pack(f, src, n, es, nnz, pk);
            else if (vred_sparse_unpack(pk, sz, n, es, out)) { fprintf(stderr, "unpack failed\n"); exit(1); }
            v[r] = now_s() - t0;
        }
        if ((op == OP_UB || op == OP_UI) && memcmp(out, src, n * es)) {
            fprintf(stderr, "round trip differs\n");
            exit(1);
        }
        t[op] = bench_median(v, reps);
    }
    free(v);
}

static int parse_list(const char *s, double *out, int max)
{
    int k = 0;
    char *end;
    while (*s && k < max) {
        out[k++] = strtod(s, &end);
        if (end == s) return -1;
        s = *end == ',' ? end + 1 : end;
    }
    return k;
}

int kbench_sparse(int argc, char **argv)
{
    double mib[8] = {1, 64}, dens[64], link_gbs = 2.0;
    int nmib = 2, ndens = 0, reps = 0;
    size_t es = 4;
    vred_isa vec_isa = VRED_ISA_COUNT; /* the "vector" column: no cap = the best ISA */
    dens[ndens++] = 0;
    dens[ndens++] = 1;
    for (int d = 5; d <= 100; d += 5) dens[ndens++] = d;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--mib") && val) { nmib = parse_list(val, mib, 8); i++; }
        else if (!strcmp(a, "--density") && val) { ndens = parse_list(val, dens, 64); i++; }
        else if (!strcmp(a, "--esize") && val) { es = (size_t)atol(val); i++; }
        else if (!strcmp(a, "--reps") && val) { reps = atoi(val); i++; }
        else if (!strcmp(a, "--link-gbs") && val) { link_gbs = atof(val); i++; }
        else if (!strcmp(a, "--isa") && val) {
            vec_isa = vred_isa_from_name(val);
            if (vec_isa == VRED_ISA_COUNT || !vred_isa_supported(vec_isa)) {
                fprintf(stderr, "unknown or unsupported ISA %s\n", val);
                return 2;
            }
            i++;
        }
        else {
            fprintf(stderr, "usage: vred-kbench sparse [--mib 1,64] [--esize 4] [--density 0,1,5,...,100]"
                            " [--reps N] [--link-gbs 2.0]\n");
            return 2;
        }
    }
    if (nmib <= 0 || ndens <= 0 || !es) { fprintf(stderr, "bad list\n"); return 2; }
    vred_isa best = vec_isa == VRED_ISA_COUNT ? vred_isa_best() : vec_isa;
    printf("vred-kbench sparse: esize %zu, best ISA %s%s, link %.2f GB/s; rates in GB/s of dense data"
           " (n*esize/time), medians\n",
           es, vred_isa_name(best), best == VRED_ISA_AVX512 && vred_cpu()->avx512_vbmi2 ? " (VBMI2)" : "",
           link_gbs);
    double link = link_gbs * 1e9;
    for (int m = 0; m < nmib; m++) {
        size_t D = (size_t)(mib[m] * 1048576.0);
        size_t n = D / es;
        D = n * es;
        int r = reps ? reps : (D <= (4u << 20) ? 51 : 9);
        unsigned char *src = malloc(D + 64), *out = malloc(D + 64);
        unsigned char *pk = malloc(vred_sparse_packed_size(VRED_FMT_IDX, n, es, n) + 64);
        if (!src || !out || !pk) { perror("malloc"); return 1; }
        memset(out, 0, D);
        double (*T)[2][NOPS] = malloc(sizeof *T * (size_t)ndens);
        printf("\n%.0f MiB (%zu elements), %d reps\n", mib[m], n, r);
        printf("%6s %7s %7s | %-23s | %-23s | %-23s | %-23s\n", "nz%", "bits/D", "idx/D",
               "pack-bits scal/vec", "unpack-bits scal/vec", "pack-idx scal/vec", "unpack-idx scal/vec");
        for (int d = 0; d < ndens; d++) {
            fill(src, n, es, dens[d] / 100.0);
            size_t nnz = vred_sparse_nonzeros(src, n, es);
            for (int c = 0; c < 2; c++) {
                vred_isa_cap(c ? vec_isa : VRED_ISA_SCALAR);
                measure(src, n, es, r, pk, out, T[d][c]);
            }
            vred_isa_cap(vec_isa);
            printf("%6.1f %7.3f %7.3f", dens[d],
                   (double)vred_sparse_packed_size(VRED_FMT_BITS, n, es, nnz) / (double)D,
                   (double)vred_sparse_packed_size(VRED_FMT_IDX, n, es, nnz) / (double)D);
            for (int op = 0; op < NOPS; op++)
                printf(" | %10.2f %10.2f", D / T[d][0][op] / 1e9, D / T[d][1][op] / 1e9);
            printf("\n");
        }
        /* the cost model t = D*(a + b*d + c*4d(1-d)), d = nnz/n: least squares over the densities */
        if (ndens >= 3) {
            printf("cost model t = D*(a + b*d + c*4d(1-d)), least squares, ps per dense byte"
                   " (vred_sparse_choose's cost_tab):\n");
            for (int c = 0; c < 2; c++)
                for (int op = 0; op < NOPS; op++) {
                    double M[3][4] = {{0}};
                    for (int d = 0; d < ndens; d++) {
                        double x = dens[d] / 100.0, phi[3] = {1, x, 4 * x * (1 - x)};
                        double y = T[d][c][op] / D * 1e12;
                        for (int u = 0; u < 3; u++) {
                            for (int v = 0; v < 3; v++) M[u][v] += phi[u] * phi[v];
                            M[u][3] += phi[u] * y;
                        }
                    }
                    for (int u = 0; u < 3; u++) /* Gauss-Jordan, 3x3 */
                        for (int v = 0; v < 3; v++) {
                            if (v == u || M[u][u] == 0) continue;
                            double q = M[v][u] / M[u][u];
                            for (int w = 0; w < 4; w++) M[v][w] -= q * M[u][w];
                        }
                    printf("  %-6s %-12s a %7.1f  b %7.1f  c %7.1f\n", c ? "vector" : "scalar", op_names[op],
                           M[0][3] / M[0][0], M[1][3] / M[1][1], M[2][3] / M[2][2]);
                }
        }
        /* total time at the link rate, measured rates of the best ISA */
        printf("at %.2f GB/s (best ISA): time relative to dense (pack + send + unpack) and choose(AUTO)\n", link_gbs);
        printf("%6s %8s %8s %8s\n", "nz%", "bits", "idx", "choose");
        double be_bits = -1, be_idx = -1;
        for (int d = 0; d < ndens; d++) {
            fill(src, n, es, dens[d] / 100.0);
            size_t nnz = vred_sparse_nonzeros(src, n, es);
            double td = (double)vred_sparse_packed_size(VRED_FMT_DENSE, n, es, 0) / link;
            double tb = (double)vred_sparse_packed_size(VRED_FMT_BITS, n, es, nnz) / link + T[d][1][OP_PB] + T[d][1][OP_UB];
            double ti = (double)vred_sparse_packed_size(VRED_FMT_IDX, n, es, nnz) / link + T[d][1][OP_PI] + T[d][1][OP_UI];
            if (tb < td) be_bits = dens[d];
            if (ti < td) be_idx = dens[d];
            vred_sparse_fmt ch = vred_sparse_choose(VRED_SPARSE_AUTO, n, es, nnz, link);
            printf("%6.1f %8.3f %8.3f %8s\n", dens[d], tb / td, ti / td,
                   ch == VRED_FMT_BITS ? "bits" : ch == VRED_FMT_IDX ? "idx" : "dense");
        }
        printf("break-even (largest measured non-zero %% that beats dense): bits %s%.0f%%, idx %s%.0f%%\n",
               be_bits < 0 ? "none " : "", be_bits < 0 ? 0 : be_bits, be_idx < 0 ? "none " : "",
               be_idx < 0 ? 0 : be_idx);
        free(T);
        free(src);
        free(out);
        free(pk);
    }
    return 0;
}
