/*
 * AVX2 kernels (256-bit; this file is compiled with -mavx2 -mf16c only, and cpu.c checks both).
 * There is deliberately no FMA: a fused multiply-add rounds once where the scalar reference
 * rounds twice. One line per kernel at the bottom; the per-type primitives above it.
 *
 * The tail (fewer than one 256-bit vector) goes to the SSE4.1 kernel of the same name, whose
 * own tail is the scalar Duff's device: the first paper's cascade. the AVX-512 *_cascade kernels
 * enter this cascade here, so every vred_*_avx2 kernel they name must exist in this file.
 * Where sse41.c has no kernel (float16; 64-bit PROD and MINLOC/MAXLOC on {long, int}, slower
 * than scalar at 128 bits), the tail is the scalar kernel. The half-precision kernels here take eight halves at a time, as many as
 * sse41.c's bfloat16 ones, so they go straight to scalar: SSE4.1 could not fill a vector from
 * the fewer than eight that are left.
 *
 * Left to scalar here, and why:
 *   - long double, its complex and {long double, int}: x87 only.
 * The pair types with padding ({double,int}, {long,int}, {short,int}) store through a read of out
 * that puts its padding bytes back (ST256_PAD*): the scalar kernel writes only the two fields.
 */
#include <immintrin.h>
#include <string.h>
#include "kernels/kernel.h"
#include "kernels/simd_body.h"

#define LD256(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define ST256(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define LD128(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define ST128(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#include "kernels/avx2_realign.h"

/* Kernel over 256-bit vectors of T, stored with STORE(p, v); the rest goes to `lower` (SSE4.1,
 * else scalar). Inputs a whole number of dwords off the stores' alignment are read in aligned
 * lines (avx2_realign.h). */
#define AVX2_KERNEL(name, lower, T, OP, STORE)                                                  \
    VRED_KERNEL_DECL(lower);                                                                    \
    VRED_RA2_DEFINE(name##_realigned, lower, T, OP, STORE)                                      \
    void name(const void *a_, const void *b_, void *o_, size_t n)                               \
    {                                                                                           \
        const T *a = a_, *b = b_;                                                               \
        T *o = o_;                                                                              \
        size_t i = vred_simd_head(o, sizeof(T), n);                                             \
        if (i) lower(a, b, o, i);                                                               \
        i = name##_realigned(a, b, o, i, n);                                                    \
        VRED_SIMD_LOOP(T, __m256i, LD256, STORE, OP, a, b, o, n, i);                            \
        if (i < n) lower(a + i, b + i, o + i, n - i);                                           \
    }
#define AVX2_BINARY(name, lower, T, OP) AVX2_KERNEL(name, lower, T, OP, ST256)

/* The padded pair types: the scalar kernel writes only the value and the index, so the padding
 * bytes of out must keep what out held. The store reads out first and puts its padding back:
 * {double or long, int} has its 4 padding bytes at 12..15 of 16 (dwords 3 and 7), {short, int}
 * its 2 at 2..3 of 8 (words 1 and 5 of each 128-bit half). */
#define ST256_PAD12(p, v) ST256((p), _mm256_blend_epi32((v), LD256(p), 0x88))
#define ST256_PAD2(p, v) ST256((p), _mm256_blend_epi16((v), LD256(p), 0x22))
#define AVX2_PAIR12(name, lower, T, OP) AVX2_KERNEL(name, lower, T, OP, ST256_PAD12)
#define AVX2_PAIR2(name, lower, T, OP) AVX2_KERNEL(name, lower, T, OP, ST256_PAD2)

/* Half-precision kernels: 8 halves (128 bits) widen to one 256-bit float vector. */
#define AVX2_HALF(name, lower, OP)                                                              \
    VRED_KERNEL_DECL(lower);                                                                    \
    void name(const void *a_, const void *b_, void *o_, size_t n)                               \
    {                                                                                           \
        const uint16_t *a = a_, *b = b_;                                                        \
        uint16_t *o = o_;                                                                       \
        size_t i = vred_simd_head(o, sizeof(uint16_t), n);                                      \
        if (i) lower(a, b, o, i);                                                               \
        VRED_SIMD_LOOP(uint16_t, __m128i, LD128, ST128, OP, a, b, o, n, i);                     \
        if (i < n) lower(a + i, b + i, o + i, n - i);                                           \
    }

/* ---- primitives: x is `in`, y is `inout` --------------------------------------------------- */
#define PS(v) _mm256_castsi256_ps(v)
#define PD(v) _mm256_castsi256_pd(v)
#define SI(v) _Generic((v), __m256: _mm256_castps_si256, __m256d: _mm256_castpd_si256)(v)

/* Integer ops commute; written (y, x) like the float ones for uniformity. */
#define INT_OP(fname, intrin) \
    static inline __m256i fname(__m256i x, __m256i y) { return intrin(y, x); }
INT_OP(max_i8, _mm256_max_epi8)
INT_OP(max_u8, _mm256_max_epu8)
INT_OP(max_i16, _mm256_max_epi16)
INT_OP(max_u16, _mm256_max_epu16)
INT_OP(max_i32, _mm256_max_epi32)
INT_OP(max_u32, _mm256_max_epu32)
INT_OP(min_i8, _mm256_min_epi8)
INT_OP(min_u8, _mm256_min_epu8)
INT_OP(min_i16, _mm256_min_epi16)
INT_OP(min_u16, _mm256_min_epu16)
INT_OP(min_i32, _mm256_min_epi32)
INT_OP(min_u32, _mm256_min_epu32)
INT_OP(sum_u8, _mm256_add_epi8)
INT_OP(sum_u16, _mm256_add_epi16)
INT_OP(sum_u32, _mm256_add_epi32)
INT_OP(sum_u64, _mm256_add_epi64)
INT_OP(prod_u16, _mm256_mullo_epi16)
INT_OP(prod_u32, _mm256_mullo_epi32)
INT_OP(band_u8, _mm256_and_si256)
INT_OP(bor_u8, _mm256_or_si256)
INT_OP(bxor_u8, _mm256_xor_si256)

/* 64-bit MAX/MIN: AVX2 has a signed 64-bit compare but no 64-bit max/min. MAX = y > x ? y : x
 * takes y where y > x; MIN takes y where x > y. Unsigned order is signed order with the top bit
 * flipped in both operands. */
static inline __m256i flip_top(__m256i v) { return _mm256_xor_si256(v, _mm256_set1_epi64x(INT64_MIN)); }
static inline __m256i max_i64(__m256i x, __m256i y) { return _mm256_blendv_epi8(x, y, _mm256_cmpgt_epi64(y, x)); }
static inline __m256i min_i64(__m256i x, __m256i y) { return _mm256_blendv_epi8(x, y, _mm256_cmpgt_epi64(x, y)); }
static inline __m256i max_u64(__m256i x, __m256i y)
{
    return _mm256_blendv_epi8(x, y, _mm256_cmpgt_epi64(flip_top(y), flip_top(x)));
}
static inline __m256i min_u64(__m256i x, __m256i y)
{
    return _mm256_blendv_epi8(x, y, _mm256_cmpgt_epi64(flip_top(x), flip_top(y)));
}

/* No 8-bit multiply: the low byte of a 16-bit product is the product of the low bytes, so the
 * even bytes come from one 16-bit multiply and the odd bytes from a second on the shifted halves. */
static inline __m256i prod_u8(__m256i x, __m256i y)
{
    __m256i even = _mm256_mullo_epi16(x, y);
    __m256i odd = _mm256_mullo_epi16(_mm256_srli_epi16(x, 8), _mm256_srli_epi16(y, 8));
    return _mm256_or_si256(_mm256_and_si256(even, _mm256_set1_epi16(0x00ff)), _mm256_slli_epi16(odd, 8));
}

/* No 64-bit multiply: from 32x32->64 partial products, lo*lo + ((hi*lo + lo*hi) << 32); the
 * hi*hi term and the carries out of bit 63 vanish modulo 2^64. */
static inline __m256i prod_u64(__m256i x, __m256i y)
{
    __m256i lo = _mm256_mul_epu32(x, y);
    __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(x, 32), y),
                                     _mm256_mul_epu32(x, _mm256_srli_epi64(y, 32)));
    return _mm256_add_epi64(lo, _mm256_slli_epi64(cross, 32));
}

/* Logical ops: zx, zy are all-ones where x, y are zero; the result is 1 where the op holds. */
#define LOGICAL_OP(fname, CMPEQ, ONE, COMBINE)                                                  \
    static inline __m256i fname(__m256i x, __m256i y)                                           \
    {                                                                                           \
        __m256i zx = CMPEQ(x, _mm256_setzero_si256()), zy = CMPEQ(y, _mm256_setzero_si256());   \
        return COMBINE(zx, zy, ONE);                                                            \
    }
#define L_AND(zx, zy, one) _mm256_andnot_si256(_mm256_or_si256(zx, zy), one)  /* neither is zero */
#define L_OR(zx, zy, one) _mm256_andnot_si256(_mm256_and_si256(zx, zy), one)  /* not both zero */
#define L_XOR(zx, zy, one) _mm256_and_si256(_mm256_xor_si256(zx, zy), one)    /* exactly one zero */
LOGICAL_OP(land_u8, _mm256_cmpeq_epi8, _mm256_set1_epi8(1), L_AND)
LOGICAL_OP(land_u16, _mm256_cmpeq_epi16, _mm256_set1_epi16(1), L_AND)
LOGICAL_OP(land_u32, _mm256_cmpeq_epi32, _mm256_set1_epi32(1), L_AND)
LOGICAL_OP(land_u64, _mm256_cmpeq_epi64, _mm256_set1_epi64x(1), L_AND)
LOGICAL_OP(lor_u8, _mm256_cmpeq_epi8, _mm256_set1_epi8(1), L_OR)
LOGICAL_OP(lor_u16, _mm256_cmpeq_epi16, _mm256_set1_epi16(1), L_OR)
LOGICAL_OP(lor_u32, _mm256_cmpeq_epi32, _mm256_set1_epi32(1), L_OR)
LOGICAL_OP(lor_u64, _mm256_cmpeq_epi64, _mm256_set1_epi64x(1), L_OR)
LOGICAL_OP(lxor_u8, _mm256_cmpeq_epi8, _mm256_set1_epi8(1), L_XOR)
LOGICAL_OP(lxor_u16, _mm256_cmpeq_epi16, _mm256_set1_epi16(1), L_XOR)
LOGICAL_OP(lxor_u32, _mm256_cmpeq_epi32, _mm256_set1_epi32(1), L_XOR)
LOGICAL_OP(lxor_u64, _mm256_cmpeq_epi64, _mm256_set1_epi64x(1), L_XOR)

/* MAXPS(y, x) = y > x ? y : x, the scalar rule including NaN and +-0 (the result is then x). */
static inline __m256i max_f32(__m256i x, __m256i y) { return SI(_mm256_max_ps(PS(y), PS(x))); }
static inline __m256i min_f32(__m256i x, __m256i y) { return SI(_mm256_min_ps(PS(y), PS(x))); }
static inline __m256i sum_f32(__m256i x, __m256i y) { return SI(_mm256_add_ps(PS(x), PS(y))); }
static inline __m256i prod_f32(__m256i x, __m256i y) { return SI(_mm256_mul_ps(PS(x), PS(y))); }
static inline __m256i max_f64(__m256i x, __m256i y) { return SI(_mm256_max_pd(PD(y), PD(x))); }
static inline __m256i min_f64(__m256i x, __m256i y) { return SI(_mm256_min_pd(PD(y), PD(x))); }
static inline __m256i sum_f64(__m256i x, __m256i y) { return SI(_mm256_add_pd(PD(x), PD(y))); }
static inline __m256i prod_f64(__m256i x, __m256i y) { return SI(_mm256_mul_pd(PD(x), PD(y))); }

/* Complex product without FMA, so every rounding matches the scalar re = xr*yr - xi*yi,
 * im = xr*yi + xi*yr. ADDSUB subtracts in even lanes and adds in odd ones. Every operation keeps
 * the scalar's operand order too, so that where two NaNs meet the same one propagates as in the
 * scalar code (as far as C fixes that order at all). */
static inline __m256i prod_c32(__m256i x, __m256i y)
{
    __m256 t1 = _mm256_mul_ps(_mm256_moveldup_ps(PS(x)), PS(y));                      /* xr*yr, xr*yi */
    __m256 t2 = _mm256_mul_ps(_mm256_movehdup_ps(PS(x)), _mm256_permute_ps(PS(y), 0xb1)); /* xi*yi, xi*yr */
    return SI(_mm256_addsub_ps(t1, t2));
}
static inline __m256i prod_c64(__m256i x, __m256i y)
{
    __m256d t1 = _mm256_mul_pd(_mm256_movedup_pd(PD(x)), PD(y));
    __m256d t2 = _mm256_mul_pd(_mm256_unpackhi_pd(PD(x), PD(x)), _mm256_permute_pd(PD(y), 0x5));
    return SI(_mm256_addsub_pd(t1, t2));
}

/* MAXLOC/MINLOC on {32-bit value, 32-bit index} pairs: value lanes are even, index lanes odd.
 * take_x and equal hold the value comparison in the even lanes; both are spread over the pair.
 * On a tie the value stays y's (+0 and -0 tie) and the index is idx_min, the lower one. */
static inline __m256i loc_pick32(__m256i x, __m256i y, __m256i take_x, __m256i equal,
                                 __m256i idx_min)
{
    take_x = _mm256_shuffle_epi32(take_x, _MM_SHUFFLE(2, 2, 0, 0));
    equal = _mm256_shuffle_epi32(equal, _MM_SHUFFLE(2, 2, 0, 0));
    __m256i tie = _mm256_blend_epi32(y, idx_min, 0xaa);
    return _mm256_blendv_epi8(_mm256_blendv_epi8(y, x, take_x), tie, equal);
}
/* Ordered compares: a NaN value never wins and never ties, so y is kept, as in the scalar. */
/* The values alone, each copied over its pair's index lane: a float compare of the index lanes
 * reads index bits as a float (-1 is a NaN), and even the quiet predicates raise FE_INVALID on a
 * signaling NaN, which the MPI's scalar loop does not (SIGFPE where the program traps it). */
#define CMP_PS(x, y, pred) SI(_mm256_cmp_ps(PS(x), PS(y), pred))
#define CMP_VAL32(x, y, pred) SI(_mm256_cmp_ps(_mm256_moveldup_ps(PS(x)), _mm256_moveldup_ps(PS(y)), pred))
static inline __m256i maxloc_float_int(__m256i x, __m256i y)
{
    return loc_pick32(x, y, CMP_VAL32(x, y, _CMP_GT_OQ), CMP_VAL32(x, y, _CMP_EQ_OQ), _mm256_min_epi32(x, y));
}
static inline __m256i minloc_float_int(__m256i x, __m256i y)
{
    return loc_pick32(x, y, CMP_VAL32(x, y, _CMP_LT_OQ), CMP_VAL32(x, y, _CMP_EQ_OQ), _mm256_min_epi32(x, y));
}
static inline __m256i maxloc_2int(__m256i x, __m256i y)
{
    return loc_pick32(x, y, _mm256_cmpgt_epi32(x, y), _mm256_cmpeq_epi32(x, y), _mm256_min_epi32(x, y));
}
static inline __m256i minloc_2int(__m256i x, __m256i y)
{
    return loc_pick32(x, y, _mm256_cmpgt_epi32(y, x), _mm256_cmpeq_epi32(x, y), _mm256_min_epi32(x, y));
}
/* Fortran 2REAL: the index is a float too; MINPS(y, x) = y < x ? y : x is the scalar's rule
 * (x's index unless y's is lower: +-0 and NaN included). Only the tied pairs' indices go into
 * MINPS (the others are zeroed): it signals FE_INVALID on a NaN, and the scalar and the MPIs
 * compare indices only where the values tie. eq: the tie, over both lanes of each pair. */
static inline __m256i lower_tied32(__m256i x, __m256i y, __m256i eq)
{
    return SI(_mm256_min_ps(_mm256_and_ps(PS(y), PS(eq)), _mm256_and_ps(PS(x), PS(eq))));
}
static inline __m256i maxloc_2float(__m256i x, __m256i y)
{
    __m256i eq = CMP_VAL32(x, y, _CMP_EQ_OQ);
    return loc_pick32(x, y, CMP_VAL32(x, y, _CMP_GT_OQ), eq, lower_tied32(x, y, eq));
}
static inline __m256i minloc_2float(__m256i x, __m256i y)
{
    __m256i eq = CMP_VAL32(x, y, _CMP_EQ_OQ);
    return loc_pick32(x, y, CMP_VAL32(x, y, _CMP_LT_OQ), eq, lower_tied32(x, y, eq));
}
/* One pair per 128-bit lane, the value in the even 64-bit lane and the index in the odd one:
 * Fortran 2DOUBLE_PRECISION, and {double or long, int, 4 padding bytes}. The verdicts hold in the
 * even lanes (the odd lanes compare index bits: never used); MOVEDUP copies each over its pair.
 * A tie keeps y's value and takes `lower`'s odd lane, the lower index. */
static inline __m256i loc_pick64(__m256i x, __m256i y, __m256d take_x, __m256d equal, __m256i lower)
{
    __m256i take = SI(_mm256_movedup_pd(take_x)), eq = SI(_mm256_movedup_pd(equal));
    __m256i tie = _mm256_blend_epi32(y, lower, 0xcc);
    return _mm256_blendv_epi8(_mm256_blendv_epi8(y, x, take), tie, eq);
}
#define CMP_PD(x, y, pred) _mm256_cmp_pd(_mm256_movedup_pd(PD(x)), _mm256_movedup_pd(PD(y)), pred)
/* 2DOUBLE_PRECISION: lower_tied32's rule on 64-bit lanes (CMP_PD's eq holds both). */
static inline __m256i lower_tied64(__m256i x, __m256i y, __m256d eq)
{
    return SI(_mm256_min_pd(_mm256_and_pd(PD(y), eq), _mm256_and_pd(PD(x), eq)));
}
static inline __m256i maxloc_2double(__m256i x, __m256i y)
{
    __m256d eq = CMP_PD(x, y, _CMP_EQ_OQ);
    return loc_pick64(x, y, CMP_PD(x, y, _CMP_GT_OQ), eq, lower_tied64(x, y, eq));
}
static inline __m256i minloc_2double(__m256i x, __m256i y)
{
    __m256d eq = CMP_PD(x, y, _CMP_EQ_OQ);
    return loc_pick64(x, y, CMP_PD(x, y, _CMP_LT_OQ), eq, lower_tied64(x, y, eq));
}
/* {double, int} and {long, int}: the int32 index is the low half of the odd lane, so SMIN on
 * 32-bit lanes gives the lower index (and, in the padding dword, a minimum of padding that the
 * store replaces with out's own). The ordered compares make a NaN value lose and never tie. */
static inline __m256i maxloc_double_int(__m256i x, __m256i y)
{
    return loc_pick64(x, y, CMP_PD(x, y, _CMP_GT_OQ), CMP_PD(x, y, _CMP_EQ_OQ), _mm256_min_epi32(x, y));
}
static inline __m256i minloc_double_int(__m256i x, __m256i y)
{
    return loc_pick64(x, y, CMP_PD(x, y, _CMP_LT_OQ), CMP_PD(x, y, _CMP_EQ_OQ), _mm256_min_epi32(x, y));
}
static inline __m256i maxloc_long_int(__m256i x, __m256i y)
{
    return loc_pick64(x, y, PD(_mm256_cmpgt_epi64(x, y)), PD(_mm256_cmpeq_epi64(x, y)), _mm256_min_epi32(x, y));
}
static inline __m256i minloc_long_int(__m256i x, __m256i y)
{
    return loc_pick64(x, y, PD(_mm256_cmpgt_epi64(y, x)), PD(_mm256_cmpeq_epi64(x, y)), _mm256_min_epi32(x, y));
}
/* {short, 2 padding bytes, int}: the value in the low half of the even 32-bit lane. Shifted to
 * the top half, it compares as an int32 in the same order, without the padding. */
static inline __m256i short_key(__m256i v) { return _mm256_slli_epi32(v, 16); }
static inline __m256i maxloc_short_int(__m256i x, __m256i y)
{
    __m256i kx = short_key(x), ky = short_key(y);
    return loc_pick32(x, y, _mm256_cmpgt_epi32(kx, ky), _mm256_cmpeq_epi32(kx, ky), _mm256_min_epi32(x, y));
}
static inline __m256i minloc_short_int(__m256i x, __m256i y)
{
    __m256i kx = short_key(x), ky = short_key(y);
    return loc_pick32(x, y, _mm256_cmpgt_epi32(ky, kx), _mm256_cmpeq_epi32(kx, ky), _mm256_min_epi32(x, y));
}

/* Half precision, eight per 128-bit vector, computed as one float vector. bf16 widens by a
 * shift and narrows with the scalar's integer round-to-nearest-even (a NaN made quiet and
 * truncated instead); f16 converts with F16C, which rounds to nearest even, keeps subnormals and
 * quiets NaNs keeping the top payload bits, as the scalar vred_f32_to_f16 does. */
static inline __m256 widen_bf16(__m128i h) { return PS(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16)); }
static inline __m128i narrow_bf16(__m256 f)
{
    __m256i x = SI(f);
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_add_epi32(x, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff)));
    __m256i quiet = _mm256_or_si256(x, _mm256_set1_epi32(0x00400000));
    r = _mm256_srli_epi32(_mm256_blendv_epi8(r, quiet, CMP_PS(x, x, _CMP_UNORD_Q)), 16);
    /* Both halves are in [0, 0xffff], so PACKUSDW's saturation never triggers. */
    return _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
}
static inline __m256 widen_f16(__m128i h) { return _mm256_cvtph_ps(h); }
static inline __m128i narrow_f16(__m256 f) { return _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }

#define HALF_ARITH(fname, WIDEN, NARROW, FOP)                                                   \
    static inline __m128i fname(__m128i x, __m128i y) { return NARROW(FOP(WIDEN(x), WIDEN(y))); }
/* MAX/MIN compare the widened values (y > x, resp. y < x, false on NaN) and return the winner's
 * own 16 bits; PACKSSDW narrows the all-ones/zero masks to 16-bit lanes. */
#define HALF_CMP(fname, WIDEN, PRED)                                                            \
    static inline __m128i fname(__m128i x, __m128i y)                                           \
    {                                                                                           \
        __m256i m = SI(_mm256_cmp_ps(WIDEN(y), WIDEN(x), PRED));                                \
        __m128i m16 = _mm_packs_epi32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1)); \
        return _mm_blendv_epi8(x, y, m16);                                                      \
    }
HALF_ARITH(sum_bf16, widen_bf16, narrow_bf16, _mm256_add_ps)
HALF_ARITH(prod_bf16, widen_bf16, narrow_bf16, _mm256_mul_ps)
HALF_CMP(max_bf16, widen_bf16, _CMP_GT_OQ)
HALF_CMP(min_bf16, widen_bf16, _CMP_LT_OQ)
HALF_ARITH(sum_f16, widen_f16, narrow_f16, _mm256_add_ps)
HALF_ARITH(prod_f16, widen_f16, narrow_f16, _mm256_mul_ps)
HALF_CMP(max_f16, widen_f16, _CMP_GT_OQ)
HALF_CMP(min_f16, widen_f16, _CMP_LT_OQ)

/* ---- the kernels --------------------------------------------------------------------------- */

/* ---- half precision with float32 accumulation (n-ary form) --------------------------------- */
/* The last < 8 elements go through a zero-padded copy, so every element sees the same
 * instructions (F16C's widening quiets a signaling NaN, as the scalar conversion does). */
#define AVX2_HALF_ACC(name, WIDEN, FOP)                                                         \
    static void name(const void *a_, float *acc, size_t n)                                      \
    {                                                                                           \
        const uint16_t *a = a_;                                                                 \
        size_t i = 0;                                                                           \
        for (; i + 8 <= n; i += 8)                                                              \
            _mm256_storeu_ps(acc + i, FOP(WIDEN(LD128(a + i)), _mm256_loadu_ps(acc + i)));      \
        if (i < n) {                                                                            \
            uint16_t h[8] = {0};                                                                \
            float f[8] = {0};                                                                   \
            memcpy(h, a + i, (n - i) * sizeof *h);                                              \
            memcpy(f, acc + i, (n - i) * sizeof *f);                                            \
            _mm256_storeu_ps(f, FOP(WIDEN(LD128(h)), _mm256_loadu_ps(f)));                      \
            memcpy(acc + i, f, (n - i) * sizeof *f);                                            \
        }                                                                                       \
    }
static inline __m256 acc_max(__m256 x, __m256 y) { return _mm256_max_ps(y, x); }
static inline __m256 acc_min(__m256 x, __m256 y) { return _mm256_min_ps(y, x); }
static inline __m256 acc_sum(__m256 x, __m256 y) { return _mm256_add_ps(x, y); }
static inline __m256 acc_prod(__m256 x, __m256 y) { return _mm256_mul_ps(x, y); }

#define AVX2_WIDEN(name, WIDEN)                                                                 \
    static void name(const void *a_, float *o, size_t n)                                        \
    {                                                                                           \
        const uint16_t *a = a_;                                                                 \
        size_t i = 0;                                                                           \
        for (; i + 8 <= n; i += 8) _mm256_storeu_ps(o + i, WIDEN(LD128(a + i)));                \
        if (i < n) {                                                                            \
            uint16_t h[8] = {0};                                                                \
            float f[8];                                                                         \
            memcpy(h, a + i, (n - i) * sizeof *h);                                              \
            _mm256_storeu_ps(f, WIDEN(LD128(h)));                                               \
            memcpy(o + i, f, (n - i) * sizeof *f);                                              \
        }                                                                                       \
    }
#define AVX2_NARROW(name, NARROW)                                                               \
    static void name(const float *a, void *o_, size_t n)                                        \
    {                                                                                           \
        uint16_t *o = o_;                                                                       \
        size_t i = 0;                                                                           \
        for (; i + 8 <= n; i += 8) ST128(o + i, NARROW(_mm256_loadu_ps(a + i)));                \
        if (i < n) {                                                                            \
            float f[8] = {0};                                                                   \
            uint16_t h[8];                                                                      \
            memcpy(f, a + i, (n - i) * sizeof *f);                                              \
            ST128(h, NARROW(_mm256_loadu_ps(f)));                                               \
            memcpy(o + i, h, (n - i) * sizeof *h);                                              \
        }                                                                                       \
    }
/*
 * The kernels of this file, one row each: K(slot, DEFINE, name, args...) defines `name` with
 * DEFINE(name, args...) and registers it in the table slot; KT(...) likewise, for a kernel with
 * a masked and a cascade tail (name, cascade_name, ...: VRED_TAIL picks); F(slot, name)
 * registers a kernel written out above. Defining and registering a kernel is one row here.
 */
#define AVX2_KERNELS(K, KT, F)                                                                      \
    K(bin[VRED_OP_MAX][VRED_INT8], AVX2_BINARY, vred_max_i8_avx2, vred_max_i8_sse41, int8_t, max_i8) \
    K(bin[VRED_OP_MAX][VRED_UINT8], AVX2_BINARY, vred_max_u8_avx2, vred_max_u8_sse41, uint8_t, max_u8) \
    K(bin[VRED_OP_MAX][VRED_INT16], AVX2_BINARY, vred_max_i16_avx2, vred_max_i16_sse41, int16_t, max_i16) \
    K(bin[VRED_OP_MAX][VRED_UINT16], AVX2_BINARY, vred_max_u16_avx2, vred_max_u16_sse41, uint16_t, max_u16) \
    K(bin[VRED_OP_MAX][VRED_INT32], AVX2_BINARY, vred_max_i32_avx2, vred_max_i32_sse41, int32_t, max_i32) \
    K(bin[VRED_OP_MAX][VRED_UINT32], AVX2_BINARY, vred_max_u32_avx2, vred_max_u32_sse41, uint32_t, max_u32) \
    K(bin[VRED_OP_MAX][VRED_INT64], AVX2_BINARY, vred_max_i64_avx2, vred_max_i64_sse41, int64_t, max_i64) \
    K(bin[VRED_OP_MAX][VRED_UINT64], AVX2_BINARY, vred_max_u64_avx2, vred_max_u64_sse41, uint64_t, max_u64) \
    K(bin[VRED_OP_MAX][VRED_FLOAT], AVX2_BINARY, vred_max_f32_avx2, vred_max_f32_sse41, float, max_f32) \
    K(bin[VRED_OP_MAX][VRED_DOUBLE], AVX2_BINARY, vred_max_f64_avx2, vred_max_f64_sse41, double, max_f64) \
    K(bin[VRED_OP_MAX][VRED_BFLOAT16], AVX2_HALF, vred_max_bf16_avx2, vred_max_bf16_scalar, max_bf16) \
    K(bin[VRED_OP_MAX][VRED_FLOAT16], AVX2_HALF, vred_max_f16_avx2, vred_max_f16_scalar, max_f16)   \
    K(bin[VRED_OP_MIN][VRED_INT8], AVX2_BINARY, vred_min_i8_avx2, vred_min_i8_sse41, int8_t, min_i8) \
    K(bin[VRED_OP_MIN][VRED_UINT8], AVX2_BINARY, vred_min_u8_avx2, vred_min_u8_sse41, uint8_t, min_u8) \
    K(bin[VRED_OP_MIN][VRED_INT16], AVX2_BINARY, vred_min_i16_avx2, vred_min_i16_sse41, int16_t, min_i16) \
    K(bin[VRED_OP_MIN][VRED_UINT16], AVX2_BINARY, vred_min_u16_avx2, vred_min_u16_sse41, uint16_t, min_u16) \
    K(bin[VRED_OP_MIN][VRED_INT32], AVX2_BINARY, vred_min_i32_avx2, vred_min_i32_sse41, int32_t, min_i32) \
    K(bin[VRED_OP_MIN][VRED_UINT32], AVX2_BINARY, vred_min_u32_avx2, vred_min_u32_sse41, uint32_t, min_u32) \
    K(bin[VRED_OP_MIN][VRED_INT64], AVX2_BINARY, vred_min_i64_avx2, vred_min_i64_sse41, int64_t, min_i64) \
    K(bin[VRED_OP_MIN][VRED_UINT64], AVX2_BINARY, vred_min_u64_avx2, vred_min_u64_sse41, uint64_t, min_u64) \
    K(bin[VRED_OP_MIN][VRED_FLOAT], AVX2_BINARY, vred_min_f32_avx2, vred_min_f32_sse41, float, min_f32) \
    K(bin[VRED_OP_MIN][VRED_DOUBLE], AVX2_BINARY, vred_min_f64_avx2, vred_min_f64_sse41, double, min_f64) \
    K(bin[VRED_OP_MIN][VRED_BFLOAT16], AVX2_HALF, vred_min_bf16_avx2, vred_min_bf16_scalar, min_bf16) \
    K(bin[VRED_OP_MIN][VRED_FLOAT16], AVX2_HALF, vred_min_f16_avx2, vred_min_f16_scalar, min_f16)   \
    K(bin[VRED_OP_SUM][VRED_UINT8], AVX2_BINARY, vred_sum_u8_avx2, vred_sum_u8_sse41, uint8_t, sum_u8) \
    K(bin[VRED_OP_SUM][VRED_UINT16], AVX2_BINARY, vred_sum_u16_avx2, vred_sum_u16_sse41, uint16_t, sum_u16) \
    K(bin[VRED_OP_SUM][VRED_UINT32], AVX2_BINARY, vred_sum_u32_avx2, vred_sum_u32_sse41, uint32_t, sum_u32) \
    K(bin[VRED_OP_SUM][VRED_UINT64], AVX2_BINARY, vred_sum_u64_avx2, vred_sum_u64_sse41, uint64_t, sum_u64) \
    K(bin[VRED_OP_SUM][VRED_FLOAT], AVX2_BINARY, vred_sum_f32_avx2, vred_sum_f32_sse41, float, sum_f32) \
    K(bin[VRED_OP_SUM][VRED_DOUBLE], AVX2_BINARY, vred_sum_f64_avx2, vred_sum_f64_sse41, double, sum_f64) \
    K(bin[VRED_OP_SUM][VRED_BFLOAT16], AVX2_HALF, vred_sum_bf16_avx2, vred_sum_bf16_scalar, sum_bf16) \
    K(bin[VRED_OP_SUM][VRED_FLOAT16], AVX2_HALF, vred_sum_f16_avx2, vred_sum_f16_scalar, sum_f16)   \
    K(bin[VRED_OP_PROD][VRED_UINT8], AVX2_BINARY, vred_prod_u8_avx2, vred_prod_u8_sse41, uint8_t, prod_u8) \
    K(bin[VRED_OP_PROD][VRED_UINT16], AVX2_BINARY, vred_prod_u16_avx2, vred_prod_u16_sse41, uint16_t, prod_u16) \
    K(bin[VRED_OP_PROD][VRED_UINT32], AVX2_BINARY, vred_prod_u32_avx2, vred_prod_u32_sse41, uint32_t, prod_u32) \
    K(bin[VRED_OP_PROD][VRED_UINT64], AVX2_BINARY, vred_prod_u64_avx2, vred_prod_u64_scalar, uint64_t, prod_u64) \
    K(bin[VRED_OP_PROD][VRED_FLOAT], AVX2_BINARY, vred_prod_f32_avx2, vred_prod_f32_sse41, float, prod_f32) \
    K(bin[VRED_OP_PROD][VRED_DOUBLE], AVX2_BINARY, vred_prod_f64_avx2, vred_prod_f64_sse41, double, prod_f64) \
    K(bin[VRED_OP_PROD][VRED_C_FLOAT_COMPLEX], AVX2_BINARY, vred_prod_c32_avx2, vred_prod_c32_sse41, vred_c32, prod_c32) \
    K(bin[VRED_OP_PROD][VRED_C_DOUBLE_COMPLEX], AVX2_BINARY, vred_prod_c64_avx2, vred_prod_c64_sse41, vred_c64, prod_c64) \
    K(bin[VRED_OP_PROD][VRED_BFLOAT16], AVX2_HALF, vred_prod_bf16_avx2, vred_prod_bf16_scalar, prod_bf16) \
    K(bin[VRED_OP_PROD][VRED_FLOAT16], AVX2_HALF, vred_prod_f16_avx2, vred_prod_f16_scalar, prod_f16) \
    K(bin[VRED_OP_LAND][VRED_UINT8], AVX2_BINARY, vred_land_u8_avx2, vred_land_u8_sse41, uint8_t, land_u8) \
    K(bin[VRED_OP_LAND][VRED_UINT16], AVX2_BINARY, vred_land_u16_avx2, vred_land_u16_sse41, uint16_t, land_u16) \
    K(bin[VRED_OP_LAND][VRED_UINT32], AVX2_BINARY, vred_land_u32_avx2, vred_land_u32_sse41, uint32_t, land_u32) \
    K(bin[VRED_OP_LAND][VRED_UINT64], AVX2_BINARY, vred_land_u64_avx2, vred_land_u64_sse41, uint64_t, land_u64) \
    K(bin[VRED_OP_LOR][VRED_UINT8], AVX2_BINARY, vred_lor_u8_avx2, vred_lor_u8_sse41, uint8_t, lor_u8) \
    K(bin[VRED_OP_LOR][VRED_UINT16], AVX2_BINARY, vred_lor_u16_avx2, vred_lor_u16_sse41, uint16_t, lor_u16) \
    K(bin[VRED_OP_LOR][VRED_UINT32], AVX2_BINARY, vred_lor_u32_avx2, vred_lor_u32_sse41, uint32_t, lor_u32) \
    K(bin[VRED_OP_LOR][VRED_UINT64], AVX2_BINARY, vred_lor_u64_avx2, vred_lor_u64_sse41, uint64_t, lor_u64) \
    K(bin[VRED_OP_LXOR][VRED_UINT8], AVX2_BINARY, vred_lxor_u8_avx2, vred_lxor_u8_sse41, uint8_t, lxor_u8) \
    K(bin[VRED_OP_LXOR][VRED_UINT16], AVX2_BINARY, vred_lxor_u16_avx2, vred_lxor_u16_sse41, uint16_t, lxor_u16) \
    K(bin[VRED_OP_LXOR][VRED_UINT32], AVX2_BINARY, vred_lxor_u32_avx2, vred_lxor_u32_sse41, uint32_t, lxor_u32) \
    K(bin[VRED_OP_LXOR][VRED_UINT64], AVX2_BINARY, vred_lxor_u64_avx2, vred_lxor_u64_sse41, uint64_t, lxor_u64) \
    K(bin[VRED_OP_BAND][VRED_UINT8], AVX2_BINARY, vred_band_u8_avx2, vred_band_u8_sse41, uint8_t, band_u8) \
    K(bin[VRED_OP_BOR][VRED_UINT8], AVX2_BINARY, vred_bor_u8_avx2, vred_bor_u8_sse41, uint8_t, bor_u8) \
    K(bin[VRED_OP_BXOR][VRED_UINT8], AVX2_BINARY, vred_bxor_u8_avx2, vred_bxor_u8_sse41, uint8_t, bxor_u8) \
    K(bin[VRED_OP_MAXLOC][VRED_FLOAT_INT], AVX2_BINARY, vred_maxloc_float_int_avx2, vred_maxloc_float_int_sse41, vred_float_int, maxloc_float_int) \
    K(bin[VRED_OP_MAXLOC][VRED_2INT], AVX2_BINARY, vred_maxloc_2int_avx2, vred_maxloc_2int_sse41, vred_2int, maxloc_2int) \
    K(bin[VRED_OP_MAXLOC][VRED_2FLOAT], AVX2_BINARY, vred_maxloc_2float_avx2, vred_maxloc_2float_sse41, vred_2float, maxloc_2float) \
    K(bin[VRED_OP_MAXLOC][VRED_2DOUBLE], AVX2_BINARY, vred_maxloc_2double_avx2, vred_maxloc_2double_sse41, vred_2double, maxloc_2double) \
    K(bin[VRED_OP_MINLOC][VRED_FLOAT_INT], AVX2_BINARY, vred_minloc_float_int_avx2, vred_minloc_float_int_sse41, vred_float_int, minloc_float_int) \
    K(bin[VRED_OP_MINLOC][VRED_2INT], AVX2_BINARY, vred_minloc_2int_avx2, vred_minloc_2int_sse41, vred_2int, minloc_2int) \
    K(bin[VRED_OP_MINLOC][VRED_2FLOAT], AVX2_BINARY, vred_minloc_2float_avx2, vred_minloc_2float_sse41, vred_2float, minloc_2float) \
    K(bin[VRED_OP_MINLOC][VRED_2DOUBLE], AVX2_BINARY, vred_minloc_2double_avx2, vred_minloc_2double_sse41, vred_2double, minloc_2double) \
    K(bin[VRED_OP_MAXLOC][VRED_DOUBLE_INT], AVX2_PAIR12, vred_maxloc_double_int_avx2, vred_maxloc_double_int_sse41, vred_double_int, maxloc_double_int) \
    K(bin[VRED_OP_MINLOC][VRED_DOUBLE_INT], AVX2_PAIR12, vred_minloc_double_int_avx2, vred_minloc_double_int_sse41, vred_double_int, minloc_double_int) \
    K(bin[VRED_OP_MAXLOC][VRED_LONG_INT], AVX2_PAIR12, vred_maxloc_long_int_avx2, vred_maxloc_long_int_scalar, vred_long_int, maxloc_long_int) \
    K(bin[VRED_OP_MINLOC][VRED_LONG_INT], AVX2_PAIR12, vred_minloc_long_int_avx2, vred_minloc_long_int_scalar, vred_long_int, minloc_long_int) \
    K(bin[VRED_OP_MAXLOC][VRED_SHORT_INT], AVX2_PAIR2, vred_maxloc_short_int_avx2, vred_maxloc_short_int_sse41, vred_short_int, maxloc_short_int) \
    K(bin[VRED_OP_MINLOC][VRED_SHORT_INT], AVX2_PAIR2, vred_minloc_short_int_avx2, vred_minloc_short_int_sse41, vred_short_int, minloc_short_int) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_MAX], AVX2_HALF_ACC, vred_acc_max_bf16_avx2, widen_bf16, acc_max) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_MIN], AVX2_HALF_ACC, vred_acc_min_bf16_avx2, widen_bf16, acc_min) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_SUM], AVX2_HALF_ACC, vred_acc_sum_bf16_avx2, widen_bf16, acc_sum) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_PROD], AVX2_HALF_ACC, vred_acc_prod_bf16_avx2, widen_bf16, acc_prod) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_MAX], AVX2_HALF_ACC, vred_acc_max_f16_avx2, widen_f16, acc_max) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_MIN], AVX2_HALF_ACC, vred_acc_min_f16_avx2, widen_f16, acc_min) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_SUM], AVX2_HALF_ACC, vred_acc_sum_f16_avx2, widen_f16, acc_sum) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_PROD], AVX2_HALF_ACC, vred_acc_prod_f16_avx2, widen_f16, acc_prod) \
    K(half_widen[VRED_HALF_BF16], AVX2_WIDEN, vred_widen_bf16_avx2, widen_bf16)                     \
    K(half_widen[VRED_HALF_F16], AVX2_WIDEN, vred_widen_f16_avx2, widen_f16)                        \
    K(half_narrow[VRED_HALF_BF16], AVX2_NARROW, vred_narrow_bf16_avx2, narrow_bf16)                 \
    K(half_narrow[VRED_HALF_F16], AVX2_NARROW, vred_narrow_f16_avx2, narrow_f16)
AVX2_KERNELS(VRED_KERNEL_DEFINE, VRED_KERNEL_DEFINE, VRED_KERNEL_WRITTEN)

/* ---- the table ----------------------------------------------------------------------------- */
void vred_fill_avx2(vred_kernel_table *t, int masked_tail)
{
    (void)masked_tail;
    AVX2_KERNELS(VRED_KERNEL_SET, VRED_KERNEL_SET_TAIL, VRED_KERNEL_SET_WRITTEN)
}
