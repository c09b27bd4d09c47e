/*
 * SVE kernels (this file alone is compiled with -march=armv8.2-a+sve; cpu.c checks HWCAP_SVE).
 * Vector-length agnostic: nothing here assumes a vector size; the same binary runs at 128 to 2048
 * bits (tested under qemu-aarch64 at each). One line per kernel at the bottom; the per-type
 * primitives above it.
 *
 * Each kernel comes in two forms that share the full-vector body (four vectors a trip, all-true
 * predicate) and differ only in the tail (the last < 4 vectors):
 *   vred_<op>_<type>_sve           a WHILELT-predicated loop: the predicate handles the tail
 *   vred_<op>_<type>_sve_cascade   single full vectors, then the NEON kernel takes the rest
 *                                  (its 128-bit vectors, then the scalar Duff's device)
 * dispatch picks the form (VRED_SVE_MASKED_TAIL_DEFAULT; VRED_TAIL overrides).
 *
 * Bit-exactness: MAX/MIN are FCMGT/FCMLT plus SEL (never FMAX/FMAXNM); separate FMUL/FADD/FSUB,
 * never FMLA/FCMLA; the same conversions as neon.c (see its notes, also on two-NaN operands).
 * Inactive lanes of a tail are zero (zeroing loads), computed on harmlessly and never stored.
 */
#include <arm_sve.h>
#include "kernels/kernel.h"
#include "kernels/simd_body.h"

unsigned vred_sve_vector_bits(void) { return (unsigned)svcntb() * 8u; }

typedef svuint8_t vs; /* the vector type of the byte-addressed kernels: VL bytes of anything */

/* Byte-addressed loads/stores of the binary kernels: k = vector number from p. */
#define LDB(pg, p, k) svld1_vnum_u8((pg), (p), (k))
#define STB(pg, p, k, v) svst1_vnum_u8((pg), (p), (k), (v))
#define WHILEB(i, n) svwhilelt_b8_u64((i), (n))
/* Half kernels: one half per 32-bit lane (zero-extending load, truncating store). */
#define LDH(pg, p, k) svld1uh_vnum_u32((pg), (p), (k))
#define STH(pg, p, k, v) svst1h_vnum_u32((pg), (p), (k), (v))
#define WHILEH(i, n) svwhilelt_b32_u64((i), (n))

/* The shared body: i advances over full vectors of vl_ units, four a trip. */
#define SVE_MAIN(V, vl_, LD, ST, OP, a, b, o, n, i)                                             \
    do {                                                                                        \
        svbool_t pt_ = svptrue_b8();                                                            \
        for (; (i) + 4 * (vl_) <= (n); (i) += 4 * (vl_)) {                                      \
            V x0_ = LD(pt_, (a) + (i), 0), x1_ = LD(pt_, (a) + (i), 1);                         \
            V x2_ = LD(pt_, (a) + (i), 2), x3_ = LD(pt_, (a) + (i), 3);                         \
            V y0_ = LD(pt_, (b) + (i), 0), y1_ = LD(pt_, (b) + (i), 1);                         \
            V y2_ = LD(pt_, (b) + (i), 2), y3_ = LD(pt_, (b) + (i), 3);                         \
            ST(pt_, (o) + (i), 0, OP(x0_, y0_));                                                \
            ST(pt_, (o) + (i), 1, OP(x1_, y1_));                                                \
            ST(pt_, (o) + (i), 2, OP(x2_, y2_));                                                \
            ST(pt_, (o) + (i), 3, OP(x3_, y3_));                                                \
        }                                                                                       \
    } while (0)
/* Masked tail: whole and partial vectors alike under a WHILELT predicate. */
#define SVE_MASKED_TAIL(V, vl_, LD, ST, WHILE, OP, a, b, o, n, i)                               \
    for (; (i) < (n); (i) += (vl_)) {                                                           \
        svbool_t pg_ = WHILE(i, n);                                                             \
        ST(pg_, (o) + (i), 0, OP(LD(pg_, (a) + (i), 0), LD(pg_, (b) + (i), 0)));                \
    }
/* Cascade tail: whole vectors, the rest left to the caller. */
#define SVE_FULL_TAIL(V, vl_, LD, ST, OP, a, b, o, n, i)                                        \
    for (svbool_t pt_ = svptrue_b8(); (i) + (vl_) <= (n); (i) += (vl_))                         \
        ST(pt_, (o) + (i), 0, OP(LD(pt_, (a) + (i), 0), LD(pt_, (b) + (i), 0)));

/* Kernel over SVE vectors of T (addressed as bytes), in both tail forms, stored with ST. */
#define SVE_KERNEL(name, cascade_name, lower, T, OP, ST)                                        \
    VRED_KERNEL_DECL(lower);                                                                    \
    void name(const void *a_, const void *b_, void *o_, size_t n)                               \
    {                                                                                           \
        const uint8_t *a = a_, *b = b_;                                                         \
        uint8_t *o = o_;                                                                        \
        size_t i = 0, nb = n * sizeof(T), vl = svcntb();                                        \
        SVE_MAIN(vs, vl, LDB, ST, OP, a, b, o, nb, i);                                          \
        SVE_MASKED_TAIL(vs, vl, LDB, ST, WHILEB, OP, a, b, o, nb, i)                            \
    }                                                                                           \
    void cascade_name(const void *a_, const void *b_, void *o_, size_t n)                       \
    {                                                                                           \
        const uint8_t *a = a_, *b = b_;                                                         \
        uint8_t *o = o_;                                                                        \
        size_t i = 0, nb = n * sizeof(T), vl = svcntb();                                        \
        SVE_MAIN(vs, vl, LDB, ST, OP, a, b, o, nb, i);                                          \
        SVE_FULL_TAIL(vs, vl, LDB, ST, OP, a, b, o, nb, i)                                      \
        if (i < nb) lower(a + i, b + i, o + i, (nb - i) / sizeof(T));                           \
    }
#define SVE_BINARY(name, cascade_name, lower, T, OP) SVE_KERNEL(name, cascade_name, lower, T, OP, STB)

/* The padded pair types: the scalar kernel writes only the value and the index, so every store
 * is predicated on their bytes and out's padding is never written: 0..11 of each 16 for {double
 * or long, int}, 0..1 and 4..7 of each 8 for {short, int}. (A vector is a whole number of
 * 16-byte quadwords at every length, so the pattern repeats in step with the elements.) */
#define FIELDS_PAD12 svdupq_n_b8(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0)
#define FIELDS_PAD2 svdupq_n_b8(1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1)
#define STB_PAD12(pg, p, k, v) STB(svand_b_z((pg), (pg), FIELDS_PAD12), p, k, v)
#define STB_PAD2(pg, p, k, v) STB(svand_b_z((pg), (pg), FIELDS_PAD2), p, k, v)
#define SVE_PAIR12(name, cascade_name, lower, T, OP) SVE_KERNEL(name, cascade_name, lower, T, OP, STB_PAD12)
#define SVE_PAIR2(name, cascade_name, lower, T, OP) SVE_KERNEL(name, cascade_name, lower, T, OP, STB_PAD2)

/* Half-precision kernels: VL/32 halves a vector, each widened in its own 32-bit lane. */
#define SVE_HALF(name, cascade_name, lower, OP)                                                 \
    VRED_KERNEL_DECL(lower);                                                                    \
    void name(const void *a_, const void *b_, void *o_, size_t n)                               \
    {                                                                                           \
        const uint16_t *a = a_, *b = b_;                                                        \
        uint16_t *o = o_;                                                                       \
        size_t i = 0, vl = svcntw();                                                            \
        SVE_MAIN(svuint32_t, vl, LDH, STH, OP, a, b, o, n, i);                                  \
        SVE_MASKED_TAIL(svuint32_t, vl, LDH, STH, WHILEH, OP, a, b, o, n, i)                    \
    }                                                                                           \
    void cascade_name(const void *a_, const void *b_, void *o_, size_t n)                       \
    {                                                                                           \
        const uint16_t *a = a_, *b = b_;                                                        \
        uint16_t *o = o_;                                                                       \
        size_t i = 0, vl = svcntw();                                                            \
        SVE_MAIN(svuint32_t, vl, LDH, STH, OP, a, b, o, n, i);                                  \
        SVE_FULL_TAIL(svuint32_t, vl, LDH, STH, OP, a, b, o, n, i)                              \
        if (i < n) lower(a + i, b + i, o + i, n - i);                                           \
    }

/* ---- primitives: x is `in`, y is `inout` --------------------------------------------------- */
#define PT svptrue_b8() /* all lanes, whatever the element size */
#define AS(t, v) svreinterpret_##t##_u8(v)
#define B(v) svreinterpret_u8(v)

/* Integer MAX/MIN/SUM/PROD/bitwise: exact whatever the operand order. */
#define INT_OP(fname, t, intrin) \
    static inline vs fname(vs x, vs y) { return B(intrin(PT, AS(t, y), AS(t, x))); }
INT_OP(max_i8, s8, svmax_s8_x)
INT_OP(max_u8, u8, svmax_u8_x)
INT_OP(max_i16, s16, svmax_s16_x)
INT_OP(max_u16, u16, svmax_u16_x)
INT_OP(max_i32, s32, svmax_s32_x)
INT_OP(max_u32, u32, svmax_u32_x)
INT_OP(max_i64, s64, svmax_s64_x)
INT_OP(max_u64, u64, svmax_u64_x)
INT_OP(min_i8, s8, svmin_s8_x)
INT_OP(min_u8, u8, svmin_u8_x)
INT_OP(min_i16, s16, svmin_s16_x)
INT_OP(min_u16, u16, svmin_u16_x)
INT_OP(min_i32, s32, svmin_s32_x)
INT_OP(min_u32, u32, svmin_u32_x)
INT_OP(min_i64, s64, svmin_s64_x)
INT_OP(min_u64, u64, svmin_u64_x)
INT_OP(sum_u8, u8, svadd_u8_x)
INT_OP(sum_u16, u16, svadd_u16_x)
INT_OP(sum_u32, u32, svadd_u32_x)
INT_OP(sum_u64, u64, svadd_u64_x)
INT_OP(prod_u8, u8, svmul_u8_x)
INT_OP(prod_u16, u16, svmul_u16_x)
INT_OP(prod_u32, u32, svmul_u32_x)
INT_OP(prod_u64, u64, svmul_u64_x)
INT_OP(band_u8, u8, svand_u8_x)
INT_OP(bor_u8, u8, svorr_u8_x)
INT_OP(bxor_u8, u8, sveor_u8_x)

/* Logical ops: non-zero tests into predicates, combine, then 0/1 per element. */
#define LOGICAL_OP(fname, bits, PCOMBINE)                                                       \
    static inline vs fname(vs x, vs y)                                                          \
    {                                                                                           \
        svbool_t px = svcmpne_n_u##bits(PT, AS(u##bits, x), 0);                                 \
        svbool_t py = svcmpne_n_u##bits(PT, AS(u##bits, y), 0);                                 \
        return B(svdup_n_u##bits##_z(PCOMBINE(PT, px, py), 1));                                 \
    }
LOGICAL_OP(land_u8, 8, svand_b_z)
LOGICAL_OP(land_u16, 16, svand_b_z)
LOGICAL_OP(land_u32, 32, svand_b_z)
LOGICAL_OP(land_u64, 64, svand_b_z)
LOGICAL_OP(lor_u8, 8, svorr_b_z)
LOGICAL_OP(lor_u16, 16, svorr_b_z)
LOGICAL_OP(lor_u32, 32, svorr_b_z)
LOGICAL_OP(lor_u64, 64, svorr_b_z)
LOGICAL_OP(lxor_u8, 8, sveor_b_z)
LOGICAL_OP(lxor_u16, 16, sveor_b_z)
LOGICAL_OP(lxor_u32, 32, sveor_b_z)
LOGICAL_OP(lxor_u64, 64, sveor_b_z)

/* Floats. MAX = y > x ? y : x: FCMGT is false on NaN, so x (`in`) wins a NaN or a +-0 tie. */
#define FLOAT_OPS(bits)                                                                         \
    static inline vs max_f##bits(vs x, vs y)                                                    \
    {                                                                                           \
        svfloat##bits##_t fx = AS(f##bits, x), fy = AS(f##bits, y);                             \
        return B(svsel_f##bits(svcmpgt_f##bits(PT, fy, fx), fy, fx));                           \
    }                                                                                           \
    static inline vs min_f##bits(vs x, vs y)                                                    \
    {                                                                                           \
        svfloat##bits##_t fx = AS(f##bits, x), fy = AS(f##bits, y);                             \
        return B(svsel_f##bits(svcmplt_f##bits(PT, fy, fx), fy, fx));                           \
    }                                                                                           \
    static inline vs sum_f##bits(vs x, vs y)                                                    \
    {                                                                                           \
        return B(svadd_f##bits##_x(PT, AS(f##bits, x), AS(f##bits, y)));                       \
    }                                                                                           \
    static inline vs prod_f##bits(vs x, vs y)                                                   \
    {                                                                                           \
        return B(svmul_f##bits##_x(PT, AS(f##bits, x), AS(f##bits, y)));                       \
    }
FLOAT_OPS(32)
FLOAT_OPS(64)

/* Complex product, separate FMUL/FSUB/FADD (never FMLA/FCMLA):
 * re = (xr*yr) - (xi*yi), im = (xr*yi) + (xi*yr). Real parts are the even lanes. */
static inline vs prod_c32(vs x, vs y)
{
    svfloat32_t fx = AS(f32, x), fy = AS(f32, y);
    svfloat32_t xs = svreinterpret_f32(svrevw_u64_x(PT, AS(u64, x)));   /* xi, xr */
    svfloat32_t t1 = svmul_f32_x(PT, fx, svtrn1_f32(fy, fy));           /* xr*yr, xi*yr */
    svfloat32_t t2 = svmul_f32_x(PT, xs, svtrn2_f32(fy, fy));           /* xi*yi, xr*yi */
    return B(svsel_f32(svdupq_n_b32(1, 0, 1, 0), svsub_f32_x(PT, t1, t2), svadd_f32_x(PT, t2, t1)));
}
static inline vs prod_c64(vs x, vs y)
{
    svbool_t even = svdupq_n_b64(1, 0);
    svfloat64_t fx = AS(f64, x), fy = AS(f64, y);
    svfloat64_t xs = svsel_f64(even, svtrn2_f64(fx, fx), svtrn1_f64(fx, fx)); /* xi, xr */
    svfloat64_t t1 = svmul_f64_x(PT, fx, svtrn1_f64(fy, fy));
    svfloat64_t t2 = svmul_f64_x(PT, xs, svtrn2_f64(fy, fy));
    return B(svsel_f64(even, svsub_f64_x(PT, t1, t2), svadd_f64_x(PT, t2, t1)));
}

/* MAXLOC/MINLOC on {value, index} pairs: value lanes even, index lanes odd.
 * TRN1 of predicates copies each value lane's verdict to its pair (TRN1 with an all-false
 * predicate moves it to the index lane only). Equal values keep y's value and the lower index,
 * `lower` (its odd lanes). */
#define LOC_PICK(bits)                                                                          \
    static inline vs loc_pick##bits(vs x, vs y, svbool_t take_x, svbool_t equal, svuint##bits##_t lower) \
    {                                                                                           \
        svuint##bits##_t r = svsel_u##bits(svtrn1_b##bits(take_x, take_x), AS(u##bits, x), AS(u##bits, y)); \
        return B(svsel_u##bits(svtrn1_b##bits(svpfalse_b(), equal), lower, r));                \
    }
LOC_PICK(32)
LOC_PICK(64)
/* int32 index: SMIN. float index (MPI_2REAL, MPI_2DOUBLE_PRECISION): y.i < x.i ? y.i : x.i, the
 * scalar's rule (x's unless y's is lower: +-0 and NaN included), compared in the tied pairs'
 * index lanes only (eq, the value lanes' tie; FCMGT signals FE_INVALID on any NaN, and the
 * scalar and the MPIs compare indices only where the values tie). */
static inline svuint32_t lower_i32(vs x, vs y) { return svreinterpret_u32(svmin_s32_x(PT, AS(s32, x), AS(s32, y))); }
#define LOWER_F(bits)                                                                           \
    static inline svuint##bits##_t lower_f##bits(vs x, vs y, svbool_t eq)                       \
    {                                                                                           \
        svbool_t tied = svtrn1_b##bits(svpfalse_b(), eq);                                       \
        return svsel_u##bits(svcmplt_f##bits(tied, AS(f##bits, y), AS(f##bits, x)), AS(u##bits, y), AS(u##bits, x)); \
    }
LOWER_F(32)
LOWER_F(64)
/* {double, int} and {long, int}: the int32 index is the low half of the odd 64-bit lane, so SMIN
 * on 32-bit lanes gives the lower index (the padding lane's result is never stored). */
static inline svuint64_t lower_i32_64(vs x, vs y) { return svreinterpret_u64(lower_i32(x, y)); }
/* The integer forms, in lower_f's shape (no compare to confine). */
static inline svuint32_t lower_int32(vs x, vs y, svbool_t eq) { (void)eq; return lower_i32(x, y); }
static inline svuint64_t lower_int32_64(vs x, vs y, svbool_t eq) { (void)eq; return lower_i32_64(x, y); }
/* The value lanes: only they are compared (loc_pick reads only their verdicts), so a float
 * compare never reads index or padding bits as a float (-1 is a NaN: FE_INVALID, which the
 * MPI's scalar loop does not raise). */
static inline svbool_t even_lanes(int bits)
{
    return bits == 32 ? svtrn1_b32(svptrue_b32(), svpfalse_b()) : svtrn1_b64(svptrue_b64(), svpfalse_b());
}
/* fname, value compare (CMP for take_x), value type, index lane width, lower-index function,
 * KEY(vt, v): the value lanes as compared */
#define LOC_OP_KEY(fname, CMP, vt, bits, LOWER, KEY)                                            \
    static inline vs fname(vs x, vs y)                                                          \
    {                                                                                           \
        svbool_t ev = even_lanes(bits), eq = svcmpeq_##vt(ev, KEY(vt, x), KEY(vt, y));          \
        return loc_pick##bits(x, y, CMP##_##vt(ev, KEY(vt, x), KEY(vt, y)), eq, LOWER(x, y, eq)); \
    }
#define LOC_OP(fname, CMP, vt, bits, LOWER) LOC_OP_KEY(fname, CMP, vt, bits, LOWER, AS)
/* {short, 2 padding bytes, int}: the value in the low half of the even 32-bit lane; shifted to
 * the top half it compares as an int32 in the same order, without the padding. */
#define SHORT_KEY(vt, v) svlsl_n_s32_x(PT, AS(vt, v), 16)
LOC_OP(maxloc_float_int, svcmpgt, f32, 32, lower_int32)
LOC_OP(minloc_float_int, svcmplt, f32, 32, lower_int32)
LOC_OP(maxloc_2int, svcmpgt, s32, 32, lower_int32)
LOC_OP(minloc_2int, svcmplt, s32, 32, lower_int32)
LOC_OP(maxloc_2float, svcmpgt, f32, 32, lower_f32)
LOC_OP(minloc_2float, svcmplt, f32, 32, lower_f32)
LOC_OP(maxloc_2double, svcmpgt, f64, 64, lower_f64)
LOC_OP(minloc_2double, svcmplt, f64, 64, lower_f64)
LOC_OP(maxloc_double_int, svcmpgt, f64, 64, lower_int32_64)
LOC_OP(minloc_double_int, svcmplt, f64, 64, lower_int32_64)
LOC_OP(maxloc_long_int, svcmpgt, s64, 64, lower_int32_64)
LOC_OP(minloc_long_int, svcmplt, s64, 64, lower_int32_64)
LOC_OP_KEY(maxloc_short_int, svcmpgt, s32, 32, lower_int32, SHORT_KEY)
LOC_OP_KEY(minloc_short_int, svcmplt, s32, 32, lower_int32, SHORT_KEY)

/* ---- half precision: one half in the low 16 bits of each 32-bit lane ----------------------- */
/* bf16 widens by a shift; it narrows with the scalar's integer round-to-nearest-even (a NaN keeps
 * its top bits and gets the quiet bit). */
static inline svfloat32_t widen_bf16(svuint32_t h) { return svreinterpret_f32(svlsl_n_u32_x(PT, h, 16)); }
static inline svuint32_t narrow_bf16(svfloat32_t f)
{
    svuint32_t x = svreinterpret_u32(f);
    svuint32_t r = svadd_u32_x(PT, x, svadd_n_u32_x(PT, svand_n_u32_x(PT, svlsr_n_u32_x(PT, x, 16), 1), 0x7fff));
    r = svsel_u32(svcmpeq_f32(PT, f, f), r, svorr_n_u32_x(PT, x, 0x00400000));
    return svlsr_n_u32_x(PT, r, 16);
}
/* f16: FCVT is exact except that it quietens a signalling NaN (quiet bit set, payload kept),
 * exactly as the scalar vred_f16_to_f32 does. */
static inline svfloat32_t widen_f16(svuint32_t h) { return svcvt_f32_f16_x(PT, svreinterpret_f16(h)); }
/* FCVT to half: round to nearest even (FPCR.RMode, 0 on Linux), subnormals kept (FPCR.FZ/FZ16
 * = 0); a NaN gets the quiet bit and keeps its top ten payload bits: the scalar vred_f32_to_f16.
 * The result is in the low 16 bits of the lane (the truncating store drops the rest). */
static inline svuint32_t narrow_f16(svfloat32_t f) { return svreinterpret_u32(svcvt_f16_f32_x(PT, f)); }

#define HALF_ARITH(fname, WIDEN, NARROW, FOP)                                                   \
    static inline svuint32_t fname(svuint32_t x, svuint32_t y) { return NARROW(FOP(PT, WIDEN(x), WIDEN(y))); }
/* MAX/MIN compare the widened values and return the winner's own bits. */
#define HALF_CMP(fname, WIDEN, CMP)                                                             \
    static inline svuint32_t fname(svuint32_t x, svuint32_t y)                                  \
    {                                                                                           \
        return svsel_u32(CMP(PT, WIDEN(y), WIDEN(x)), y, x);                                    \
    }
HALF_ARITH(sum_bf16, widen_bf16, narrow_bf16, svadd_f32_x)
HALF_ARITH(prod_bf16, widen_bf16, narrow_bf16, svmul_f32_x)
HALF_CMP(max_bf16, widen_bf16, svcmpgt_f32)
HALF_CMP(min_bf16, widen_bf16, svcmplt_f32)
HALF_ARITH(sum_f16, widen_f16, narrow_f16, svadd_f32_x)
HALF_ARITH(prod_f16, widen_f16, narrow_f16, svmul_f32_x)
HALF_CMP(max_f16, widen_f16, svcmpgt_f32)
HALF_CMP(min_f16, widen_f16, svcmplt_f32)

/* ---- the kernels --------------------------------------------------------------------------- */

/* ---- half precision with float32 accumulation (n-ary form); predicated loops only ---------- */
static inline svfloat32_t acc_max(svbool_t pg, svfloat32_t x, svfloat32_t y) { return svsel_f32(svcmpgt_f32(pg, y, x), y, x); }
static inline svfloat32_t acc_min(svbool_t pg, svfloat32_t x, svfloat32_t y) { return svsel_f32(svcmplt_f32(pg, y, x), y, x); }
static inline svfloat32_t acc_sum(svbool_t pg, svfloat32_t x, svfloat32_t y) { return svadd_f32_x(pg, x, y); }
static inline svfloat32_t acc_prod(svbool_t pg, svfloat32_t x, svfloat32_t y) { return svmul_f32_x(pg, x, y); }

#define SVE_HALF_ACC(name, WIDEN, FOP)                                                          \
    static void name(const void *a_, float *acc, size_t n)                                      \
    {                                                                                           \
        const uint16_t *a = a_;                                                                 \
        for (size_t i = 0; i < n; i += svcntw()) {                                              \
            svbool_t pg = svwhilelt_b32_u64(i, n);                                              \
            svfloat32_t x = WIDEN(svld1uh_u32(pg, a + i)), y = svld1_f32(pg, acc + i);          \
            svst1_f32(pg, acc + i, FOP(pg, x, y));                                              \
        }                                                                                       \
    }

#define SVE_WIDEN(name, WIDEN)                                                                  \
    static void name(const void *a_, float *o, size_t n)                                        \
    {                                                                                           \
        const uint16_t *a = a_;                                                                 \
        for (size_t i = 0; i < n; i += svcntw()) {                                              \
            svbool_t pg = svwhilelt_b32_u64(i, n);                                              \
            svst1_f32(pg, o + i, WIDEN(svld1uh_u32(pg, a + i)));                                \
        }                                                                                       \
    }
#define SVE_NARROW(name, NARROW)                                                                \
    static void name(const float *a, void *o_, size_t n)                                        \
    {                                                                                           \
        uint16_t *o = o_;                                                                       \
        for (size_t i = 0; i < n; i += svcntw()) {                                              \
            svbool_t pg = svwhilelt_b32_u64(i, n);                                              \
            svst1h_u32(pg, o + i, NARROW(svld1_f32(pg, a + i)));                                \
        }                                                                                       \
    }
/*
 * The kernels of this file, one row each: K(slot, DEFINE, name, args...) defines `name` with
 * DEFINE(name, args...) and registers it in the table slot; KT(...) likewise, for a kernel with
 * a masked and a cascade tail (name, cascade_name, ...: VRED_TAIL picks); F(slot, name)
 * registers a kernel written out above. Defining and registering a kernel is one row here.
 */
#define SVE_KERNELS(K, KT, F)                                                                       \
    KT(bin[VRED_OP_MAX][VRED_INT8], SVE_BINARY, vred_max_i8_sve, vred_max_i8_sve_cascade, vred_max_i8_neon, int8_t, max_i8) \
    KT(bin[VRED_OP_MAX][VRED_UINT8], SVE_BINARY, vred_max_u8_sve, vred_max_u8_sve_cascade, vred_max_u8_neon, uint8_t, max_u8) \
    KT(bin[VRED_OP_MAX][VRED_INT16], SVE_BINARY, vred_max_i16_sve, vred_max_i16_sve_cascade, vred_max_i16_neon, int16_t, max_i16) \
    KT(bin[VRED_OP_MAX][VRED_UINT16], SVE_BINARY, vred_max_u16_sve, vred_max_u16_sve_cascade, vred_max_u16_neon, uint16_t, max_u16) \
    KT(bin[VRED_OP_MAX][VRED_INT32], SVE_BINARY, vred_max_i32_sve, vred_max_i32_sve_cascade, vred_max_i32_neon, int32_t, max_i32) \
    KT(bin[VRED_OP_MAX][VRED_UINT32], SVE_BINARY, vred_max_u32_sve, vred_max_u32_sve_cascade, vred_max_u32_neon, uint32_t, max_u32) \
    KT(bin[VRED_OP_MAX][VRED_INT64], SVE_BINARY, vred_max_i64_sve, vred_max_i64_sve_cascade, vred_max_i64_neon, int64_t, max_i64) \
    KT(bin[VRED_OP_MAX][VRED_UINT64], SVE_BINARY, vred_max_u64_sve, vred_max_u64_sve_cascade, vred_max_u64_neon, uint64_t, max_u64) \
    KT(bin[VRED_OP_MIN][VRED_INT8], SVE_BINARY, vred_min_i8_sve, vred_min_i8_sve_cascade, vred_min_i8_neon, int8_t, min_i8) \
    KT(bin[VRED_OP_MIN][VRED_UINT8], SVE_BINARY, vred_min_u8_sve, vred_min_u8_sve_cascade, vred_min_u8_neon, uint8_t, min_u8) \
    KT(bin[VRED_OP_MIN][VRED_INT16], SVE_BINARY, vred_min_i16_sve, vred_min_i16_sve_cascade, vred_min_i16_neon, int16_t, min_i16) \
    KT(bin[VRED_OP_MIN][VRED_UINT16], SVE_BINARY, vred_min_u16_sve, vred_min_u16_sve_cascade, vred_min_u16_neon, uint16_t, min_u16) \
    KT(bin[VRED_OP_MIN][VRED_INT32], SVE_BINARY, vred_min_i32_sve, vred_min_i32_sve_cascade, vred_min_i32_neon, int32_t, min_i32) \
    KT(bin[VRED_OP_MIN][VRED_UINT32], SVE_BINARY, vred_min_u32_sve, vred_min_u32_sve_cascade, vred_min_u32_neon, uint32_t, min_u32) \
    KT(bin[VRED_OP_MIN][VRED_INT64], SVE_BINARY, vred_min_i64_sve, vred_min_i64_sve_cascade, vred_min_i64_neon, int64_t, min_i64) \
    KT(bin[VRED_OP_MIN][VRED_UINT64], SVE_BINARY, vred_min_u64_sve, vred_min_u64_sve_cascade, vred_min_u64_neon, uint64_t, min_u64) \
    KT(bin[VRED_OP_SUM][VRED_UINT8], SVE_BINARY, vred_sum_u8_sve, vred_sum_u8_sve_cascade, vred_sum_u8_neon, uint8_t, sum_u8) \
    KT(bin[VRED_OP_SUM][VRED_UINT16], SVE_BINARY, vred_sum_u16_sve, vred_sum_u16_sve_cascade, vred_sum_u16_neon, uint16_t, sum_u16) \
    KT(bin[VRED_OP_SUM][VRED_UINT32], SVE_BINARY, vred_sum_u32_sve, vred_sum_u32_sve_cascade, vred_sum_u32_neon, uint32_t, sum_u32) \
    KT(bin[VRED_OP_SUM][VRED_UINT64], SVE_BINARY, vred_sum_u64_sve, vred_sum_u64_sve_cascade, vred_sum_u64_neon, uint64_t, sum_u64) \
    KT(bin[VRED_OP_PROD][VRED_UINT8], SVE_BINARY, vred_prod_u8_sve, vred_prod_u8_sve_cascade, vred_prod_u8_neon, uint8_t, prod_u8) \
    KT(bin[VRED_OP_PROD][VRED_UINT16], SVE_BINARY, vred_prod_u16_sve, vred_prod_u16_sve_cascade, vred_prod_u16_neon, uint16_t, prod_u16) \
    KT(bin[VRED_OP_PROD][VRED_UINT32], SVE_BINARY, vred_prod_u32_sve, vred_prod_u32_sve_cascade, vred_prod_u32_neon, uint32_t, prod_u32) \
    KT(bin[VRED_OP_PROD][VRED_UINT64], SVE_BINARY, vred_prod_u64_sve, vred_prod_u64_sve_cascade, vred_prod_u64_neon, uint64_t, prod_u64) \
    KT(bin[VRED_OP_LAND][VRED_UINT8], SVE_BINARY, vred_land_u8_sve, vred_land_u8_sve_cascade, vred_land_u8_neon, uint8_t, land_u8) \
    KT(bin[VRED_OP_LAND][VRED_UINT16], SVE_BINARY, vred_land_u16_sve, vred_land_u16_sve_cascade, vred_land_u16_neon, uint16_t, land_u16) \
    KT(bin[VRED_OP_LAND][VRED_UINT32], SVE_BINARY, vred_land_u32_sve, vred_land_u32_sve_cascade, vred_land_u32_neon, uint32_t, land_u32) \
    KT(bin[VRED_OP_LAND][VRED_UINT64], SVE_BINARY, vred_land_u64_sve, vred_land_u64_sve_cascade, vred_land_u64_neon, uint64_t, land_u64) \
    KT(bin[VRED_OP_LOR][VRED_UINT8], SVE_BINARY, vred_lor_u8_sve, vred_lor_u8_sve_cascade, vred_lor_u8_neon, uint8_t, lor_u8) \
    KT(bin[VRED_OP_LOR][VRED_UINT16], SVE_BINARY, vred_lor_u16_sve, vred_lor_u16_sve_cascade, vred_lor_u16_neon, uint16_t, lor_u16) \
    KT(bin[VRED_OP_LOR][VRED_UINT32], SVE_BINARY, vred_lor_u32_sve, vred_lor_u32_sve_cascade, vred_lor_u32_neon, uint32_t, lor_u32) \
    KT(bin[VRED_OP_LOR][VRED_UINT64], SVE_BINARY, vred_lor_u64_sve, vred_lor_u64_sve_cascade, vred_lor_u64_neon, uint64_t, lor_u64) \
    KT(bin[VRED_OP_LXOR][VRED_UINT8], SVE_BINARY, vred_lxor_u8_sve, vred_lxor_u8_sve_cascade, vred_lxor_u8_neon, uint8_t, lxor_u8) \
    KT(bin[VRED_OP_LXOR][VRED_UINT16], SVE_BINARY, vred_lxor_u16_sve, vred_lxor_u16_sve_cascade, vred_lxor_u16_neon, uint16_t, lxor_u16) \
    KT(bin[VRED_OP_LXOR][VRED_UINT32], SVE_BINARY, vred_lxor_u32_sve, vred_lxor_u32_sve_cascade, vred_lxor_u32_neon, uint32_t, lxor_u32) \
    KT(bin[VRED_OP_LXOR][VRED_UINT64], SVE_BINARY, vred_lxor_u64_sve, vred_lxor_u64_sve_cascade, vred_lxor_u64_neon, uint64_t, lxor_u64) \
    KT(bin[VRED_OP_BAND][VRED_UINT8], SVE_BINARY, vred_band_u8_sve, vred_band_u8_sve_cascade, vred_band_u8_neon, uint8_t, band_u8) \
    KT(bin[VRED_OP_BOR][VRED_UINT8], SVE_BINARY, vred_bor_u8_sve, vred_bor_u8_sve_cascade, vred_bor_u8_neon, uint8_t, bor_u8) \
    KT(bin[VRED_OP_BXOR][VRED_UINT8], SVE_BINARY, vred_bxor_u8_sve, vred_bxor_u8_sve_cascade, vred_bxor_u8_neon, uint8_t, bxor_u8) \
    KT(bin[VRED_OP_MAX][VRED_FLOAT], SVE_BINARY, vred_max_f32_sve, vred_max_f32_sve_cascade, vred_max_f32_neon, float, max_f32) \
    KT(bin[VRED_OP_MIN][VRED_FLOAT], SVE_BINARY, vred_min_f32_sve, vred_min_f32_sve_cascade, vred_min_f32_neon, float, min_f32) \
    KT(bin[VRED_OP_SUM][VRED_FLOAT], SVE_BINARY, vred_sum_f32_sve, vred_sum_f32_sve_cascade, vred_sum_f32_neon, float, sum_f32) \
    KT(bin[VRED_OP_PROD][VRED_FLOAT], SVE_BINARY, vred_prod_f32_sve, vred_prod_f32_sve_cascade, vred_prod_f32_neon, float, prod_f32) \
    KT(bin[VRED_OP_MAX][VRED_DOUBLE], SVE_BINARY, vred_max_f64_sve, vred_max_f64_sve_cascade, vred_max_f64_neon, double, max_f64) \
    KT(bin[VRED_OP_MIN][VRED_DOUBLE], SVE_BINARY, vred_min_f64_sve, vred_min_f64_sve_cascade, vred_min_f64_neon, double, min_f64) \
    KT(bin[VRED_OP_SUM][VRED_DOUBLE], SVE_BINARY, vred_sum_f64_sve, vred_sum_f64_sve_cascade, vred_sum_f64_neon, double, sum_f64) \
    KT(bin[VRED_OP_PROD][VRED_DOUBLE], SVE_BINARY, vred_prod_f64_sve, vred_prod_f64_sve_cascade, vred_prod_f64_neon, double, prod_f64) \
    KT(bin[VRED_OP_PROD][VRED_C_FLOAT_COMPLEX], SVE_BINARY, vred_prod_c32_sve, vred_prod_c32_sve_cascade, vred_prod_c32_neon, vred_c32, prod_c32) \
    KT(bin[VRED_OP_PROD][VRED_C_DOUBLE_COMPLEX], SVE_BINARY, vred_prod_c64_sve, vred_prod_c64_sve_cascade, vred_prod_c64_neon, vred_c64, prod_c64) \
    KT(bin[VRED_OP_MAXLOC][VRED_FLOAT_INT], SVE_BINARY, vred_maxloc_float_int_sve, vred_maxloc_float_int_sve_cascade, vred_maxloc_float_int_neon, vred_float_int, maxloc_float_int) \
    KT(bin[VRED_OP_MINLOC][VRED_FLOAT_INT], SVE_BINARY, vred_minloc_float_int_sve, vred_minloc_float_int_sve_cascade, vred_minloc_float_int_neon, vred_float_int, minloc_float_int) \
    KT(bin[VRED_OP_MAXLOC][VRED_2INT], SVE_BINARY, vred_maxloc_2int_sve, vred_maxloc_2int_sve_cascade, vred_maxloc_2int_neon, vred_2int, maxloc_2int) \
    KT(bin[VRED_OP_MINLOC][VRED_2INT], SVE_BINARY, vred_minloc_2int_sve, vred_minloc_2int_sve_cascade, vred_minloc_2int_neon, vred_2int, minloc_2int) \
    KT(bin[VRED_OP_MAXLOC][VRED_2FLOAT], SVE_BINARY, vred_maxloc_2float_sve, vred_maxloc_2float_sve_cascade, vred_maxloc_2float_neon, vred_2float, maxloc_2float) \
    KT(bin[VRED_OP_MINLOC][VRED_2FLOAT], SVE_BINARY, vred_minloc_2float_sve, vred_minloc_2float_sve_cascade, vred_minloc_2float_neon, vred_2float, minloc_2float) \
    KT(bin[VRED_OP_MAXLOC][VRED_2DOUBLE], SVE_BINARY, vred_maxloc_2double_sve, vred_maxloc_2double_sve_cascade, vred_maxloc_2double_neon, vred_2double, maxloc_2double) \
    KT(bin[VRED_OP_MINLOC][VRED_2DOUBLE], SVE_BINARY, vred_minloc_2double_sve, vred_minloc_2double_sve_cascade, vred_minloc_2double_neon, vred_2double, minloc_2double) \
    KT(bin[VRED_OP_MAXLOC][VRED_DOUBLE_INT], SVE_PAIR12, vred_maxloc_double_int_sve, vred_maxloc_double_int_sve_cascade, vred_maxloc_double_int_neon, vred_double_int, maxloc_double_int) \
    KT(bin[VRED_OP_MAXLOC][VRED_LONG_INT], SVE_PAIR12, vred_maxloc_long_int_sve, vred_maxloc_long_int_sve_cascade, vred_maxloc_long_int_neon, vred_long_int, maxloc_long_int) \
    KT(bin[VRED_OP_MAXLOC][VRED_SHORT_INT], SVE_PAIR2, vred_maxloc_short_int_sve, vred_maxloc_short_int_sve_cascade, vred_maxloc_short_int_neon, vred_short_int, maxloc_short_int) \
    KT(bin[VRED_OP_MINLOC][VRED_DOUBLE_INT], SVE_PAIR12, vred_minloc_double_int_sve, vred_minloc_double_int_sve_cascade, vred_minloc_double_int_neon, vred_double_int, minloc_double_int) \
    KT(bin[VRED_OP_MINLOC][VRED_LONG_INT], SVE_PAIR12, vred_minloc_long_int_sve, vred_minloc_long_int_sve_cascade, vred_minloc_long_int_neon, vred_long_int, minloc_long_int) \
    KT(bin[VRED_OP_MINLOC][VRED_SHORT_INT], SVE_PAIR2, vred_minloc_short_int_sve, vred_minloc_short_int_sve_cascade, vred_minloc_short_int_neon, vred_short_int, minloc_short_int) \
    KT(bin[VRED_OP_SUM][VRED_BFLOAT16], SVE_HALF, vred_sum_bf16_sve, vred_sum_bf16_sve_cascade, vred_sum_bf16_neon, sum_bf16) \
    KT(bin[VRED_OP_PROD][VRED_BFLOAT16], SVE_HALF, vred_prod_bf16_sve, vred_prod_bf16_sve_cascade, vred_prod_bf16_neon, prod_bf16) \
    KT(bin[VRED_OP_MAX][VRED_BFLOAT16], SVE_HALF, vred_max_bf16_sve, vred_max_bf16_sve_cascade, vred_max_bf16_neon, max_bf16) \
    KT(bin[VRED_OP_MIN][VRED_BFLOAT16], SVE_HALF, vred_min_bf16_sve, vred_min_bf16_sve_cascade, vred_min_bf16_neon, min_bf16) \
    KT(bin[VRED_OP_SUM][VRED_FLOAT16], SVE_HALF, vred_sum_f16_sve, vred_sum_f16_sve_cascade, vred_sum_f16_neon, sum_f16) \
    KT(bin[VRED_OP_PROD][VRED_FLOAT16], SVE_HALF, vred_prod_f16_sve, vred_prod_f16_sve_cascade, vred_prod_f16_neon, prod_f16) \
    KT(bin[VRED_OP_MAX][VRED_FLOAT16], SVE_HALF, vred_max_f16_sve, vred_max_f16_sve_cascade, vred_max_f16_neon, max_f16) \
    KT(bin[VRED_OP_MIN][VRED_FLOAT16], SVE_HALF, vred_min_f16_sve, vred_min_f16_sve_cascade, vred_min_f16_neon, min_f16) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_MAX], SVE_HALF_ACC, vred_acc_max_bf16_sve, widen_bf16, acc_max) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_MIN], SVE_HALF_ACC, vred_acc_min_bf16_sve, widen_bf16, acc_min) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_SUM], SVE_HALF_ACC, vred_acc_sum_bf16_sve, widen_bf16, acc_sum) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_PROD], SVE_HALF_ACC, vred_acc_prod_bf16_sve, widen_bf16, acc_prod) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_MAX], SVE_HALF_ACC, vred_acc_max_f16_sve, widen_f16, acc_max) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_MIN], SVE_HALF_ACC, vred_acc_min_f16_sve, widen_f16, acc_min) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_SUM], SVE_HALF_ACC, vred_acc_sum_f16_sve, widen_f16, acc_sum) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_PROD], SVE_HALF_ACC, vred_acc_prod_f16_sve, widen_f16, acc_prod) \
    K(half_widen[VRED_HALF_BF16], SVE_WIDEN, vred_widen_bf16_sve, widen_bf16)                       \
    K(half_widen[VRED_HALF_F16], SVE_WIDEN, vred_widen_f16_sve, widen_f16)                          \
    K(half_narrow[VRED_HALF_BF16], SVE_NARROW, vred_narrow_bf16_sve, narrow_bf16)                   \
    K(half_narrow[VRED_HALF_F16], SVE_NARROW, vred_narrow_f16_sve, narrow_f16)
SVE_KERNELS(VRED_KERNEL_DEFINE, VRED_KERNEL_DEFINE, VRED_KERNEL_WRITTEN)

/* ---- the table ----------------------------------------------------------------------------- */
void vred_fill_sve(vred_kernel_table *t, int masked_tail)
{
    (void)masked_tail;
    SVE_KERNELS(VRED_KERNEL_SET, VRED_KERNEL_SET_TAIL, VRED_KERNEL_SET_WRITTEN)
}
