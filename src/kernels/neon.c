/*
 * NEON (AdvSIMD) kernels for aarch64, compiled with the default armv8-a flags: every aarch64 CPU
 * runs them (cpu.c still checks HWCAP_ASIMD). One line per kernel at the bottom; the per-type
 * primitives above it. 128-bit vectors through the shared loop body of simd_body.h; the last
 * < 16 bytes go to the scalar kernel (a Duff's device). sve.c's cascade form ends in these
 * kernels, so they are also SVE's 128-bit step.
 *
 * Bit-exactness notes (see scalar.c, compiled for aarch64 with the same -ffp-contract=off):
 *   - MAX/MIN are a compare plus a bit-select, never FMAX/FMAXNM (NaN and +-0 rules differ);
 *   - separate FMUL/FADD/FSUB, never FMLA/FCMLA (one rounding instead of two);
 *   - one NaN operand: the result is that NaN, quietened, as in the scalar code. Two NaN operands:
 *     which payload survives is left open (docs/semantics.md): GCC treats FADD/FMUL as
 *     commutative and swaps their operands in the scalar and the vector code alike;
 *   - float16 widening is plain FCVTL, which quietens a signalling NaN (sets the quiet bit, keeps
 *     the payload), as the scalar vred_f16_to_f32 does (the widen kernel must match it bit for bit).
 */
#include <arm_neon.h>
#include <string.h>
#include "kernels/kernel.h"
#include "kernels/simd_body.h"

typedef uint8x16_t vq; /* the one vector type the loop body sees: 16 bytes of anything */

#define LDQ(p) vld1q_u8((const uint8_t *)(const void *)(p))
#define STQ(p, v) vst1q_u8((uint8_t *)(void *)(p), (v))

/* Kernel over 128-bit vectors of T, stored with STORE(p, v); the rest (< 16 bytes) goes to the
 * scalar kernel. */
#define NEON_KERNEL(name, scalar_name, T, OP, STORE)                                            \
    VRED_KERNEL_DECL(scalar_name);                                                              \
    void name(const void *a_, const void *b_, void *o_, size_t n)                               \
    {                                                                                           \
        const T *a = a_, *b = b_;                                                               \
        T *o = o_;                                                                              \
        size_t i = 0;                                                                           \
        VRED_SIMD_LOOP(T, vq, LDQ, STORE, OP, a, b, o, n, i);                                   \
        if (i < n) scalar_name(a + i, b + i, o + i, n - i);                                     \
    }
#define NEON_BINARY(name, scalar_name, T, OP) NEON_KERNEL(name, scalar_name, T, OP, STQ)

/* The padded pair types: the scalar kernel writes only the value and the index, so the store
 * reads out first and puts its padding bytes back: 12..15 of {double or long, int}, 2..3 (and
 * 10..11) of {short, int}. */
static const uint32_t pad12_bits[4] = {0, 0, 0, ~0u};
static const uint16_t pad2_bits[8] = {0, 0xffff, 0, 0, 0, 0xffff, 0, 0};
#define STQ_PAD12(p, v) STQ((p), vbslq_u8(vreinterpretq_u8_u32(vld1q_u32(pad12_bits)), LDQ(p), (v)))
#define STQ_PAD2(p, v) STQ((p), vbslq_u8(vreinterpretq_u8_u16(vld1q_u16(pad2_bits)), LDQ(p), (v)))
#define NEON_PAIR12(name, scalar_name, T, OP) NEON_KERNEL(name, scalar_name, T, OP, STQ_PAD12)
#define NEON_PAIR2(name, scalar_name, T, OP) NEON_KERNEL(name, scalar_name, T, OP, STQ_PAD2)

/* ---- primitives: x is `in`, y is `inout` --------------------------------------------------- */
#define U8(v) vreinterpretq_u8_##v
#define AS(t, v) vreinterpretq_##t##_u8(v)
/* arm_neon.h has no identity casts; the generic macros below need the u8 one. */
#define vreinterpretq_u8_u8(v) (v)

/* Integer MAX/MIN/SUM/PROD/bitwise: exact whatever the operand order. */
#define INT_OP(fname, t, intrin) \
    static inline vq fname(vq x, vq y) { return vreinterpretq_u8_##t(intrin(AS(t, y), AS(t, x))); }
INT_OP(max_i8, s8, vmaxq_s8)
INT_OP(max_u8, u8, vmaxq_u8)
INT_OP(max_i16, s16, vmaxq_s16)
INT_OP(max_u16, u16, vmaxq_u16)
INT_OP(max_i32, s32, vmaxq_s32)
INT_OP(max_u32, u32, vmaxq_u32)
INT_OP(min_i8, s8, vminq_s8)
INT_OP(min_u8, u8, vminq_u8)
INT_OP(min_i16, s16, vminq_s16)
INT_OP(min_u16, u16, vminq_u16)
INT_OP(min_i32, s32, vminq_s32)
INT_OP(min_u32, u32, vminq_u32)
INT_OP(sum_u8, u8, vaddq_u8)
INT_OP(sum_u16, u16, vaddq_u16)
INT_OP(sum_u32, u32, vaddq_u32)
INT_OP(sum_u64, u64, vaddq_u64)
INT_OP(prod_u8, u8, vmulq_u8)
INT_OP(prod_u16, u16, vmulq_u16)
INT_OP(prod_u32, u32, vmulq_u32)
INT_OP(band_u8, u8, vandq_u8)
INT_OP(bor_u8, u8, vorrq_u8)
INT_OP(bxor_u8, u8, veorq_u8)

/* No 64-bit MAX/MIN instruction: compare and select (CMGT/CMHI + BSL). */
static inline vq max_i64(vq x, vq y)
{
    return U8(u64)(vbslq_u64(vcgtq_s64(AS(s64, y), AS(s64, x)), AS(u64, y), AS(u64, x)));
}
static inline vq max_u64(vq x, vq y)
{
    return U8(u64)(vbslq_u64(vcgtq_u64(AS(u64, y), AS(u64, x)), AS(u64, y), AS(u64, x)));
}
static inline vq min_i64(vq x, vq y)
{
    return U8(u64)(vbslq_u64(vcltq_s64(AS(s64, y), AS(s64, x)), AS(u64, y), AS(u64, x)));
}
static inline vq min_u64(vq x, vq y)
{
    return U8(u64)(vbslq_u64(vcltq_u64(AS(u64, y), AS(u64, x)), AS(u64, y), AS(u64, x)));
}

/* No 64-bit multiply: x*y mod 2^64 = xl*yl + ((xl*yh + xh*yl) mod 2^32) << 32. */
static inline uint64x2_t mul_u64x2(uint64x2_t x, uint64x2_t y)
{
    uint32x2_t xl = vmovn_u64(x), yl = vmovn_u64(y);
    uint32x2_t xh = vshrn_n_u64(x, 32), yh = vshrn_n_u64(y, 32);
    uint32x2_t cross = vmla_u32(vmul_u32(xl, yh), xh, yl);
    return vaddq_u64(vmull_u32(xl, yl), vshll_n_u32(cross, 32));
}
static inline vq prod_u64(vq x, vq y) { return U8(u64)(mul_u64x2(AS(u64, x), AS(u64, y))); }

/* Logical ops: CMTST gives all-ones for a non-zero element; combine, shift down to 0/1. */
#define LOGICAL_OP(fname, t, bits, COMBINE)                                                     \
    static inline vq fname(vq x, vq y)                                                          \
    {                                                                                           \
        return U8(t)(vshrq_n_##t(COMBINE(vtstq_##t(AS(t, x), AS(t, x)),                         \
                                         vtstq_##t(AS(t, y), AS(t, y))), bits - 1));            \
    }
LOGICAL_OP(land_u8, u8, 8, vandq_u8)
LOGICAL_OP(land_u16, u16, 16, vandq_u16)
LOGICAL_OP(land_u32, u32, 32, vandq_u32)
LOGICAL_OP(land_u64, u64, 64, vandq_u64)
LOGICAL_OP(lor_u8, u8, 8, vorrq_u8)
LOGICAL_OP(lor_u16, u16, 16, vorrq_u16)
LOGICAL_OP(lor_u32, u32, 32, vorrq_u32)
LOGICAL_OP(lor_u64, u64, 64, vorrq_u64)
LOGICAL_OP(lxor_u8, u8, 8, veorq_u8)
LOGICAL_OP(lxor_u16, u16, 16, veorq_u16)
LOGICAL_OP(lxor_u32, u32, 32, veorq_u32)
LOGICAL_OP(lxor_u64, u64, 64, veorq_u64)

/* Floats. MAX = y > x ? y : x: FCMGT is false on NaN, so x (`in`) wins a NaN or a +-0 tie. */
static inline vq max_f32(vq x, vq y)
{
    float32x4_t fx = AS(f32, x), fy = AS(f32, y);
    return U8(f32)(vbslq_f32(vcgtq_f32(fy, fx), fy, fx));
}
static inline vq min_f32(vq x, vq y)
{
    float32x4_t fx = AS(f32, x), fy = AS(f32, y);
    return U8(f32)(vbslq_f32(vcltq_f32(fy, fx), fy, fx));
}
static inline vq max_f64(vq x, vq y)
{
    float64x2_t fx = AS(f64, x), fy = AS(f64, y);
    return U8(f64)(vbslq_f64(vcgtq_f64(fy, fx), fy, fx));
}
static inline vq min_f64(vq x, vq y)
{
    float64x2_t fx = AS(f64, x), fy = AS(f64, y);
    return U8(f64)(vbslq_f64(vcltq_f64(fy, fx), fy, fx));
}
static inline vq sum_f32(vq x, vq y) { return U8(f32)(vaddq_f32(AS(f32, x), AS(f32, y))); }
static inline vq prod_f32(vq x, vq y) { return U8(f32)(vmulq_f32(AS(f32, x), AS(f32, y))); }
static inline vq sum_f64(vq x, vq y) { return U8(f64)(vaddq_f64(AS(f64, x), AS(f64, y))); }
static inline vq prod_f64(vq x, vq y) { return U8(f64)(vmulq_f64(AS(f64, x), AS(f64, y))); }

/* Complex product, separate FMUL/FSUB/FADD (never FMLA/FCMLA):
 * re = (xr*yr) - (xi*yi), im = (xr*yi) + (xi*yr). */
static inline vq prod_c32(vq x, vq y)
{
    float32x4_t fx = AS(f32, x), fy = AS(f32, y);
    float32x4_t t1 = vmulq_f32(fx, vtrn1q_f32(fy, fy));                /* xr*yr, xi*yr */
    float32x4_t t2 = vmulq_f32(vrev64q_f32(fx), vtrn2q_f32(fy, fy));   /* xi*yi, xr*yi */
    const uint32x4_t odd = {0, ~0u, 0, ~0u};
    return U8(f32)(vbslq_f32(odd, vaddq_f32(t2, t1), vsubq_f32(t1, t2)));
}
static inline vq prod_c64(vq x, vq y)
{
    float64x2_t fx = AS(f64, x), fy = AS(f64, y);
    float64x2_t t1 = vmulq_f64(fx, vdupq_laneq_f64(fy, 0));            /* xr*yr, xi*yr */
    float64x2_t t2 = vmulq_f64(vextq_f64(fx, fx, 1), vdupq_laneq_f64(fy, 1)); /* xi*yi, xr*yi */
    float64x2_t re = vsubq_f64(t1, t2), im = vaddq_f64(t2, t1);
    return U8(f64)(vzip1q_f64(re, vextq_f64(im, im, 1)));   /* {re[0], im[1]} */
}

/* MAXLOC/MINLOC on {32-bit value, 32-bit index} pairs: value lanes even, index lanes odd.
 * take_x/equal compare the value lanes; TRN1 (or DUP of lane 0) copies each verdict to its index
 * lane. Equal values keep y's value and the lower index, `lower` (its odd lanes). */
static inline vq loc_pick32(vq x, vq y, uint32x4_t take_x, uint32x4_t equal, uint32x4_t lower)
{
    const uint32x4_t odd = {0, ~0u, 0, ~0u};
    uint32x4_t r = vbslq_u32(vtrn1q_u32(take_x, take_x), AS(u32, x), AS(u32, y));
    return U8(u32)(vbslq_u32(vandq_u32(vtrn1q_u32(equal, equal), odd), lower, r));
}
/* int32 index: SMIN. float index (MPI_2REAL): y.i < x.i ? y.i : x.i, the scalar's rule (x's
 * unless y's is lower: +-0 and NaN included), of the tied pairs only (eq, over both lanes; the
 * others compare zeros): FCMGT signals FE_INVALID on any NaN, and the scalar and the MPIs
 * compare indices only where the values tie. */
static inline uint32x4_t lower_i32(vq x, vq y) { return vreinterpretq_u32_s32(vminq_s32(AS(s32, x), AS(s32, y))); }
static inline uint32x4_t lower_f32(vq x, vq y, uint32x4_t eq)
{
    float32x4_t xt = vreinterpretq_f32_u32(vandq_u32(AS(u32, x), eq));
    float32x4_t yt = vreinterpretq_f32_u32(vandq_u32(AS(u32, y), eq));
    return vbslq_u32(vcltq_f32(yt, xt), AS(u32, y), AS(u32, x));
}
/* The values alone, each copied over its pair's index lane (TRN1), are compared: a float
 * compare of the index lanes reads index bits as a float ({float, int}: -1 is a NaN) and FCMGT
 * raises FE_INVALID on any NaN, which the MPI's scalar loop does not. */
static inline float32x4_t val32(vq v) { return vtrn1q_f32(AS(f32, v), AS(f32, v)); }
static inline vq maxloc_float_int(vq x, vq y)
{
    return loc_pick32(x, y, vcgtq_f32(val32(x), val32(y)), vceqq_f32(val32(x), val32(y)), lower_i32(x, y));
}
static inline vq minloc_float_int(vq x, vq y)
{
    return loc_pick32(x, y, vcltq_f32(val32(x), val32(y)), vceqq_f32(val32(x), val32(y)), lower_i32(x, y));
}
static inline vq maxloc_2int(vq x, vq y)
{
    return loc_pick32(x, y, vcgtq_s32(AS(s32, x), AS(s32, y)), vceqq_s32(AS(s32, x), AS(s32, y)), lower_i32(x, y));
}
static inline vq minloc_2int(vq x, vq y)
{
    return loc_pick32(x, y, vcltq_s32(AS(s32, x), AS(s32, y)), vceqq_s32(AS(s32, x), AS(s32, y)), lower_i32(x, y));
}
static inline vq maxloc_2float(vq x, vq y)
{
    uint32x4_t eq = vceqq_f32(val32(x), val32(y));
    return loc_pick32(x, y, vcgtq_f32(val32(x), val32(y)), eq, lower_f32(x, y, eq));
}
static inline vq minloc_2float(vq x, vq y)
{
    uint32x4_t eq = vceqq_f32(val32(x), val32(y));
    return loc_pick32(x, y, vcltq_f32(val32(x), val32(y)), eq, lower_f32(x, y, eq));
}
/* One pair a vector, value in 64-bit lane 0, index in lane 1: {double v, i}
 * (MPI_2DOUBLE_PRECISION), and {double or long, int, 4 padding bytes} (the index in lane 1's low
 * half). The verdicts of lane 0 are copied over the vector; a tie keeps y's value and takes
 * `lower`'s lane 1, the lower index. */
static inline vq loc_pick64(vq x, vq y, uint64x2_t take_x, uint64x2_t equal, uint64x2_t lower)
{
    const uint64x2_t odd = {0, ~0ull};
    uint64x2_t r = vbslq_u64(vdupq_laneq_u64(take_x, 0), AS(u64, x), AS(u64, y));
    return U8(u64)(vbslq_u64(vandq_u64(vdupq_laneq_u64(equal, 0), odd), lower, r));
}
/* 2DOUBLE_PRECISION: lower_f32's rule on the index lane (eq over both lanes). */
static inline uint64x2_t lower_f64(vq x, vq y, uint64x2_t eq)
{
    float64x2_t xt = vreinterpretq_f64_u64(vandq_u64(AS(u64, x), eq));
    float64x2_t yt = vreinterpretq_f64_u64(vandq_u64(AS(u64, y), eq));
    return vbslq_u64(vcltq_f64(yt, xt), AS(u64, y), AS(u64, x));
}
static inline float64x2_t val64(vq v) { return vdupq_laneq_f64(AS(f64, v), 0); }
static inline vq maxloc_2double(vq x, vq y)
{
    uint64x2_t eq = vceqq_f64(val64(x), val64(y));
    return loc_pick64(x, y, vcgtq_f64(val64(x), val64(y)), eq, lower_f64(x, y, eq));
}
static inline vq minloc_2double(vq x, vq y)
{
    uint64x2_t eq = vceqq_f64(val64(x), val64(y));
    return loc_pick64(x, y, vcltq_f64(val64(x), val64(y)), eq, lower_f64(x, y, eq));
}
/* {double, int} and {long, int}: SMIN on 32-bit lanes gives the lower index (and a minimum of
 * padding that the store replaces with out's own). FCMGT/FCMEQ are false on NaN; {double, int}
 * compares lane 0's value duplicated (DUP), not lane 1's index and padding bits as a double. */
static inline uint64x2_t lower_i32_64(vq x, vq y) { return vreinterpretq_u64_u32(lower_i32(x, y)); }
static inline vq maxloc_double_int(vq x, vq y)
{
    return loc_pick64(x, y, vcgtq_f64(val64(x), val64(y)), vceqq_f64(val64(x), val64(y)), lower_i32_64(x, y));
}
static inline vq minloc_double_int(vq x, vq y)
{
    return loc_pick64(x, y, vcltq_f64(val64(x), val64(y)), vceqq_f64(val64(x), val64(y)), lower_i32_64(x, y));
}
static inline vq maxloc_long_int(vq x, vq y)
{
    int64x2_t ix = AS(s64, x), iy = AS(s64, y);
    return loc_pick64(x, y, vcgtq_s64(ix, iy), vceqq_s64(ix, iy), lower_i32_64(x, y));
}
static inline vq minloc_long_int(vq x, vq y)
{
    int64x2_t ix = AS(s64, x), iy = AS(s64, y);
    return loc_pick64(x, y, vcltq_s64(ix, iy), vceqq_s64(ix, iy), lower_i32_64(x, y));
}
/* {short, 2 padding bytes, int}: the value in the low half of the even 32-bit lane; shifted to
 * the top half it compares as an int32 in the same order, without the padding. */
static inline int32x4_t short_key(vq v) { return vshlq_n_s32(AS(s32, v), 16); }
static inline vq maxloc_short_int(vq x, vq y)
{
    int32x4_t kx = short_key(x), ky = short_key(y);
    return loc_pick32(x, y, vcgtq_s32(kx, ky), vceqq_s32(kx, ky), lower_i32(x, y));
}
static inline vq minloc_short_int(vq x, vq y)
{
    int32x4_t kx = short_key(x), ky = short_key(y);
    return loc_pick32(x, y, vcltq_s32(kx, ky), vceqq_s32(kx, ky), lower_i32(x, y));
}

/* ---- half precision ------------------------------------------------------------------------ */
/* bf16 widens by a shift. It narrows with the scalar's integer round-to-nearest-even; a NaN
 * keeps its top bits and gets the quiet bit. */
static inline float32x4_t widen_bf16(uint16x4_t h) { return vreinterpretq_f32_u32(vshll_n_u16(h, 16)); }
static inline uint32x4_t narrow_bf16_bits(float32x4_t f) /* the result in the top 16 bits */
{
    uint32x4_t x = vreinterpretq_u32_f32(f);
    uint32x4_t r = vaddq_u32(x, vaddq_u32(vandq_u32(vshrq_n_u32(x, 16), vdupq_n_u32(1)),
                                          vdupq_n_u32(0x7fff)));
    uint32x4_t num = vceqq_f32(f, f);
    return vbslq_u32(num, r, vorrq_u32(x, vdupq_n_u32(0x00400000)));
}
static inline uint16x8_t narrow_bf16(float32x4_t lo, float32x4_t hi)
{
    return vuzp2q_u16(vreinterpretq_u16_u32(narrow_bf16_bits(lo)),
                      vreinterpretq_u16_u32(narrow_bf16_bits(hi)));
}
/* f16: FCVTL is exact except that it quietens a signalling NaN (quiet bit set, payload kept),
 * exactly as the scalar vred_f16_to_f32 does, so half_widen matches it bit for bit. */
static inline float32x4_t widen_f16(uint16x4_t h) { return vcvt_f32_f16(vreinterpret_f16_u16(h)); }
/* FCVTN: round to nearest even (FPCR.RMode, 0 on Linux), subnormals kept (FPCR.FZ/FZ16 = 0);
 * a NaN gets the quiet bit and keeps its top ten payload bits: the scalar vred_f32_to_f16. */
static inline uint16x8_t narrow_f16(float32x4_t lo, float32x4_t hi)
{
    return vreinterpretq_u16_f16(vcvt_high_f16_f32(vcvt_f16_f32(lo), hi));
}

#define HALF_ARITH(fname, WIDEN, NARROW, FOP)                                                   \
    static inline vq fname(vq x, vq y)                                                          \
    {                                                                                           \
        uint16x8_t hx = AS(u16, x), hy = AS(u16, y);                                            \
        float32x4_t lo = FOP(WIDEN(vget_low_u16(hx)), WIDEN(vget_low_u16(hy)));                 \
        float32x4_t hi = FOP(WIDEN(vget_high_u16(hx)), WIDEN(vget_high_u16(hy)));               \
        return U8(u16)(NARROW(lo, hi));                                                         \
    }
/* MAX/MIN compare the widened values and return the winner's own bits. */
#define HALF_CMP(fname, WIDEN, CMP)                                                             \
    static inline vq fname(vq x, vq y)                                                          \
    {                                                                                           \
        uint16x8_t hx = AS(u16, x), hy = AS(u16, y);                                            \
        uint32x4_t lo = CMP(WIDEN(vget_low_u16(hy)), WIDEN(vget_low_u16(hx)));                  \
        uint32x4_t hi = CMP(WIDEN(vget_high_u16(hy)), WIDEN(vget_high_u16(hx)));                \
        uint16x8_t m = vuzp1q_u16(vreinterpretq_u16_u32(lo), vreinterpretq_u16_u32(hi));         \
        return U8(u16)(vbslq_u16(m, hy, hx));                                                   \
    }
HALF_ARITH(sum_bf16, widen_bf16, narrow_bf16, vaddq_f32)
HALF_ARITH(prod_bf16, widen_bf16, narrow_bf16, vmulq_f32)
HALF_CMP(max_bf16, widen_bf16, vcgtq_f32)
HALF_CMP(min_bf16, widen_bf16, vcltq_f32)
HALF_ARITH(sum_f16, widen_f16, narrow_f16, vaddq_f32)
HALF_ARITH(prod_f16, widen_f16, narrow_f16, vmulq_f32)
HALF_CMP(max_f16, widen_f16, vcgtq_f32)
HALF_CMP(min_f16, widen_f16, vcltq_f32)

/* ---- the kernels --------------------------------------------------------------------------- */

/* ---- half precision with float32 accumulation (n-ary form) --------------------------------- */
/* Four halves a step. The scalar versions are private to scalar.c, so the last < 4 elements go
 * through the same vector step on a zero-padded copy: bit-identical by construction. */
static inline float32x4_t acc_max(float32x4_t x, float32x4_t y) { return vbslq_f32(vcgtq_f32(y, x), y, x); }
static inline float32x4_t acc_min(float32x4_t x, float32x4_t y) { return vbslq_f32(vcltq_f32(y, x), y, x); }
static inline float32x4_t acc_sum(float32x4_t x, float32x4_t y) { return vaddq_f32(x, y); }
static inline float32x4_t acc_prod(float32x4_t x, float32x4_t y) { return vmulq_f32(x, y); }

#define NEON_HALF_ACC(name, WIDEN, FOP)                                                         \
    static void name(const void *a_, float *acc, size_t n)                                      \
    {                                                                                           \
        const uint16_t *a = a_;                                                                 \
        size_t i = 0;                                                                           \
        for (; i + 4 <= n; i += 4)                                                              \
            vst1q_f32(acc + i, FOP(WIDEN(vld1_u16(a + i)), vld1q_f32(acc + i)));                \
        if (i < n) {                                                                            \
            uint16_t ta[4] = {0};                                                               \
            float tacc[4] = {0};                                                                \
            memcpy(ta, a + i, (n - i) * 2);                                                     \
            memcpy(tacc, acc + i, (n - i) * 4);                                                 \
            vst1q_f32(tacc, FOP(WIDEN(vld1_u16(ta)), vld1q_f32(tacc)));                         \
            memcpy(acc + i, tacc, (n - i) * 4);                                                 \
        }                                                                                       \
    }

#define NEON_WIDEN(name, WIDEN)                                                                 \
    static void name(const void *a_, float *o, size_t n)                                        \
    {                                                                                           \
        const uint16_t *a = a_;                                                                 \
        size_t i = 0;                                                                           \
        for (; i + 4 <= n; i += 4) vst1q_f32(o + i, WIDEN(vld1_u16(a + i)));                    \
        if (i < n) {                                                                            \
            uint16_t ta[4] = {0};                                                               \
            float to[4];                                                                        \
            memcpy(ta, a + i, (n - i) * 2);                                                     \
            vst1q_f32(to, WIDEN(vld1_u16(ta)));                                                 \
            memcpy(o + i, to, (n - i) * 4);                                                     \
        }                                                                                       \
    }
#define NEON_NARROW(name, NARROW)                                                               \
    static void name(const float *a, void *o_, size_t n)                                        \
    {                                                                                           \
        uint16_t *o = o_;                                                                       \
        size_t i = 0;                                                                           \
        for (; i + 8 <= n; i += 8) vst1q_u16(o + i, NARROW(vld1q_f32(a + i), vld1q_f32(a + i + 4))); \
        if (i < n) {                                                                            \
            float ta[8] = {0};                                                                  \
            uint16_t to[8];                                                                     \
            memcpy(ta, a + i, (n - i) * 4);                                                     \
            vst1q_u16(to, NARROW(vld1q_f32(ta), vld1q_f32(ta + 4)));                            \
            memcpy(o + i, to, (n - i) * 2);                                                     \
        }                                                                                       \
    }
/*
 * The kernels of this file, one row each: K(slot, DEFINE, name, args...) defines `name` with
 * DEFINE(name, args...) and registers it in the table slot; KT(...) likewise, for a kernel with
 * a masked and a cascade tail (name, cascade_name, ...: VRED_TAIL picks); F(slot, name)
 * registers a kernel written out above. Defining and registering a kernel is one row here.
 */
#define NEON_KERNELS(K, KT, F)                                                                      \
    K(bin[VRED_OP_MAX][VRED_INT8], NEON_BINARY, vred_max_i8_neon, vred_max_i8_scalar, int8_t, max_i8) \
    K(bin[VRED_OP_MAX][VRED_UINT8], NEON_BINARY, vred_max_u8_neon, vred_max_u8_scalar, uint8_t, max_u8) \
    K(bin[VRED_OP_MAX][VRED_INT16], NEON_BINARY, vred_max_i16_neon, vred_max_i16_scalar, int16_t, max_i16) \
    K(bin[VRED_OP_MAX][VRED_UINT16], NEON_BINARY, vred_max_u16_neon, vred_max_u16_scalar, uint16_t, max_u16) \
    K(bin[VRED_OP_MAX][VRED_INT32], NEON_BINARY, vred_max_i32_neon, vred_max_i32_scalar, int32_t, max_i32) \
    K(bin[VRED_OP_MAX][VRED_UINT32], NEON_BINARY, vred_max_u32_neon, vred_max_u32_scalar, uint32_t, max_u32) \
    K(bin[VRED_OP_MAX][VRED_INT64], NEON_BINARY, vred_max_i64_neon, vred_max_i64_scalar, int64_t, max_i64) \
    K(bin[VRED_OP_MAX][VRED_UINT64], NEON_BINARY, vred_max_u64_neon, vred_max_u64_scalar, uint64_t, max_u64) \
    K(bin[VRED_OP_MIN][VRED_INT8], NEON_BINARY, vred_min_i8_neon, vred_min_i8_scalar, int8_t, min_i8) \
    K(bin[VRED_OP_MIN][VRED_UINT8], NEON_BINARY, vred_min_u8_neon, vred_min_u8_scalar, uint8_t, min_u8) \
    K(bin[VRED_OP_MIN][VRED_INT16], NEON_BINARY, vred_min_i16_neon, vred_min_i16_scalar, int16_t, min_i16) \
    K(bin[VRED_OP_MIN][VRED_UINT16], NEON_BINARY, vred_min_u16_neon, vred_min_u16_scalar, uint16_t, min_u16) \
    K(bin[VRED_OP_MIN][VRED_INT32], NEON_BINARY, vred_min_i32_neon, vred_min_i32_scalar, int32_t, min_i32) \
    K(bin[VRED_OP_MIN][VRED_UINT32], NEON_BINARY, vred_min_u32_neon, vred_min_u32_scalar, uint32_t, min_u32) \
    K(bin[VRED_OP_MIN][VRED_INT64], NEON_BINARY, vred_min_i64_neon, vred_min_i64_scalar, int64_t, min_i64) \
    K(bin[VRED_OP_MIN][VRED_UINT64], NEON_BINARY, vred_min_u64_neon, vred_min_u64_scalar, uint64_t, min_u64) \
    K(bin[VRED_OP_SUM][VRED_UINT8], NEON_BINARY, vred_sum_u8_neon, vred_sum_u8_scalar, uint8_t, sum_u8) \
    K(bin[VRED_OP_SUM][VRED_UINT16], NEON_BINARY, vred_sum_u16_neon, vred_sum_u16_scalar, uint16_t, sum_u16) \
    K(bin[VRED_OP_SUM][VRED_UINT32], NEON_BINARY, vred_sum_u32_neon, vred_sum_u32_scalar, uint32_t, sum_u32) \
    K(bin[VRED_OP_SUM][VRED_UINT64], NEON_BINARY, vred_sum_u64_neon, vred_sum_u64_scalar, uint64_t, sum_u64) \
    K(bin[VRED_OP_PROD][VRED_UINT8], NEON_BINARY, vred_prod_u8_neon, vred_prod_u8_scalar, uint8_t, prod_u8) \
    K(bin[VRED_OP_PROD][VRED_UINT16], NEON_BINARY, vred_prod_u16_neon, vred_prod_u16_scalar, uint16_t, prod_u16) \
    K(bin[VRED_OP_PROD][VRED_UINT32], NEON_BINARY, vred_prod_u32_neon, vred_prod_u32_scalar, uint32_t, prod_u32) \
    K(bin[VRED_OP_PROD][VRED_UINT64], NEON_BINARY, vred_prod_u64_neon, vred_prod_u64_scalar, uint64_t, prod_u64) \
    K(bin[VRED_OP_LAND][VRED_UINT8], NEON_BINARY, vred_land_u8_neon, vred_land_u8_scalar, uint8_t, land_u8) \
    K(bin[VRED_OP_LAND][VRED_UINT16], NEON_BINARY, vred_land_u16_neon, vred_land_u16_scalar, uint16_t, land_u16) \
    K(bin[VRED_OP_LAND][VRED_UINT32], NEON_BINARY, vred_land_u32_neon, vred_land_u32_scalar, uint32_t, land_u32) \
    K(bin[VRED_OP_LAND][VRED_UINT64], NEON_BINARY, vred_land_u64_neon, vred_land_u64_scalar, uint64_t, land_u64) \
    K(bin[VRED_OP_LOR][VRED_UINT8], NEON_BINARY, vred_lor_u8_neon, vred_lor_u8_scalar, uint8_t, lor_u8) \
    K(bin[VRED_OP_LOR][VRED_UINT16], NEON_BINARY, vred_lor_u16_neon, vred_lor_u16_scalar, uint16_t, lor_u16) \
    K(bin[VRED_OP_LOR][VRED_UINT32], NEON_BINARY, vred_lor_u32_neon, vred_lor_u32_scalar, uint32_t, lor_u32) \
    K(bin[VRED_OP_LOR][VRED_UINT64], NEON_BINARY, vred_lor_u64_neon, vred_lor_u64_scalar, uint64_t, lor_u64) \
    K(bin[VRED_OP_LXOR][VRED_UINT8], NEON_BINARY, vred_lxor_u8_neon, vred_lxor_u8_scalar, uint8_t, lxor_u8) \
    K(bin[VRED_OP_LXOR][VRED_UINT16], NEON_BINARY, vred_lxor_u16_neon, vred_lxor_u16_scalar, uint16_t, lxor_u16) \
    K(bin[VRED_OP_LXOR][VRED_UINT32], NEON_BINARY, vred_lxor_u32_neon, vred_lxor_u32_scalar, uint32_t, lxor_u32) \
    K(bin[VRED_OP_LXOR][VRED_UINT64], NEON_BINARY, vred_lxor_u64_neon, vred_lxor_u64_scalar, uint64_t, lxor_u64) \
    K(bin[VRED_OP_BAND][VRED_UINT8], NEON_BINARY, vred_band_u8_neon, vred_band_u8_scalar, uint8_t, band_u8) \
    K(bin[VRED_OP_BOR][VRED_UINT8], NEON_BINARY, vred_bor_u8_neon, vred_bor_u8_scalar, uint8_t, bor_u8) \
    K(bin[VRED_OP_BXOR][VRED_UINT8], NEON_BINARY, vred_bxor_u8_neon, vred_bxor_u8_scalar, uint8_t, bxor_u8) \
    K(bin[VRED_OP_MAX][VRED_FLOAT], NEON_BINARY, vred_max_f32_neon, vred_max_f32_scalar, float, max_f32) \
    K(bin[VRED_OP_MIN][VRED_FLOAT], NEON_BINARY, vred_min_f32_neon, vred_min_f32_scalar, float, min_f32) \
    K(bin[VRED_OP_SUM][VRED_FLOAT], NEON_BINARY, vred_sum_f32_neon, vred_sum_f32_scalar, float, sum_f32) \
    K(bin[VRED_OP_PROD][VRED_FLOAT], NEON_BINARY, vred_prod_f32_neon, vred_prod_f32_scalar, float, prod_f32) \
    K(bin[VRED_OP_MAX][VRED_DOUBLE], NEON_BINARY, vred_max_f64_neon, vred_max_f64_scalar, double, max_f64) \
    K(bin[VRED_OP_MIN][VRED_DOUBLE], NEON_BINARY, vred_min_f64_neon, vred_min_f64_scalar, double, min_f64) \
    K(bin[VRED_OP_SUM][VRED_DOUBLE], NEON_BINARY, vred_sum_f64_neon, vred_sum_f64_scalar, double, sum_f64) \
    K(bin[VRED_OP_PROD][VRED_DOUBLE], NEON_BINARY, vred_prod_f64_neon, vred_prod_f64_scalar, double, prod_f64) \
    K(bin[VRED_OP_PROD][VRED_C_FLOAT_COMPLEX], NEON_BINARY, vred_prod_c32_neon, vred_prod_c32_scalar, vred_c32, prod_c32) \
    K(bin[VRED_OP_PROD][VRED_C_DOUBLE_COMPLEX], NEON_BINARY, vred_prod_c64_neon, vred_prod_c64_scalar, vred_c64, prod_c64) \
    K(bin[VRED_OP_MAXLOC][VRED_FLOAT_INT], NEON_BINARY, vred_maxloc_float_int_neon, vred_maxloc_float_int_scalar, vred_float_int, maxloc_float_int) \
    K(bin[VRED_OP_MINLOC][VRED_FLOAT_INT], NEON_BINARY, vred_minloc_float_int_neon, vred_minloc_float_int_scalar, vred_float_int, minloc_float_int) \
    K(bin[VRED_OP_MAXLOC][VRED_2INT], NEON_BINARY, vred_maxloc_2int_neon, vred_maxloc_2int_scalar, vred_2int, maxloc_2int) \
    K(bin[VRED_OP_MINLOC][VRED_2INT], NEON_BINARY, vred_minloc_2int_neon, vred_minloc_2int_scalar, vred_2int, minloc_2int) \
    K(bin[VRED_OP_MAXLOC][VRED_2FLOAT], NEON_BINARY, vred_maxloc_2float_neon, vred_maxloc_2float_scalar, vred_2float, maxloc_2float) \
    K(bin[VRED_OP_MINLOC][VRED_2FLOAT], NEON_BINARY, vred_minloc_2float_neon, vred_minloc_2float_scalar, vred_2float, minloc_2float) \
    K(bin[VRED_OP_MAXLOC][VRED_2DOUBLE], NEON_BINARY, vred_maxloc_2double_neon, vred_maxloc_2double_scalar, vred_2double, maxloc_2double) \
    K(bin[VRED_OP_MINLOC][VRED_2DOUBLE], NEON_BINARY, vred_minloc_2double_neon, vred_minloc_2double_scalar, vred_2double, minloc_2double) \
    K(bin[VRED_OP_MAXLOC][VRED_DOUBLE_INT], NEON_PAIR12, vred_maxloc_double_int_neon, vred_maxloc_double_int_scalar, vred_double_int, maxloc_double_int) \
    K(bin[VRED_OP_MAXLOC][VRED_LONG_INT], NEON_PAIR12, vred_maxloc_long_int_neon, vred_maxloc_long_int_scalar, vred_long_int, maxloc_long_int) \
    K(bin[VRED_OP_MAXLOC][VRED_SHORT_INT], NEON_PAIR2, vred_maxloc_short_int_neon, vred_maxloc_short_int_scalar, vred_short_int, maxloc_short_int) \
    K(bin[VRED_OP_MINLOC][VRED_DOUBLE_INT], NEON_PAIR12, vred_minloc_double_int_neon, vred_minloc_double_int_scalar, vred_double_int, minloc_double_int) \
    K(bin[VRED_OP_MINLOC][VRED_LONG_INT], NEON_PAIR12, vred_minloc_long_int_neon, vred_minloc_long_int_scalar, vred_long_int, minloc_long_int) \
    K(bin[VRED_OP_MINLOC][VRED_SHORT_INT], NEON_PAIR2, vred_minloc_short_int_neon, vred_minloc_short_int_scalar, vred_short_int, minloc_short_int) \
    K(bin[VRED_OP_SUM][VRED_BFLOAT16], NEON_BINARY, vred_sum_bf16_neon, vred_sum_bf16_scalar, uint16_t, sum_bf16) \
    K(bin[VRED_OP_PROD][VRED_BFLOAT16], NEON_BINARY, vred_prod_bf16_neon, vred_prod_bf16_scalar, uint16_t, prod_bf16) \
    K(bin[VRED_OP_MAX][VRED_BFLOAT16], NEON_BINARY, vred_max_bf16_neon, vred_max_bf16_scalar, uint16_t, max_bf16) \
    K(bin[VRED_OP_MIN][VRED_BFLOAT16], NEON_BINARY, vred_min_bf16_neon, vred_min_bf16_scalar, uint16_t, min_bf16) \
    K(bin[VRED_OP_SUM][VRED_FLOAT16], NEON_BINARY, vred_sum_f16_neon, vred_sum_f16_scalar, uint16_t, sum_f16) \
    K(bin[VRED_OP_PROD][VRED_FLOAT16], NEON_BINARY, vred_prod_f16_neon, vred_prod_f16_scalar, uint16_t, prod_f16) \
    K(bin[VRED_OP_MAX][VRED_FLOAT16], NEON_BINARY, vred_max_f16_neon, vred_max_f16_scalar, uint16_t, max_f16) \
    K(bin[VRED_OP_MIN][VRED_FLOAT16], NEON_BINARY, vred_min_f16_neon, vred_min_f16_scalar, uint16_t, min_f16) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_MAX], NEON_HALF_ACC, vred_acc_max_bf16_neon, widen_bf16, acc_max) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_MIN], NEON_HALF_ACC, vred_acc_min_bf16_neon, widen_bf16, acc_min) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_SUM], NEON_HALF_ACC, vred_acc_sum_bf16_neon, widen_bf16, acc_sum) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_PROD], NEON_HALF_ACC, vred_acc_prod_bf16_neon, widen_bf16, acc_prod) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_MAX], NEON_HALF_ACC, vred_acc_max_f16_neon, widen_f16, acc_max) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_MIN], NEON_HALF_ACC, vred_acc_min_f16_neon, widen_f16, acc_min) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_SUM], NEON_HALF_ACC, vred_acc_sum_f16_neon, widen_f16, acc_sum) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_PROD], NEON_HALF_ACC, vred_acc_prod_f16_neon, widen_f16, acc_prod) \
    K(half_widen[VRED_HALF_BF16], NEON_WIDEN, vred_widen_bf16_neon, widen_bf16)                     \
    K(half_widen[VRED_HALF_F16], NEON_WIDEN, vred_widen_f16_neon, widen_f16)                        \
    K(half_narrow[VRED_HALF_BF16], NEON_NARROW, vred_narrow_bf16_neon, narrow_bf16)                 \
    K(half_narrow[VRED_HALF_F16], NEON_NARROW, vred_narrow_f16_neon, narrow_f16)
NEON_KERNELS(VRED_KERNEL_DEFINE, VRED_KERNEL_DEFINE, VRED_KERNEL_WRITTEN)

/* ---- the table ----------------------------------------------------------------------------- */
void vred_fill_neon(vred_kernel_table *t, int masked_tail)
{
    (void)masked_tail;
    NEON_KERNELS(VRED_KERNEL_SET, VRED_KERNEL_SET_TAIL, VRED_KERNEL_SET_WRITTEN)
}
