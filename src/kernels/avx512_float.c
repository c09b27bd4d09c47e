/*
 * AVX-512 kernels of the floating-point types: MAX, MIN, SUM, PROD of float and double, PROD of
 * the complex types (avx512_kernel.h: their shape). x is `in`, y is `inout`.
 */
#include "kernels/avx512_kernel.h"

static inline __m512i max_f32(__m512i x, __m512i y) { return SI(_mm512_max_ps(PS(y), PS(x))); }
static inline __m512i min_f32(__m512i x, __m512i y) { return SI(_mm512_min_ps(PS(y), PS(x))); }
static inline __m512i sum_f32(__m512i x, __m512i y) { return SI(_mm512_add_ps(PS(x), PS(y))); }
static inline __m512i prod_f32(__m512i x, __m512i y) { return SI(_mm512_mul_ps(PS(x), PS(y))); }
static inline __m512i max_f64(__m512i x, __m512i y) { return SI(_mm512_max_pd(PD(y), PD(x))); }
static inline __m512i min_f64(__m512i x, __m512i y) { return SI(_mm512_min_pd(PD(y), PD(x))); }
static inline __m512i sum_f64(__m512i x, __m512i y) { return SI(_mm512_add_pd(PD(x), PD(y))); }
static inline __m512i prod_f64(__m512i x, __m512i y) { return SI(_mm512_mul_pd(PD(x), PD(y))); }

/* Complex product without FMA (the build uses -ffp-contract=off), so every rounding matches the
 * scalar re = xr*yr - xi*yi, im = xr*yi + xi*yr. Every operation keeps the scalar's operand order
 * too, so that where two NaNs meet (a payload NaN times y, plus 0*inf's default NaN) the same one
 * propagates as in the scalar code and in sse41.c/avx2.c. */
static inline __m512i prod_c32(__m512i x, __m512i y)
{
    __m512 t1 = _mm512_mul_ps(_mm512_moveldup_ps(PS(x)), PS(y));                      /* xr*yr, xr*yi */
    __m512 t2 = _mm512_mul_ps(_mm512_movehdup_ps(PS(x)), _mm512_permute_ps(PS(y), 0xb1)); /* xi*yi, xi*yr */
    return SI(_mm512_mask_sub_ps(_mm512_add_ps(t1, t2), 0x5555, t1, t2));
}
static inline __m512i prod_c64(__m512i x, __m512i y)
{
    __m512d t1 = _mm512_mul_pd(_mm512_movedup_pd(PD(x)), PD(y));
    __m512d t2 = _mm512_mul_pd(_mm512_unpackhi_pd(PD(x), PD(x)), _mm512_permute_pd(PD(y), 0x55));
    return SI(_mm512_mask_sub_pd(_mm512_add_pd(t1, t2), 0x55, t1, t2));
}

/* The kernels of this file, one row each (kernel.h: K, KT, F; avx512_kernel.h says why the
 * AVX-512 kernels are split over several files). */
#define AVX512_KERNELS_FLOAT(K, KT, F)                                                              \
    KT(bin[VRED_OP_MAX][VRED_FLOAT], AVX512_BINARY, vred_max_f32_avx512, vred_max_f32_avx512_cascade, vred_max_f32_avx2, float, max_f32) \
    KT(bin[VRED_OP_MIN][VRED_FLOAT], AVX512_BINARY, vred_min_f32_avx512, vred_min_f32_avx512_cascade, vred_min_f32_avx2, float, min_f32) \
    KT(bin[VRED_OP_SUM][VRED_FLOAT], AVX512_BINARY, vred_sum_f32_avx512, vred_sum_f32_avx512_cascade, vred_sum_f32_avx2, float, sum_f32) \
    KT(bin[VRED_OP_PROD][VRED_FLOAT], AVX512_BINARY, vred_prod_f32_avx512, vred_prod_f32_avx512_cascade, vred_prod_f32_avx2, float, prod_f32) \
    KT(bin[VRED_OP_MAX][VRED_DOUBLE], AVX512_BINARY, vred_max_f64_avx512, vred_max_f64_avx512_cascade, vred_max_f64_avx2, double, max_f64) \
    KT(bin[VRED_OP_MIN][VRED_DOUBLE], AVX512_BINARY, vred_min_f64_avx512, vred_min_f64_avx512_cascade, vred_min_f64_avx2, double, min_f64) \
    KT(bin[VRED_OP_SUM][VRED_DOUBLE], AVX512_BINARY, vred_sum_f64_avx512, vred_sum_f64_avx512_cascade, vred_sum_f64_avx2, double, sum_f64) \
    KT(bin[VRED_OP_PROD][VRED_DOUBLE], AVX512_BINARY, vred_prod_f64_avx512, vred_prod_f64_avx512_cascade, vred_prod_f64_avx2, double, prod_f64) \
    KT(bin[VRED_OP_PROD][VRED_C_FLOAT_COMPLEX], AVX512_BINARY, vred_prod_c32_avx512, vred_prod_c32_avx512_cascade, vred_prod_c32_avx2, vred_c32, prod_c32) \
    KT(bin[VRED_OP_PROD][VRED_C_DOUBLE_COMPLEX], AVX512_BINARY, vred_prod_c64_avx512, vred_prod_c64_avx512_cascade, vred_prod_c64_avx2, vred_c64, prod_c64)

AVX512_PART(float, AVX512_KERNELS_FLOAT)
