/*
 * The AVX2 main loop with a misaligned input read in aligned 32-byte lines (included by
 * avx2.c only; avx512_realign.h is the AVX-512 counterpart).
 *
 * The head (simd_body.h) aligns the stores, not the loads: with `in` 16 bytes off `inout` in
 * its line (MPI_Reduce_local on malloc'd buffers, 0/16) every other 32-byte load of `in` splits
 * a cache line, and with floats at 4 mod 64 every other one too. Measured on Zen 5 (family 26
 * model 2) with the AVX2 kernels (VRED_ISA=avx2, `vred-kbench align --type f32`): `local` at
 * 0/16 and 0/4 ran 0.59-0.73x of aligned at 4-64 KiB, and MA's in-place fold of a user's
 * buffer at 4..48 into a page-aligned slot (`fold-ip`) 0.78-0.87x. A stand-alone 4 KiB loop
 * (32-byte vectors, `in` 4..60 bytes past a line): split loads 0.56-0.80x of aligned, aligned
 * lines joined as below 0.95-0.99x.
 *
 * AVX2 has no two-source lane-crossing permute, but a join by a whole number d of dwords is a
 * blend and a one-source one: lane p of the blend comes from the later line where p < d and
 * from the earlier one elsewhere, and VPERMD then takes lane (k + d) mod 8 into lane k. Both
 * take run-time vectors, so one loop serves every dword shift (4..28 bytes past a 32-byte
 * line); byte shifts (a byte buffer at 1 against one at 0) keep the split loads, as AVX2 has no
 * byte permute across lanes.
 *
 * No load reads a byte outside the vectors it serves: the first and the last vector go through
 * the plain loop, so the first aligned line starts inside the first vector and the last ends
 * inside the last. Each trip loads its four vectors' lines and operands before its stores
 * (where `o` sits a few bytes above an input in its page, a load after a store would wait on
 * it: simd_body.h, vred_simd_loads_first).
 */
#ifndef VRED_AVX2_REALIGN_H
#define VRED_AVX2_REALIGN_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

/* A join of two consecutive aligned lines: the blend mask and VPERMD's index for d dwords. */
typedef struct {
    __m256i blend, index;
} vred_ra2_join;

static inline vred_ra2_join vred_ra2_join_of(size_t shift_bytes)
{
    __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), d = _mm256_set1_epi32((int)(shift_bytes / 4));
    vred_ra2_join j = {_mm256_cmpgt_epi32(d, lane),
                       _mm256_and_si256(_mm256_add_epi32(lane, d), _mm256_set1_epi32(7))};
    return j;
}
/* The 32 bytes that start d dwords into line p (h the line after it). */
static inline __m256i vred_ra2_join2(__m256i p, __m256i h, vred_ra2_join j)
{
    return _mm256_permutevar8x32_epi32(_mm256_blendv_epi8(p, h, j.blend), j.index);
}

/* The 32 bytes that start 16 bytes into line p: its upper half and h's lower, one VPERM2I128
 * where the blend and VPERMD take three uops (16 past a 32-byte line is where malloc's 16 mod 64
 * puts a buffer against a line, or against another at 32 or 0 mod 64). */
static inline __m256i vred_ra2_join_half(__m256i p, __m256i h, vred_ra2_join j)
{
    (void)j;
    return _mm256_permute2x128_si256(p, h, 0x21);
}

/* Vectors k..k+3 of an input into x0..x3: read as they are from p, or (REAL) joined from the
 * aligned lines k+1..k+4 from `al` and the line before them (prev, then replaced by line k+4).
 * The empty asm keeps the four lines in registers: left to itself GCC 12 loaded three of them a
 * second time as the blend's memory operand (as in avx512_realign.h). */
#define VRED_RA2_FOUR(REAL, JOIN, al, p, k, prev, jn, x0, x1, x2, x3)                           \
    do {                                                                                        \
        if (REAL) {                                                                             \
            const char *l_ = (al) + 32 * (k);                                                   \
            __m256i h0_ = _mm256_load_si256((const __m256i *)(const void *)(l_ + 32));          \
            __m256i h1_ = _mm256_load_si256((const __m256i *)(const void *)(l_ + 64));          \
            __m256i h2_ = _mm256_load_si256((const __m256i *)(const void *)(l_ + 96));          \
            __m256i h3_ = _mm256_load_si256((const __m256i *)(const void *)(l_ + 128));         \
            __asm__("" : "+x"(h0_), "+x"(h1_), "+x"(h2_), "+x"(h3_));                           \
            x0 = JOIN((prev), h0_, (jn));                                                       \
            x1 = JOIN(h0_, h1_, (jn));                                                          \
            x2 = JOIN(h1_, h2_, (jn));                                                          \
            x3 = JOIN(h2_, h3_, (jn));                                                          \
            (prev) = h3_;                                                                       \
        } else {                                                                                \
            x0 = LD256((p) + 32 * (k));                                                         \
            x1 = LD256((p) + 32 * ((k) + 1));                                                   \
            x2 = LD256((p) + 32 * ((k) + 2));                                                   \
            x3 = LD256((p) + 32 * ((k) + 3));                                                   \
        }                                                                                       \
    } while (0)
/* Vector k of an input alone (the last few vectors). */
#define VRED_RA2_ONE(REAL, JOIN, al, p, k, prev, jn, x)                                         \
    do {                                                                                        \
        if (REAL) {                                                                             \
            __m256i h_ = _mm256_load_si256((const __m256i *)(const void *)((al) + 32 * ((k) + 1))); \
            x = JOIN((prev), h_, (jn));                                                         \
            (prev) = h_;                                                                        \
        } else                                                                                  \
            x = LD256((p) + 32 * (k));                                                          \
    } while (0)

/*
 * m vectors of 32 bytes into o (aligned), from a and b (byte pointers to their first vector);
 * RA, RB: whether each is read in aligned lines (from a - sa, b - sb; one of them).
 */
#define VRED_RA2_LOOP(RA, RB, JOIN, OP, STORE, a, b, o, m, sa, sb)                              \
    do {                                                                                        \
        const char *la_ = (a) - (sa), *lb_ = (b) - (sb);                                        \
        vred_ra2_join ja_ = vred_ra2_join_of(sa), jb_ = vred_ra2_join_of(sb);                   \
        __m256i pa_ = _mm256_setzero_si256(), pb_ = _mm256_setzero_si256();                     \
        if (RA) pa_ = _mm256_load_si256((const __m256i *)(const void *)la_);                    \
        if (RB) pb_ = _mm256_load_si256((const __m256i *)(const void *)lb_);                    \
        size_t k_ = 0;                                                                          \
        for (; k_ + 4 <= (m); k_ += 4) {                                                        \
            __m256i x0, x1, x2, x3, y0, y1, y2, y3;                                             \
            VRED_RA2_FOUR(RA, JOIN, la_, a, k_, pa_, ja_, x0, x1, x2, x3);                      \
            VRED_RA2_FOUR(RB, JOIN, lb_, b, k_, pb_, jb_, y0, y1, y2, y3);                      \
            STORE((o) + 32 * k_, OP(x0, y0));                                                   \
            VRED_STORES_IN_ORDER();                                                             \
            STORE((o) + 32 * (k_ + 1), OP(x1, y1));                                             \
            VRED_STORES_IN_ORDER();                                                             \
            STORE((o) + 32 * (k_ + 2), OP(x2, y2));                                             \
            VRED_STORES_IN_ORDER();                                                             \
            STORE((o) + 32 * (k_ + 3), OP(x3, y3));                                             \
        }                                                                                       \
        for (; k_ < (m); k_++) {                                                                \
            __m256i x_, y_;                                                                     \
            VRED_RA2_ONE(RA, JOIN, la_, a, k_, pa_, ja_, x_);                                   \
            VRED_RA2_ONE(RB, JOIN, lb_, b, k_, pb_, jb_, y_);                                   \
            STORE((o) + 32 * k_, OP(x_, y_));                                                   \
        }                                                                                       \
    } while (0)

/*
 * Is an input sh bytes past a 32-byte line, at page gap `gap` below the output, read in lines?
 * Only at a whole number of dwords, and only where it pays: with 32-byte vectors half the loads
 * split, which where L1 holds the data costs less than the blend and permute of every vector
 * (MA's in-place fold of a user's buffer at 4..48 into an aligned slot, `fold-ip`, at 16 KiB:
 * 0.82x of aligned with split loads, 0.76x realigned), but more from L2 on (64 KiB: 0.78x and
 * 0.96x; Zen 5, family 26 model 2, with the AVX2 kernels, `vred-kbench align`). The size from
 * which the lines pay is the core's, and the join's (VPERM2I128 at 16 bytes, the blend and
 * VPERMD at the other shifts): measured at first use (vred_realign_from, kernel.h;
 * realign_learn.c). Where the output sits 1-63 bytes above the input in its page each split
 * load would also wait on the store before it (4 KiB aliasing), and the split loads take the
 * loads-first loop (simd_body.h): another trade, with a bound of its own (the _NEAR ones). On
 * Zen 5 the lines won there (`local` at 0/16, 4 KiB: 0.76x where split ran 0.61x, before the
 * loads-first loop), on the Xeon guest the split loads (0/4: 0.80-0.84x against 0.42-0.47x).
 */
static inline int vred_ra2_takes(size_t sh, size_t gap, size_t bytes)
{
    int near = vred_simd_near_above(gap);
    vred_realign_isa bound = sh == 16 ? (near ? VRED_REALIGN_AVX2_HALF_NEAR : VRED_REALIGN_AVX2_HALF)
                                      : (near ? VRED_REALIGN_AVX2_NEAR : VRED_REALIGN_AVX2);
    return sh && sh % 4 == 0 && bytes >= vred_realign_from(bound);
}

/*
 * Both inputs 4 bytes past a 32-byte line, o off its lines: 8- and 16-byte elements at 4 mod 8
 * (doubles at 4/4), where no head aligns the stores. Each vector of each input joined from its
 * two lines by two VPERMD and a VPBLENDD with constant operands, two vectors a trip with the
 * lines swapping roles; the stores stay unaligned. In a stand-alone in-place loop (Zen 5 with
 * AVX2) split loads and stores ran 0.75-0.76x of aligned at 4-16 KiB and 0.66x at 64 KiB, this
 * 0.76-0.77x and 0.87x; the loop above with both inputs in lines (its run-time shift needs
 * VPBLENDVB) ran 0.45-0.60x. m vectors from a and b (4 past a line) into o.
 */
static inline __m256i vred_ra2_join4(__m256i p, __m256i h)
{
    __m256i idx = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 0);
    return _mm256_blend_epi32(_mm256_permutevar8x32_epi32(p, idx),
                              _mm256_permutevar8x32_epi32(h, idx), 0x80);
}
#define VRED_RA2_PAIR4_LOOP(OP, STORE, a, b, o, m)                                              \
    do {                                                                                        \
        const char *la_ = (const char *)(a) - 4, *lb_ = (const char *)(b) - 4;                  \
        char *o_ = (char *)(o);                                                                 \
        __m256i pa_ = _mm256_load_si256((const __m256i *)(const void *)la_);                    \
        __m256i pb_ = _mm256_load_si256((const __m256i *)(const void *)lb_);                    \
        size_t k_ = 0;                                                                          \
        for (; k_ + 2 <= (m); k_ += 2) {                                                        \
            __m256i a0 = _mm256_load_si256((const __m256i *)(const void *)(la_ + 32 * (k_ + 1))); \
            __m256i b0 = _mm256_load_si256((const __m256i *)(const void *)(lb_ + 32 * (k_ + 1))); \
            STORE(o_ + 32 * k_, OP(vred_ra2_join4(pa_, a0), vred_ra2_join4(pb_, b0)));          \
            pa_ = _mm256_load_si256((const __m256i *)(const void *)(la_ + 32 * (k_ + 2)));      \
            pb_ = _mm256_load_si256((const __m256i *)(const void *)(lb_ + 32 * (k_ + 2)));      \
            STORE(o_ + 32 * (k_ + 1), OP(vred_ra2_join4(a0, pa_), vred_ra2_join4(b0, pb_)));    \
        }                                                                                       \
        if (k_ < (m)) {                                                                         \
            __m256i a0 = _mm256_load_si256((const __m256i *)(const void *)(la_ + 32 * (k_ + 1))); \
            __m256i b0 = _mm256_load_si256((const __m256i *)(const void *)(lb_ + 32 * (k_ + 1))); \
            STORE(o_ + 32 * k_, OP(vred_ra2_join4(pa_, a0), vred_ra2_join4(pb_, b0)));          \
        }                                                                                       \
    } while (0)

/*
 * name(a, b, o, i, n): from element i, where o + i is 32-byte aligned, every whole vector but
 * the first and the last with one input at a dword shift read in aligned lines (`in` first); returns the
 * element it stopped at (i itself where it does not apply), for VRED_SIMD_LOOP to finish. The
 * loops out of line, the checks inline: an aligned call pays no prologue.
 */
#define VRED_RA2_DEFINE(name, lower, T, OP, STORE)                                              \
    /* From element i, o + i off its lines and both inputs at one offset 4 mod 8 bytes: the    \
     * head (by `lower`) takes them to 4 past a line, the first vector goes as it is (its line \
     * starts 4 bytes before the input), then the pair loop up to the last vector; returns     \
     * where it stopped (i where it does not apply). */                                        \
    __attribute__((noinline)) static size_t name##_pair4(const T *a, const T *b, T *o, size_t i, \
                                                         size_t n, size_t s)                    \
    {                                                                                           \
        enum { W = 32 / sizeof(T) };                                                            \
        size_t h = ((4 - s) & 31) / sizeof(T);                                                  \
        if (h) lower(a + i, b + i, o + i, h);                                                   \
        i += h;                                                                                 \
        size_t vectors = (n - i) / W;                                                           \
        if (vectors < 4) return i;                                                              \
        STORE(o + i, OP(LD256(a + i), LD256(b + i))); /* the first vector */                    \
        i += W;                                                                                 \
        size_t m = vectors - 2;                                                                 \
        VRED_RA2_PAIR4_LOOP(OP, STORE, a + i, b + i, o + i, m);                                 \
        return i + m * W;                                                                       \
    }                                                                                           \
    __attribute__((noinline)) static size_t name##_lines(const T *a, const T *b, T *o, size_t i, \
                                                         size_t vectors, size_t sa, size_t sb)  \
    {                                                                                           \
        enum { W = 32 / sizeof(T) };                                                            \
        size_t bytes = vectors * 32;                                                            \
        /* one input at most: both realigned ran the 3-buffer fold with both inputs 48 bytes  \
         * into a line 0.50x of aligned at 16 KiB and 0.89x at 64 KiB, `in` alone 0.66-0.68x  \
         * and 0.97-0.99x (split loads 0.53x and 0.90x; Zen 5, `vred-kbench align` `fold`    \
         * 0/16) */                                                                            \
        int ra = vred_ra2_takes(sa, vred_page_gap(o + i, a + i), bytes);                        \
        int rb = !ra && vred_ra2_takes(sb, vred_page_gap(o + i, b + i), bytes);                 \
        if (!ra && !rb) return i;                                                               \
        STORE(o + i, OP(LD256(a + i), LD256(b + i))); /* the first vector */                    \
        i += W;                                                                                 \
        size_t m = vectors - 2;                                                                 \
        const char *pa = (const char *)(a + i), *pb = (const char *)(b + i);                    \
        char *po = (char *)(o + i);                                                             \
        if (ra && sa == 16)                                                                     \
            VRED_RA2_LOOP(1, 0, vred_ra2_join_half, OP, STORE, pa, pb, po, m, sa, sb);           \
        else if (ra) VRED_RA2_LOOP(1, 0, vred_ra2_join2, OP, STORE, pa, pb, po, m, sa, sb);      \
        else if (sb == 16)                                                                      \
            VRED_RA2_LOOP(0, 1, vred_ra2_join_half, OP, STORE, pa, pb, po, m, sa, sb);           \
        else VRED_RA2_LOOP(0, 1, vred_ra2_join2, OP, STORE, pa, pb, po, m, sa, sb);             \
        return i + m * W;                                                                       \
    }                                                                                           \
    static inline size_t name(const T *a, const T *b, T *o, size_t i, size_t n)                \
    {                                                                                           \
        enum { W = 32 / sizeof(T) };                                                            \
        size_t vectors = (n - i) / W;                                                           \
        if (vectors < 4 || vred_kernels_far_now) return i; /* far: split loads, kernel.h */     \
        if ((uintptr_t)(o + i) & 31) {                                                          \
            size_t s = (size_t)((uintptr_t)(a + i) & 31);                                       \
            if ((sizeof(T) == 8 || sizeof(T) == 16) && s % 8 == 4 &&                            \
                ((4 - s) & 31) % sizeof(T) == 0 && s == ((uintptr_t)(b + i) & 31) &&            \
                vectors * 32 >= vred_realign_from(VRED_REALIGN_AVX2))                           \
                return name##_pair4(a, b, o, i, n, s);                                          \
            return i;                                                                           \
        }                                                                                       \
        size_t sa = (size_t)((uintptr_t)(a + i) & 31), sb = (size_t)((uintptr_t)(b + i) & 31);  \
        if (!sa && !sb) return i;                                                               \
        return name##_lines(a, b, o, i, vectors, sa, sb);                                       \
    }

#endif
