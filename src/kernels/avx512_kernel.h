/*
 * The shape of an AVX-512 kernel, shared by the files that define them (avx512_int.c,
 * avx512_bits.c, avx512_float.c, avx512_loc.c, avx512_half.c; avx512.c fills the table from
 * all five). Those files are compiled with exactly AVX-512 F + BW + VL + DQ (and AVX2, F16C for
 * the cascade and the halves), and cpu.c checks each one.
 *
 * Each kernel comes in two forms that differ only in the tail (the last < 64 bytes):
 *   vred_<op>_<type>_avx512          masked loads/stores (byte-granular AVX512BW masks)
 *   vred_<op>_<type>_avx512_cascade  the first paper's cascade: the AVX2 kernel takes the rest
 *                                    (256 bits, then SSE4.1's 128, then a scalar Duff's device)
 * dispatch keeps the faster one (docs/kernels.md has the measurement); VRED_TAIL overrides.
 *
 * Why several files: every kernel carries fourteen realigned loops and four permuted ones
 * (avx512_realign.h), so the kernels of one file took a compiler long: 42 s for GCC -O2 but 8
 * min for clang with the fuzzer's ASan + UBSan instrumentation (2-core Xeon guest, 2026-12-06),
 * on one core while the other had nothing left to build. Split by operator family, the parts
 * build side by side.
 */
#ifndef VRED_AVX512_KERNEL_H
#define VRED_AVX512_KERNEL_H

#include <immintrin.h>
#include <string.h>
#include "kernels/kernel.h"
#include "kernels/simd_body.h"

#define LD512(p) _mm512_loadu_si512((const void *)(p))
#define ST512(p, v) _mm512_storeu_si512((void *)(p), (v))
static inline __mmask64 bytes_mask64(size_t bytes) { return bytes >= 64 ? ~0ull : (1ull << bytes) - 1; }

/*
 * The tail (fewer than 64 bytes) without touching a line its bytes do not reach. A masked
 * 64-byte access from an address past a line's start also reaches the next line, masked-off
 * bytes or not, and that line may be one another core is writing: MA's root folds each part of
 * the shared bank as soon as its owner is done with it, and the tail of one part sat just
 * below a line the other rank was filling. MA reduce of 4 KiB of doubles, 2 ranks, output at
 * 16 mod 64 (the loop leaves the input's tail 48 bytes into a line): 0.30 us a call against
 * 0.13 at 0/0 (Zen 5, family 26 model 2; with the cascade tail, which reads no byte past the
 * data, 0.15). The end of a buffer is also where its mapping may end: a masked access whose
 * masked-off bytes reach an unmapped page does not fault, but the CPU takes a slow path for it,
 * every call (a byte sum of 2,815 bytes from 1 mod 64, ending at a page that is not mapped:
 * 179-199 ns against 21-34 ns with the page mapped; Zen 5). So where the bytes lie within one
 * line a whole number of dwords into it, the access is to that line, the mask moved up and the
 * dwords moved by VPERMD; at a byte offset too, but only where the access would reach another
 * page, the bytes then moved by VPERMD and a shift joining each dword with the next (everywhere,
 * that cost the byte sums 7-10% at 4 KiB: `vred-kbench align --type u8`, 0/1 `local` 0.68-0.70x
 * -> 0.62-0.63x). Where the bytes cross into the next line anyway, as they are.
 */
/* Do `window` bytes at p reach into the next page? */
static inline int window_crosses_page(const void *p, size_t window)
{
    return ((uintptr_t)p & 4095) + window > 4096;
}
/* Would a masked access of `window` bytes at p, for `bytes` of data, reach a page the data
 * does not? */
static inline int window_leaves_page(uintptr_t p, size_t bytes, size_t window)
{
    const void *q = (const void *)p;
    return window_crosses_page(q, window) && !window_crosses_page(q, bytes);
}
static inline int tail_on_line(uintptr_t p, size_t bytes)
{
    size_t off = p & 63;
    return off && off + bytes <= 64 && (off % 4 == 0 || window_leaves_page(p, bytes, 64));
}
static inline __m512i dword_lanes_from(size_t first)
{
    return _mm512_and_si512(_mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                             _mm512_set1_epi32((int)first)),
                            _mm512_set1_epi32(15));
}
/* v's bytes moved down by d (0..63): byte i from byte i + d, the top d bytes from v's bottom
 * (they wrap round). Whole dwords by VPERMD; a byte remainder joins each dword with the next
 * one's low bytes (AVX-512F: VPERMB would need AVX512_VBMI). */
static inline __m512i bytes_down(__m512i v, size_t d)
{
    __m512i lo = _mm512_permutexvar_epi32(dword_lanes_from(d / 4), v);
    if (d % 4 == 0) return lo;
    __m512i hi = _mm512_permutexvar_epi32(dword_lanes_from(d / 4 + 1), v);
    int s = 8 * (int)(d % 4);
    return _mm512_or_si512(_mm512_srl_epi32(lo, _mm_cvtsi32_si128(s)),
                           _mm512_sll_epi32(hi, _mm_cvtsi32_si128(32 - s)));
}
/* v's bytes moved up by d (0..63): byte i from byte i - d, the bottom d bytes from v's top. */
static inline __m512i bytes_up(__m512i v, size_t d)
{
    __m512i hi = _mm512_permutexvar_epi32(dword_lanes_from(16 - d / 4), v);
    if (d % 4 == 0) return hi;
    __m512i lo = _mm512_permutexvar_epi32(dword_lanes_from(15 - d / 4), v);
    int s = 8 * (int)(d % 4);
    return _mm512_or_si512(_mm512_sll_epi32(hi, _mm_cvtsi32_si128(s)),
                           _mm512_srl_epi32(lo, _mm_cvtsi32_si128(32 - s)));
}
/* bytes [0, bytes) at p into lanes from 0, the rest zero */
static inline __m512i tail_load(const void *p, size_t bytes)
{
    __mmask64 m = bytes_mask64(bytes);
    if (!tail_on_line((uintptr_t)p, bytes)) return _mm512_maskz_loadu_epi8(m, p);
    size_t off = (uintptr_t)p & 63;
    __m512i line = _mm512_maskz_loadu_epi8(m << off, (const char *)p - off);
    return bytes_down(line, off); /* zeros wrap round */
}
/*
 * A store whose 64 bytes cross into the next page costs about 30 cycles on Zen 5, a masked one
 * more (its masked-off bytes count). In the pair form (avx512_realign.h), whose stores are off
 * their lines, one vector in 64 crosses a page: the in-place sum of 4 KiB of doubles at 4/4
 * took 30-31 ns with its last vector stored across the page, 24-25 with that vector stored as
 * two masked stores, each on its own line, and 23-24 without it (a stand-alone loop, Zen 5
 * family 26 model 2; two masked stores at p itself, each on one page's bytes, took 35 ns).
 * So the pair form's last vector, where it crosses, goes to p's line and the next, v's bytes
 * moved up by p's offset. Not every tail_store: the branch there grew every kernel and cost
 * doubles at 8/8 7% at 16 KiB (`vred-kbench align --type f64`).
 */
/* the bytes of m (a mask from lane 0) of v to p, p not on a line: on p's line and the next */
static inline void store_on_lines(void *p, __mmask64 m, __m512i v)
{
    size_t off = (uintptr_t)p & 63;
    __m512i u = bytes_up(v, off);
    _mm512_mask_storeu_epi8((char *)p - off, m << off, u);
    _mm512_mask_storeu_epi8((char *)p - off + 64, m >> (64 - off), u);
}
/* the bytes of m (a mask from lane 0) of v to p */
static inline void tail_store(void *p, __mmask64 m, size_t bytes, __m512i v)
{
    if (!tail_on_line((uintptr_t)p, bytes)) {
        _mm512_mask_storeu_epi8(p, m, v);
        return;
    }
    size_t off = (uintptr_t)p & 63;
    _mm512_mask_storeu_epi8((char *)p - off, m << off, bytes_up(v, off));
}

#include "kernels/avx512_realign.h"
#define LD256(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define ST256(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))


/*
 * The head: elements [0, i) of o, up to its first line boundary, by masked loads and a masked
 * store, all on o's line: a masked load or store across two lines cost as much as two (the
 * head of a 4 KiB f32 sum at 16/16 took 4 of its 25 ns on Zen 5, 21 aligned; docs/kernels.md).
 * An input at o's offset in its line is read from its aligned line with the mask moved up by
 * that offset; one a whole number of dwords off is read as it is, its elements then moved up
 * into o's lanes by VPERMD. Whole elements from the line's start in every operand, so each
 * element meets the same element of the other input in the same lanes. An input a number of
 * bytes off (a byte buffer at 1 against one at 0), or an o off its elements' alignment (the pair
 * form's head, avx512_realign.h), keeps the head as it was: every operand as it is.
 */
static inline int head_on_line(const void *p, const void *o)
{
    uintptr_t d = (uintptr_t)p - (uintptr_t)o;
    return (d & 63) == 0 || ((d | (uintptr_t)o) & 3) == 0;
}
static inline __m512i head_operand(const void *p, size_t off, __mmask64 h, size_t hb)
{
    size_t poff = (uintptr_t)p & 63;
    if (poff == off) return _mm512_maskz_loadu_epi8(h << off, (const char *)p - off);
    /* a whole number of dwords off (head_on_line): from its own line where the bytes stay in
     * it (tail_load), moved into o's lanes by VPERMD (the index mod 16) */
    if (tail_on_line((uintptr_t)p, hb))
        return _mm512_permutexvar_epi32(dword_lanes_from((poff / 4 - off / 4) & 15),
                                        _mm512_maskz_loadu_epi8(h << poff, (const char *)p - poff));
    return _mm512_permutexvar_epi32(dword_lanes_from(16 - off / 4), _mm512_maskz_loadu_epi8(h, p));
}
#define HEAD512(T, OP, FIELDS, a, b, o, i)                                                      \
    do {                                                                                        \
        size_t off_ = (uintptr_t)(o) & 63;                                                      \
        __mmask64 h_ = bytes_mask64((i) * sizeof(T));                                           \
        if (off_ % sizeof(T) == 0 && off_ + (i) * sizeof(T) <= 64 && head_on_line(a, o) &&    \
            head_on_line(b, o)) {                                                               \
            size_t hb_ = (i) * sizeof(T);                                                       \
            __m512i x_ = head_operand(a, off_, h_, hb_), y_ = head_operand(b, off_, h_, hb_);   \
            _mm512_mask_storeu_epi8((char *)(o) - off_, (h_ << off_) & (FIELDS), OP(x_, y_));  \
        } else {                                                                                \
            size_t hb_ = (i) * sizeof(T);                                                       \
            __m512i x_ = tail_load(a, hb_), y_ = tail_load(b, hb_);                             \
            tail_store(o, h_ & (FIELDS), hb_, OP(x_, y_));                                      \
        }                                                                                       \
    } while (0)

/*
 * The call whose three operands sit at one offset in their lines, a whole number of elements
 * (both buffers from malloc, 16 mod 64; or all on lines): after the head every access is to a
 * whole aligned line, so the head on its line, the aligned vectors and the tail on its line are
 * all there is to it, and none of the general form's questions (realigned loops, the pair form,
 * backwards, loads first, a tail off its line) has another answer. Asked first and answered in
 * a few instructions, with the rest of the kernel out of line: the general form's prologue
 * (a frame for its loops' registers) and its checks cost such a call a sixth of its time at
 * 4 KiB (in place at 16/16: 35.1 ns against 31.6 by this path; aligned 28.4 against 21.9 for
 * the bare loop; Xeon family 6 model 207, docs/kernels.md "Operands at one offset"). Its loop,
 * head and tail are written out rather than taken from VRED_SIMD_LOOP, HEAD512 and tail_load:
 * with theirs, and their questions, the path took 28.8 ns aligned and 33.0 at 16/16 against 27.2
 * and 30.0 (vred_reduce in place, 4 KiB, the two libraries in turn five times).
 */
static inline int one_line_offset(const void *a, const void *b, const void *o, size_t es, size_t n)
{
    uintptr_t off = (uintptr_t)o & 63;
    return !((((uintptr_t)a ^ (uintptr_t)o) | ((uintptr_t)b ^ (uintptr_t)o)) & 63) && off % es == 0 &&
           (!off || n * es >= 512); /* the general form's head (simd_body.h) from 512 bytes */
}
#define ONE_OFFSET512(T, OP, STORE, FIELDS, a, b, o, n)                                         \
    do {                                                                                        \
        enum { W_ = 64 / sizeof(T) };                                                           \
        size_t off_ = (uintptr_t)(o) & 63, i_ = 0;                                              \
        if (off_) { /* the head, on the line of each operand */                                 \
            __mmask64 h_ = bytes_mask64(64 - off_) << off_;                                     \
            __m512i x_ = _mm512_maskz_loadu_epi8(h_, (const char *)(a) - off_);                 \
            __m512i y_ = _mm512_maskz_loadu_epi8(h_, (const char *)(b) - off_);                 \
            _mm512_mask_storeu_epi8((char *)(o) - off_, h_ & (FIELDS), OP(x_, y_));             \
            i_ = (64 - off_) / sizeof(T);                                                       \
        }                                                                                       \
        for (; i_ + 4 * W_ <= (n); i_ += 4 * W_) {                                              \
            STORE((o) + i_, OP(LD512((a) + i_), LD512((b) + i_)));                              \
            STORE((o) + i_ + W_, OP(LD512((a) + i_ + W_), LD512((b) + i_ + W_)));               \
            STORE((o) + i_ + 2 * W_, OP(LD512((a) + i_ + 2 * W_), LD512((b) + i_ + 2 * W_)));   \
            STORE((o) + i_ + 3 * W_, OP(LD512((a) + i_ + 3 * W_), LD512((b) + i_ + 3 * W_)));   \
        }                                                                                       \
        for (; i_ + W_ <= (n); i_ += W_) STORE((o) + i_, OP(LD512((a) + i_), LD512((b) + i_))); \
        if (i_ < (n)) { /* the tail, from the start of its line */                              \
            __mmask64 t_ = bytes_mask64(((n) - i_) * sizeof(T));                                \
            __m512i x_ = _mm512_maskz_loadu_epi8(t_, (a) + i_);                                 \
            __m512i y_ = _mm512_maskz_loadu_epi8(t_, (b) + i_);                                 \
            _mm512_mask_storeu_epi8((o) + i_, t_ & (FIELDS), OP(x_, y_));                       \
        }                                                                                       \
    } while (0)

/* Kernel over 512-bit vectors of T, in both tail forms. STORE(p, v) writes a full vector; the
 * masked head and tail write only the bytes of FIELDS (a 64-bit byte mask) that they cover.
 * The masked form asks one_line_offset first and leaves everything else to name##_general. */
#define AVX512_KERNEL(name, cascade_name, lower, T, OP, STORE, FIELDS)                          \
    VRED_KERNEL_DECL(lower);                                                                    \
    VRED_RA_DEFINE(name##_realigned, T, OP, STORE, FIELDS)                                      \
    __attribute__((noinline)) static void name##_general(const T *a, const T *b, T *o, size_t n); \
    void name(const void *a_, const void *b_, void *o_, size_t n)                               \
    {                                                                                           \
        const T *a = a_, *b = b_;                                                               \
        T *o = o_;                                                                              \
        if (one_line_offset(a, b, o, sizeof(T), n)) ONE_OFFSET512(T, OP, STORE, FIELDS, a, b, o, n); \
        else name##_general(a, b, o, n);                                                        \
    }                                                                                           \
    __attribute__((noinline)) static void name##_general(const T *a, const T *b, T *o, size_t n) \
    {                                                                                           \
        size_t i = vred_ra_head(a, b, o, sizeof(T), n);                                         \
        if (i) HEAD512(T, OP, FIELDS, a, b, o, i);                                              \
        i = name##_realigned(a, b, o, i, n);                                                    \
        VRED_SIMD_LOOP(T, __m512i, LD512, STORE, OP, a, b, o, n, i);                            \
        if (i < n) {                                                                            \
            size_t tb = (n - i) * sizeof(T);                                                    \
            __m512i x = tail_load(a + i, tb), y = tail_load(b + i, tb);                         \
            tail_store(o + i, bytes_mask64(tb) & (FIELDS), tb, OP(x, y));                       \
        }                                                                                       \
    }                                                                                           \
    void cascade_name(const void *a_, const void *b_, void *o_, size_t n)                       \
    {                                                                                           \
        const T *a = a_, *b = b_;                                                               \
        T *o = o_;                                                                              \
        size_t i = vred_ra_head(a, b, o, sizeof(T), n);                                         \
        if (i) lower(a, b, o, i);                                                               \
        i = name##_realigned(a, b, o, i, n);                                                    \
        VRED_SIMD_LOOP(T, __m512i, LD512, STORE, OP, a, b, o, n, i);                            \
        if (i < n) lower(a + i, b + i, o + i, n - i);                                           \
    }
#define AVX512_BINARY(name, cascade_name, lower, T, OP)                                         \
    AVX512_KERNEL(name, cascade_name, lower, T, OP, ST512, ~0ull)

/* The padded pair types: the scalar kernel writes only the value and the index, so every store
 * is masked to their bytes and out's padding is never written: 0..11 of each 16 for {double or
 * long, int}, 0..1 and 4..7 of each 8 for {short, int}. */
#define FIELDS_PAD12 0x0fff0fff0fff0fffull
#define FIELDS_PAD2 0xf3f3f3f3f3f3f3f3ull
#define ST512_PAD12(p, v) _mm512_mask_storeu_epi8((void *)(p), FIELDS_PAD12, (v))
#define ST512_PAD2(p, v) _mm512_mask_storeu_epi8((void *)(p), FIELDS_PAD2, (v))
#define AVX512_PAIR12(name, cascade_name, lower, T, OP)                                         \
    AVX512_KERNEL(name, cascade_name, lower, T, OP, ST512_PAD12, FIELDS_PAD12)
#define AVX512_PAIR2(name, cascade_name, lower, T, OP)                                          \
    AVX512_KERNEL(name, cascade_name, lower, T, OP, ST512_PAD2, FIELDS_PAD2)

/* ---- primitives: x is `in`, y is `inout` --------------------------------------------------- */
#define PS(v) _mm512_castsi512_ps(v)
#define PD(v) _mm512_castsi512_pd(v)
#define SI(v) _Generic((v), __m512: _mm512_castps_si512, __m512d: _mm512_castpd_si512)(v)

/* Integer ops commute; MAX/MIN on floats put y first so that MAXPS(y, x) = y > x ? y : x. */
#define INT_OP(fname, intrin) \
    static inline __m512i fname(__m512i x, __m512i y) { return intrin(y, x); }

/* A part's kernels, defined from its rows KERNELS(K, KT, F) (kernel.h), and its filler of the
 * table, vred_fill_avx512_<part> (each part has its own copy of avx512_realign.h's
 * vred_ra_vbmi to set). */
#define AVX512_PART(part, KERNELS)                                                              \
    KERNELS(VRED_KERNEL_DEFINE, VRED_KERNEL_DEFINE, VRED_KERNEL_WRITTEN)                        \
    void vred_fill_avx512_##part(vred_kernel_table *t, int masked_tail)                         \
    {                                                                                           \
        (void)masked_tail;                                                                      \
        vred_ra_vbmi = vred_cpu()->avx512_vbmi;                                                 \
        KERNELS(VRED_KERNEL_SET, VRED_KERNEL_SET_TAIL, VRED_KERNEL_SET_WRITTEN)                 \
    }

/* Each file's part of the table (avx512.c's vred_fill_avx512 calls them all). */
void vred_fill_avx512_int(vred_kernel_table *t, int masked_tail);
void vred_fill_avx512_bits(vred_kernel_table *t, int masked_tail);
void vred_fill_avx512_float(vred_kernel_table *t, int masked_tail);
void vred_fill_avx512_loc(vred_kernel_table *t, int masked_tail);
void vred_fill_avx512_half(vred_kernel_table *t, int masked_tail);

#endif
