/*
 * The line-copy bodies of vred_copy (copy.c) with AVX-512: one 64-byte load and one 64-byte
 * store per cache line (a streaming one fills a write-combining buffer in one go).
 * Compiled with -mavx512f only; copy.c calls it only when the active ISA is AVX-512.
 */
#include <immintrin.h>
#include <stddef.h>

void vred_copy_stream_avx512(void *dst, const void *src, size_t n);
void vred_copy_lines_avx512(void *dst, const void *src, size_t n);

/* n a multiple of 64, dst 64-byte aligned (VMOVNTDQ / VMOVDQA64 fault otherwise); src any
 * alignment. Two lines per iteration: both loads issue before the stores, hiding some load
 * latency. The streaming copy and the temporal one (copy.c's line_copy) differ only in the store. */
#define LINES_AVX512(name, STORE)                                                               \
    void name(void *dst, const void *src, size_t n)                                             \
    {                                                                                           \
        char *d = dst;                                                                          \
        const char *s = src;                                                                    \
        size_t i = 0;                                                                           \
        for (; i + 128 <= n; i += 128) {                                                        \
            __m512i a = _mm512_loadu_si512((const void *)(s + i));                              \
            __m512i b = _mm512_loadu_si512((const void *)(s + i + 64));                         \
            STORE((void *)(d + i), a);                                                          \
            STORE((void *)(d + i + 64), b);                                                     \
        }                                                                                       \
        if (i < n) STORE((void *)(d + i), _mm512_loadu_si512((const void *)(s + i)));           \
    }
LINES_AVX512(vred_copy_stream_avx512, _mm512_stream_si512)
LINES_AVX512(vred_copy_lines_avx512, _mm512_store_si512)
