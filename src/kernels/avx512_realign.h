/*
 * The AVX-512 main loop with one input read in aligned lines (included by avx512_kernel.h only).
 *
 * On Zen 5 a 64-byte load across two cache lines costs nearly two where the data sits in L1 or
 * L2, and the kernels' stores are aligned (simd_body.h's head) but their loads are not: with
 * `in` 16 bytes past a line and `inout` aligned (MPI_Reduce_local on malloc'd buffers), every
 * load of `in` splits. Where the two inputs sit at different offsets, moreover, the loads of
 * the next vectors meet the stores just issued in the low 12 address bits (4 KiB aliasing), so
 * the 4 KiB in-place sum with `in` at 0 and `inout` at 16 ran at 0.53-0.55x of its aligned
 * time, 0.75x at 16/0 (docs/kernels.md, "Loads that split cache lines"). Here the misaligned
 * input is read in whole aligned lines, each vector assembled from two of them by VALIGND, the
 * later line carried to the next vector (the order of a trip's loads and stores: VRED_RA_LOOP).
 *
 * VALIGND's shift is an immediate, so there is a loop per shift and per input: 16, 32 and 48
 * bytes, the shifts between buffers that an allocator returns (glibc's are 16-byte aligned),
 * and 4, 8, 56 and 60 (a float buffer at 4 or 8 mod 64 against one on a line), for `in` and for
 * `inout`, fourteen loops a kernel; for 1-byte elements also 1 and 63 bytes (a byte buffer at 1
 * mod 64 against one on a line), by VALIGND and VPALIGNR. Any other shift is a two-source
 * permute with an index made at run time (VRED_RP_*): VPERMT2D for a whole number of dwords,
 * VPERMT2B for the rest, where the CPU has AVX512_VBMI; without it those keep the split loads
 * of VRED_SIMD_LOOP.
 * Measured on Zen 5, the kernel alone, in place, `in` 1 byte below `inout` in its page: split
 * loads 0.62-0.65x of the aligned call at 4 KiB, VPERMT2B 0.78x; 64 KiB 0.90x and 0.99x. The
 * permute costs more than VALIGND's immediate shift where L1 holds the data, so VALIGND keeps
 * the shifts it had (docs/kernels.md, "Every other shift, by a permute").
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

/*
 * m vectors into o + W*j (j = 0..m-1), the realigned input's vector j joined from its lines j
 * and j + 1 (from `al`, 64-aligned) by JOIN(line j, line j + 1, X), the other input at `y`.
 * JOIN is VALIGND by the immediate X (dwords) or a two-source permute by the index X. The permute
 * overwrites its table operand, so each line is needed twice, once as a copy; left to itself
 * GCC 12 loaded three of the four lines a second time as the permute's memory operand instead
 * of copying a register (7 line loads a trip instead of 4: 0.65-0.70x of aligned in L1). The
 * empty asm that takes each line in a register rules the reload out (VALIGND does not need it
 * and compiles the same with it).
 *
 * Four vectors a trip: the other input's four loaded first, then each line loaded, joined and
 * stored in turn. The line loads are of whole lines, which no store before them can partly
 * overlap; `y`'s loads, which may split (a 3-buffer fold with both inputs off), all come before
 * the trip's stores, so they never wait on a store just made 1-63 bytes below them in the low 12
 * address bits (4 KiB aliasing). On Zen 5 this ran the 16 KiB in-place f32 sum with `in` 48
 * bytes into a line at 0.90-0.92x of aligned where every load of the trip first ran 0.79x;
 * each vector loaded and stored in turn ran it as fast but the 3-buffer fold with both inputs
 * off at 0.45x instead of 0.54x (docs/kernels.md, "The realigned loop's order and its shifts").
 */
#define VRED_RA_TRIP_Y_FIRST(ORDER, OP, STORE, W, JOIN, X, l_, y, o, j_)                        \
    do {                                                                                        \
        __m512i y0 = LD512((y) + W * (j_)), y1 = LD512((y) + W * ((j_) + 1));                   \
        __m512i y2 = LD512((y) + W * ((j_) + 2)), y3 = LD512((y) + W * ((j_) + 3));             \
        __m512i h0 = _mm512_load_si512((const void *)((l_) + 64));                              \
        __asm__("" : "+v"(h0));                                                                 \
        STORE((o) + W * (j_), ORDER(OP, JOIN(p_, h0, X), y0));                                  \
        __m512i h1 = _mm512_load_si512((const void *)((l_) + 128));                             \
        __asm__("" : "+v"(h1));                                                                 \
        STORE((o) + W * ((j_) + 1), ORDER(OP, JOIN(h0, h1, X), y1));                            \
        __m512i h2 = _mm512_load_si512((const void *)((l_) + 192));                             \
        __asm__("" : "+v"(h2));                                                                 \
        STORE((o) + W * ((j_) + 2), ORDER(OP, JOIN(h1, h2, X), y2));                            \
        __m512i h3 = _mm512_load_si512((const void *)((l_) + 256));                             \
        __asm__("" : "+v"(h3));                                                                 \
        STORE((o) + W * ((j_) + 3), ORDER(OP, JOIN(h2, h3, X), y3));                            \
        p_ = h3;                                                                                \
    } while (0)
#define VRED_RA_LOOP(ORDER, OP, STORE, W, JOIN, X, al, y, o, m)                                 \
    do {                                                                                        \
        const char *lines_ = (const char *)(al);                                                \
        __m512i p_ = _mm512_load_si512((const void *)lines_);                                   \
        size_t j_ = 0;                                                                          \
        for (; j_ + 4 <= (m); j_ += 4)                                                          \
            VRED_RA_TRIP_Y_FIRST(ORDER, OP, STORE, W, JOIN, X, lines_ + 64 * j_, y, o, j_);      \
        for (; j_ < (m); j_++) {                                                                \
            __m512i h_ = _mm512_load_si512((const void *)(lines_ + 64 * (j_ + 1)));             \
            STORE((o) + W * j_, ORDER(OP, JOIN(p_, h_, X), LD512((y) + W * j_)));               \
            p_ = h_;                                                                            \
        }                                                                                       \
    } while (0)

/* Lines p and h joined by VALIGND, the input's first element Q dwords into line p. */
#define VRED_RA_VALIGND(p, h, Q) _mm512_alignr_epi32((h), (p), (Q))
#define VRED_RA_CASE(ORDER, OP, STORE, W, Q, al, y, o, m)                                       \
    case 4 * Q:                                                                                 \
        VRED_RA_LOOP(ORDER, OP, STORE, W, VRED_RA_VALIGND, Q, al, y, o, m);                     \
        break;

/*
 * Lines p and h joined one byte on (the input 1 byte past a line) or one byte back (63 past):
 * VALIGND by four dwords or twelve puts each 128-bit lane next to the lane that follows it in
 * the input, and VPALIGNR takes the 16 bytes at the shift from each pair of lanes. Two shuffles
 * with immediates where VPERMT2B is one with an index: on Zen 5 the byte permute costs about
 * half a cycle a vector more in L1 (a stand-alone in-place u8 sum at 16 KiB: 0.77x of aligned
 * against 0.90x; docs/kernels.md, "A byte buffer one byte off"), and these need no VBMI.
 */
#define VRED_RA_BYTE1(p, h, X) _mm512_alignr_epi8(_mm512_alignr_epi32((h), (p), 4), (p), 1)
#define VRED_RA_BYTE63(p, h, X) _mm512_alignr_epi8((h), _mm512_alignr_epi32((h), (p), 12), 15)
/* Is sh one of the byte shifts that have a loop of their own (for 1-byte elements)? */
#define VRED_RA_BYTE_SHIFT(T, sh) (sizeof(T) == 1 && ((sh) == 1 || (sh) == 63))

/* Does a shift of sh bytes have a loop of its own (VRED_RA_SWITCH)? */
#define VRED_RA_IMM_SHIFT(T, sh)                                                                \
    ((sh) && ((sh) % 16 == 0 || (sh) == 4 || (sh) == 8 || (sh) == 56 || (sh) == 60 ||           \
              VRED_RA_BYTE_SHIFT(T, sh)))
/* The loop for a shift of sh bytes: 4, 8, 16, 32, 48, 56 or 60 (VALIGND's immediate is sh / 4),
 * or for 1-byte elements (W == 64) 1 or 63 (VRED_RA_BYTE_SHIFT). */
#define VRED_RA_SWITCH(ORDER, OP, STORE, W, sh, al, y, o, m)                                    \
    do {                                                                                        \
        const char *al_ = (al);                                                                 \
        switch (sh) {                                                                           \
            VRED_RA_CASE(ORDER, OP, STORE, W, 1, al_, y, o, m)                                  \
            VRED_RA_CASE(ORDER, OP, STORE, W, 2, al_, y, o, m)                                  \
            VRED_RA_CASE(ORDER, OP, STORE, W, 4, al_, y, o, m)                                  \
            VRED_RA_CASE(ORDER, OP, STORE, W, 8, al_, y, o, m)                                  \
            VRED_RA_CASE(ORDER, OP, STORE, W, 12, al_, y, o, m)                                 \
            VRED_RA_CASE(ORDER, OP, STORE, W, 14, al_, y, o, m)                                 \
            VRED_RA_CASE(ORDER, OP, STORE, W, 15, al_, y, o, m)                                 \
        case 1:                                                                                 \
            if (W == 64) VRED_RA_LOOP(ORDER, OP, STORE, W, VRED_RA_BYTE1, 0, al_, y, o, m);    \
            break;                                                                              \
        case 63:                                                                                \
            if (W == 64) VRED_RA_LOOP(ORDER, OP, STORE, W, VRED_RA_BYTE63, 0, al_, y, o, m);   \
            break;                                                                              \
        }                                                                                       \
    } while (0)

/*
 * The permuted loop (VRED_RA_LOOP with a permute whose index ix holds k + shift in lane k). A
 * function per kernel, order and permute, so that the byte permute alone is compiled for
 * AVX512_VBMI (ATTR) and called only where the CPU has it.
 */
#define VRED_RP_FN(fname, ATTR, ORDER, PERM, T, OP, STORE)                                      \
    ATTR static void fname(const char *al, const T *y, T *o, size_t m, __m512i ix)            \
    {                                                                                           \
        enum { W = 64 / sizeof(T) };                                                            \
        VRED_RA_LOOP(ORDER, OP, STORE, W, PERM, ix, al, y, o, m);                               \
    }
#define VRED_RP_VBMI __attribute__((target("avx512vbmi")))
#define VRED_RP_PERMD(p, h, ix) _mm512_permutex2var_epi32((p), (ix), (h))
#define VRED_RP_PERMB(p, h, ix) _mm512_permutex2var_epi8((p), (ix), (h))
/* The four loops of a kernel: `in` or `inout` realigned, by dwords or by bytes. */
#define VRED_RP_DEFINE(name, T, OP, STORE)                                                      \
    VRED_RP_FN(name##_d_in, , VRED_RA_IN, VRED_RP_PERMD, T, OP, STORE)                          \
    VRED_RP_FN(name##_d_inout, , VRED_RA_INOUT, VRED_RP_PERMD, T, OP, STORE)                    \
    VRED_RP_FN(name##_b_in, VRED_RP_VBMI, VRED_RA_IN, VRED_RP_PERMB, T, OP, STORE)             \
    VRED_RP_FN(name##_b_inout, VRED_RP_VBMI, VRED_RA_INOUT, VRED_RP_PERMB, T, OP, STORE)

/* Set where the CPU has AVX512_VBMI (each file's vred_fill_avx512_<part>): the byte permute
 * may run. */
static int vred_ra_vbmi;

/* Can an input sh bytes past a line be permuted (1..63, not a VALIGND shift)? */
static inline int vred_rp_shift(size_t sh)
{
    return sh && sh % 16 && (sh % 4 == 0 || vred_ra_vbmi);
}
/* The index of a shift of sh bytes: dword k + sh / 4 in lane k, or byte k + sh. */
static inline __m512i vred_rp_index(size_t sh)
{
    if (sh % 4 == 0)
        return _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                _mm512_set1_epi32((int)(sh / 4)));
    return _mm512_add_epi8(_mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50,
                                           49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36,
                                           35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22,
                                           21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8,
                                           7, 6, 5, 4, 3, 2, 1, 0),
                           _mm512_set1_epi8((char)sh));
}

/*
 * Elements of 8 or 16 bytes 4 bytes off their alignment (doubles at 4 mod 64): no element
 * starts on a line, so no head aligns the stores, and every load and store splits one
 * (MPI_Reduce_local of doubles at 4/4 ran at 0.74x of aligned at 4 KiB, 0.81x at 64 KiB, 0.85x
 * at 1 MiB on Zen 4). Where both inputs sit at the same offset, the head takes them to 4 bytes
 * past a line instead, and the loop reads both in aligned lines (VALIGND by one dword); the
 * stores stay unaligned. So too where one input sits 4 bytes below the other's offset (a user's
 * buffer at 4 mod 64 folded with a page-aligned shared slice into the user's output): after
 * the head it is on a line and read as it is. In a stand-alone loop, realigning the stores as
 * well (a third VALIGND) ran 0.99x of aligned from 64 KiB but 0.79-0.82x where L1 holds the
 * data, this form 0.92-0.94x throughout (docs/kernels.md, "Elements off their alignment").
 */
static inline size_t vred_ra_pair_head(const void *a, const void *b, const void *o, size_t esize,
                                       size_t n)
{
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b, po = (uintptr_t)o;
    if ((esize != 8 && esize != 16) || !(po % esize) || n * esize < 512) return 0;
    /* the input at 4 mod esize to 4 past a line; the other must then be there or on a line */
    size_t d = (size_t)((pb - pa) & 63);
    if (pa % esize == 4 && (d == 0 || d == 60)) return ((4 - pa) & 63) / esize;
    if (pb % esize == 4 && d == 4) return ((4 - pb) & 63) / esize;
    return 0;
}
/* The head of the AVX-512 kernels: to align the stores (simd_body.h), else the pair form's. */
static inline size_t vred_ra_head(const void *a, const void *b, const void *o, size_t esize,
                                  size_t n)
{
    size_t h = vred_simd_head(o, esize, n);
    return h ? h : vred_ra_pair_head(a, b, o, esize, n);
}

/*
 * name(a, b, o, i, n), both inputs 4 bytes past a line at element i (or one of them on a line)
 * and o + i not on one: every vector from i, and the tail, from both inputs' lines; returns n
 * (i where it does not apply). Each vector of each input is built from its lines j and j + 1 (VALIGND by one dword), each
 * vector's lines are loaded before its store (in place, the store of vector j writes the first
 * dword of line j + 1), and the first and the last line are masked loads, so no byte outside
 * the inputs is read (the four bytes before an input share its line: no tool can poison them,
 * and a masked-off element is not accessed). The tail is read from the last line too, so this
 * form finishes the call in both tail forms (the masked store is the same operation on the same
 * elements: the bytes do not change). Four vectors a trip, each pair's loads first, from a
 * bound measured on the CPU at hand (VRED_REALIGN_PAIR, kernel.h), below it the loop after
 * (two a trip, the lines swapping roles): on Zen 4 (earlier forms of both) one a trip ran
 * 0.87x of aligned at 4 KiB and 0.83-0.85x at 16 KiB where two, loads first, ran 0.69x and
 * 0.73x, and at 1 MiB 0.93-0.94x against 0.86-0.88x. The last vector of a buffer of whole
 * pages crosses into the next page, and goes to its two lines (store_on_lines, avx512_kernel.h).
 */
/* The first `dwords` dwords of the line at p, the rest zero. None: no load at all. A masked
 * load with no lane set reads no byte, but it still reached the line: in MA's root fold, where
 * the bank's slot sits on a line and ends with the data, that line is the start of the next
 * slot, which the other rank is writing for the next call, and MA reduce of doubles at 4/4
 * (4 KiB, 2 ranks, back to back, Zen 5) ran 0.45-0.49x of aligned with it, 0.92-0.95x without
 * (`vred-bench offsets --type f64 --sizes 4K --offsets 4/4 --coll reduce --algs ma`, the two
 * builds in turn, four times). */
static inline __m512i vred_ra_last_line(const char *p, size_t dwords)
{
    if (!dwords) return _mm512_setzero_si512();
    return _mm512_maskz_load_epi32((__mmask16)((1u << dwords) - 1), p);
}
/* The pair form's loop with input a SA and input b SB dwords past a line (each 0 or 1: an
 * input on a line is read as it is, VALIGND by 0 being the line itself). */
#define VRED_RA_PAIR_BODY(OP, STORE, FIELDS, T, W, SA, SB, a, b, out, vectors, tail)            \
    do {                                                                                        \
        const char *la = (const char *)(a) - 4 * (SA), *lb = (const char *)(b) - 4 * (SB);      \
        __m512i pa = _mm512_maskz_load_epi32((__mmask16)(0xffffu << (SA)), la);                 \
        __m512i pb = _mm512_maskz_load_epi32((__mmask16)(0xffffu << (SB)), lb);                 \
        size_t j = 0;                                                                           \
        /* four a trip, each pair's loads first, the last line loaded into the carried one: \
         * two a trip with a1 carried had GCC copy the carried lines every trip (4 KiB at     \
         * 4/4, Zen 5, a stand-alone loop: 24.8 ns against 20.3) */                          \
        if ((vectors) * 64 >= vred_realign_from(VRED_REALIGN_PAIR))                             \
            for (; j + 4 < (vectors); j += 4) {                                                 \
                __m512i a0 = _mm512_load_si512((const void *)(la + 64 * (j + 1)));              \
                __m512i a1 = _mm512_load_si512((const void *)(la + 64 * (j + 2)));              \
                __m512i b0 = _mm512_load_si512((const void *)(lb + 64 * (j + 1)));              \
                __m512i b1 = _mm512_load_si512((const void *)(lb + 64 * (j + 2)));              \
                STORE((out) + W * j, OP(_mm512_alignr_epi32(a0, pa, SA), _mm512_alignr_epi32(b0, pb, SB))); \
                STORE((out) + W * (j + 1), OP(_mm512_alignr_epi32(a1, a0, SA), _mm512_alignr_epi32(b1, b0, SB))); \
                __m512i a2 = _mm512_load_si512((const void *)(la + 64 * (j + 3)));              \
                __m512i b2 = _mm512_load_si512((const void *)(lb + 64 * (j + 3)));              \
                pa = _mm512_load_si512((const void *)(la + 64 * (j + 4)));                      \
                pb = _mm512_load_si512((const void *)(lb + 64 * (j + 4)));                      \
                STORE((out) + W * (j + 2), OP(_mm512_alignr_epi32(a2, a1, SA), _mm512_alignr_epi32(b2, b1, SB))); \
                STORE((out) + W * (j + 3), OP(_mm512_alignr_epi32(pa, a2, SA), _mm512_alignr_epi32(pb, b2, SB))); \
            }                                                                                   \
        /* two a trip, the carried lines swapping roles: one a trip copied each carried line \
         * to a new register every vector, which on Zen 5 cost 0.70-0.78x of aligned in L1   \
         * where this form ran 0.94x (a stand-alone loop, doubles at 4/4). */                 \
        for (; j + 2 < (vectors); j += 2) {                                                     \
            __m512i a0 = _mm512_load_si512((const void *)(la + 64 * (j + 1)));                  \
            __m512i b0 = _mm512_load_si512((const void *)(lb + 64 * (j + 1)));                  \
            STORE((out) + W * j, OP(_mm512_alignr_epi32(a0, pa, SA), _mm512_alignr_epi32(b0, pb, SB))); \
            pa = _mm512_load_si512((const void *)(la + 64 * (j + 2)));                          \
            pb = _mm512_load_si512((const void *)(lb + 64 * (j + 2)));                          \
            STORE((out) + W * (j + 1), OP(_mm512_alignr_epi32(pa, a0, SA), _mm512_alignr_epi32(pb, b0, SB))); \
        }                                                                                       \
        for (; j + 1 < (vectors); j++) {                                                        \
            __m512i a0 = _mm512_load_si512((const void *)(la + 64 * (j + 1)));                  \
            __m512i b0 = _mm512_load_si512((const void *)(lb + 64 * (j + 1)));                  \
            STORE((out) + W * j, OP(_mm512_alignr_epi32(a0, pa, SA), _mm512_alignr_epi32(b0, pb, SB))); \
            pa = a0;                                                                            \
            pb = b0;                                                                            \
        }                                                                                       \
        /* the last line: the last vector's end (SA or SB dwords), then the tail's td dwords */ \
        size_t td = (tail) * sizeof(T) / 4;                                                     \
        __m512i ea = vred_ra_last_line(la + 64 * (vectors), td + (SA));                        \
        __m512i eb = vred_ra_last_line(lb + 64 * (vectors), td + (SB));                        \
        __m512i r = OP(_mm512_alignr_epi32(ea, pa, SA), _mm512_alignr_epi32(eb, pb, SB));      \
        /* a buffer of whole pages ends with this store across a page (store_on_lines) */        \
        if (window_crosses_page((out) + W * j, 64)) store_on_lines((out) + W * j, (FIELDS), r); \
        else STORE((out) + W * j, r);                                                           \
        if (td) {                                                                               \
            __m512i z = _mm512_setzero_si512();                                                 \
            __m512i x = _mm512_alignr_epi32(z, ea, SA), y = _mm512_alignr_epi32(z, eb, SB);    \
            tail_store((out) + W * (vectors), ((1ull << (td * 4)) - 1) & (FIELDS), td * 4,      \
                       OP(x, y));                                                               \
        }                                                                                       \
    } while (0)

#define VRED_RA_PAIR_DEFINE(name, T, OP, STORE, FIELDS)                                         \
    static size_t name(const T *a, const T *b, T *o, size_t i, size_t n)                       \
    {                                                                                           \
        enum { W = 64 / sizeof(T) };                                                            \
        size_t vectors = (n - i) / W, tail = n - i - vectors * W;                               \
        size_t sa = (size_t)((uintptr_t)(a + i) & 63), sb = (size_t)((uintptr_t)(b + i) & 63);  \
        /* only 8- and 16-byte elements: the tail is counted in dwords */                       \
        if ((sizeof(T) != 8 && sizeof(T) != 16) || vectors < 4) return i;                      \
        if (sa == 4 && sb == 4)                                                                 \
            VRED_RA_PAIR_BODY(OP, STORE, FIELDS, T, W, 1, 1, a + i, b + i, o + i, vectors, tail); \
        else if (sa == 4 && sb == 0)                                                            \
            VRED_RA_PAIR_BODY(OP, STORE, FIELDS, T, W, 1, 0, a + i, b + i, o + i, vectors, tail); \
        else if (sa == 0 && sb == 4)                                                            \
            VRED_RA_PAIR_BODY(OP, STORE, FIELDS, T, W, 0, 1, a + i, b + i, o + i, vectors, tail); \
        else                                                                                    \
            return i;                                                                           \
        return n;                                                                               \
    }

/*
 * name(a, b, o, i, n): from element i, where o + i is 64-byte aligned, the whole vectors but
 * the last, one input realigned (where o + i is not, the pair form's inputs: both 4 bytes past
 * a line, or one of them on a line); returns the element it stopped at (i itself where it does
 * not apply, n where the pair form did it all), for VRED_SIMD_LOOP to finish.
 */
#define VRED_RA_DEFINE(name, T, OP, STORE, FIELDS)                                              \
    VRED_RA_PAIR_DEFINE(name##_paired, T, OP, STORE, FIELDS)                                    \
    VRED_RP_DEFINE(name##_perm, T, OP, STORE)                                                   \
    __attribute__((noinline)) static size_t name##_lines(const T *a, const T *b, T *o, size_t i, \
                                                         size_t vectors, size_t sa, size_t sb)  \
    {                                                                                           \
        enum { W = 64 / sizeof(T) };                                                            \
        int in_ = VRED_RA_IMM_SHIFT(T, sa), inout_ = !in_ && VRED_RA_IMM_SHIFT(T, sb);          \
        int pin_ = !in_ && !inout_ && vred_rp_shift(sa);                                        \
        int pinout_ = !in_ && !inout_ && !pin_ && vred_rp_shift(sb);                            \
        if (!in_ && !inout_ && !pin_ && !pinout_) return i;                                     \
        /* below the bound learned for this core, split loads (kernel.h); its own bound where   \
         * the output sits 1-63 bytes above that input in its page */                          \
        size_t g_ = vred_page_gap(o + i, (in_ || pin_) ? a + i : b + i);                         \
        if (vectors * 64 < vred_realign_from(vred_simd_near_above(g_) ? VRED_REALIGN_AVX512_NEAR \
                                                                       : VRED_REALIGN_AVX512))  \
            return i;                                                                           \
        STORE(o + i, OP(LD512(a + i), LD512(b + i))); /* the first vector */                    \
        i += W;                                                                                 \
        size_t m = vectors - 2;                                                                 \
        if (pin_ || pinout_) {                                                                  \
            size_t sh = pin_ ? sa : sb;                                                         \
            const char *al = (const char *)(pin_ ? (const void *)(a + i) : (const void *)(b + i)) - sh; \
            __m512i ix = vred_rp_index(sh);                                                     \
            if (sh % 4 == 0 && pin_) name##_perm_d_in(al, b + i, o + i, m, ix);                 \
            else if (sh % 4 == 0) name##_perm_d_inout(al, a + i, o + i, m, ix);                 \
            else if (pin_) name##_perm_b_in(al, b + i, o + i, m, ix);                           \
            else name##_perm_b_inout(al, a + i, o + i, m, ix);                                  \
        } else if (in_)                                                                         \
            VRED_RA_SWITCH(VRED_RA_IN, OP, STORE, W, sa, (const char *)(a + i) - sa, b + i,     \
                           o + i, m);                                                           \
        else                                                                                    \
            VRED_RA_SWITCH(VRED_RA_INOUT, OP, STORE, W, sb, (const char *)(b + i) - sb, a + i,  \
                           o + i, m);                                                           \
        return i + m * W;                                                                       \
    }                                                                                           \
    /* The checks inline, the loops out of line: an aligned call then pays no prologue of a   \
     * function holding a dozen loops (4 KiB aligned 19.5 ns against 17.8; docs/kernels.md). */   \
    static inline size_t name(const T *a, const T *b, T *o, size_t i, size_t n)                \
    {                                                                                           \
        enum { W = 64 / sizeof(T) };                                                            \
        size_t vectors = (n - i) / W;                                                           \
        if (vectors < 4) return i;                                                              \
        if ((uintptr_t)(o + i) & 63) return name##_paired(a, b, o, i, n);                       \
        if (vred_kernels_far_now) return i; /* split loads: kernel.h */                         \
        size_t sa = (size_t)((uintptr_t)(a + i) & 63), sb = (size_t)((uintptr_t)(b + i) & 63);  \
        if (!sa && !sb) return i;                                                               \
        return name##_lines(a, b, o, i, vectors, sa, sb);                                       \
    }

#endif
