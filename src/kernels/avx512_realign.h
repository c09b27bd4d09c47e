/*
 * The AVX-512 main loop with one input read in aligned lines (included by avx512.c only).
 *
 * On Zen 5 a 64-byte load across two cache lines costs nearly two where the data sits in L1 or
 * L2, and the kernels' stores are aligned (simd_body.h's head) but their loads are not: with
 * `in` 16 bytes past a line and `inout` aligned (MPI_Reduce_local on malloc'd buffers), every
 * load of `in` splits. Where the two inputs sit at different offsets, moreover, the loads of
 * the next vectors meet the stores just issued in the low 12 address bits (4 KiB aliasing), so
 * the 4 KiB in-place sum with `in` at 0 and `inout` at 16 ran at 0.53-0.55x of its aligned
 * time, 0.75x at 16/0 (docs/kernels.md, "Loads that split cache lines"). Here the misaligned
 * input is read in whole aligned lines, each vector assembled from two of them by VALIGND, the
 * later line carried to the next vector, and a trip issues all its loads before its stores.
 *
 * VALIGND's shift is an immediate, so there is a loop per shift and per input: 16, 32 and 48
 * bytes, the shifts between buffers that an allocator returns (glibc's are 16-byte aligned),
 * for `in` and for `inout`, six loops a kernel. Other shifts (a byte buffer at 1 mod 64, a
 * double at 4) keep the split loads of VRED_SIMD_LOOP.
 *
 * No load reads a byte outside the vectors it serves: the first and the last vector go through
 * the plain loop, so the first aligned line starts inside the first vector and the last ends
 * inside the last.
 */
#ifndef VRED_AVX512_REALIGN_H
#define VRED_AVX512_REALIGN_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

/* The operand order of OP(in, inout) with r the realigned vector and y the other one. */
#define VRED_RA_IN(OP, r, y) OP(r, y)
#define VRED_RA_INOUT(OP, r, y) OP(y, r)

/* m vectors into o + W*j (j = 0..m-1), the realigned input's lines from `al` (64-aligned,
 * al + Q*4 is its first element), the other input at `y`. */
#define VRED_RA_CASE(ORDER, OP, STORE, W, Q, al, y, o, m)                                       \
    case Q: {                                                                                   \
        __m512i p_ = _mm512_load_si512((const void *)(al));                                     \
        size_t j_ = 0;                                                                          \
        for (; j_ + 4 <= (m); j_ += 4) {                                                        \
            const char *l_ = (const char *)(al) + 64 * j_;                                      \
            __m512i h0 = _mm512_load_si512((const void *)(l_ + 64));                            \
            __m512i h1 = _mm512_load_si512((const void *)(l_ + 128));                           \
            __m512i h2 = _mm512_load_si512((const void *)(l_ + 192));                           \
            __m512i h3 = _mm512_load_si512((const void *)(l_ + 256));                           \
            __m512i y0 = LD512((y) + W * j_), y1 = LD512((y) + W * (j_ + 1));                   \
            __m512i y2 = LD512((y) + W * (j_ + 2)), y3 = LD512((y) + W * (j_ + 3));             \
            __m512i r0 = ORDER(OP, _mm512_alignr_epi32(h0, p_, Q), y0);                         \
            __m512i r1 = ORDER(OP, _mm512_alignr_epi32(h1, h0, Q), y1);                         \
            __m512i r2 = ORDER(OP, _mm512_alignr_epi32(h2, h1, Q), y2);                         \
            __m512i r3 = ORDER(OP, _mm512_alignr_epi32(h3, h2, Q), y3);                         \
            STORE((o) + W * j_, r0);                                                            \
            STORE((o) + W * (j_ + 1), r1);                                                      \
            STORE((o) + W * (j_ + 2), r2);                                                      \
            STORE((o) + W * (j_ + 3), r3);                                                      \
            p_ = h3;                                                                            \
        }                                                                                       \
        for (; j_ < (m); j_++) {                                                                \
            __m512i h_ = _mm512_load_si512((const void *)((const char *)(al) + 64 * (j_ + 1))); \
            STORE((o) + W * j_, ORDER(OP, _mm512_alignr_epi32(h_, p_, Q), LD512((y) + W * j_))); \
            p_ = h_;                                                                            \
        }                                                                                       \
        break;                                                                                  \
    }

/* The loop for a shift of sh bytes (16, 32 or 48): VALIGND's immediate is sh / 4. */
#define VRED_RA_SWITCH(ORDER, OP, STORE, W, sh, al, y, o, m)                                    \
    do {                                                                                        \
        const char *al_ = (al);                                                                 \
        switch ((sh) / 4) {                                                                     \
            VRED_RA_CASE(ORDER, OP, STORE, W, 4, al_, y, o, m)                                  \
            VRED_RA_CASE(ORDER, OP, STORE, W, 8, al_, y, o, m)                                  \
            VRED_RA_CASE(ORDER, OP, STORE, W, 12, al_, y, o, m)                                 \
        }                                                                                       \
    } while (0)

/*
 * name(a, b, o, i, n): from element i, where o + i is 64-byte aligned, the whole vectors but
 * the last, one input realigned; returns the element it stopped at (i itself where it does not
 * apply), for VRED_SIMD_LOOP to finish.
 */
#define VRED_RA_DEFINE(name, T, OP, STORE)                                                      \
    static size_t name(const T *a, const T *b, T *o, size_t i, size_t n)                       \
    {                                                                                           \
        enum { W = 64 / sizeof(T) };                                                            \
        size_t vectors = (n - i) / W;                                                           \
        if (vectors < 4 || ((uintptr_t)(o + i) & 63)) return i;                                 \
        size_t sa = (size_t)((uintptr_t)(a + i) & 63), sb = (size_t)((uintptr_t)(b + i) & 63);  \
        int in_ = sa && sa % 16 == 0, inout_ = !in_ && sb && sb % 16 == 0;                      \
        if (!in_ && !inout_) return i;                                                          \
        STORE(o + i, OP(LD512(a + i), LD512(b + i))); /* the first vector */                    \
        i += W;                                                                                 \
        size_t m = vectors - 2;                                                                 \
        if (in_)                                                                                \
            VRED_RA_SWITCH(VRED_RA_IN, OP, STORE, W, sa, (const char *)(a + i) - sa, b + i,     \
                           o + i, m);                                                           \
        else                                                                                    \
            VRED_RA_SWITCH(VRED_RA_INOUT, OP, STORE, W, sb, (const char *)(b + i) - sb, a + i,  \
                           o + i, m);                                                           \
        return i + m * W;                                                                       \
    }

#endif
