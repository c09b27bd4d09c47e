/*
 * SSE4.1 kernels (128-bit; this file is compiled with -msse4.1 only, which also brings SSE2,
 * SSE3 and SSSE3). One line per kernel at the bottom; the per-type primitives above it.
 *
 * The tail (fewer than one 128-bit vector) goes to the scalar kernel of the same name: the last
 * step of the first paper's cascade (AVX-512 -> AVX2 -> SSE4.1 -> scalar Duff's device).
 *
 * Left to scalar here, and why:
 *   - float16: converting needs F16C (compiled into avx2.c only);
 *   - long double, its complex and {long double, int}: x87 only;
 *   - 64-bit integer PROD: without a 64-bit multiply it takes three 32x32 multiplies and five
 *     more ops per two elements, measured slower than the scalar IMUL (0.8x);
 *   - MINLOC/MAXLOC on {long, int}: one pair a vector and no PCMPGTQ (lt_i64 is 7 ops), measured
 *     slower than the scalar kernel (0.6x).
 * The pair types with padding ({double,int}, {short,int}) store through a read of out
 * that puts its padding bytes back (ST128_PAD*): the scalar kernel writes only the two fields.
 */
#include <smmintrin.h>
#include "kernels/kernel.h"
#include "kernels/simd_body.h"

#define LD128(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define ST128(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))

/* Kernel over 128-bit vectors of T, stored with STORE(p, v); the rest goes to `lower` (the
 * scalar kernel). */
#define SSE41_KERNEL(name, lower, T, OP, STORE)                                                 \
    VRED_KERNEL_DECL(lower);                                                                    \
    void name(const void *a_, const void *b_, void *o_, size_t n)                               \
    {                                                                                           \
        const T *a = a_, *b = b_;                                                               \
        T *o = o_;                                                                              \
        size_t i = 0;                                                                           \
        VRED_SIMD_LOOP(T, __m128i, LD128, STORE, OP, a, b, o, n, i);                            \
        if (i < n) lower(a + i, b + i, o + i, n - i);                                           \
    }
#define SSE41_BINARY(name, lower, T, OP) SSE41_KERNEL(name, lower, T, OP, ST128)

/* The padded pair types: the scalar kernel writes only the value and the index, so the store
 * reads out first and puts its padding back: bytes 12..15 (words 6, 7) of {double or long, int},
 * 2..3 and 10..11 (words 1, 5) of {short, int}. */
#define ST128_PAD12(p, v) ST128((p), _mm_blend_epi16((v), LD128(p), 0xc0))
#define ST128_PAD2(p, v) ST128((p), _mm_blend_epi16((v), LD128(p), 0x22))
#define SSE41_PAIR12(name, lower, T, OP) SSE41_KERNEL(name, lower, T, OP, ST128_PAD12)
#define SSE41_PAIR2(name, lower, T, OP) SSE41_KERNEL(name, lower, T, OP, ST128_PAD2)

/* ---- primitives: x is `in`, y is `inout` --------------------------------------------------- */
#define PS(v) _mm_castsi128_ps(v)
#define PD(v) _mm_castsi128_pd(v)
#define SI(v) _Generic((v), __m128: _mm_castps_si128, __m128d: _mm_castpd_si128)(v)

/* Integer ops commute; written (y, x) like the float ones for uniformity. */
#define INT_OP(fname, intrin) \
    static inline __m128i fname(__m128i x, __m128i y) { return intrin(y, x); }
INT_OP(max_i8, _mm_max_epi8)
INT_OP(max_u8, _mm_max_epu8)
INT_OP(max_i16, _mm_max_epi16)
INT_OP(max_u16, _mm_max_epu16)
INT_OP(max_i32, _mm_max_epi32)
INT_OP(max_u32, _mm_max_epu32)
INT_OP(min_i8, _mm_min_epi8)
INT_OP(min_u8, _mm_min_epu8)
INT_OP(min_i16, _mm_min_epi16)
INT_OP(min_u16, _mm_min_epu16)
INT_OP(min_i32, _mm_min_epi32)
INT_OP(min_u32, _mm_min_epu32)
INT_OP(sum_u8, _mm_add_epi8)
INT_OP(sum_u16, _mm_add_epi16)
INT_OP(sum_u32, _mm_add_epi32)
INT_OP(sum_u64, _mm_add_epi64)
INT_OP(prod_u16, _mm_mullo_epi16)
INT_OP(prod_u32, _mm_mullo_epi32)
INT_OP(band_u8, _mm_and_si128)
INT_OP(bor_u8, _mm_or_si128)
INT_OP(bxor_u8, _mm_xor_si128)

/* 64-bit MAX/MIN: no PCMPGTQ before SSE4.2. x < y is the sign of x - y, flipped where the
 * subtraction overflows, i.e. where x and y differ in sign and so does x - y from x (Hacker's
 * Delight 2-12); the high dword's sign is then spread over the whole quadword. Exact, 7 ops. */
static inline __m128i lt_i64(__m128i x, __m128i y)
{
    __m128i d = _mm_sub_epi64(x, y);
    __m128i s = _mm_xor_si128(d, _mm_and_si128(_mm_xor_si128(x, y), _mm_xor_si128(d, x)));
    return _mm_shuffle_epi32(_mm_srai_epi32(s, 31), _MM_SHUFFLE(3, 3, 1, 1));
}
/* Unsigned order is signed order with the top bit flipped in both operands. */
static inline __m128i lt_u64(__m128i x, __m128i y)
{
    const __m128i top = _mm_set1_epi64x(INT64_MIN);
    return lt_i64(_mm_xor_si128(x, top), _mm_xor_si128(y, top));
}
/* MAX = y > x ? y : x, i.e. take y where x < y; MIN takes y where y < x. */
static inline __m128i max_i64(__m128i x, __m128i y) { return _mm_blendv_epi8(x, y, lt_i64(x, y)); }
static inline __m128i min_i64(__m128i x, __m128i y) { return _mm_blendv_epi8(x, y, lt_i64(y, x)); }
static inline __m128i max_u64(__m128i x, __m128i y) { return _mm_blendv_epi8(x, y, lt_u64(x, y)); }
static inline __m128i min_u64(__m128i x, __m128i y) { return _mm_blendv_epi8(x, y, lt_u64(y, x)); }

/* No 8-bit multiply: the low byte of a 16-bit product is the product of the low bytes, so the
 * even bytes come from one 16-bit multiply and the odd bytes from a second on the shifted halves. */
static inline __m128i prod_u8(__m128i x, __m128i y)
{
    __m128i even = _mm_mullo_epi16(x, y);
    __m128i odd = _mm_mullo_epi16(_mm_srli_epi16(x, 8), _mm_srli_epi16(y, 8));
    return _mm_or_si128(_mm_and_si128(even, _mm_set1_epi16(0x00ff)), _mm_slli_epi16(odd, 8));
}

/* Logical ops: zx, zy are all-ones where x, y are zero; the result is 1 where the op holds. */
#define LOGICAL_OP(fname, CMPEQ, ONE, COMBINE)                                                  \
    static inline __m128i fname(__m128i x, __m128i y)                                           \
    {                                                                                           \
        __m128i zx = CMPEQ(x, _mm_setzero_si128()), zy = CMPEQ(y, _mm_setzero_si128());         \
        return COMBINE(zx, zy, ONE);                                                            \
    }
#define L_AND(zx, zy, one) _mm_andnot_si128(_mm_or_si128(zx, zy), one)  /* neither is zero */
#define L_OR(zx, zy, one) _mm_andnot_si128(_mm_and_si128(zx, zy), one)  /* not both zero */
#define L_XOR(zx, zy, one) _mm_and_si128(_mm_xor_si128(zx, zy), one)    /* exactly one zero */
LOGICAL_OP(land_u8, _mm_cmpeq_epi8, _mm_set1_epi8(1), L_AND)
LOGICAL_OP(land_u16, _mm_cmpeq_epi16, _mm_set1_epi16(1), L_AND)
LOGICAL_OP(land_u32, _mm_cmpeq_epi32, _mm_set1_epi32(1), L_AND)
LOGICAL_OP(land_u64, _mm_cmpeq_epi64, _mm_set1_epi64x(1), L_AND)
LOGICAL_OP(lor_u8, _mm_cmpeq_epi8, _mm_set1_epi8(1), L_OR)
LOGICAL_OP(lor_u16, _mm_cmpeq_epi16, _mm_set1_epi16(1), L_OR)
LOGICAL_OP(lor_u32, _mm_cmpeq_epi32, _mm_set1_epi32(1), L_OR)
LOGICAL_OP(lor_u64, _mm_cmpeq_epi64, _mm_set1_epi64x(1), L_OR)
LOGICAL_OP(lxor_u8, _mm_cmpeq_epi8, _mm_set1_epi8(1), L_XOR)
LOGICAL_OP(lxor_u16, _mm_cmpeq_epi16, _mm_set1_epi16(1), L_XOR)
LOGICAL_OP(lxor_u32, _mm_cmpeq_epi32, _mm_set1_epi32(1), L_XOR)
LOGICAL_OP(lxor_u64, _mm_cmpeq_epi64, _mm_set1_epi64x(1), L_XOR)

/* MAXPS(y, x) = y > x ? y : x, the scalar rule including NaN and +-0 (the result is then x). */
static inline __m128i max_f32(__m128i x, __m128i y) { return SI(_mm_max_ps(PS(y), PS(x))); }
static inline __m128i min_f32(__m128i x, __m128i y) { return SI(_mm_min_ps(PS(y), PS(x))); }
static inline __m128i sum_f32(__m128i x, __m128i y) { return SI(_mm_add_ps(PS(x), PS(y))); }
static inline __m128i prod_f32(__m128i x, __m128i y) { return SI(_mm_mul_ps(PS(x), PS(y))); }
static inline __m128i max_f64(__m128i x, __m128i y) { return SI(_mm_max_pd(PD(y), PD(x))); }
static inline __m128i min_f64(__m128i x, __m128i y) { return SI(_mm_min_pd(PD(y), PD(x))); }
static inline __m128i sum_f64(__m128i x, __m128i y) { return SI(_mm_add_pd(PD(x), PD(y))); }
static inline __m128i prod_f64(__m128i x, __m128i y) { return SI(_mm_mul_pd(PD(x), PD(y))); }

/* Complex product without FMA (the build uses -ffp-contract=off), so every rounding matches the
 * scalar re = xr*yr - xi*yi, im = xr*yi + xi*yr. SSE3's ADDSUB subtracts in even lanes and adds
 * in odd ones. Every operation keeps the scalar's operand order too, so that where two NaNs meet
 * the same one propagates as in the scalar code (as far as C fixes that order at all). */
static inline __m128i prod_c32(__m128i x, __m128i y)
{
    __m128 t1 = _mm_mul_ps(_mm_moveldup_ps(PS(x)), PS(y));                          /* xr*yr, xr*yi */
    __m128 t2 = _mm_mul_ps(_mm_movehdup_ps(PS(x)), _mm_shuffle_ps(PS(y), PS(y), 0xb1)); /* xi*yi, xi*yr */
    return SI(_mm_addsub_ps(t1, t2));
}
static inline __m128i prod_c64(__m128i x, __m128i y)
{
    __m128d t1 = _mm_mul_pd(_mm_unpacklo_pd(PD(x), PD(x)), PD(y));
    __m128d t2 = _mm_mul_pd(_mm_unpackhi_pd(PD(x), PD(x)), _mm_shuffle_pd(PD(y), PD(y), 1));
    return SI(_mm_addsub_pd(t1, t2));
}

/* MAXLOC/MINLOC on {32-bit value, 32-bit index} pairs: value lanes are even, index lanes odd.
 * take_x and equal hold the value comparison in the even lanes; both are spread over the pair.
 * On a tie the value stays y's (+0 and -0 tie) and the index is idx_min, the lower one. */
/* The values alone, each copied over its pair's index lane: a float compare of the index lanes
 * would read index bits as a float (-1 is a NaN) and raise FE_INVALID, which the MPI's scalar
 * loop does not (SIGFPE where the program traps it). */
#define VAL32(v) _mm_moveldup_ps(PS(v))
#define VAL64(v) _mm_movedup_pd(PD(v))
static inline __m128i loc_pick32(__m128i x, __m128i y, __m128i take_x, __m128i equal,
                                 __m128i idx_min)
{
    take_x = _mm_shuffle_epi32(take_x, _MM_SHUFFLE(2, 2, 0, 0));
    equal = _mm_shuffle_epi32(equal, _MM_SHUFFLE(2, 2, 0, 0));
    __m128i tie = _mm_blend_epi16(y, idx_min, 0xcc);
    return _mm_blendv_epi8(_mm_blendv_epi8(y, x, take_x), tie, equal);
}
/* Ordered compares: a NaN value never wins and never ties, so y is kept, as in the scalar. */
static inline __m128i maxloc_float_int(__m128i x, __m128i y)
{
    return loc_pick32(x, y, SI(_mm_cmpgt_ps(VAL32(x), VAL32(y))), SI(_mm_cmpeq_ps(VAL32(x), VAL32(y))),
                      _mm_min_epi32(x, y));
}
static inline __m128i minloc_float_int(__m128i x, __m128i y)
{
    return loc_pick32(x, y, SI(_mm_cmplt_ps(VAL32(x), VAL32(y))), SI(_mm_cmpeq_ps(VAL32(x), VAL32(y))),
                      _mm_min_epi32(x, y));
}
static inline __m128i maxloc_2int(__m128i x, __m128i y)
{
    return loc_pick32(x, y, _mm_cmpgt_epi32(x, y), _mm_cmpeq_epi32(x, y), _mm_min_epi32(x, y));
}
static inline __m128i minloc_2int(__m128i x, __m128i y)
{
    return loc_pick32(x, y, _mm_cmpgt_epi32(y, x), _mm_cmpeq_epi32(x, y), _mm_min_epi32(x, y));
}
/* Fortran 2REAL: the index is a float too; MINPS(y, x) = y < x ? y : x is the scalar's rule
 * (x's index unless y's is lower: +-0 and NaN included). Only the tied pairs' indices go into
 * MINPS (the others are zeroed): it signals FE_INVALID on a NaN, and the scalar and the MPIs
 * compare indices only where the values tie. eq: the tie, over both lanes of each pair. */
static inline __m128i lower_tied32(__m128i x, __m128i y, __m128 eq)
{
    return SI(_mm_min_ps(_mm_and_ps(PS(y), eq), _mm_and_ps(PS(x), eq)));
}
static inline __m128i maxloc_2float(__m128i x, __m128i y)
{
    __m128 eq = _mm_cmpeq_ps(VAL32(x), VAL32(y));
    return loc_pick32(x, y, SI(_mm_cmpgt_ps(VAL32(x), VAL32(y))), SI(eq), lower_tied32(x, y, eq));
}
static inline __m128i minloc_2float(__m128i x, __m128i y)
{
    __m128 eq = _mm_cmpeq_ps(VAL32(x), VAL32(y));
    return loc_pick32(x, y, SI(_mm_cmplt_ps(VAL32(x), VAL32(y))), SI(eq), lower_tied32(x, y, eq));
}
/* One pair per vector, the value in 64-bit lane 0, the index in lane 1: Fortran
 * 2DOUBLE_PRECISION, and {double or long, int, 4 padding bytes} (the index in lane 1's low
 * half). The verdicts of lane 0 are copied to lane 1; a tie keeps y's value and takes `lower`'s
 * lane 1, the lower index. */
static inline __m128i loc_pick64(__m128i x, __m128i y, __m128d take_x, __m128d equal, __m128i lower)
{
    __m128i take = SI(_mm_unpacklo_pd(take_x, take_x)), eq = SI(_mm_unpacklo_pd(equal, equal));
    __m128i tie = _mm_blend_epi16(y, lower, 0xf0);
    return _mm_blendv_epi8(_mm_blendv_epi8(y, x, take), tie, eq);
}
/* 2DOUBLE_PRECISION: lower_tied32's rule on 64-bit lanes (eq over both). */
static inline __m128i lower_tied64(__m128i x, __m128i y, __m128d eq)
{
    return SI(_mm_min_pd(_mm_and_pd(PD(y), eq), _mm_and_pd(PD(x), eq)));
}
static inline __m128i maxloc_2double(__m128i x, __m128i y)
{
    __m128d eq = _mm_cmpeq_pd(VAL64(x), VAL64(y));
    return loc_pick64(x, y, _mm_cmpgt_pd(VAL64(x), VAL64(y)), eq, lower_tied64(x, y, eq));
}
static inline __m128i minloc_2double(__m128i x, __m128i y)
{
    __m128d eq = _mm_cmpeq_pd(VAL64(x), VAL64(y));
    return loc_pick64(x, y, _mm_cmplt_pd(VAL64(x), VAL64(y)), eq, lower_tied64(x, y, eq));
}
/* {double, int}: SMIN on 32-bit lanes gives the lower index (and a minimum of padding that the
 * store replaces with out's own). The ordered compares make a NaN value lose and never tie. */
static inline __m128i maxloc_double_int(__m128i x, __m128i y)
{
    return loc_pick64(x, y, _mm_cmpgt_pd(VAL64(x), VAL64(y)), _mm_cmpeq_pd(VAL64(x), VAL64(y)), _mm_min_epi32(x, y));
}
static inline __m128i minloc_double_int(__m128i x, __m128i y)
{
    return loc_pick64(x, y, _mm_cmplt_pd(VAL64(x), VAL64(y)), _mm_cmpeq_pd(VAL64(x), VAL64(y)), _mm_min_epi32(x, y));
}
/* {short, 2 padding bytes, int}: the value in the low half of the even 32-bit lane; shifted to
 * the top half it compares as an int32 in the same order, without the padding. */
static inline __m128i short_key(__m128i v) { return _mm_slli_epi32(v, 16); }
static inline __m128i maxloc_short_int(__m128i x, __m128i y)
{
    __m128i kx = short_key(x), ky = short_key(y);
    return loc_pick32(x, y, _mm_cmpgt_epi32(kx, ky), _mm_cmpeq_epi32(kx, ky), _mm_min_epi32(x, y));
}
static inline __m128i minloc_short_int(__m128i x, __m128i y)
{
    __m128i kx = short_key(x), ky = short_key(y);
    return loc_pick32(x, y, _mm_cmpgt_epi32(ky, kx), _mm_cmpeq_epi32(kx, ky), _mm_min_epi32(x, y));
}

/* bfloat16, eight per vector, computed as two float vectors. Widening puts each half in the top
 * 16 bits of a zeroed 32-bit lane; narrowing is the scalar's integer round-to-nearest-even, a NaN
 * made quiet and truncated instead. */
static inline __m128 widen_bf16_lo(__m128i h) { return PS(_mm_unpacklo_epi16(_mm_setzero_si128(), h)); }
static inline __m128 widen_bf16_hi(__m128i h) { return PS(_mm_unpackhi_epi16(_mm_setzero_si128(), h)); }
static inline __m128i round_bf16(__m128 f) /* bf16 bits in the low half of each 32-bit lane */
{
    __m128i x = SI(f);
    __m128i lsb = _mm_and_si128(_mm_srli_epi32(x, 16), _mm_set1_epi32(1));
    __m128i r = _mm_add_epi32(x, _mm_add_epi32(lsb, _mm_set1_epi32(0x7fff)));
    __m128i quiet = _mm_or_si128(x, _mm_set1_epi32(0x00400000));
    r = _mm_blendv_epi8(r, quiet, SI(_mm_cmpunord_ps(f, f)));
    return _mm_srli_epi32(r, 16);
}
/* Both inputs are in [0, 0xffff], so PACKUSDW's saturation never triggers. */
static inline __m128i narrow_bf16(__m128 lo, __m128 hi) { return _mm_packus_epi32(round_bf16(lo), round_bf16(hi)); }

#define HALF_ARITH(fname, FOP)                                                                  \
    static inline __m128i fname(__m128i x, __m128i y)                                           \
    {                                                                                           \
        return narrow_bf16(FOP(widen_bf16_lo(x), widen_bf16_lo(y)),                             \
                           FOP(widen_bf16_hi(x), widen_bf16_hi(y)));                            \
    }
/* MAX/MIN compare the widened values (CMPPS: y > x, resp. y < x, false on NaN) and return the
 * winner's own 16 bits; PACKSSDW narrows the all-ones/zero masks to 16-bit lanes. */
#define HALF_CMP(fname, FCMP)                                                                   \
    static inline __m128i fname(__m128i x, __m128i y)                                           \
    {                                                                                           \
        __m128i m = _mm_packs_epi32(SI(FCMP(widen_bf16_lo(y), widen_bf16_lo(x))),               \
                                    SI(FCMP(widen_bf16_hi(y), widen_bf16_hi(x))));              \
        return _mm_blendv_epi8(x, y, m);                                                        \
    }
HALF_ARITH(sum_bf16, _mm_add_ps)
HALF_ARITH(prod_bf16, _mm_mul_ps)
HALF_CMP(max_bf16, _mm_cmpgt_ps)
HALF_CMP(min_bf16, _mm_cmplt_ps)

/* ---- the kernels --------------------------------------------------------------------------- */
/*
 * The kernels of this file, one row each: K(slot, DEFINE, name, args...) defines `name` with
 * DEFINE(name, args...) and registers it in the table slot; KT(...) likewise, for a kernel with
 * a masked and a cascade tail (name, cascade_name, ...: VRED_TAIL picks); F(slot, name)
 * registers a kernel written out above. Defining and registering a kernel is one row here.
 */
#define SSE41_KERNELS(K, KT, F)                                                                     \
    K(bin[VRED_OP_MAX][VRED_INT8], SSE41_BINARY, vred_max_i8_sse41, vred_max_i8_scalar, int8_t, max_i8) \
    K(bin[VRED_OP_MAX][VRED_UINT8], SSE41_BINARY, vred_max_u8_sse41, vred_max_u8_scalar, uint8_t, max_u8) \
    K(bin[VRED_OP_MAX][VRED_INT16], SSE41_BINARY, vred_max_i16_sse41, vred_max_i16_scalar, int16_t, max_i16) \
    K(bin[VRED_OP_MAX][VRED_UINT16], SSE41_BINARY, vred_max_u16_sse41, vred_max_u16_scalar, uint16_t, max_u16) \
    K(bin[VRED_OP_MAX][VRED_INT32], SSE41_BINARY, vred_max_i32_sse41, vred_max_i32_scalar, int32_t, max_i32) \
    K(bin[VRED_OP_MAX][VRED_UINT32], SSE41_BINARY, vred_max_u32_sse41, vred_max_u32_scalar, uint32_t, max_u32) \
    K(bin[VRED_OP_MAX][VRED_INT64], SSE41_BINARY, vred_max_i64_sse41, vred_max_i64_scalar, int64_t, max_i64) \
    K(bin[VRED_OP_MAX][VRED_UINT64], SSE41_BINARY, vred_max_u64_sse41, vred_max_u64_scalar, uint64_t, max_u64) \
    K(bin[VRED_OP_MAX][VRED_FLOAT], SSE41_BINARY, vred_max_f32_sse41, vred_max_f32_scalar, float, max_f32) \
    K(bin[VRED_OP_MAX][VRED_DOUBLE], SSE41_BINARY, vred_max_f64_sse41, vred_max_f64_scalar, double, max_f64) \
    K(bin[VRED_OP_MAX][VRED_BFLOAT16], SSE41_BINARY, vred_max_bf16_sse41, vred_max_bf16_scalar, uint16_t, max_bf16) \
    K(bin[VRED_OP_MIN][VRED_INT8], SSE41_BINARY, vred_min_i8_sse41, vred_min_i8_scalar, int8_t, min_i8) \
    K(bin[VRED_OP_MIN][VRED_UINT8], SSE41_BINARY, vred_min_u8_sse41, vred_min_u8_scalar, uint8_t, min_u8) \
    K(bin[VRED_OP_MIN][VRED_INT16], SSE41_BINARY, vred_min_i16_sse41, vred_min_i16_scalar, int16_t, min_i16) \
    K(bin[VRED_OP_MIN][VRED_UINT16], SSE41_BINARY, vred_min_u16_sse41, vred_min_u16_scalar, uint16_t, min_u16) \
    K(bin[VRED_OP_MIN][VRED_INT32], SSE41_BINARY, vred_min_i32_sse41, vred_min_i32_scalar, int32_t, min_i32) \
    K(bin[VRED_OP_MIN][VRED_UINT32], SSE41_BINARY, vred_min_u32_sse41, vred_min_u32_scalar, uint32_t, min_u32) \
    K(bin[VRED_OP_MIN][VRED_INT64], SSE41_BINARY, vred_min_i64_sse41, vred_min_i64_scalar, int64_t, min_i64) \
    K(bin[VRED_OP_MIN][VRED_UINT64], SSE41_BINARY, vred_min_u64_sse41, vred_min_u64_scalar, uint64_t, min_u64) \
    K(bin[VRED_OP_MIN][VRED_FLOAT], SSE41_BINARY, vred_min_f32_sse41, vred_min_f32_scalar, float, min_f32) \
    K(bin[VRED_OP_MIN][VRED_DOUBLE], SSE41_BINARY, vred_min_f64_sse41, vred_min_f64_scalar, double, min_f64) \
    K(bin[VRED_OP_MIN][VRED_BFLOAT16], SSE41_BINARY, vred_min_bf16_sse41, vred_min_bf16_scalar, uint16_t, min_bf16) \
    K(bin[VRED_OP_SUM][VRED_UINT8], SSE41_BINARY, vred_sum_u8_sse41, vred_sum_u8_scalar, uint8_t, sum_u8) \
    K(bin[VRED_OP_SUM][VRED_UINT16], SSE41_BINARY, vred_sum_u16_sse41, vred_sum_u16_scalar, uint16_t, sum_u16) \
    K(bin[VRED_OP_SUM][VRED_UINT32], SSE41_BINARY, vred_sum_u32_sse41, vred_sum_u32_scalar, uint32_t, sum_u32) \
    K(bin[VRED_OP_SUM][VRED_UINT64], SSE41_BINARY, vred_sum_u64_sse41, vred_sum_u64_scalar, uint64_t, sum_u64) \
    K(bin[VRED_OP_SUM][VRED_FLOAT], SSE41_BINARY, vred_sum_f32_sse41, vred_sum_f32_scalar, float, sum_f32) \
    K(bin[VRED_OP_SUM][VRED_DOUBLE], SSE41_BINARY, vred_sum_f64_sse41, vred_sum_f64_scalar, double, sum_f64) \
    K(bin[VRED_OP_SUM][VRED_BFLOAT16], SSE41_BINARY, vred_sum_bf16_sse41, vred_sum_bf16_scalar, uint16_t, sum_bf16) \
    K(bin[VRED_OP_PROD][VRED_UINT8], SSE41_BINARY, vred_prod_u8_sse41, vred_prod_u8_scalar, uint8_t, prod_u8) \
    K(bin[VRED_OP_PROD][VRED_UINT16], SSE41_BINARY, vred_prod_u16_sse41, vred_prod_u16_scalar, uint16_t, prod_u16) \
    K(bin[VRED_OP_PROD][VRED_UINT32], SSE41_BINARY, vred_prod_u32_sse41, vred_prod_u32_scalar, uint32_t, prod_u32) \
    K(bin[VRED_OP_PROD][VRED_FLOAT], SSE41_BINARY, vred_prod_f32_sse41, vred_prod_f32_scalar, float, prod_f32) \
    K(bin[VRED_OP_PROD][VRED_DOUBLE], SSE41_BINARY, vred_prod_f64_sse41, vred_prod_f64_scalar, double, prod_f64) \
    K(bin[VRED_OP_PROD][VRED_C_FLOAT_COMPLEX], SSE41_BINARY, vred_prod_c32_sse41, vred_prod_c32_scalar, vred_c32, prod_c32) \
    K(bin[VRED_OP_PROD][VRED_C_DOUBLE_COMPLEX], SSE41_BINARY, vred_prod_c64_sse41, vred_prod_c64_scalar, vred_c64, prod_c64) \
    K(bin[VRED_OP_PROD][VRED_BFLOAT16], SSE41_BINARY, vred_prod_bf16_sse41, vred_prod_bf16_scalar, uint16_t, prod_bf16) \
    K(bin[VRED_OP_LAND][VRED_UINT8], SSE41_BINARY, vred_land_u8_sse41, vred_land_u8_scalar, uint8_t, land_u8) \
    K(bin[VRED_OP_LAND][VRED_UINT16], SSE41_BINARY, vred_land_u16_sse41, vred_land_u16_scalar, uint16_t, land_u16) \
    K(bin[VRED_OP_LAND][VRED_UINT32], SSE41_BINARY, vred_land_u32_sse41, vred_land_u32_scalar, uint32_t, land_u32) \
    K(bin[VRED_OP_LAND][VRED_UINT64], SSE41_BINARY, vred_land_u64_sse41, vred_land_u64_scalar, uint64_t, land_u64) \
    K(bin[VRED_OP_LOR][VRED_UINT8], SSE41_BINARY, vred_lor_u8_sse41, vred_lor_u8_scalar, uint8_t, lor_u8) \
    K(bin[VRED_OP_LOR][VRED_UINT16], SSE41_BINARY, vred_lor_u16_sse41, vred_lor_u16_scalar, uint16_t, lor_u16) \
    K(bin[VRED_OP_LOR][VRED_UINT32], SSE41_BINARY, vred_lor_u32_sse41, vred_lor_u32_scalar, uint32_t, lor_u32) \
    K(bin[VRED_OP_LOR][VRED_UINT64], SSE41_BINARY, vred_lor_u64_sse41, vred_lor_u64_scalar, uint64_t, lor_u64) \
    K(bin[VRED_OP_LXOR][VRED_UINT8], SSE41_BINARY, vred_lxor_u8_sse41, vred_lxor_u8_scalar, uint8_t, lxor_u8) \
    K(bin[VRED_OP_LXOR][VRED_UINT16], SSE41_BINARY, vred_lxor_u16_sse41, vred_lxor_u16_scalar, uint16_t, lxor_u16) \
    K(bin[VRED_OP_LXOR][VRED_UINT32], SSE41_BINARY, vred_lxor_u32_sse41, vred_lxor_u32_scalar, uint32_t, lxor_u32) \
    K(bin[VRED_OP_LXOR][VRED_UINT64], SSE41_BINARY, vred_lxor_u64_sse41, vred_lxor_u64_scalar, uint64_t, lxor_u64) \
    K(bin[VRED_OP_BAND][VRED_UINT8], SSE41_BINARY, vred_band_u8_sse41, vred_band_u8_scalar, uint8_t, band_u8) \
    K(bin[VRED_OP_BOR][VRED_UINT8], SSE41_BINARY, vred_bor_u8_sse41, vred_bor_u8_scalar, uint8_t, bor_u8) \
    K(bin[VRED_OP_BXOR][VRED_UINT8], SSE41_BINARY, vred_bxor_u8_sse41, vred_bxor_u8_scalar, uint8_t, bxor_u8) \
    K(bin[VRED_OP_MAXLOC][VRED_FLOAT_INT], SSE41_BINARY, vred_maxloc_float_int_sse41, vred_maxloc_float_int_scalar, vred_float_int, maxloc_float_int) \
    K(bin[VRED_OP_MAXLOC][VRED_2INT], SSE41_BINARY, vred_maxloc_2int_sse41, vred_maxloc_2int_scalar, vred_2int, maxloc_2int) \
    K(bin[VRED_OP_MAXLOC][VRED_2FLOAT], SSE41_BINARY, vred_maxloc_2float_sse41, vred_maxloc_2float_scalar, vred_2float, maxloc_2float) \
    K(bin[VRED_OP_MAXLOC][VRED_2DOUBLE], SSE41_BINARY, vred_maxloc_2double_sse41, vred_maxloc_2double_scalar, vred_2double, maxloc_2double) \
    K(bin[VRED_OP_MINLOC][VRED_FLOAT_INT], SSE41_BINARY, vred_minloc_float_int_sse41, vred_minloc_float_int_scalar, vred_float_int, minloc_float_int) \
    K(bin[VRED_OP_MINLOC][VRED_2INT], SSE41_BINARY, vred_minloc_2int_sse41, vred_minloc_2int_scalar, vred_2int, minloc_2int) \
    K(bin[VRED_OP_MINLOC][VRED_2FLOAT], SSE41_BINARY, vred_minloc_2float_sse41, vred_minloc_2float_scalar, vred_2float, minloc_2float) \
    K(bin[VRED_OP_MINLOC][VRED_2DOUBLE], SSE41_BINARY, vred_minloc_2double_sse41, vred_minloc_2double_scalar, vred_2double, minloc_2double) \
    K(bin[VRED_OP_MAXLOC][VRED_DOUBLE_INT], SSE41_PAIR12, vred_maxloc_double_int_sse41, vred_maxloc_double_int_scalar, vred_double_int, maxloc_double_int) \
    K(bin[VRED_OP_MAXLOC][VRED_SHORT_INT], SSE41_PAIR2, vred_maxloc_short_int_sse41, vred_maxloc_short_int_scalar, vred_short_int, maxloc_short_int) \
    K(bin[VRED_OP_MINLOC][VRED_DOUBLE_INT], SSE41_PAIR12, vred_minloc_double_int_sse41, vred_minloc_double_int_scalar, vred_double_int, minloc_double_int) \
    K(bin[VRED_OP_MINLOC][VRED_SHORT_INT], SSE41_PAIR2, vred_minloc_short_int_sse41, vred_minloc_short_int_scalar, vred_short_int, minloc_short_int)
SSE41_KERNELS(VRED_KERNEL_DEFINE, VRED_KERNEL_DEFINE, VRED_KERNEL_WRITTEN)

/* ---- the table ----------------------------------------------------------------------------- */
void vred_fill_sse41(vred_kernel_table *t, int masked_tail)
{
    (void)masked_tail;
    SSE41_KERNELS(VRED_KERNEL_SET, VRED_KERNEL_SET_TAIL, VRED_KERNEL_SET_WRITTEN)
}
