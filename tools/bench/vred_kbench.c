/*
 * vred-kbench: kernel-level measurements that need no MPI.
 *
 *   vred-kbench tails [--isa avx512|sve] [--case f32:sum,...] [--max-vectors 4] [--step 1]
 *                     [--reps 31] [--calls 0] [--csv FILE]
 *
 * `tails` compares the two tail forms of one ISA's kernels, called directly (no dispatch, no
 * MPI): the masked tail (AVX-512BW byte masks, SVE predicates) and the cascade (AVX-512: the
 * 256-bit kernel, then 128-bit, then the scalar Duff's device). Both tables come from
 * vred_table_build(&t, isa, 1) and (..., 0). For every length n = 1 .. max-vectors x W elements
 * (W = elements per vector), each repetition times `calls` back-to-back in-place calls of one
 * form and then of the other (the order alternates between repetitions); the table gives the
 * median ns per call. Before timing, both forms are checked to give the same bytes at every
 * length. Under an emulator (qemu for SVE) only that check means anything.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <math.h>
#include "vred.h"
#include "bench_common.h"
#include "kbench.h"
#include "kernel.h"
#include "dispatch.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}




/* Operands that keep in-place repetition finite and free of subnormals: floating `in` = 1.0
 * (SUM grows by one a call, PROD and MAX/MIN stay put), everything else pseudo-random bytes. */
static void fill_in(vred_type ty, void *buf, size_t count, unsigned seed)
{
    size_t size = vred_type_size(ty);
    unsigned char *b = buf;
    for (size_t i = 0; i < count * size; i++) {
        seed = seed * 1103515245u + 12345u;
        b[i] = (unsigned char)(seed >> 16) | 1;
    }
    for (size_t i = 0; i < count; i++) {
        switch (ty) {
        case VRED_FLOAT: ((float *)buf)[i] = 1.0f; break;
        case VRED_DOUBLE: ((double *)buf)[i] = 1.0; break;
        case VRED_C_FLOAT_COMPLEX: ((vred_c32 *)buf)[i] = (vred_c32){0.0f, 1.0f}; break;
        case VRED_C_DOUBLE_COMPLEX: ((vred_c64 *)buf)[i] = (vred_c64){0.0, 1.0}; break;
        case VRED_BFLOAT16: ((uint16_t *)buf)[i] = 0x3f80; break;
        case VRED_FLOAT16: ((uint16_t *)buf)[i] = 0x3c00; break;
        case VRED_LONG_DOUBLE: case VRED_C_LONG_DOUBLE_COMPLEX: case VRED_LONG_DOUBLE_INT:
            memset(b + i * size, 0, size);
            ((long double *)(void *)(b + i * size))[0] = 1.0L;
            break;
        default: break;
        }
    }
}

typedef struct {
    const char *isa_name;
    vred_isa isa;
    int max_vectors, step, reps, calls, slots, check_only;
    FILE *csv;
} tails_opts;

static int tails_case(const tails_opts *o, const vred_kernel_table *tm, const vred_kernel_table *tc,
                      size_t vbytes, vred_op op, vred_type ty, double *geo_sum, int *geo_n,
                      int *wins_m, int *wins_c)
{
    vred_canon c = vred_canonical(op, ty);
    vred_binary_fn fm = tm->bin[c.op][c.type], fc = tc->bin[c.op][c.type];
    size_t size = vred_type_size(ty);
    size_t W = vbytes / size ? vbytes / size : 1;
    size_t maxn = (size_t)o->max_vectors * W;
    printf("\n# case %s %s (kernel %s %s, x%u), W = %zu elements per %zu-byte vector\n",
           vred_type_name(ty), vred_op_name(op), vred_op_name(c.op), vred_type_name(c.type),
           c.scale, W, vbytes);
    if (fm == fc) {
        printf("# both tables hold the same kernel (this ISA does not accelerate it): skipped\n");
        return 0;
    }
    /* 64-byte aligned slots plus slack. The timed calls rotate over `slots` inout buffers per
     * form, so that a call does not wait for the previous call's (masked) stores to the same
     * address: store-to-load forwarding from a masked store stalls, and back-to-back calls on
     * one buffer would measure that chain, not the kernel. --slots 1 measures it on purpose. */
    size_t bytes = (maxn * size + 64 + 63) / 64 * 64;
    size_t S = (size_t)o->slots;
    void *a = aligned_alloc(64, bytes), *bm = aligned_alloc(64, bytes * S),
         *bc = aligned_alloc(64, bytes * S), *om = aligned_alloc(64, bytes),
         *oc = aligned_alloc(64, bytes);
    if (!a || !bm || !bc || !om || !oc) {
        fprintf(stderr, "vred-kbench: out of memory\n");
        exit(1);
    }
    fill_in(ty, a, maxn, 1);
    fill_in(ty, bm, maxn, 2);

    /* Functional check: both forms, out of place, every length, same bytes (and untouched past n). */
    int bad = 0;
    for (size_t n = 1; n <= maxn; n++) {
        memset(om, 0xa5, bytes);
        memset(oc, 0xa5, bytes);
        fm(a, bm, om, n * c.scale);
        fc(a, bm, oc, n * c.scale);
        if (memcmp(om, oc, bytes) != 0) {
            if (bad < 5) printf("# MISMATCH masked vs cascade at n = %zu\n", n);
            bad++;
        }
    }
    printf("# check: masked and cascade give identical bytes at all %zu lengths: %s\n", maxn,
           bad ? "NO" : "yes");
    if (o->check_only) {
        free(a), free(bm), free(bc), free(om), free(oc);
        return bad;
    }
    for (size_t k = 1; k < S; k++) memcpy((char *)bm + k * bytes, bm, bytes);
    memcpy(bc, bm, bytes * S);

    printf("# %-9s %12s %12s %15s\n", "n(elems)", "masked(ns)", "cascade(ns)", "cascade/masked");
    double *tm_ns = malloc(sizeof(double) * (size_t)o->reps), *tc_ns = malloc(sizeof(double) * (size_t)o->reps);
    double lg_all = 0, lg_tail = 0, lg_short = 0;
    int n_all = 0, n_tail = 0, n_short = 0, faster_m = 0, faster_c = 0;
    for (size_t n = 1; n <= maxn; n += (size_t)o->step) {
        size_t len = n * c.scale;
        /* Calls per timing: about 20 us of work, at least 50. */
        int calls = o->calls;
        if (calls <= 0) {
            double t0 = now_ns();
            for (int k = 0; k < 200; k++) fm(a, (char *)bm + (k % S) * bytes, (char *)bm + (k % S) * bytes, len);
            double per = (now_ns() - t0) / 200;
            calls = (int)(20000.0 / (per > 1 ? per : 1));
            if (calls < 50) calls = 50;
            if (calls > 20000) calls = 20000;
        }
        for (int r = 0; r < o->reps; r++) {
            for (int half = 0; half < 2; half++) {
                int masked_turn = (r + half) % 2 == 0;
                vred_binary_fn f = masked_turn ? fm : fc;
                char *b = masked_turn ? bm : bc;
                size_t slot = 0;
                double t0 = now_ns();
                for (int k = 0; k < calls; k++) {
                    f(a, b + slot * bytes, b + slot * bytes, len);
                    if (++slot == S) slot = 0;
                }
                double dt = (now_ns() - t0) / calls;
                (masked_turn ? tm_ns : tc_ns)[r] = dt;
            }
        }
        double mm = bench_median(tm_ns, o->reps), mc = bench_median(tc_ns, o->reps);
        double ratio = mc / mm;
        printf("  %-9zu %12.2f %12.2f %15.3f\n", n, mm, mc, ratio);
        if (o->csv)
            fprintf(o->csv, "%s,%s,%s,%zu,%zu,%.3f,%.3f,%.4f\n", o->isa_name, vred_type_name(ty),
                    vred_op_name(op), n, W, mm, mc, ratio);
        lg_all += log(ratio), n_all++;
        if (n % W) lg_tail += log(ratio), n_tail++;
        if (n < W) lg_short += log(ratio), n_short++;
        if (ratio > 1.03) faster_m++;
        else if (ratio < 1 / 1.03) faster_c++;
    }
    printf("# summary %s %s: masked faster at %d lengths, cascade faster at %d, within 3%% at %d; "
           "geomean cascade/masked: all %.3f, lengths with a tail %.3f, n < W %.3f\n",
           vred_type_name(ty), vred_op_name(op), faster_m, faster_c, n_all - faster_m - faster_c,
           exp(lg_all / n_all), n_tail ? exp(lg_tail / n_tail) : NAN,
           n_short ? exp(lg_short / n_short) : NAN);
    *geo_sum += lg_all;
    *geo_n += n_all;
    *wins_m += faster_m;
    *wins_c += faster_c;
    free(tm_ns);
    free(tc_ns);
    free(a), free(bm), free(bc), free(om), free(oc);
    return bad;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: vred-kbench tails [options]\n"
            "  --isa avx512|sve      ISA whose two tail forms are compared (default: this arch's)\n"
            "  --case T:OP[,...]     cases, e.g. f32:sum,u8:sum (default f32:sum,f64:sum,u8:sum,i32:prod)\n"
            "  --max-vectors N       lengths 1 .. N vector widths (default 4)\n"
            "  --step S              length step in elements (default 1)\n"
            "  --reps R              repetitions, median taken (default 31)\n"
            "  --calls K             calls per timing (default: ~20 us worth)\n"
            "  --slots S             inout buffers the calls rotate over (default 16; 1 = every call\n"
            "                        reads what the previous one stored: the store-forwarding chain)\n"
            "  --csv FILE            also write isa,type,op,n,W,masked_ns,cascade_ns,ratio\n"
            "  --check-only          only check that both forms give the same bytes (no timing)\n"
            "other subcommands: vred-kbench sparse|threads|copy|align|xcore --help\n");
}

static int cmd_tails(int argc, char **argv)
{
    tails_opts o = {0};
#if defined(__aarch64__)
    o.isa_name = "sve";
#else
    o.isa_name = "avx512";
#endif
    o.max_vectors = 4, o.step = 1, o.reps = 31, o.calls = 0, o.slots = 16;
    const char *cases = "f32:sum,f64:sum,u8:sum,i32:prod";
    const char *csv = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--isa") && v) o.isa_name = v, i++;
        else if (!strcmp(a, "--case") && v) cases = v, i++;
        else if (!strcmp(a, "--max-vectors") && v) o.max_vectors = atoi(v), i++;
        else if (!strcmp(a, "--step") && v) o.step = atoi(v), i++;
        else if (!strcmp(a, "--reps") && v) o.reps = atoi(v), i++;
        else if (!strcmp(a, "--calls") && v) o.calls = atoi(v), i++;
        else if (!strcmp(a, "--slots") && v) o.slots = atoi(v), i++;
        else if (!strcmp(a, "--check-only")) o.check_only = 1;
        else if (!strcmp(a, "--csv") && v) csv = v, i++;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout), 0;
        else return usage(stderr), 2;
    }
    if (o.max_vectors < 1 || o.step < 1 || o.reps < 1 || o.slots < 1) return usage(stderr), 2;
    o.isa = vred_isa_from_name(o.isa_name);
    if (o.isa != VRED_ISA_AVX512 && o.isa != VRED_ISA_SVE) {
        fprintf(stderr, "vred-kbench: tails compares the tail forms of avx512 or sve, not '%s'\n",
                o.isa_name);
        return 2;
    }
    static vred_kernel_table tm, tc;
    vred_isa got_m = vred_table_build(&tm, o.isa, 1), got_c = vred_table_build(&tc, o.isa, 0);
    if (got_m != o.isa || got_c != o.isa) {
        printf("# vred-kbench tails: %s is not runnable on this CPU/build (best: %s); nothing to "
               "measure\n", o.isa_name, vred_isa_name(vred_isa_best()));
        return 0;
    }
    size_t vbytes = 64;
    const char *cascade_desc = "512 -> 256 -> 128 -> scalar Duff's device";
#if defined(__aarch64__)
    if (o.isa == VRED_ISA_SVE) {
        vbytes = vred_cpu()->sve_bits / 8;
        cascade_desc = "full SVE vectors, then the NEON kernel";
    }
#endif
    if (csv) {
        o.csv = fopen(csv, "w");
        if (!o.csv) return perror(csv), 1;
        fprintf(o.csv, "isa,type,op,n,W,masked_ns,cascade_ns,cascade_over_masked\n");
    }
    printf("# vred-kbench tails: %s masked tail vs cascade (%s), kernels called directly\n",
           o.isa_name, cascade_desc);
    printf("# vector %zu bytes; lengths 1..%d vectors step %d; median of %d repetitions, each "
           "timing a batch of in-place calls of one form then the other (order alternates),\n"
           "# the calls rotating over %d inout buffers (L1-resident)\n",
           vbytes, o.max_vectors, o.step, o.reps, o.slots);
#if defined(__aarch64__)
    printf("# note: under qemu-aarch64 the times are the emulator's, not a CPU's; only the check counts\n");
#endif
    double geo = 0;
    int geo_n = 0, wm = 0, wc = 0, bad = 0;
    char list[512];
    snprintf(list, sizeof list, "%s", cases);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        vred_op op = VRED_OP_SUM;
        vred_type ty = VRED_FLOAT;
        if (!bench_parse_case(tok, &op, &ty)) {
            fprintf(stderr, "vred-kbench: unknown or invalid case '%s' (e.g. f32:sum)\n", tok);
            return 2;
        }
        bad += tails_case(&o, &tm, &tc, vbytes, op, ty, &geo, &geo_n, &wm, &wc);
    }
    if (geo_n) {
        double g = exp(geo / geo_n);
        printf("\n# SUMMARY %s: over %d (case, length) points the masked tail is faster at %d, "
               "the cascade at %d (3%% margin); geomean cascade/masked time = %.3f -> %s\n",
               o.isa_name, geo_n, wm, wc, g,
               g > 1.03 ? "masked tail is faster" : g < 1 / 1.03 ? "cascade is faster" : "no clear winner");
    }
    if (bad) printf("# FAILED: masked and cascade differ at %d lengths\n", bad);
    if (o.csv) fclose(o.csv);
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "tails")) return cmd_tails(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "sparse")) return kbench_sparse(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "threads")) return kbench_threads(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "copy")) return kbench_copy(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "align")) return kbench_align(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "xcore")) return kbench_xcore(argc - 2, argv + 2);
    usage(argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) ? stdout : stderr);
    return argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) ? 0 : 2;
}
