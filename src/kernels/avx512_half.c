/*
 * AVX-512 kernels of the half-precision types (bfloat16, float16): the binary kernels, 16 halves
 * widened to one 512-bit float vector, and the n-ary form's float32 accumulation (widen,
 * accumulate, narrow). avx512_kernel.h: the shared helpers. x is `in`, y is `inout`.
 */
#include "kernels/avx512_kernel.h"

/* Would the half kernels' 32-byte masked head or tail reach a page its bytes do not, in any
 * operand? Its masked-off bytes there cost the slow path where that page is unmapped
 * (tail_load): a bf16 sum of 1,407 halves ending at an unmapped page took 246-249 ns a call
 * against 90-93 with the page mapped (Zen 5). Those few elements then go to `lower`, which
 * reads exactly its elements. */
static inline int half_windows_leave_page(const void *a, const void *b, const void *o, size_t bytes)
{
    return window_leaves_page((uintptr_t)a, bytes, 32) ||
           window_leaves_page((uintptr_t)b, bytes, 32) || window_leaves_page((uintptr_t)o, bytes, 32);
}

/* Half-precision kernels: 16 halves (256 bits) widen to one 512-bit float vector. */
#define AVX512_HALF(name, cascade_name, lower, OP)                                              \
    VRED_KERNEL_DECL(lower);                                                                    \
    void name(const void *a_, const void *b_, void *o_, size_t n)                               \
    {                                                                                           \
        const uint16_t *a = a_, *b = b_;                                                        \
        uint16_t *o = o_;                                                                       \
        size_t i = vred_simd_head_to(o, sizeof(uint16_t), n, 32);                              \
        if (i && half_windows_leave_page(a, b, o, i * 2)) lower(a, b, o, i);                    \
        else if (i) {                                                                           \
            __mmask32 h = (__mmask32)bytes_mask64(i * 2);                                       \
            __m256i x = _mm256_maskz_loadu_epi8(h, a), y = _mm256_maskz_loadu_epi8(h, b);       \
            _mm256_mask_storeu_epi8(o, h, OP(x, y));                                            \
        }                                                                                       \
        VRED_SIMD_LOOP(uint16_t, __m256i, LD256, ST256, OP, a, b, o, n, i);                     \
        if (i < n && half_windows_leave_page(a + i, b + i, o + i, (n - i) * 2))                 \
            lower(a + i, b + i, o + i, n - i);                                                  \
        else if (i < n) {                                                                       \
            __mmask32 m = (__mmask32)bytes_mask64((n - i) * 2);                                 \
            __m256i x = _mm256_maskz_loadu_epi8(m, a + i), y = _mm256_maskz_loadu_epi8(m, b + i); \
            _mm256_mask_storeu_epi8(o + i, m, OP(x, y));                                        \
        }                                                                                       \
    }                                                                                           \
    void cascade_name(const void *a_, const void *b_, void *o_, size_t n)                       \
    {                                                                                           \
        const uint16_t *a = a_, *b = b_;                                                        \
        uint16_t *o = o_;                                                                       \
        size_t i = vred_simd_head_to(o, sizeof(uint16_t), n, 32);                              \
        if (i) lower(a, b, o, i);                                                               \
        VRED_SIMD_LOOP(uint16_t, __m256i, LD256, ST256, OP, a, b, o, n, i);                     \
        if (i < n) lower(a + i, b + i, o + i, n - i);                                           \
    }

/* Half precision. bf16 widens by a shift; it narrows with an integer round-to-nearest-even
 * rather than VCVTNEPS2BF16, which flushes subnormals (the scalar reference keeps them). */
static inline __m512 widen_bf16(__m256i h) { return PS(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)); }
static inline __m256i narrow_bf16(__m512 f)
{
    __m512i x = SI(f);
    __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_add_epi32(x, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff)));
    __mmask16 nan = _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q);
    r = _mm512_mask_or_epi32(r, nan, x, _mm512_set1_epi32(0x00400000)); /* quiet, untruncated */
    return _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16));
}
static inline __m512 widen_f16(__m256i h) { return _mm512_cvtph_ps(h); }
static inline __m256i narrow_f16(__m512 f) { return _mm512_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }

#define HALF_ARITH(fname, WIDEN, NARROW, FOP)                                                   \
    static inline __m256i fname(__m256i x, __m256i y) { return NARROW(FOP(WIDEN(x), WIDEN(y))); }
#define HALF_CMP(fname, WIDEN, PRED)                                                            \
    static inline __m256i fname(__m256i x, __m256i y)                                           \
    {                                                                                           \
        return _mm256_mask_blend_epi16(_mm512_cmp_ps_mask(WIDEN(y), WIDEN(x), PRED), x, y);     \
    }
HALF_ARITH(sum_bf16, widen_bf16, narrow_bf16, _mm512_add_ps)
HALF_ARITH(prod_bf16, widen_bf16, narrow_bf16, _mm512_mul_ps)
HALF_CMP(max_bf16, widen_bf16, _CMP_GT_OQ)
HALF_CMP(min_bf16, widen_bf16, _CMP_LT_OQ)
HALF_ARITH(sum_f16, widen_f16, narrow_f16, _mm512_add_ps)
HALF_ARITH(prod_f16, widen_f16, narrow_f16, _mm512_mul_ps)
HALF_CMP(max_f16, widen_f16, _CMP_GT_OQ)
HALF_CMP(min_f16, widen_f16, _CMP_LT_OQ)

/* ---- half precision with float32 accumulation (n-ary form) ---------------------------------- */
/* The n-ary half-precision form's user buffers (the halves it widens and accumulates, the halves
 * it narrows into; its float accumulator is a block of its own): whole vectors, then the last
 * k < 16 halves by a masked access, or through a vector on the stack where the masked window
 * would reach a page the halves do not (window_leaves_page; tail_load says what that costs). */
static inline __m256i halves_load_last(const uint16_t *p, size_t k)
{
    if (!window_leaves_page((uintptr_t)p, k * 2, 32))
        return _mm256_maskz_loadu_epi16((__mmask16)((1u << k) - 1), p);
    uint16_t t[16] = {0};
    memcpy(t, p, k * 2);
    return _mm256_loadu_si256((const __m256i *)t);
}
static inline void halves_store_last(uint16_t *p, __m256i v, size_t k)
{
    if (!window_leaves_page((uintptr_t)p, k * 2, 32)) {
        _mm256_mask_storeu_epi16(p, (__mmask16)((1u << k) - 1), v);
        return;
    }
    uint16_t t[16];
    _mm256_storeu_si256((__m256i *)t, v);
    memcpy(p, t, k * 2);
}
#define AVX512_HALF_ACC(name, WIDEN, FOP)                                                       \
    static void name(const void *a_, float *acc, size_t n)                                      \
    {                                                                                           \
        const uint16_t *a = a_;                                                                 \
        size_t i = 0;                                                                           \
        for (; i + 16 <= n; i += 16)                                                            \
            _mm512_storeu_ps(acc + i, FOP(WIDEN(LD256(a + i)), _mm512_loadu_ps(acc + i)));       \
        if (i < n) {                                                                            \
            __mmask16 m = (__mmask16)((1u << (n - i)) - 1);                                     \
            __m512 x = WIDEN(halves_load_last(a + i, n - i));                                   \
            _mm512_mask_storeu_ps(acc + i, m, FOP(x, _mm512_maskz_loadu_ps(m, acc + i)));       \
        }                                                                                       \
    }
static inline __m512 acc_max(__m512 x, __m512 y) { return _mm512_max_ps(y, x); }
static inline __m512 acc_min(__m512 x, __m512 y) { return _mm512_min_ps(y, x); }
static inline __m512 acc_sum(__m512 x, __m512 y) { return _mm512_add_ps(x, y); }
static inline __m512 acc_prod(__m512 x, __m512 y) { return _mm512_mul_ps(x, y); }

#define AVX512_WIDEN(name, WIDEN)                                                               \
    static void name(const void *a_, float *o, size_t n)                                        \
    {                                                                                           \
        const uint16_t *a = a_;                                                                 \
        size_t i = 0;                                                                           \
        for (; i + 16 <= n; i += 16) _mm512_storeu_ps(o + i, WIDEN(LD256(a + i)));              \
        if (i < n)                                                                              \
            _mm512_mask_storeu_ps(o + i, (__mmask16)((1u << (n - i)) - 1),                      \
                                  WIDEN(halves_load_last(a + i, n - i)));                       \
    }
#define AVX512_NARROW(name, NARROW)                                                             \
    static void name(const float *a, void *o_, size_t n)                                        \
    {                                                                                           \
        uint16_t *o = o_;                                                                       \
        size_t i = 0;                                                                           \
        for (; i + 16 <= n; i += 16) ST256(o + i, NARROW(_mm512_loadu_ps(a + i)));              \
        if (i < n)                                                                              \
            halves_store_last(o + i, NARROW(_mm512_maskz_loadu_ps((__mmask16)((1u << (n - i)) - 1), \
                                                                  a + i)), n - i);              \
    }

/* The kernels of this file, one row each (kernel.h: K, KT, F; avx512_kernel.h says why the
 * AVX-512 kernels are split over several files). */
#define AVX512_KERNELS_HALF(K, KT, F)                                                               \
    KT(bin[VRED_OP_SUM][VRED_BFLOAT16], AVX512_HALF, vred_sum_bf16_avx512, vred_sum_bf16_avx512_cascade, vred_sum_bf16_avx2, sum_bf16) \
    KT(bin[VRED_OP_PROD][VRED_BFLOAT16], AVX512_HALF, vred_prod_bf16_avx512, vred_prod_bf16_avx512_cascade, vred_prod_bf16_avx2, prod_bf16) \
    KT(bin[VRED_OP_MAX][VRED_BFLOAT16], AVX512_HALF, vred_max_bf16_avx512, vred_max_bf16_avx512_cascade, vred_max_bf16_avx2, max_bf16) \
    KT(bin[VRED_OP_MIN][VRED_BFLOAT16], AVX512_HALF, vred_min_bf16_avx512, vred_min_bf16_avx512_cascade, vred_min_bf16_avx2, min_bf16) \
    KT(bin[VRED_OP_SUM][VRED_FLOAT16], AVX512_HALF, vred_sum_f16_avx512, vred_sum_f16_avx512_cascade, vred_sum_f16_avx2, sum_f16) \
    KT(bin[VRED_OP_PROD][VRED_FLOAT16], AVX512_HALF, vred_prod_f16_avx512, vred_prod_f16_avx512_cascade, vred_prod_f16_avx2, prod_f16) \
    KT(bin[VRED_OP_MAX][VRED_FLOAT16], AVX512_HALF, vred_max_f16_avx512, vred_max_f16_avx512_cascade, vred_max_f16_avx2, max_f16) \
    KT(bin[VRED_OP_MIN][VRED_FLOAT16], AVX512_HALF, vred_min_f16_avx512, vred_min_f16_avx512_cascade, vred_min_f16_avx2, min_f16) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_MAX], AVX512_HALF_ACC, vred_acc_max_bf16_avx512, widen_bf16, acc_max) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_MIN], AVX512_HALF_ACC, vred_acc_min_bf16_avx512, widen_bf16, acc_min) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_SUM], AVX512_HALF_ACC, vred_acc_sum_bf16_avx512, widen_bf16, acc_sum) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_PROD], AVX512_HALF_ACC, vred_acc_prod_bf16_avx512, widen_bf16, acc_prod) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_MAX], AVX512_HALF_ACC, vred_acc_max_f16_avx512, widen_f16, acc_max) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_MIN], AVX512_HALF_ACC, vred_acc_min_f16_avx512, widen_f16, acc_min) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_SUM], AVX512_HALF_ACC, vred_acc_sum_f16_avx512, widen_f16, acc_sum) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_PROD], AVX512_HALF_ACC, vred_acc_prod_f16_avx512, widen_f16, acc_prod) \
    K(half_widen[VRED_HALF_BF16], AVX512_WIDEN, vred_widen_bf16_avx512, widen_bf16) \
    K(half_widen[VRED_HALF_F16], AVX512_WIDEN, vred_widen_f16_avx512, widen_f16) \
    K(half_narrow[VRED_HALF_BF16], AVX512_NARROW, vred_narrow_bf16_avx512, narrow_bf16) \
    K(half_narrow[VRED_HALF_F16], AVX512_NARROW, vred_narrow_f16_avx512, narrow_f16)

AVX512_PART(half, AVX512_KERNELS_HALF)
