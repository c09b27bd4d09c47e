/*
 * The streaming body of vred_copy (copy.c) with AVX-512: one 64-byte load and one 64-byte
 * streaming store per cache line, so every store fills a write-combining buffer in one go.
 * Compiled with -mavx512f only; copy.c calls it only when the active ISA is AVX-512.
 */
#include <immintrin.h>
#include <stddef.h>

void vred_copy_stream_avx512(void *dst, const void *src, size_t n);
void vred_copy_lines_avx512(void *dst, const void *src, size_t n);

/* n a multiple of 64, dst 64-byte aligned (VMOVNTDQ faults otherwise); src any alignment. */
void vred_copy_stream_avx512(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    size_t i = 0;
    /* Two lines per iteration: both loads issue before the stores, hiding some load latency. */
    for (; i + 128 <= n; i += 128) {
        __m512i a = _mm512_loadu_si512((const void *)(s + i));
        __m512i b = _mm512_loadu_si512((const void *)(s + i + 64));
        _mm512_stream_si512((void *)(d + i), a);
        _mm512_stream_si512((void *)(d + i + 64), b);
    }
    if (i < n) _mm512_stream_si512((void *)(d + i), _mm512_loadu_si512((const void *)(s + i)));
}

/* The temporal body (copy.c's line_copy): the same loop with ordinary aligned stores. */
void vred_copy_lines_avx512(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    size_t i = 0;
    for (; i + 128 <= n; i += 128) {
        __m512i a = _mm512_loadu_si512((const void *)(s + i));
        __m512i b = _mm512_loadu_si512((const void *)(s + i + 64));
        _mm512_store_si512((void *)(d + i), a);
        _mm512_store_si512((void *)(d + i + 64), b);
    }
    if (i < n) _mm512_store_si512((void *)(d + i), _mm512_loadu_si512((const void *)(s + i)));
}
