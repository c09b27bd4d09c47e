/*
 * The line-copy bodies of vred_copy (copy.c) with AVX-512: one 64-byte load and one 64-byte
 * store per cache line (a streaming one fills a write-combining buffer in one go).
 * Compiled with -mavx512f only; copy.c calls it only when the active ISA is AVX-512.
 */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

void vred_copy_stream_avx512(void *dst, const void *src, size_t n);
void vred_copy_lines_avx512(void *dst, const void *src, size_t n);

/* n a multiple of 64, dst 64-byte aligned (VMOVNTDQ / VMOVDQA64 fault otherwise); src any
 * alignment. Two lines per iteration: both loads issue before the stores, hiding some load
 * latency. The streaming copy and the temporal one (copy.c's line_copy) differ only in the store. */
#define LINES_AVX512(name, STORE)                                                               \
    static void name(void *dst, const void *src, size_t n)                                      \
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
LINES_AVX512(stream_unaligned, _mm512_stream_si512)
LINES_AVX512(lines_unaligned, _mm512_store_si512)

/*
 * A source SH dwords past a line boundary, into an aligned destination: every load above splits
 * two lines, which on Zen 5 halves the copy's rate in L1 (4 KiB: 0.57-0.61x of the aligned
 * copy at every offset but 16/0, `vred-kbench align`, copy-out; 16 KiB 0.65-0.69x; from L2 on
 * 0.95-0.97x). Aligned loads of whole source lines, each line's result assembled from two of
 * them by VALIGND: 0.72-0.86x at 4 KiB (the three pieces' fixed cost), 0.89-0.94x at 16 KiB,
 * 0.99-1.01x from 64 KiB (docs/kernels.md, "Alignment"). VPERMT2D, whose run-time index would
 * spare the switch, is slower than split loads in L1 (a 4 KiB in-place sum: 29-31 ns against
 * 23.6 split and 19.2-22.4 by VALIGND). The first and the last line go through the split-load
 * loop, so that no load reads a byte outside [src, src + n). The shift is VALIGND's immediate:
 * one loop per shift.
 */
#define SHIFTED_AVX512(STORE, SH)                                                               \
    case SH: {                                                                                  \
        __m512i prev = _mm512_load_si512((const void *)(a));                                    \
        size_t i = 64;                                                                          \
        for (; i + 192 <= n; i += 128) {                                                        \
            __m512i x = _mm512_load_si512((const void *)(a + i));                               \
            __m512i y = _mm512_load_si512((const void *)(a + i + 64));                          \
            STORE((void *)(d + i), _mm512_alignr_epi32(x, prev, SH));                           \
            STORE((void *)(d + i + 64), _mm512_alignr_epi32(y, x, SH));                         \
            prev = y;                                                                           \
        }                                                                                       \
        if (i + 128 <= n)                                                                       \
            STORE((void *)(d + i), _mm512_alignr_epi32(_mm512_load_si512((const void *)(a + i)), \
                                                       prev, SH));                              \
        break;                                                                                  \
    }
#define LINES_SHIFTED_AVX512(name, STORE, UNALIGNED)                                            \
    void name(void *dst, const void *src, size_t n)                                             \
    {                                                                                           \
        char *d = dst;                                                                          \
        const char *s = src;                                                                    \
        size_t off = (size_t)((uintptr_t)s & 63);                                               \
        if (!off || off % 4 || n < 256) {                                                       \
            UNALIGNED(dst, src, n);                                                             \
            return;                                                                             \
        }                                                                                       \
        const char *a = s + 64 - off; /* the source's second line: a[i - 64 + off] = s[i] */    \
        UNALIGNED(d, s, 64);                                                                    \
        switch (off / 4) {                                                                      \
            SHIFTED_AVX512(STORE, 1) SHIFTED_AVX512(STORE, 2) SHIFTED_AVX512(STORE, 3)          \
            SHIFTED_AVX512(STORE, 4) SHIFTED_AVX512(STORE, 5) SHIFTED_AVX512(STORE, 6)          \
            SHIFTED_AVX512(STORE, 7) SHIFTED_AVX512(STORE, 8) SHIFTED_AVX512(STORE, 9)          \
            SHIFTED_AVX512(STORE, 10) SHIFTED_AVX512(STORE, 11) SHIFTED_AVX512(STORE, 12)       \
            SHIFTED_AVX512(STORE, 13) SHIFTED_AVX512(STORE, 14) SHIFTED_AVX512(STORE, 15)       \
            default: UNALIGNED(d + 64, s + 64, n - 128);                                        \
        }                                                                                       \
        UNALIGNED(d + n - 64, s + n - 64, 64);                                                  \
    }
LINES_SHIFTED_AVX512(vred_copy_stream_avx512, _mm512_stream_si512, stream_unaligned)
LINES_SHIFTED_AVX512(vred_copy_lines_avx512, _mm512_store_si512, lines_unaligned)
