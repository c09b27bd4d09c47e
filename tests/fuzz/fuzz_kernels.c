/*
 * libFuzzer harness: every kernel against the scalar reference, bit for bit, on fuzzed
 * (op, type, ISA, tail, form, length, alignment, bytes). tests/unit/test_kernels.c sweeps the
 * same space with generated values; this lets the fuzzer pick the values and the corners.
 *
 * Input: 8 header bytes, then the element bytes (cycled if shorter than the case needs, so a
 * small input can still reach the vector main loops):
 *   [0] op  [1] type  [2] ISA variant  [3] form (low 3 bits) and n-ary source count (next 3)
 *   [4..5] element count (little endian, mod MAX_N+1)  [6], [7] low 6 bits: byte offsets of the
 *   even- and odd-numbered sources (plus one byte per source pair)  [6], [7] top 2 bits: the
 *   separate output's offset (17 * [6]'s + [7]'s)
 * Forms: 2-buffer, 3-buffer into a separate buffer, 3-buffer aliased to a, aliased to b, n-ary
 * (1..6 sources), n-ary aliased to its first source, reduce-all.
 *
 * Every buffer is allocated to its exact end (ASan sees any over-read or over-write past it);
 * the bytes before a buffer's start and the inputs must come back unchanged.
 *
 * NaNs (docs/semantics.md): which payload survives when two NaNs meet in SUM or PROD is the
 * hardware's choice. So where two input NaNs would meet the harness makes both the default NaN,
 * as the unit test does; and where one operation's result is a NaN it generated (inf - inf,
 * 0 * inf) and the next one meets an input's NaN (a chain: complex PROD, n-ary with three or
 * more sources, reduce-all of three or more elements), a result field may be the default NaN
 * where the other is that input's NaN. Everywhere else NaN bits (payloads, signalling NaNs, the
 * sign) are compared exactly: MAX/MIN/MINLOC/MAXLOC must return an operand's own bits.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <float.h>
#include "kernel.h"
#include "dispatch.h"
#include "significant.h"

enum { MAX_N = 1100, MAX_SRC = 6, HEADER = 8 };

enum { F_TWO, F_THREE, F_ALIAS_A, F_ALIAS_B, F_NARY, F_NARY_ALIAS, F_ALL, F_COUNT };
static const char *const form_name[F_COUNT] = {"2-buffer", "3-buffer", "3-buffer out=a",
                                               "3-buffer out=b", "n-ary", "n-ary out=src[0]",
                                               "reduce-all"};

typedef struct {
    vred_isa isa;
    int masked;
} variant;
static variant variants[8];
static int nvariants;
static float nan32;
static double nan64;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    volatile float inf32 = INFINITY;
    volatile double inf64 = INFINITY;
    nan32 = inf32 - inf32; /* the hardware's default NaN */
    nan64 = inf64 - inf64;
    const vred_isa *ladder;
    size_t n = vred_isa_ladder(&ladder);
    for (size_t i = 1; i < n; i++) {
        if (!vred_isa_supported(ladder[i])) continue;
        int two = ladder[i] == VRED_ISA_AVX512 || ladder[i] == VRED_ISA_SVE;
        for (int m = two ? 1 : -1; m >= (two ? 0 : -1); m--)
            variants[nvariants++] = (variant){ladder[i], m};
    }
    return 0;
}

/* ---- NaNs ------------------------------------------------------------------------------- */
/* The floating-point fields of one element: offsets and kinds (4 f32, 8 f64, 10 x87, 2 bf16,
 * 3 f16). Returns how many. */
static int float_fields(vred_type t, size_t off[2], int kind[2])
{
    switch (t) {
    case VRED_FLOAT: off[0] = 0; kind[0] = 4; return 1;
    case VRED_DOUBLE: off[0] = 0; kind[0] = 8; return 1;
    case VRED_LONG_DOUBLE: off[0] = 0; kind[0] = 10; return 1;
    case VRED_C_FLOAT_COMPLEX: off[0] = 0; off[1] = 4; kind[0] = kind[1] = 4; return 2;
    case VRED_C_DOUBLE_COMPLEX: off[0] = 0; off[1] = 8; kind[0] = kind[1] = 8; return 2;
    case VRED_C_LONG_DOUBLE_COMPLEX:
        off[0] = 0; off[1] = sizeof(long double); kind[0] = kind[1] = 10; return 2;
    case VRED_BFLOAT16: off[0] = 0; kind[0] = 2; return 1;
    case VRED_FLOAT16: off[0] = 0; kind[0] = 3; return 1;
    default: return 0; /* pair types: MINLOC/MAXLOC only, which select */
    }
}

static int is_nan(const unsigned char *p, int kind)
{
    switch (kind) {
    case 4: { float f; memcpy(&f, p, 4); return f != f; }
    case 8: { double d; memcpy(&d, p, 8); return d != d; }
    case 10: { long double l; memcpy(&l, p, sizeof l); return l != l; }
    default: {
        uint16_t h;
        memcpy(&h, p, 2);
        return kind == 2 ? (h & 0x7fff) > 0x7f80 : (h & 0x7fff) > 0x7c00;
    }
    }
}

/* The default NaN of either sign: a NaN the hardware generated. */
static int is_default_nan(const unsigned char *p, int kind)
{
    switch (kind) {
    case 4: { uint32_t u; memcpy(&u, p, 4); return (u & 0x7fffffffu) == 0x7fc00000u; }
    case 8: { uint64_t u; memcpy(&u, p, 8); return (u & ~(1ull << 63)) == 0x7ff8000000000000ull; }
    case 10: {
        uint64_t m;
        uint16_t e;
        memcpy(&m, p, 8);
        memcpy(&e, p + 8, 2);
        return (e & 0x7fff) == 0x7fff && m == 0xc000000000000000ull;
    }
    default: {
        uint16_t h;
        memcpy(&h, p, 2);
        return (h & 0x7fff) == (kind == 2 ? 0x7fc0 : 0x7e00);
    }
    }
}

/* Element e of ref and got differ only where a generated NaN met an input NaN (see above). */
static int nan_chain_ok(vred_type t, const unsigned char *ref, const unsigned char *got)
{
    size_t off[2];
    int kind[2];
    int nf = float_fields(t, off, kind);
    size_t covered = 0;
    for (int f = 0; f < nf; f++) {
        const unsigned char *r = ref + off[f], *g = got + off[f];
        size_t w = kind[f] == 10 ? 10 : kind[f] < 4 ? 2 : (size_t)kind[f];
        covered += w;
        if (memcmp(r, g, w) == 0) continue;
        if (!is_nan(r, kind[f]) || !is_nan(g, kind[f])) return 0;
        if (!is_default_nan(r, kind[f]) && !is_default_nan(g, kind[f])) return 0;
    }
    return nf > 0 && covered > 0;
}

static void set_default_nan(unsigned char *p, int kind)
{
    switch (kind) {
    case 4: memcpy(p, &nan32, 4); break;
    case 8: memcpy(p, &nan64, 8); break;
    case 10: { long double l = nan64; memcpy(p, &l, 10); break; }
    case 2: { uint16_t h = vred_f32_to_bf16(nan32); memcpy(p, &h, 2); break; }
    default: { uint16_t h = vred_f32_to_f16(nan32); memcpy(p, &h, 2); break; }
    }
}

/* SUM and PROD only (MAX, MIN, MINLOC, MAXLOC select an operand: its bits must survive).
 * Two NaNs meet where one position holds NaNs in more than one source (more than one NaN part
 * of a complex PROD: the parts are multiplied crosswise), and in reduce-all wherever the array
 * holds more than one NaN (the lanes are folded together). Those NaNs become the default NaN. */
static void tame_nans(vred_op op, vred_type t, int form, unsigned char *const *src, int k, size_t n)
{
    size_t off[2];
    int kind[2];
    int nf = float_fields(t, off, kind);
    if (!nf || (op != VRED_OP_SUM && op != VRED_OP_PROD)) return;
    size_t size = vred_type_size(t);
    int crosswise = op == VRED_OP_PROD && nf == 2;
    size_t in_array = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            int nans[2] = {0, 0};
            for (int j = 0; j < k; j++)
                for (int f = 0; f < nf; f++)
                    nans[f] += is_nan(src[j] + i * size + off[f], kind[f]);
            int total = nans[0] + nans[1];
            if (pass == 0) {
                in_array += (size_t)total;
                continue;
            }
            int tame = form == F_ALL ? in_array > 1
                     : crosswise ? total > 1
                     : nans[0] > 1 || nans[1] > 1;
            if (!tame) continue;
            for (int j = 0; j < k; j++)
                for (int f = 0; f < nf; f++)
                    if (is_nan(src[j] + i * size + off[f], kind[f]))
                        set_default_nan(src[j] + i * size + off[f], kind[f]);
        }
}

/* ---- one run of one form ---------------------------------------------------------------- */
typedef struct {
    unsigned char *base[MAX_SRC + 1]; /* allocations: sources, then the separate output */
    unsigned char *p[MAX_SRC + 1];    /* element 0 of each, at its offset */
} buffers;

static void *xmalloc(size_t b)
{
    void *p = malloc(b ? b : 1);
    if (!p) abort();
    return p;
}

/* A fresh copy of the inputs (each ending exactly at the end of its allocation) and a separate
 * output prefilled with 0xa5. */
static void setup(buffers *b, unsigned char *const *src, int k, size_t bytes, size_t out_bytes,
                  const size_t offs[3])
{
    for (int j = 0; j < k; j++) {
        size_t o = offs[j % 2 ? 2 : 0] + (size_t)(j / 2);
        b->base[j] = xmalloc(o + bytes);
        memset(b->base[j], 0x5a, o);
        b->p[j] = b->base[j] + o;
        memcpy(b->p[j], src[j], bytes);
    }
    b->base[MAX_SRC] = xmalloc(offs[1] + out_bytes);
    memset(b->base[MAX_SRC], 0xa5, offs[1] + out_bytes);
    b->p[MAX_SRC] = b->base[MAX_SRC] + offs[1];
}

static void teardown(buffers *b, int k)
{
    for (int j = 0; j < k; j++) free(b->base[j]);
    free(b->base[MAX_SRC]);
}

/* Runs `form` on fresh buffers; copies the result (n elements, or 1 for reduce-all) to res. */
static int run(int form, vred_op op, vred_type t, unsigned char *const *src, int k, size_t n,
               const size_t offs[3], unsigned char *res, size_t res_bytes)
{
    size_t size = vred_type_size(t), bytes = n * size;
    buffers b;
    setup(&b, src, k, bytes, form == F_ALL ? size : bytes, offs);
    unsigned char *out = NULL;
    int rc;
    switch (form) {
    case F_TWO: rc = vred_reduce(op, t, b.p[0], b.p[1], n); out = b.p[1]; break;
    case F_THREE: rc = vred_reduce3(op, t, b.p[0], b.p[1], b.p[MAX_SRC], n); out = b.p[MAX_SRC]; break;
    case F_ALIAS_A: rc = vred_reduce3(op, t, b.p[0], b.p[1], b.p[0], n); out = b.p[0]; break;
    case F_ALIAS_B: rc = vred_reduce3(op, t, b.p[0], b.p[1], b.p[1], n); out = b.p[1]; break;
    case F_NARY:
    case F_NARY_ALIAS: {
        const void *s[MAX_SRC];
        for (int j = 0; j < k; j++) s[j] = b.p[j];
        out = form == F_NARY ? b.p[MAX_SRC] : b.p[0];
        rc = vred_reduce_n(op, t, s, (size_t)k, out, n);
        break;
    }
    default: {
        /* the result lands in an exact-size buffer, prefilled */
        unsigned char *r = b.p[MAX_SRC];
        rc = vred_reduce_all(op, t, b.p[0], n, r);
        out = r;
        break;
    }
    }
    memcpy(res, out, res_bytes);
    /* nothing before any buffer's start was written; inputs that are not the output unchanged */
    for (int j = 0; j < k; j++) {
        size_t o = (size_t)(b.p[j] - b.base[j]);
        for (size_t i = 0; i < o; i++)
            if (b.base[j][i] != 0x5a) {
                fprintf(stderr, "%s wrote before source %d\n", form_name[form], j);
                abort();
            }
        if (b.p[j] != out && memcmp(b.p[j], src[j], bytes) != 0) {
            fprintf(stderr, "%s modified source %d\n", form_name[form], j);
            abort();
        }
    }
    for (size_t i = 0; i < offs[1]; i++)
        if (b.base[MAX_SRC][i] != 0xa5) {
            fprintf(stderr, "%s wrote before the output\n", form_name[form]);
            abort();
        }
    if (out != b.p[MAX_SRC])
        for (size_t i = 0; i < bytes; i++)
            if (b.p[MAX_SRC][i] != 0xa5) {
                fprintf(stderr, "%s wrote to an unused buffer\n", form_name[form]);
                abort();
            }
    teardown(&b, k);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < HEADER) return 0;
    vred_op op = (vred_op)(data[0] % VRED_OP_COUNT);
    vred_type t = (vred_type)(data[1] % VRED_TYPE_COUNT);
    int form = (data[3] & 7) % F_COUNT;
    int k = 2;
    if (form == F_NARY || form == F_NARY_ALIAS) k = 1 + (data[3] >> 3) % MAX_SRC;
    if (form == F_ALL) k = 1;
    size_t n = (size_t)(data[4] | data[5] << 8) % (MAX_N + 1);
    size_t offs[3] = {data[6] & 63, (size_t)(data[6] >> 6) * 17 + (data[7] >> 6), data[7] & 63};
    const uint8_t *bytes = data + HEADER;
    size_t nbytes = size - HEADER;

    if (!vred_op_valid(op, t)) {
        /* refused alike under every table, and nothing touched */
        unsigned char x[64] = {0}, y[64] = {0};
        if (vred_reduce(op, t, x, y, 1) != VRED_ERR_OP_TYPE) abort();
        return 0;
    }
    size_t esize = vred_type_size(t), len = n * esize;
    unsigned char *src[MAX_SRC];
    for (int j = 0; j < k; j++) {
        src[j] = xmalloc(len);
        for (size_t i = 0; i < len; i++)
            src[j][i] = nbytes ? bytes[(j * len + i) % nbytes] ^ (unsigned char)(j * (i / nbytes)) : 0;
    }
    tame_nans(op, t, form, src, k, n);

    size_t rbytes = form == F_ALL ? esize : len;
    unsigned char *ref = xmalloc(rbytes), *got = xmalloc(rbytes);
    vred_dispatch_select(VRED_ISA_SCALAR, -1);
    int rc_ref = run(form, op, t, src, k, n, offs, ref, rbytes);
    vred_isa isa = VRED_ISA_SCALAR;
    int masked = -1;
    if (nvariants) {
        variant v = variants[data[2] % nvariants];
        isa = vred_dispatch_select(v.isa, v.masked);
        masked = v.masked;
    }
    int rc_got = run(form, op, t, src, k, n, offs, got, rbytes);
    if (rc_ref != VRED_OK || rc_got != VRED_OK) {
        fprintf(stderr, "return codes %d (scalar) and %d (%s)\n", rc_ref, rc_got, vred_isa_name(isa));
        abort();
    }
    unsigned char mask[64];
    significant(t, mask);
    int chain = (op == VRED_OP_SUM || op == VRED_OP_PROD) &&
                ((op == VRED_OP_PROD && vred_type_group(t) == VRED_G_COMPLEX) ||
                 ((form == F_NARY || form == F_NARY_ALIAS) && k >= 3) || (form == F_ALL && n >= 3));
    size_t cmp = form == F_ALL ? (n ? esize : 0) : len;
    for (size_t i = 0; i < cmp; i++) {
        if (!mask[i % esize] || ref[i] == got[i]) continue;
        size_t e = i / esize;
        if (chain && nan_chain_ok(t, ref + e * esize, got + e * esize)) {
            i = (e + 1) * esize - 1;
            continue;
        }
        fprintf(stderr, "MISMATCH %s%s %s %s/%s n=%zu sources=%d offsets=%zu,%zu,%zu element %zu\n",
                vred_isa_name(isa), masked == 1 ? "/masked" : masked == 0 ? "/cascade" : "",
                form_name[form], vred_op_name(op), vred_type_name(t), n, k, offs[0], offs[1],
                offs[2], e);
        for (int j = 0; j < k && form != F_ALL; j++) {
            fprintf(stderr, "  src[%d]:", j);
            for (size_t q = 0; q < esize; q++) fprintf(stderr, " %02x", src[j][e * esize + q]);
            fprintf(stderr, "\n");
        }
        fprintf(stderr, "  want  :");
        for (size_t q = 0; q < esize; q++) fprintf(stderr, " %02x", ref[e * esize + q]);
        fprintf(stderr, "\n  got   :");
        for (size_t q = 0; q < esize; q++) fprintf(stderr, " %02x", got[e * esize + q]);
        fprintf(stderr, "\n");
        abort();
    }
    free(ref);
    free(got);
    for (int j = 0; j < k; j++) free(src[j]);
    return 0;
}
