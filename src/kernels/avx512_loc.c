/*
 * AVX-512 kernels of MAXLOC and MINLOC on every pair type (avx512_kernel.h: their shape). x is
 * `in`, y is `inout`.
 */
#include "kernels/avx512_kernel.h"

/* MAXLOC/MINLOC. The value and index lanes of a pair: even and odd 32-bit lanes ({float or int
 * or short, int}, 2REAL), or even and odd 64-bit lanes (2DOUBLE_PRECISION, {double or long, int,
 * 4 padding bytes}, whose int32 index is the odd lane's low half). The values are compared
 * duplicated over their pair (xd, yd), so each verdict comes out spread over its pair with no
 * mask arithmetic (which costs more than the shuffle); the equality, masked to the index lanes,
 * makes a tie keep y's value (+0 and -0 tie) and take `lower`'s index lane, the lower index. */
#define LOC_PICK(bits, n_lanes_mask)                                                            \
    static inline __m512i loc_pick##bits(__m512i x, __m512i y, __mmask16 take_x, __mmask16 equal_odd, \
                                         __m512i lower)                                         \
    {                                                                                           \
        __m512i r = _mm512_mask_blend_epi##bits((n_lanes_mask)take_x, y, x);                   \
        return _mm512_mask_mov_epi##bits(r, (n_lanes_mask)equal_odd, lower);                   \
    }
LOC_PICK(32, __mmask16)
LOC_PICK(64, __mmask8)
static inline __m512i dup_even32(__m512i v) { return SI(_mm512_moveldup_ps(PS(v))); }
static inline __m512i dup_even64(__m512i v) { return _mm512_unpacklo_epi64(v, v); }
/* Compares into masks, under a mask k. Ordered float compares: a NaN value never wins and never
 * ties, so y is kept, as in the scalar. */
#define PS_GT(k, a, b) _mm512_mask_cmp_ps_mask(k, PS(a), PS(b), _CMP_GT_OQ)
#define PS_LT(k, a, b) _mm512_mask_cmp_ps_mask(k, PS(a), PS(b), _CMP_LT_OQ)
#define PS_EQ(k, a, b) _mm512_mask_cmp_ps_mask(k, PS(a), PS(b), _CMP_EQ_OQ)
#define PD_GT(k, a, b) _mm512_mask_cmp_pd_mask(k, PD(a), PD(b), _CMP_GT_OQ)
#define PD_LT(k, a, b) _mm512_mask_cmp_pd_mask(k, PD(a), PD(b), _CMP_LT_OQ)
#define PD_EQ(k, a, b) _mm512_mask_cmp_pd_mask(k, PD(a), PD(b), _CMP_EQ_OQ)
#define I32_GT(k, a, b) _mm512_mask_cmpgt_epi32_mask(k, a, b)
#define I32_LT(k, a, b) _mm512_mask_cmplt_epi32_mask(k, a, b)
#define I32_EQ(k, a, b) _mm512_mask_cmpeq_epi32_mask(k, a, b)
#define I64_GT(k, a, b) _mm512_mask_cmpgt_epi64_mask(k, a, b)
#define I64_LT(k, a, b) _mm512_mask_cmplt_epi64_mask(k, a, b)
#define I64_EQ(k, a, b) _mm512_mask_cmpeq_epi64_mask(k, a, b)
/* fname, lane bits, take-x compare, equality compare, KEY(v): the value lanes as compared,
 * LOWER: the lower of the two indices (x, y and eq, the tied pairs' index lanes, in scope) */
#define LOC_OP(fname, bits, CMP, EQ, KEY, LOWER)                                                \
    static inline __m512i fname(__m512i x_, __m512i y_)                                         \
    {                                                                                           \
        __m512i x = in_register(x_), y = in_register(y_);                                       \
        __m512i xd = dup_even##bits(KEY(x)), yd = dup_even##bits(KEY(y));                       \
        __mmask16 eq = EQ(ODD##bits, xd, yd);                                                   \
        return loc_pick##bits(x, y, CMP(ALL##bits, xd, yd), eq, LOWER);                         \
    }
/* GCC otherwise folds the loads of x and y into each instruction that reads them (MOVSLDUP,
 * the blend, the compare: five 512-bit loads a vector instead of two), and the 32-bit pair
 * kernels ran at two thirds of the speed of the 64-bit ones. */
static inline __m512i in_register(__m512i v)
{
    __asm__("" : "+v"(v));
    return v;
}
#define KEY_SAME(v) (v)
#define ALL32 0xffff /* the lanes of a mask */
#define ODD32 0xaaaa /* the index lanes */
#define ALL64 0xff
#define ODD64 0xaa
/* {short, 2 padding bytes, int}: the value in the low half of the even 32-bit lane; shifted to
 * the top half it compares as an int32 in the same order, without the padding. */
#define SHORT_KEY(v) _mm512_slli_epi32(v, 16)
/* The lower index: int32 (also the low half of a 64-bit lane; the padding dword's result is
 * never stored): SMIN. The float and double indices of 2REAL and 2DOUBLE_PRECISION:
 * MINPS/MINPD(y, x) = y < x ? y : x, the scalar's rule (x's unless y's is lower: +-0 and NaN
 * included), in the tied pairs' index lanes only (masked: MINPS signals FE_INVALID on a NaN,
 * and the scalar and the MPIs compare indices only where the values tie). */
#define LOWER_I32 _mm512_min_epi32(x, y)
#define LOWER_F32 SI(_mm512_maskz_min_ps(eq, PS(y), PS(x)))
#define LOWER_F64 SI(_mm512_maskz_min_pd((__mmask8)eq, PD(y), PD(x)))
LOC_OP(maxloc_float_int, 32, PS_GT, PS_EQ, KEY_SAME, LOWER_I32)
LOC_OP(minloc_float_int, 32, PS_LT, PS_EQ, KEY_SAME, LOWER_I32)
LOC_OP(maxloc_2int, 32, I32_GT, I32_EQ, KEY_SAME, LOWER_I32)
LOC_OP(minloc_2int, 32, I32_LT, I32_EQ, KEY_SAME, LOWER_I32)
LOC_OP(maxloc_2float, 32, PS_GT, PS_EQ, KEY_SAME, LOWER_F32)
LOC_OP(minloc_2float, 32, PS_LT, PS_EQ, KEY_SAME, LOWER_F32)
LOC_OP(maxloc_short_int, 32, I32_GT, I32_EQ, SHORT_KEY, LOWER_I32)
LOC_OP(minloc_short_int, 32, I32_LT, I32_EQ, SHORT_KEY, LOWER_I32)
LOC_OP(maxloc_2double, 64, PD_GT, PD_EQ, KEY_SAME, LOWER_F64)
LOC_OP(minloc_2double, 64, PD_LT, PD_EQ, KEY_SAME, LOWER_F64)
LOC_OP(maxloc_double_int, 64, PD_GT, PD_EQ, KEY_SAME, LOWER_I32)
LOC_OP(minloc_double_int, 64, PD_LT, PD_EQ, KEY_SAME, LOWER_I32)
LOC_OP(maxloc_long_int, 64, I64_GT, I64_EQ, KEY_SAME, LOWER_I32)
LOC_OP(minloc_long_int, 64, I64_LT, I64_EQ, KEY_SAME, LOWER_I32)

/* The kernels of this file, one row each (kernel.h: K, KT, F; avx512_kernel.h says why the
 * AVX-512 kernels are split over several files). */
#define AVX512_KERNELS_LOC(K, KT, F)                                                                \
    KT(bin[VRED_OP_MAXLOC][VRED_FLOAT_INT], AVX512_BINARY, vred_maxloc_float_int_avx512, vred_maxloc_float_int_avx512_cascade, vred_maxloc_float_int_avx2, vred_float_int, maxloc_float_int) \
    KT(bin[VRED_OP_MINLOC][VRED_FLOAT_INT], AVX512_BINARY, vred_minloc_float_int_avx512, vred_minloc_float_int_avx512_cascade, vred_minloc_float_int_avx2, vred_float_int, minloc_float_int) \
    KT(bin[VRED_OP_MAXLOC][VRED_2INT], AVX512_BINARY, vred_maxloc_2int_avx512, vred_maxloc_2int_avx512_cascade, vred_maxloc_2int_avx2, vred_2int, maxloc_2int) \
    KT(bin[VRED_OP_MINLOC][VRED_2INT], AVX512_BINARY, vred_minloc_2int_avx512, vred_minloc_2int_avx512_cascade, vred_minloc_2int_avx2, vred_2int, minloc_2int) \
    KT(bin[VRED_OP_MAXLOC][VRED_2FLOAT], AVX512_BINARY, vred_maxloc_2float_avx512, vred_maxloc_2float_avx512_cascade, vred_maxloc_2float_avx2, vred_2float, maxloc_2float) \
    KT(bin[VRED_OP_MAXLOC][VRED_2DOUBLE], AVX512_BINARY, vred_maxloc_2double_avx512, vred_maxloc_2double_avx512_cascade, vred_maxloc_2double_avx2, vred_2double, maxloc_2double) \
    KT(bin[VRED_OP_MAXLOC][VRED_DOUBLE_INT], AVX512_PAIR12, vred_maxloc_double_int_avx512, vred_maxloc_double_int_avx512_cascade, vred_maxloc_double_int_avx2, vred_double_int, maxloc_double_int) \
    KT(bin[VRED_OP_MAXLOC][VRED_LONG_INT], AVX512_PAIR12, vred_maxloc_long_int_avx512, vred_maxloc_long_int_avx512_cascade, vred_maxloc_long_int_avx2, vred_long_int, maxloc_long_int) \
    KT(bin[VRED_OP_MAXLOC][VRED_SHORT_INT], AVX512_PAIR2, vred_maxloc_short_int_avx512, vred_maxloc_short_int_avx512_cascade, vred_maxloc_short_int_avx2, vred_short_int, maxloc_short_int) \
    KT(bin[VRED_OP_MINLOC][VRED_2FLOAT], AVX512_BINARY, vred_minloc_2float_avx512, vred_minloc_2float_avx512_cascade, vred_minloc_2float_avx2, vred_2float, minloc_2float) \
    KT(bin[VRED_OP_MINLOC][VRED_2DOUBLE], AVX512_BINARY, vred_minloc_2double_avx512, vred_minloc_2double_avx512_cascade, vred_minloc_2double_avx2, vred_2double, minloc_2double) \
    KT(bin[VRED_OP_MINLOC][VRED_DOUBLE_INT], AVX512_PAIR12, vred_minloc_double_int_avx512, vred_minloc_double_int_avx512_cascade, vred_minloc_double_int_avx2, vred_double_int, minloc_double_int) \
    KT(bin[VRED_OP_MINLOC][VRED_LONG_INT], AVX512_PAIR12, vred_minloc_long_int_avx512, vred_minloc_long_int_avx512_cascade, vred_minloc_long_int_avx2, vred_long_int, minloc_long_int) \
    KT(bin[VRED_OP_MINLOC][VRED_SHORT_INT], AVX512_PAIR2, vred_minloc_short_int_avx512, vred_minloc_short_int_avx512_cascade, vred_minloc_short_int_avx2, vred_short_int, minloc_short_int)

AVX512_PART(loc, AVX512_KERNELS_LOC)
