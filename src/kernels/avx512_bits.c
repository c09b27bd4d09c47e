/*
 * AVX-512 kernels of the logical and bitwise operators: LAND, LOR, LXOR on every integer width,
 * BAND, BOR, BXOR on bytes (types.c maps every width to them; avx512_kernel.h: their shape).
 * x is `in`, y is `inout`.
 */
#include "kernels/avx512_kernel.h"

INT_OP(band_u8, _mm512_and_si512)
INT_OP(bor_u8, _mm512_or_si512)
INT_OP(bxor_u8, _mm512_xor_si512)

/* Logical ops: non-zero tests into masks, combine, then 0/1 per element. */
#define LOGICAL_OP(fname, bits, MASKOP)                                                         \
    static inline __m512i fname(__m512i x, __m512i y)                                           \
    {                                                                                           \
        __mmask64 kx = _mm512_test_epi##bits##_mask(x, x), ky = _mm512_test_epi##bits##_mask(y, y); \
        return _mm512_maskz_mov_epi##bits(MASKOP(kx, ky), _mm512_set1_epi##bits(1));            \
    }
#define K_AND(a, b) ((a) & (b))
#define K_OR(a, b) ((a) | (b))
#define K_XOR(a, b) ((a) ^ (b))
LOGICAL_OP(land_u8, 8, K_AND)
LOGICAL_OP(land_u16, 16, K_AND)
LOGICAL_OP(land_u32, 32, K_AND)
LOGICAL_OP(land_u64, 64, K_AND)
LOGICAL_OP(lor_u8, 8, K_OR)
LOGICAL_OP(lor_u16, 16, K_OR)
LOGICAL_OP(lor_u32, 32, K_OR)
LOGICAL_OP(lor_u64, 64, K_OR)
LOGICAL_OP(lxor_u8, 8, K_XOR)
LOGICAL_OP(lxor_u16, 16, K_XOR)
LOGICAL_OP(lxor_u32, 32, K_XOR)
LOGICAL_OP(lxor_u64, 64, K_XOR)

/* The kernels of this file, one row each (kernel.h: K, KT, F; avx512_kernel.h says why the
 * AVX-512 kernels are split over several files). */
#define AVX512_KERNELS_BITS(K, KT, F)                                                               \
    KT(bin[VRED_OP_LAND][VRED_UINT8], AVX512_BINARY, vred_land_u8_avx512, vred_land_u8_avx512_cascade, vred_land_u8_avx2, uint8_t, land_u8) \
    KT(bin[VRED_OP_LAND][VRED_UINT16], AVX512_BINARY, vred_land_u16_avx512, vred_land_u16_avx512_cascade, vred_land_u16_avx2, uint16_t, land_u16) \
    KT(bin[VRED_OP_LAND][VRED_UINT32], AVX512_BINARY, vred_land_u32_avx512, vred_land_u32_avx512_cascade, vred_land_u32_avx2, uint32_t, land_u32) \
    KT(bin[VRED_OP_LAND][VRED_UINT64], AVX512_BINARY, vred_land_u64_avx512, vred_land_u64_avx512_cascade, vred_land_u64_avx2, uint64_t, land_u64) \
    KT(bin[VRED_OP_LOR][VRED_UINT8], AVX512_BINARY, vred_lor_u8_avx512, vred_lor_u8_avx512_cascade, vred_lor_u8_avx2, uint8_t, lor_u8) \
    KT(bin[VRED_OP_LOR][VRED_UINT16], AVX512_BINARY, vred_lor_u16_avx512, vred_lor_u16_avx512_cascade, vred_lor_u16_avx2, uint16_t, lor_u16) \
    KT(bin[VRED_OP_LOR][VRED_UINT32], AVX512_BINARY, vred_lor_u32_avx512, vred_lor_u32_avx512_cascade, vred_lor_u32_avx2, uint32_t, lor_u32) \
    KT(bin[VRED_OP_LOR][VRED_UINT64], AVX512_BINARY, vred_lor_u64_avx512, vred_lor_u64_avx512_cascade, vred_lor_u64_avx2, uint64_t, lor_u64) \
    KT(bin[VRED_OP_LXOR][VRED_UINT8], AVX512_BINARY, vred_lxor_u8_avx512, vred_lxor_u8_avx512_cascade, vred_lxor_u8_avx2, uint8_t, lxor_u8) \
    KT(bin[VRED_OP_LXOR][VRED_UINT16], AVX512_BINARY, vred_lxor_u16_avx512, vred_lxor_u16_avx512_cascade, vred_lxor_u16_avx2, uint16_t, lxor_u16) \
    KT(bin[VRED_OP_LXOR][VRED_UINT32], AVX512_BINARY, vred_lxor_u32_avx512, vred_lxor_u32_avx512_cascade, vred_lxor_u32_avx2, uint32_t, lxor_u32) \
    KT(bin[VRED_OP_LXOR][VRED_UINT64], AVX512_BINARY, vred_lxor_u64_avx512, vred_lxor_u64_avx512_cascade, vred_lxor_u64_avx2, uint64_t, lxor_u64) \
    KT(bin[VRED_OP_BAND][VRED_UINT8], AVX512_BINARY, vred_band_u8_avx512, vred_band_u8_avx512_cascade, vred_band_u8_avx2, uint8_t, band_u8) \
    KT(bin[VRED_OP_BOR][VRED_UINT8], AVX512_BINARY, vred_bor_u8_avx512, vred_bor_u8_avx512_cascade, vred_bor_u8_avx2, uint8_t, bor_u8) \
    KT(bin[VRED_OP_BXOR][VRED_UINT8], AVX512_BINARY, vred_bxor_u8_avx512, vred_bxor_u8_avx512_cascade, vred_bxor_u8_avx2, uint8_t, bxor_u8)

AVX512_PART(bits, AVX512_KERNELS_BITS)
