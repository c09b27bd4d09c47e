/*
 * Every kernel of every ISA against the scalar reference, bit for bit:
 *   every valid (op, type) x every ISA this CPU runs (by capping; both tails where an ISA has two)
 *   x every length 0..3 vector lengths plus a few large ones x misaligned starts
 *   x the 2-buffer (in place), 3-buffer (separate and aliased), n-ary and reduce-all forms,
 * on inputs full of NaN, +-0, inf, subnormals, extremes and ties; and that the AVX-512 table has
 * a kernel of its own wherever AVX2's has one (coverage).
 * VRED_TEST_SEED changes the data; VRED_TEST_QUICK=1 thins the length sweep (sanitizer runs);
 * VRED_TEST_LONG=0 leaves out the one long case (280004 bytes: the main loops' many trips, no
 * new length or offset), which emulated runs at more vector lengths than one need not repeat;
 * VRED_TEST_ONLY=isa restricts the variants to one ISA.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <float.h>
#include <math.h>
#include <sys/mman.h>
#include "kernel.h"
#include "dispatch.h"
#include "significant.h"
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

/* All NaN inputs carry the hardware's default NaN, so that no result depends on which of two
 * NaN operands an instruction propagates (C leaves that open; vred documents it as such). */
static float nan32;
static double nan64;

static float gen_f32(void)
{
    switch (rnd() % 16) {
    case 0: return nan32;
    case 1: return (rnd() & 1) ? 0.0f : -0.0f;
    case 2: return (rnd() & 1) ? 1.0f / 0.0f : -1.0f / 0.0f;
    case 3: return (float)((rnd() & 1) ? 1 : -1) * FLT_MIN * (float)(rnd() % 1000) / 1024.0f;
    case 4: return (rnd() & 1) ? FLT_MAX : -FLT_MAX;
    case 5: case 6: case 7: return (float)((int)(rnd() % 9) - 4); /* ties */
    default: {
        uint32_t u = (uint32_t)rnd();
        float f;
        memcpy(&f, &u, 4);
        return f != f ? nan32 : f;
    }
    }
}

static double gen_f64(void)
{
    switch (rnd() % 16) {
    case 0: return nan64;
    case 1: return (rnd() & 1) ? 0.0 : -0.0;
    case 2: return (rnd() & 1) ? 1.0 / 0.0 : -1.0 / 0.0;
    case 3: return (double)((rnd() & 1) ? 1 : -1) * DBL_MIN * (double)(rnd() % 1000) / 1024.0;
    case 4: return (rnd() & 1) ? DBL_MAX : -DBL_MAX;
    case 5: case 6: case 7: return (double)((int)(rnd() % 9) - 4);
    default: {
        uint64_t u = rnd();
        double f;
        memcpy(&f, &u, 8);
        return f != f ? nan64 : f;
    }
    }
}

static uint64_t gen_int(void)
{
    static const uint64_t special[] = {0, 1, ~0ull, 0x7f, 0x80, 100, 0x7fff, 0x8000,
                                       0x7fffffff, 0x80000000ull, 0x7fffffffffffffffull,
                                       0x8000000000000000ull};
    if (rnd() % 4 == 0) return special[rnd() % (sizeof special / sizeof special[0])];
    if (rnd() % 3 == 0) return rnd() % 5; /* small values: ties and zeros for logical ops */
    return rnd();
}

static uint16_t gen_half(vred_type t)
{
    uint16_t h = (uint16_t)(rnd() % 8 == 0 ? gen_int() % 5 : rnd());
    if (t == VRED_BFLOAT16) {
        if ((h & 0x7fff) > 0x7f80) h = vred_f32_to_bf16(nan32);
    } else if ((h & 0x7fff) > 0x7c00) {
        h = vred_f32_to_f16(nan32);
    }
    return h;
}

/* A MINLOC/MAXLOC index: mostly small (equal values with different indices), sometimes the
 * int32 extremes (a signed compare of the index must see INT_MIN below INT_MAX). */
static int32_t gen_index(void)
{
    static const int32_t special[] = {INT32_MIN, INT32_MAX, INT32_MIN + 1, -1, 0};
    if (rnd() % 6 == 0) return special[rnd() % (sizeof special / sizeof special[0])];
    return (int32_t)(rnd() % 8) - 2;
}

/* A Fortran 2REAL / 2DOUBLE_PRECISION index: a few small numbers (ties), sometimes -0 (which
 * ties +0 as a number) or a NaN (which compares with nothing): the tie rule must pick the same
 * operand's bits as the scalar on every ISA. */
static double gen_real_index(void)
{
    switch (rnd() % 12) {
    case 0: return -0.0;
    case 1: return nan64;
    default: return (double)(rnd() % 8);
    }
}

/* A pair's integer value: mostly a few small ones of both signs (ties), else any bits of the
 * width (its extremes included, through gen_int). */
static int64_t gen_pair_int(void) { return rnd() % 2 ? (int64_t)(rnd() % 5) - 2 : (int64_t)gen_int(); }

static void put_value_f32(unsigned char *p) { float f = gen_f32(); memcpy(p, &f, 4); }
static void put_value_f64(unsigned char *p) { double f = gen_f64(); memcpy(p, &f, 8); }

/* One random element of type t at p (all sizeof bytes written, padding included). */
static void gen_elem(vred_type t, unsigned char *p)
{
    size_t size = vred_type_size(t);
    uint64_t v;
    memset(p, 0x5a, size);
    switch (t) {
    case VRED_FLOAT: put_value_f32(p); break;
    case VRED_DOUBLE: put_value_f64(p); break;
    case VRED_C_FLOAT_COMPLEX: put_value_f32(p); put_value_f32(p + 4); break;
    case VRED_C_DOUBLE_COMPLEX: put_value_f64(p); put_value_f64(p + 8); break;
    case VRED_LONG_DOUBLE: { long double x = gen_f64(); memcpy(p, &x, sizeof x); break; }
    case VRED_C_LONG_DOUBLE_COMPLEX: {
        long double x[2] = {gen_f64(), gen_f64()};
        memcpy(p, x, sizeof x);
        break;
    }
    case VRED_BOOL: p[0] = (unsigned char)(rnd() % 7 == 0 ? 2 : rnd() & 1); break;
    case VRED_BFLOAT16: case VRED_FLOAT16: { uint16_t h = gen_half(t); memcpy(p, &h, 2); break; }
    /* The padded pairs get a random padding byte per element, so that a kernel that writes
     * in's or inout's padding into out shows (out's own must stay). */
    case VRED_FLOAT_INT: { vred_float_int x = {gen_f32(), gen_index()}; memcpy(p, &x, sizeof x); break; }
    case VRED_DOUBLE_INT: { vred_double_int x; memset(&x, (int)(rnd() & 0xff), sizeof x); x.v = gen_f64(); x.i = gen_index(); memcpy(p, &x, sizeof x); break; }
    case VRED_LONG_INT: { vred_long_int x; memset(&x, (int)(rnd() & 0xff), sizeof x); x.v = gen_pair_int(); x.i = gen_index(); memcpy(p, &x, sizeof x); break; }
    case VRED_2INT: { vred_2int x = {(int32_t)(rnd() % 2 ? gen_int() : gen_int() % 4), gen_index()}; memcpy(p, &x, sizeof x); break; }
    case VRED_SHORT_INT: { vred_short_int x; memset(&x, (int)(rnd() & 0xff), sizeof x); x.v = (int16_t)gen_pair_int(); x.i = gen_index(); memcpy(p, &x, sizeof x); break; }
    case VRED_LONG_DOUBLE_INT: { vred_ldbl_int x; memset(&x, (int)(rnd() & 0xff), sizeof x); x.v = (long double)(int)(rnd() % 4); x.i = gen_index(); memcpy(p, &x, sizeof x); break; }
    case VRED_2FLOAT: { vred_2float x = {gen_f32(), (float)gen_real_index()}; memcpy(p, &x, sizeof x); break; }
    case VRED_2DOUBLE: { vred_2double x = {gen_f64(), gen_real_index()}; memcpy(p, &x, sizeof x); break; }
    default: /* integers, byte */
        v = gen_int();
        memcpy(p, &v, size);
        break;
    }
}

/* ---- test bookkeeping --------------------------------------------------------------------- */
static long passed, failed;
static int quick, no_long;

/* Equal on the significant bytes, or on every byte when `padding` says so. */
static int same(vred_type t, const unsigned char *x, const unsigned char *y, size_t count,
                int padding, size_t *where)
{
    size_t size = vred_type_size(t);
    /* Equal everywhere is equal on any mask: most outputs are, and memcmp takes them at once
     * (byte by byte through the mask, this comparison was 60% of the test's time). */
    if (!memcmp(x, y, count * size)) return 1;
    unsigned char mask[64];
    significant(t, mask);
    if (padding) memset(mask, 1, size);
    for (size_t i = 0; i < count * size; i++)
        if (mask[i % size] && x[i] != y[i]) {
            *where = i / size;
            return 0;
        }
    return 1;
}

static void dump(const char *label, vred_type t, const unsigned char *p)
{
    fprintf(stderr, "    %s:", label);
    for (size_t k = 0; k < vred_type_size(t); k++) fprintf(stderr, " %02x", p[k]);
    fprintf(stderr, "\n");
}

/* The pair types' kernels write only the value and the index (docs/semantics.md): out's padding
 * bytes keep what they held, so there the outputs must be equal on every byte, in each form
 * where the reference's padding is defined (not the n-ary form that accumulates in a scratch
 * block on the stack: its padding is whatever the stack held). */
static int padding_defined(vred_type t, const char *form)
{
    return vred_type_group(t) == VRED_G_PAIR && strcmp(form, "n-ary-aliased") != 0;
}

static void check(const char *form, const char *variant, vred_op op, vred_type t, size_t n,
                  size_t off, const unsigned char *ref, const unsigned char *got,
                  const unsigned char *a, const unsigned char *b)
{
    size_t where;
    if (same(t, ref, got, n, padding_defined(t, form), &where)) {
        passed++;
        return;
    }
    failed++;
    if (failed > 30) return;
    size_t size = vred_type_size(t);
    fprintf(stderr, "MISMATCH %s %s %s/%s n=%zu offset=%zu at element %zu\n", variant, form,
            vred_op_name(op), vred_type_name(t), n, off, where);
    if (a) dump("in   ", t, a + where * size);
    if (b) dump("inout", t, b + where * size);
    dump("want ", t, ref + where * size);
    dump("got  ", t, got + where * size);
}

/* ---- the sweep ---------------------------------------------------------------------------- */
enum { NSRC = 5, MAXVAR = 8 };
typedef struct {
    vred_isa isa;
    int masked;
    int far; /* run under vred_kernels_far(1): the AVX-512 kernels keep split loads (kernel.h) */
    int lines; /* AVX2: a shifted input read in aligned lines from any size (else from none) */
    char name[32];
} variant;

static variant variants[MAXVAR];
static int nvariants;

static void add_variants(void)
{
    /* VRED_TEST_ONLY=isa: test that ISA's kernels only (the qemu runs give NEON its own CPUs). */
    const char *only = getenv("VRED_TEST_ONLY");
    for (int isa = VRED_ISA_SSE41; isa < VRED_ISA_COUNT; isa++) {
        if (!vred_isa_supported((vred_isa)isa)) continue;
        if (only && *only && vred_isa_from_name(only) != (vred_isa)isa) continue;
        int two_tails = isa == VRED_ISA_AVX512 || isa == VRED_ISA_SVE;
        for (int m = two_tails ? 1 : -1; m >= (two_tails ? 0 : -1); m--) {
            variant *v = &variants[nvariants++];
            v->isa = (vred_isa)isa;
            v->masked = m;
            snprintf(v->name, sizeof v->name, "%s%s", vred_isa_name(v->isa),
                     m == 0 ? "/cascade" : m == 1 ? "/masked" : "");
        }
        if (isa == VRED_ISA_AVX2) { /* the realigning loop at every size (kernel.h) */
            variant *v = &variants[nvariants++];
            *v = (variant){.isa = VRED_ISA_AVX2, .masked = -1, .lines = 1};
            snprintf(v->name, sizeof v->name, "avx2/lines");
        }
        if (isa == VRED_ISA_AVX512) { /* the masked form with the hint: the realigning offsets */
            variant *v = &variants[nvariants++];
            *v = (variant){.isa = VRED_ISA_AVX512, .masked = 1, .far = 1};
            snprintf(v->name, sizeof v->name, "avx512/masked/far");
        }
    }
}

/* Select variant v's kernels; the bounds from which shifted inputs are read in lines are
 * pinned (the measured ones would leave which loop a length takes to the CPU's timing): AVX2
 * (both joins, the output above the input in its page or not) at every size or at none,
 * AVX-512 at every size (its split loads: the `far` variant), the pair form's four vectors a trip from 32 KiB (the longest lengths below take
 * them, the others the loop with the carried lines swapping roles). Returns the ISA selected. */
static vred_isa use_variant(int v)
{
    size_t avx2 = variants[v].lines ? 1 : SIZE_MAX;
    vred_realign_set_from(VRED_REALIGN_AVX2, avx2);
    vred_realign_set_from(VRED_REALIGN_AVX2_HALF, avx2);
    vred_realign_set_from(VRED_REALIGN_AVX2_NEAR, avx2);
    vred_realign_set_from(VRED_REALIGN_AVX2_HALF_NEAR, avx2);
    vred_realign_set_from(VRED_REALIGN_AVX512, 1);
    vred_realign_set_from(VRED_REALIGN_AVX512_NEAR, 1);
    vred_realign_set_from(VRED_REALIGN_PAIR, 32 << 10);
    return vred_dispatch_select(variants[v].isa, variants[v].masked);
}

/* Outputs of every form for one input set, under the currently selected table. */
typedef struct {
    unsigned char *two, *three, *alias, *nary[NSRC + 1], *all;
} outputs;

/* Page-aligned, so that the offsets below also set where the buffers sit against each other in
 * their pages: the kernels' loops run backwards when the output sits 33-63 bytes above an input
 * there (simd_body.h); the last offset set does that, the others run forwards. */
static unsigned char *xalloc(size_t bytes)
{
    unsigned char *p = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096 + 4096);
    if (!p) { perror("aligned_alloc"); exit(2); }
    return p;
}

static void run_forms(vred_op op, vred_type t, size_t n, unsigned char *const src[NSRC],
                      const size_t offs[3], outputs *o, unsigned char *scratch[3])
{
    size_t size = vred_type_size(t), bytes = n * size;
    const unsigned char *a = src[0] + offs[0], *b = src[1] + offs[1];
    /* 2-buffer: inout = in op inout */
    memcpy(scratch[1] + offs[1], b, bytes);
    if (vred_reduce(op, t, a, scratch[1] + offs[1], n) != VRED_OK) abort();
    memcpy(o->two, scratch[1] + offs[1], bytes);
    /* 3-buffer into a separate, pre-filled buffer */
    memset(scratch[2], 0xa5, bytes + offs[2] + 64);
    if (vred_reduce3(op, t, a, b, scratch[2] + offs[2], n) != VRED_OK) abort();
    memcpy(o->three, scratch[2] + offs[2], bytes);
    /* 3-buffer with out aliasing a */
    memcpy(scratch[0] + offs[0], a, bytes);
    if (vred_reduce3(op, t, scratch[0] + offs[0], b, scratch[0] + offs[0], n)) abort();
    memcpy(o->alias, scratch[0] + offs[0], bytes);
    /* n-ary, 1..NSRC sources at different misalignments; the last run also aliases out = src[0] */
    for (int k = 1; k <= NSRC; k++) {
        const void *s[NSRC];
        for (int j = 0; j < k; j++) s[j] = src[j] + offs[j % 3];
        memset(scratch[2], 0xa5, bytes + offs[2] + 64);
        if (vred_reduce_n(op, t, s, (size_t)k, scratch[2] + offs[2], n)) abort();
        memcpy(o->nary[k], scratch[2] + offs[2], bytes);
    }
    {
        const void *s[3];
        memcpy(scratch[0] + offs[0], a, bytes);
        s[0] = scratch[0] + offs[0]; /* out aliases the first source: read after out is written */
        s[1] = src[2] + offs[2];
        s[2] = src[1] + offs[1];
        if (vred_reduce_n(op, t, s, 3, scratch[0] + offs[0], n)) abort();
        memcpy(o->nary[0], scratch[0] + offs[0], bytes);
    }
    memset(o->all, 0xa5, size);
    if (vred_reduce_all(op, t, a, n, o->all)) abort();
}

static void compare_forms(const char *vname, vred_op op, vred_type t, size_t n, size_t off,
                          const outputs *r, const outputs *g, unsigned char *const src[NSRC],
                          const size_t offs[3])
{
    const unsigned char *a = src[0] + offs[0], *b = src[1] + offs[1];
    check("2-buffer", vname, op, t, n, off, r->two, g->two, a, b);
    check("3-buffer", vname, op, t, n, off, r->three, g->three, a, b);
    check("3-buffer-aliased", vname, op, t, n, off, r->alias, g->alias, a, b);
    for (int k = 0; k <= NSRC; k++) {
        char form[32];
        snprintf(form, sizeof form, k ? "n-ary(%d)" : "n-ary-aliased", k);
        check(form, vname, op, t, n, off, r->nary[k], g->nary[k], NULL, NULL);
    }
    check("reduce-all", vname, op, t, n ? 1 : 0, off, r->all, g->all, NULL, NULL);
}

static size_t vector_bytes(void)
{
    size_t v = 64; /* AVX-512 */
#ifdef VRED_HAVE_SVE
    if (vred_cpu()->sve_bits / 8 > v) v = vred_cpu()->sve_bits / 8;
#endif
    return v;
}

static void sweep(void)
{
    size_t vb = vector_bytes();
    size_t max_n = 3 * vb + 70001; /* elements of the largest case, for 1-byte types */
    unsigned char *src[NSRC], *scratch[3];
    for (int j = 0; j < NSRC; j++) src[j] = xalloc(max_n * 32 + 256);
    for (int j = 0; j < 3; j++) scratch[j] = xalloc(max_n * 32 + 256);
    outputs ref, got;
    outputs *os[2] = {&ref, &got};
    for (int k = 0; k < 2; k++) {
        os[k]->two = xalloc(max_n * 32);
        os[k]->three = xalloc(max_n * 32);
        os[k]->alias = xalloc(max_n * 32);
        for (int j = 0; j <= NSRC; j++) os[k]->nary[j] = xalloc(max_n * 32);
        os[k]->all = xalloc(64);
    }

    int realigning = vred_isa_supported(VRED_ISA_AVX512);
    for (int op = 0; op < VRED_OP_COUNT; op++)
        for (int ty = 0; ty < VRED_TYPE_COUNT; ty++) {
            vred_op o = (vred_op)op;
            vred_type t = (vred_type)ty;
            if (!vred_op_valid(o, t)) continue;
            size_t size = vred_type_size(t), w = vb / size ? vb / size : 1;
            size_t lens[1024], nlens = 0;
            for (size_t n = 0; n <= 3 * w && nlens < 1000; n += (quick && n > 8) ? 1 + n / 8 : 1)
                lens[nlens++] = n;
            /* past three vectors: the four-vector main loop with every kind of remainder */
            size_t more[] = {4 * w, 4 * w + 1, 5 * w - 1, 8 * w + 3};
            for (size_t k = 0; k < sizeof more / sizeof more[0]; k++) lens[nlens++] = more[k];
            lens[nlens++] = 1000 + rnd() % 100;
            lens[nlens++] = 4096 + 17;
            /* The 280004-byte case exercises the long loops (prefetch distance, the backward
             * loop past 16 KiB), not alignment, which every length up to 3 vectors covers: it
             * runs at the aligned and the backward offsets only (the whole AVX-512 test on the
             * Xeon of 2026-11-27: 20.5 -> 11.4 s; qemu's SVE runs are the ones this saves). */
            size_t big = quick || no_long ? 0 : (70001 * 4) / size;
            if (big) lens[nlens++] = big;
            for (size_t li = 0; li < nlens; li++) {
                size_t n = lens[li];
                size_t wv = 64 / size ? 64 / size : 1; /* elements per cache line */
                /* Byte offsets from a 64-byte boundary: aligned; whole elements off the cache
                 * line; and off by bytes inside an element (MPI buffers may be anywhere). */
                /* The last set puts the 3-buffer and n-ary outputs 48 bytes above their
                 * inputs in the page: from 16 KiB the loop runs backwards (simd_body.h), so
                 * the 4113-element length (types of 4 bytes and more) and the 280004-byte one
                 * run it. */
                /* The last three put one input 16, 32 or 48 bytes off the output's lines,
                 * where the AVX-512 loop reads that input in aligned lines (avx512_realign.h):
                 * {16, 48, 0} realigns `in` by 32 (2-buffer) and 16 (3-buffer) and `inout` by
                 * 32 (aliased); {0, 16, 0} `in` by 48, `inout` by 16; {0, 48, 0} `in` by 16,
                 * `inout` by 48. Only from four vectors, where that loop runs, below the
                 * 280004-byte length, and where this CPU runs AVX-512 (elsewhere they are
                 * offsets like the others, and they tripled the qemu runs' time). {4, 4, 4}
                 * and {4, 4, 12} put 8- and 16-byte elements 4 bytes off their alignment with
                 * both inputs at one offset, where the AVX-512 loop reads both in lines (the
                 * pair form; {0, 4, 4} and {4, 0, 12} with one of them on a line), and the
                 * other types' short calls, which have no head, 4 bytes off too (where the
                 * pair form must not run: its tail counts dwords). {16, 16, 16} puts every
                 * type's three operands at one offset off their lines, which the AVX-512
                 * kernels serve by their own path (avx512_kernel.h, one_line_offset): its head
                 * for elements of every size, with the padded pair types' field masks. */
                size_t offsets[12][3] = {{0, 0, 0},
                                        {(1 % wv) * size, (2 % wv) * size, (3 % wv) * size},
                                        {(wv - 1) * size + 1, 3, size + 5},
                                        {0, 0, 48},
                                        {16, 48, 0},
                                        {0, 16, 0},
                                        {0, 48, 0},
                                        {4, 4, 4},
                                        {4, 4, 12},
                                        {0, 4, 4},
                                        {4, 0, 12},
                                        {16, 16, 16}};
                for (int oi = 0; oi < 12; oi++) {
                    if (n == big && (oi == 1 || oi == 2)) continue;
                    if (oi >= 4 && (n * size < 256 || n == big || !realigning)) continue;
                    const size_t *offs = offsets[oi];
                    /* each source's elements start at the offset it is read at */
                    for (int j = 0; j < NSRC; j++)
                        for (size_t e = 0; e < n + wv; e++)
                            gen_elem(t, src[j] + offs[j % 3] + e * size);
                    vred_dispatch_select(VRED_ISA_SCALAR, -1);
                    run_forms(o, t, n, src, offs, &ref, scratch);
                    for (int v = 0; v < nvariants; v++) {
                        if (variants[v].far && oi < 4) continue;
                        if (use_variant(v) !=
                            variants[v].isa) {
                            fprintf(stderr, "could not select %s\n", variants[v].name);
                            exit(2);
                        }
                        vred_kernels_far(variants[v].far);
                        run_forms(o, t, n, src, offs, &got, scratch);
                        vred_kernels_far(0);
                        compare_forms(variants[v].name, o, t, n, oi, &ref, &got, src, offs);
                    }
                }
            }
        }
    for (int j = 0; j < NSRC; j++) free(src[j]);
    for (int j = 0; j < 3; j++) free(scratch[j]);
    for (int k = 0; k < 2; k++) {
        free(os[k]->two);
        free(os[k]->three);
        free(os[k]->alias);
        for (int j = 0; j <= NSRC; j++) free(os[k]->nary[j]);
        free(os[k]->all);
    }
}

/*
 * Inputs that are whole allocations of their own, so that under AddressSanitizer a load of one
 * byte before or after one fails the test: the AVX-512 loop reads an input in aligned lines
 * where it sits off the output's lines (avx512_realign.h: VALIGND at 4, 8, 16, 32, 48, 56 or
 * 60 bytes, VALIGND and VPALIGNR at 1 and 63 for bytes, a permute at any other shift), the
 * AVX2 loop where it sits a whole number of dwords off them (avx2_realign.h), and neither must
 * read the lines around it. The exact input starts e bytes
 * past a page (the bytes before it poisoned), each input in turn, the output at 0, 16, 32 and 48
 * past one, so every VALIGND shift and permutes by dwords and by bytes come up, and the output
 * sits 1-63 bytes above the input in its page or not (the plain AVX2 variant realigns only the
 * former, avx2/lines both; the longest length takes AVX-512's pair form to its two-vector
 * trips); 3-buffer form, against the scalar reference.
 */
static unsigned char *exact_alloc(size_t e, size_t bytes, void **base)
{
    if (posix_memalign(base, 4096, e + bytes + 1)) return NULL;
#if defined(__SANITIZE_ADDRESS__)
    __asan_poison_memory_region(*base, e);
    __asan_poison_memory_region((unsigned char *)*base + e + bytes, 1);
#endif
    return (unsigned char *)*base + e;
}
static void exact_free(void *base, size_t e, size_t bytes)
{
#if defined(__SANITIZE_ADDRESS__)
    __asan_unpoison_memory_region(base, e + bytes + 1);
#else
    (void)e, (void)bytes;
#endif
    free(base);
}

static const size_t exact_offsets[] = {0, 1, 4, 8, 16, 32, 48, 56, 60, 63};
static void exact_inputs(void)
{
    enum { OUT_MAX = (32 << 10) + 4096 + 256 };
    unsigned char *other = xalloc(OUT_MAX), *ref = xalloc(OUT_MAX), *got = xalloc(OUT_MAX);
    for (int op = 0; op < VRED_OP_COUNT; op++)
        for (int ty = 0; ty < VRED_TYPE_COUNT; ty++) {
            vred_op o = (vred_op)op;
            vred_type t = (vred_type)ty;
            if (!vred_op_valid(o, t)) continue;
            size_t size = vred_type_size(t);
            size_t lens[] = {256 / size + 1, 1000 / size * 4 + 1, 4096 / size * 2 + 3,
                             ((32 << 10) + 4096) / size + 3};
            size_t nlens = sizeof lens / sizeof *lens;
#if !defined(__x86_64__)
            nlens--; /* the realigning loops are x86's; qemu's runs are long enough */
#endif
            for (size_t li = 0; li < nlens; li++)
                for (size_t ei = 0; ei < sizeof exact_offsets / sizeof *exact_offsets; ei++) {
                    size_t e = exact_offsets[ei], n = lens[li], bytes = n * size;
                    void *base;
                    unsigned char *exact = exact_alloc(e, bytes, &base);
                    if (!exact) continue;
                    for (size_t k = 0; k < n; k++) {
                        gen_elem(t, exact + k * size);
                        gen_elem(t, other + k * size);
                    }
                    for (int which = 0; which < 2; which++)
                        for (size_t d = 0; d < 64; d += 16) {
                            const unsigned char *a = which ? other : exact;
                            const unsigned char *b = which ? exact : other;
                            memset(ref + d, 0xa5, bytes);
                            memset(got + d, 0xa5, bytes);
                            vred_dispatch_select(VRED_ISA_SCALAR, -1);
                            if (vred_reduce3(o, t, a, b, ref + d, n)) abort();
                            for (int v = 0; v < nvariants; v++) {
                                use_variant(v);
                                if (vred_reduce3(o, t, a, b, got + d, n)) abort();
                                check(which ? "exact-inout" : "exact-in", variants[v].name, o, t,
                                      n, d, ref + d, got + d, a, b);
                            }
                        }
                    exact_free(base, e, bytes);
                }
        }
    free(other);
    free(ref);
    free(got);
}

/* Inputs that end where their mapping ends, an unmapped page after them (as a large malloc'd
 * block may), the output ending 1-63 bytes before its page's end: the kernels' tails then sit
 * at every offset in the inputs' last line, where a masked access from the tail's first byte
 * would reach the unmapped page (avx512_kernel.h, tail_load: those tails are read from their own line
 * and moved down). Bytes and halves (byte and word offsets), 3-buffer form, every op; and
 * the n-ary form of halves (three sources and its output all ending at the unmapped page: its
 * last partial vector goes through the stack there, avx512_half.c, halves_load_last), every length
 * of that vector. */
static void page_end_tails(void)
{
    const size_t page = 4096, span = 2 * page;
    unsigned char *map[3];
    for (int k = 0; k < 3; k++) {
        map[k] = mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map[k] == MAP_FAILED || mprotect(map[k] + span, page, PROT_NONE)) {
            perror("mmap");
            exit(2);
        }
    }
    unsigned char *ref = xalloc(span);
    for (int op = 0; op < VRED_OP_COUNT; op++)
        for (int ty = 0; ty < VRED_TYPE_COUNT; ty++) {
            vred_op o = (vred_op)op;
            vred_type t = (vred_type)ty;
            size_t size = vred_type_size(t);
            if (!vred_op_valid(o, t) || size > 2) continue;
            for (size_t gap = size; gap < 64; gap += size) {
                size_t n = (1000 + gap) / size, bytes = n * size;
                const unsigned char *a = map[0] + span - bytes, *b = map[1] + span - bytes;
                unsigned char *out = map[2] + span - gap - bytes;
                for (size_t k = 0; k < n; k++) {
                    gen_elem(t, (unsigned char *)a + k * size);
                    gen_elem(t, (unsigned char *)b + k * size);
                }
                vred_dispatch_select(VRED_ISA_SCALAR, -1);
                if (vred_reduce3(o, t, a, b, ref, n)) abort();
                for (int v = 0; v < nvariants; v++) {
                    use_variant(v);
                    memset(out, 0xa5, bytes + gap);
                    if (vred_reduce3(o, t, a, b, out, n)) abort();
                    check("page-end", variants[v].name, o, t, n, gap, ref, out, a, b);
                    int kept = 1; /* nothing written past the output */
                    for (size_t k = 0; k < gap; k++) kept &= out[bytes + k] == 0xa5;
                    if (kept) passed++;
                    else if (++failed <= 30)
                        fprintf(stderr, "WROTE PAST %s page-end %s/%s gap=%zu\n", variants[v].name,
                                vred_op_name(o), vred_type_name(t), gap);
                }
                if (size != 2 || gap > 32) continue; /* n-ary halves: n mod 16 takes every value */
                unsigned char *nout = map[2] + span - bytes; /* ends at the unmapped page */
                const void *srcs[3] = {a, b, a};
                vred_dispatch_select(VRED_ISA_SCALAR, -1);
                if (vred_reduce_n(o, t, srcs, 3, ref, n)) abort();
                for (int v = 0; v < nvariants; v++) {
                    use_variant(v);
                    memset(nout, 0xa5, bytes);
                    if (vred_reduce_n(o, t, srcs, 3, nout, n)) abort();
                    check("page-end n-ary", variants[v].name, o, t, n, gap, ref, nout, a, b);
                }
            }
        }
    for (int k = 0; k < 3; k++) munmap(map[k], span + page);
    free(ref);
}

/* Variant vf / 2 with the pair form's four-a-trip loop at every size (vf even) or at none. */
static void use_pair_variant(int vf)
{
    use_variant(vf / 2);
    vred_realign_set_from(VRED_REALIGN_PAIR, vf % 2 ? SIZE_MAX : 1);
}

/* Elements of 8 or 16 bytes with both inputs 4 bytes past a line (doubles at 4 mod 64), or one
 * of them on the line below: the AVX-512 kernels read both in aligned lines, the first and the
 * last by masked loads (avx512_realign.h, the pair form). Both inputs are whole allocations
 * with the bytes after them poisoned under ASan, so a plain load of the last line is caught
 * (the 4 bytes before an input share an 8-byte ASan granule with it and cannot be poisoned);
 * in place and into outputs at the same offset or another one. */
static void exact_pairs(void)
{
    enum { OUT_MAX = 4096 * 4 + 128 };
    unsigned char *ref = xalloc(OUT_MAX), *got = xalloc(OUT_MAX), *keep = xalloc(OUT_MAX);
    for (int op = 0; op < VRED_OP_COUNT; op++)
        for (int ty = 0; ty < VRED_TYPE_COUNT; ty++) {
            vred_op o = (vred_op)op;
            vred_type t = (vred_type)ty;
            size_t size = vred_type_size(t);
            if (!vred_op_valid(o, t) || (size != 8 && size != 16)) continue;
            /* a tail of none, one element and most of a vector; past 4 KiB, 64 + 1..3 vectors
             * (the loop's four a trip leave each remainder), the last one's store across a
             * page or not */
            size_t lens[] = {256 / size + 1,        4096 / size,
                             4096 / size + 64 / size - 1, 4160 / size,
                             4224 / size + 1,       4288 / size + 3};
            for (size_t li = 0; li < sizeof lens / sizeof *lens; li++)
                for (size_t k = 0; k < 9; k++) {
                    /* both at e, or one of them on the line below (4 bytes lower); at 20 the
                     * AVX2 pair form's head (to 4 past a 32-byte line) has elements to do */
                    size_t e = k < 3 ? 4 : k < 6 ? 36 : 20;
                    size_t ea = e - (k % 3 == 2) * 4, eb = e - (k % 3 == 1) * 4;
                    size_t n = lens[li], bytes = n * size;
                    void *base_a, *base_b;
                    unsigned char *a = exact_alloc(ea, bytes, &base_a);
                    unsigned char *b = exact_alloc(eb, bytes, &base_b);
                    if (!a || !b) abort();
                    for (size_t x = 0; x < n; x++) {
                        gen_elem(t, a + x * size);
                        gen_elem(t, b + x * size);
                    }
                    memcpy(keep, b, bytes);
                    for (int vf = 0; vf < 2 * nvariants; vf++) {
                        int v = vf / 2;
                        size_t ds[] = {e, 12, 0};
                        for (size_t di = 0; di < sizeof ds / sizeof *ds; di++) {
                            size_t d = ds[di];
                            memset(ref + d, 0xa5, bytes);
                            memset(got + d, 0xa5, bytes);
                            vred_dispatch_select(VRED_ISA_SCALAR, -1);
                            if (vred_reduce3(o, t, a, b, ref + d, n)) abort();
                            use_pair_variant(vf);
                            if (vred_reduce3(o, t, a, b, got + d, n)) abort();
                            check("pair-3buf", variants[v].name, o, t, n, d, ref + d, got + d, a, b);
                        }
                        /* in place: inout = b, then restored */
                        memcpy(ref, keep, bytes);
                        vred_dispatch_select(VRED_ISA_SCALAR, -1);
                        if (vred_reduce(o, t, a, ref, n)) abort();
                        use_pair_variant(vf);
                        if (vred_reduce(o, t, a, b, n)) abort();
                        check("pair-inplace", variants[v].name, o, t, n, eb, ref, b, a, keep);
                        memcpy(b, keep, bytes);
                    }
                    exact_free(base_a, ea, bytes);
                    exact_free(base_b, eb, bytes);
                }
        }
    free(ref);
    free(got);
    free(keep);
}

/* ---- the documented rules, checked on their own (not only "equal to scalar") -------------- */
static void expect(int ok, const char *what)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        fprintf(stderr, "RULE FAILED: %s\n", what);
    }
}

/* The padded pairs, on 40 elements (vector bodies and tails alike): +-0 tie, NaN, index
 * extremes, and out's padding left alone. */
static void padded_pair_rules(void)
{
    enum { N = 40 };
    vred_double_int din[N], dio[N], dout[N];
    memset(dout, 0xee, sizeof dout);
    for (int i = 0; i < N; i++) {
        memset(&din[i], 0x11, sizeof din[i]);
        memset(&dio[i], 0x22, sizeof dio[i]);
        din[i].v = -0.0; din[i].i = INT32_MIN;
        dio[i].v = 0.0;  dio[i].i = INT32_MAX;
    }
    din[1].v = nan64; dio[1].v = 2.0; /* a NaN `in` never wins */
    din[2].v = 2.0; dio[2].v = nan64; /* nor does anything beat a NaN `inout` */
    vred_reduce3(VRED_OP_MINLOC, VRED_DOUBLE_INT, din, dio, dout, N);
    expect(dout[0].v == 0.0 && !signbit(dout[0].v) && dout[0].i == INT32_MIN &&
           dout[N - 1].i == INT32_MIN && !signbit(dout[N - 1].v),
           "double_int MINLOC(-0, +0): inout's +0, the lower index INT_MIN");
    expect(dout[1].v == 2.0 && dout[1].i == INT32_MAX, "double_int MINLOC(in=NaN, inout=2) = inout");
    expect(dout[2].v != dout[2].v && dout[2].i == INT32_MAX, "double_int MINLOC(in=2, inout=NaN) = inout");
    int untouched = 1;
    for (int i = 0; i < N; i++)
        for (size_t k = 12; k < 16; k++) untouched &= ((unsigned char *)&dout[i])[k] == 0xee;
    expect(untouched, "double_int MINLOC leaves out's padding bytes as they were");

    vred_short_int sin[N], sio[N];
    for (int i = 0; i < N; i++) {
        memset(&sin[i], 0x33, sizeof sin[i]);
        memset(&sio[i], 0x44, sizeof sio[i]);
        sin[i].v = INT16_MIN; sin[i].i = 7;
        sio[i].v = INT16_MAX; sio[i].i = -7;
    }
    vred_reduce(VRED_OP_MAXLOC, VRED_SHORT_INT, sin, sio, N);
    untouched = 1;
    for (int i = 0; i < N; i++) untouched &= ((unsigned char *)&sio[i])[2] == 0x44 && ((unsigned char *)&sio[i])[3] == 0x44;
    expect(sio[0].v == INT16_MAX && sio[0].i == -7 && sio[N - 1].v == INT16_MAX && untouched,
           "short_int MAXLOC(-32768, 32767) = 32767 (a signed compare), inout's padding kept");
}

/* Fortran 2REAL / 2DOUBLE_PRECISION, on 40 elements: where the values tie, the index is in's
 * unless inout's is lower, as both MPIs write it (Open MPI: b->k < a->k ? b->k : a->k; MPICH:
 * MPL_MIN(inout, in)); so +0 against -0 and a NaN on either side keep in's. */
static void real_index_rules(void)
{
    enum { N = 40 };
    const float fi[4][2] = {{-0.0f, 0.0f}, {0.0f, -0.0f}, {0, 3}, {3, 0}}; /* in, inout */
    vred_2float fin[N], fio[N];
    vred_2double din[N], dio[N];
    for (int i = 0; i < N; i++) {
        int c = i % 6;
        float a = c < 4 ? fi[c][0] : c == 4 ? nan32 : 5, b = c < 4 ? fi[c][1] : c == 4 ? 5 : nan32;
        fin[i] = (vred_2float){1.5f, a}, fio[i] = (vred_2float){1.5f, b};
        din[i] = (vred_2double){1.5, a}, dio[i] = (vred_2double){1.5, b};
    }
    for (int op = VRED_OP_MINLOC; op <= VRED_OP_MAXLOC; op++) {
        vred_2float fo[N];
        vred_2double dout[N];
        memcpy(fo, fio, sizeof fo);
        memcpy(dout, dio, sizeof dout);
        vred_reduce((vred_op)op, VRED_2FLOAT, fin, fo, N);
        vred_reduce((vred_op)op, VRED_2DOUBLE, din, dout, N);
        int ok = 1;
        for (int i = 0; i < N; i++) {
            int c = i % 6;
            float want = c < 2 ? fi[c][0] : c < 4 ? 0.0f : c == 4 ? nan32 : 5;
            ok &= !memcmp(&fo[i].i, &want, 4) && fo[i].v == 1.5f;
            double wd = want;
            ok &= !memcmp(&dout[i].i, &wd, 8) && dout[i].v == 1.5;
        }
        expect(ok, op == VRED_OP_MINLOC
                       ? "2REAL/2DOUBLE MINLOC tie: in's index unless inout's is lower (+-0, NaN)"
                       : "2REAL/2DOUBLE MAXLOC tie: in's index unless inout's is lower (+-0, NaN)");
    }
}

/*
 * Coverage: the AVX-512 table, in both tail forms, serves with kernels of its own every (op,
 * type) pair that the AVX2 table serves. The kernel sweep cannot see a kernel that is not in the
 * table: its slot keeps the AVX2 kernel, which gives the same bits (the AVX-512 kernels are in
 * parts, each with its own filler; avx512_kernel.h).
 */
static void coverage(void)
{
    if (!vred_isa_supported(VRED_ISA_AVX512)) return;
    static vred_kernel_table scalar, avx2, avx512[2];
    vred_table_build(&scalar, VRED_ISA_SCALAR, 1);
    vred_table_build(&avx2, VRED_ISA_AVX2, 1);
    for (int m = 0; m < 2; m++) vred_table_build(&avx512[m], VRED_ISA_AVX512, m);
    for (int op = 0; op < VRED_OP_COUNT; op++)
        for (int ty = 0; ty < VRED_TYPE_COUNT; ty++) {
            if (!vred_op_valid((vred_op)op, (vred_type)ty)) continue;
            vred_canon c = vred_canonical((vred_op)op, (vred_type)ty);
            vred_binary_fn lower = avx2.bin[c.op][c.type];
            if (lower == scalar.bin[c.op][c.type]) continue;
            for (int m = 0; m < 2; m++) {
                char what[160];
                snprintf(what, sizeof what,
                         "%s %s: the AVX-512 table (%s tail) has its own kernel where AVX2 has one",
                         vred_op_name((vred_op)op), vred_type_name((vred_type)ty),
                         m ? "masked" : "cascade");
                expect(avx512[m].bin[c.op][c.type] != lower, what);
            }
        }
}

static void rules(void)
{
    for (int v = -1; v < nvariants; v++) {
        if (v < 0) vred_dispatch_select(VRED_ISA_SCALAR, -1);
        else use_variant(v);
        int8_t in8[70], io8[70];
        for (int i = 0; i < 70; i++) in8[i] = io8[i] = 100;
        vred_reduce(VRED_OP_SUM, VRED_INT8, in8, io8, 70);
        expect(io8[0] == -56 && io8[69] == -56, "int8 SUM wraps: 100 + 100 = -56");

        float fin[20], fio[20];
        for (int i = 0; i < 20; i++) { fin[i] = nan32; fio[i] = 1.0f; }
        fin[1] = 1.0f; fio[1] = nan32;
        fin[2] = -0.0f; fio[2] = 0.0f;
        vred_reduce(VRED_OP_MAX, VRED_FLOAT, fin, fio, 20);
        expect(fio[0] != fio[0] && fio[19] != fio[19], "MAX(in=NaN, inout=1) = NaN (the in operand)");
        expect(fio[1] == 1.0f, "MAX(in=1, inout=NaN) = 1 (the in operand)");
        expect(fio[2] == 0.0f && signbit(fio[2]), "MAX(in=-0, inout=+0) = -0 (the in operand)");

        uint32_t lin[9] = {0, 0, 5, 5, 0, 7, 0, 0, 9}, lio[9] = {0, 3, 0, 3, 0, 0, 1, 0, 2};
        vred_reduce(VRED_OP_LAND, VRED_UINT32, lin, lio, 9);
        expect(lio[3] == 1 && lio[1] == 0 && lio[8] == 1, "LAND gives 0/1");
        vred_2int pin[17], pio[17];
        for (int i = 0; i < 17; i++) { pin[i].v = 4; pin[i].i = 9; pio[i].v = 4; pio[i].i = 2; }
        vred_reduce(VRED_OP_MAXLOC, VRED_2INT, pin, pio, 17);
        expect(pio[0].i == 2 && pio[16].i == 2, "MAXLOC tie takes the lower index");
        padded_pair_rules();
        real_index_rules();

        uint16_t h1[3] = {0x3f80, 0x3f80, 0x0001}, h2[3] = {0x3b80, 0x3f80, 0x0001}; /* bf16 */
        vred_reduce(VRED_OP_SUM, VRED_BFLOAT16, h1, h2, 3);
        /* 1 + 2^-8 is a tie between 1 and 1+2^-7: even is 1 (0x3f80). 1+1 = 2 (0x4000).
         * 2 x smallest subnormal = 0x0002 (kept, not flushed). */
        expect(h2[0] == 0x3f80 && h2[1] == 0x4000 && h2[2] == 0x0002, "bf16 SUM rounds to nearest even, keeps subnormals");

        vred_c32 ca[3] = {{1, 2}, {3, -1}, {0.5f, 0.25f}}, cb[3] = {{3, 4}, {2, 5}, {2, 4}};
        vred_reduce(VRED_OP_PROD, VRED_C_FLOAT_COMPLEX, ca, cb, 3);
        expect(cb[0].re == -5 && cb[0].im == 10 && cb[1].re == 11 && cb[1].im == 13,
               "complex PROD (1+2i)(3+4i) = -5+10i");
    }
    /* Errors */
    float x = 1;
    expect(vred_reduce(VRED_OP_BAND, VRED_FLOAT, &x, &x, 1) == VRED_ERR_OP_TYPE, "BAND on float is refused");
    expect(vred_reduce(VRED_OP_SUM, VRED_FLOAT, NULL, &x, 1) == VRED_ERR_ARG, "NULL with count 1 is refused");
    expect(vred_reduce(VRED_OP_SUM, VRED_FLOAT, NULL, NULL, 0) == VRED_OK, "count 0 with NULL is fine");
    expect(vred_reduce((vred_op)99, VRED_FLOAT, &x, &x, 1) == VRED_ERR_ARG, "unknown op is refused");
    const void *one[1] = {&x};
    expect(vred_reduce_n(VRED_OP_SUM, VRED_FLOAT, one, 0, &x, 1) == VRED_ERR_ARG, "n-ary with no sources is refused");
    expect(vred_reduce_n(VRED_OP_SUM, VRED_FLOAT, NULL, 1, &x, 1) == VRED_ERR_ARG, "n-ary with a NULL source list is refused");
}

int main(void)
{
    const char *seed = getenv("VRED_TEST_SEED");
    if (seed) rng_state ^= strtoull(seed, NULL, 0) * 0x9e3779b97f4a7c15ull + 1;
    quick = getenv("VRED_TEST_QUICK") && atoi(getenv("VRED_TEST_QUICK"));
    no_long = getenv("VRED_TEST_LONG") && !atoi(getenv("VRED_TEST_LONG"));
    volatile float inf32 = 1.0f / 0.0f;
    volatile double inf64 = 1.0 / 0.0;
    nan32 = inf32 - inf32;
    nan64 = inf64 - inf64;

    add_variants();
    const vred_isa *built;
    size_t nbuilt = vred_isa_ladder(&built);
    for (size_t i = 0; i < nbuilt; i++)
        if (!vred_isa_supported(built[i]))
            printf("NOT TESTED here: %s is built but this CPU cannot run it\n", vred_isa_name(built[i]));
    printf("vred kernel test: best ISA %s, variants:", vred_isa_name(vred_isa_best()));
    for (int v = 0; v < nvariants; v++) printf(" %s", variants[v].name);
    printf("; vector length %zu bytes%s%s\n", vector_bytes(), quick ? " (quick)" : "",
           no_long && !quick ? " (no long case)" : "");
    if (nvariants == 0) printf("(only the scalar reference runs on this CPU)\n");
    coverage();
    rules();
    sweep();
    exact_inputs();
    exact_pairs();
    page_end_tails();
    printf("%ld passed, %ld failed\n", passed, failed);
    return failed ? 1 : 0;
}
