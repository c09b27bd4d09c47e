/*
 * AVX-512 kernels of the integer types: MAX, MIN, SUM and PROD (avx512_kernel.h: their shape).
 * x is `in`, y is `inout`.
 */
#include "kernels/avx512_kernel.h"

INT_OP(max_i8, _mm512_max_epi8)
INT_OP(max_u8, _mm512_max_epu8)
INT_OP(max_i16, _mm512_max_epi16)
INT_OP(max_u16, _mm512_max_epu16)
INT_OP(max_i32, _mm512_max_epi32)
INT_OP(max_u32, _mm512_max_epu32)
INT_OP(max_i64, _mm512_max_epi64)
INT_OP(max_u64, _mm512_max_epu64)
INT_OP(min_i8, _mm512_min_epi8)
INT_OP(min_u8, _mm512_min_epu8)
INT_OP(min_i16, _mm512_min_epi16)
INT_OP(min_u16, _mm512_min_epu16)
INT_OP(min_i32, _mm512_min_epi32)
INT_OP(min_u32, _mm512_min_epu32)
INT_OP(min_i64, _mm512_min_epi64)
INT_OP(min_u64, _mm512_min_epu64)
INT_OP(sum_u8, _mm512_add_epi8)
INT_OP(sum_u16, _mm512_add_epi16)
INT_OP(sum_u32, _mm512_add_epi32)
INT_OP(sum_u64, _mm512_add_epi64)
INT_OP(prod_u16, _mm512_mullo_epi16)
INT_OP(prod_u32, _mm512_mullo_epi32)
INT_OP(prod_u64, _mm512_mullo_epi64)

/* No 8-bit multiply: even bytes from a 16-bit multiply, odd bytes from one of the shifted halves. */
static inline __m512i prod_u8(__m512i x, __m512i y)
{
    __m512i even = _mm512_mullo_epi16(x, y);
    __m512i odd = _mm512_mullo_epi16(_mm512_srli_epi16(x, 8), _mm512_srli_epi16(y, 8));
    return _mm512_mask_blend_epi8(0xaaaaaaaaaaaaaaaaull, even, _mm512_slli_epi16(odd, 8));
}

/* The kernels of this file, one row each (kernel.h: K, KT, F; avx512_kernel.h says why the
 * AVX-512 kernels are split over several files). */
#define AVX512_KERNELS_INT(K, KT, F)                                                                \
    KT(bin[VRED_OP_MAX][VRED_INT8], AVX512_BINARY, vred_max_i8_avx512, vred_max_i8_avx512_cascade, vred_max_i8_avx2, int8_t, max_i8) \
    KT(bin[VRED_OP_MAX][VRED_UINT8], AVX512_BINARY, vred_max_u8_avx512, vred_max_u8_avx512_cascade, vred_max_u8_avx2, uint8_t, max_u8) \
    KT(bin[VRED_OP_MAX][VRED_INT16], AVX512_BINARY, vred_max_i16_avx512, vred_max_i16_avx512_cascade, vred_max_i16_avx2, int16_t, max_i16) \
    KT(bin[VRED_OP_MAX][VRED_UINT16], AVX512_BINARY, vred_max_u16_avx512, vred_max_u16_avx512_cascade, vred_max_u16_avx2, uint16_t, max_u16) \
    KT(bin[VRED_OP_MAX][VRED_INT32], AVX512_BINARY, vred_max_i32_avx512, vred_max_i32_avx512_cascade, vred_max_i32_avx2, int32_t, max_i32) \
    KT(bin[VRED_OP_MAX][VRED_UINT32], AVX512_BINARY, vred_max_u32_avx512, vred_max_u32_avx512_cascade, vred_max_u32_avx2, uint32_t, max_u32) \
    KT(bin[VRED_OP_MAX][VRED_INT64], AVX512_BINARY, vred_max_i64_avx512, vred_max_i64_avx512_cascade, vred_max_i64_avx2, int64_t, max_i64) \
    KT(bin[VRED_OP_MAX][VRED_UINT64], AVX512_BINARY, vred_max_u64_avx512, vred_max_u64_avx512_cascade, vred_max_u64_avx2, uint64_t, max_u64) \
    KT(bin[VRED_OP_MIN][VRED_INT8], AVX512_BINARY, vred_min_i8_avx512, vred_min_i8_avx512_cascade, vred_min_i8_avx2, int8_t, min_i8) \
    KT(bin[VRED_OP_MIN][VRED_UINT8], AVX512_BINARY, vred_min_u8_avx512, vred_min_u8_avx512_cascade, vred_min_u8_avx2, uint8_t, min_u8) \
    KT(bin[VRED_OP_MIN][VRED_INT16], AVX512_BINARY, vred_min_i16_avx512, vred_min_i16_avx512_cascade, vred_min_i16_avx2, int16_t, min_i16) \
    KT(bin[VRED_OP_MIN][VRED_UINT16], AVX512_BINARY, vred_min_u16_avx512, vred_min_u16_avx512_cascade, vred_min_u16_avx2, uint16_t, min_u16) \
    KT(bin[VRED_OP_MIN][VRED_INT32], AVX512_BINARY, vred_min_i32_avx512, vred_min_i32_avx512_cascade, vred_min_i32_avx2, int32_t, min_i32) \
    KT(bin[VRED_OP_MIN][VRED_UINT32], AVX512_BINARY, vred_min_u32_avx512, vred_min_u32_avx512_cascade, vred_min_u32_avx2, uint32_t, min_u32) \
    KT(bin[VRED_OP_MIN][VRED_INT64], AVX512_BINARY, vred_min_i64_avx512, vred_min_i64_avx512_cascade, vred_min_i64_avx2, int64_t, min_i64) \
    KT(bin[VRED_OP_MIN][VRED_UINT64], AVX512_BINARY, vred_min_u64_avx512, vred_min_u64_avx512_cascade, vred_min_u64_avx2, uint64_t, min_u64) \
    KT(bin[VRED_OP_SUM][VRED_UINT8], AVX512_BINARY, vred_sum_u8_avx512, vred_sum_u8_avx512_cascade, vred_sum_u8_avx2, uint8_t, sum_u8) \
    KT(bin[VRED_OP_SUM][VRED_UINT16], AVX512_BINARY, vred_sum_u16_avx512, vred_sum_u16_avx512_cascade, vred_sum_u16_avx2, uint16_t, sum_u16) \
    KT(bin[VRED_OP_SUM][VRED_UINT32], AVX512_BINARY, vred_sum_u32_avx512, vred_sum_u32_avx512_cascade, vred_sum_u32_avx2, uint32_t, sum_u32) \
    KT(bin[VRED_OP_SUM][VRED_UINT64], AVX512_BINARY, vred_sum_u64_avx512, vred_sum_u64_avx512_cascade, vred_sum_u64_avx2, uint64_t, sum_u64) \
    KT(bin[VRED_OP_PROD][VRED_UINT8], AVX512_BINARY, vred_prod_u8_avx512, vred_prod_u8_avx512_cascade, vred_prod_u8_avx2, uint8_t, prod_u8) \
    KT(bin[VRED_OP_PROD][VRED_UINT16], AVX512_BINARY, vred_prod_u16_avx512, vred_prod_u16_avx512_cascade, vred_prod_u16_avx2, uint16_t, prod_u16) \
    KT(bin[VRED_OP_PROD][VRED_UINT32], AVX512_BINARY, vred_prod_u32_avx512, vred_prod_u32_avx512_cascade, vred_prod_u32_avx2, uint32_t, prod_u32) \
    KT(bin[VRED_OP_PROD][VRED_UINT64], AVX512_BINARY, vred_prod_u64_avx512, vred_prod_u64_avx512_cascade, vred_prod_u64_avx2, uint64_t, prod_u64)

AVX512_PART(int, AVX512_KERNELS_INT)
