/*
 * AVX-512 kernels (F + BW + VL + DQ; this file is compiled with exactly those flags, and
 * cpu.c checks each one). One line per kernel at the bottom; the per-type primitives above it.
 *
 * Each kernel comes in two forms that differ only in the tail (the last < 64 bytes):
 *   vred_<op>_<type>_avx512          masked loads/stores (byte-granular AVX512BW masks)
 *   vred_<op>_<type>_avx512_cascade  the first paper's cascade: the AVX2 kernel takes the rest
 *                                    (256 bits, then SSE4.1's 128, then a scalar Duff's device)
 * dispatch keeps the faster one (docs/kernels.md has the measurement); VRED_TAIL overrides.
 */
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

/* Kernel over 512-bit vectors of T, in both tail forms. STORE(p, v) writes a full vector; the
 * masked head and tail write only the bytes of FIELDS (a 64-bit byte mask) that they cover. */
#define AVX512_KERNEL(name, cascade_name, lower, T, OP, STORE, FIELDS)                          \
    VRED_KERNEL_DECL(lower);                                                                    \
    VRED_RA_DEFINE(name##_realigned, T, OP, STORE, FIELDS)                                      \
    void name(const void *a_, const void *b_, void *o_, size_t n)                               \
    {                                                                                           \
        const T *a = a_, *b = b_;                                                               \
        T *o = o_;                                                                              \
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

/* ---- primitives: x is `in`, y is `inout` --------------------------------------------------- */
#define PS(v) _mm512_castsi512_ps(v)
#define PD(v) _mm512_castsi512_pd(v)
#define SI(v) _Generic((v), __m512: _mm512_castps_si512, __m512d: _mm512_castpd_si512)(v)

/* Integer ops commute; MAX/MIN on floats put y first so that MAXPS(y, x) = y > x ? y : x. */
#define INT_OP(fname, intrin) \
    static inline __m512i fname(__m512i x, __m512i y) { return intrin(y, x); }
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
INT_OP(band_u8, _mm512_and_si512)
INT_OP(bor_u8, _mm512_or_si512)
INT_OP(bxor_u8, _mm512_xor_si512)

/* No 8-bit multiply: even bytes from a 16-bit multiply, odd bytes from one of the shifted halves. */
static inline __m512i prod_u8(__m512i x, __m512i y)
{
    __m512i even = _mm512_mullo_epi16(x, y);
    __m512i odd = _mm512_mullo_epi16(_mm512_srli_epi16(x, 8), _mm512_srli_epi16(y, 8));
    return _mm512_mask_blend_epi8(0xaaaaaaaaaaaaaaaaull, even, _mm512_slli_epi16(odd, 8));
}

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

static inline __m512i max_f32(__m512i x, __m512i y) { return SI(_mm512_max_ps(PS(y), PS(x))); }
static inline __m512i min_f32(__m512i x, __m512i y) { return SI(_mm512_min_ps(PS(y), PS(x))); }
static inline __m512i sum_f32(__m512i x, __m512i y) { return SI(_mm512_add_ps(PS(x), PS(y))); }
static inline __m512i prod_f32(__m512i x, __m512i y) { return SI(_mm512_mul_ps(PS(x), PS(y))); }
static inline __m512i max_f64(__m512i x, __m512i y) { return SI(_mm512_max_pd(PD(y), PD(x))); }
static inline __m512i min_f64(__m512i x, __m512i y) { return SI(_mm512_min_pd(PD(y), PD(x))); }
static inline __m512i sum_f64(__m512i x, __m512i y) { return SI(_mm512_add_pd(PD(x), PD(y))); }
static inline __m512i prod_f64(__m512i x, __m512i y) { return SI(_mm512_mul_pd(PD(x), PD(y))); }

/* Complex product without FMA (the build uses -ffp-contract=off), so every rounding matches the
 * scalar re = xr*yr - xi*yi, im = xr*yi + xi*yr. Every operation keeps the scalar's operand order
 * too, so that where two NaNs meet (a payload NaN times y, plus 0*inf's default NaN) the same one
 * propagates as in the scalar code and in sse41.c/avx2.c. */
static inline __m512i prod_c32(__m512i x, __m512i y)
{
    __m512 t1 = _mm512_mul_ps(_mm512_moveldup_ps(PS(x)), PS(y));                      /* xr*yr, xr*yi */
    __m512 t2 = _mm512_mul_ps(_mm512_movehdup_ps(PS(x)), _mm512_permute_ps(PS(y), 0xb1)); /* xi*yi, xi*yr */
    return SI(_mm512_mask_sub_ps(_mm512_add_ps(t1, t2), 0x5555, t1, t2));
}
static inline __m512i prod_c64(__m512i x, __m512i y)
{
    __m512d t1 = _mm512_mul_pd(_mm512_movedup_pd(PD(x)), PD(y));
    __m512d t2 = _mm512_mul_pd(_mm512_unpackhi_pd(PD(x), PD(x)), _mm512_permute_pd(PD(y), 0x55));
    return SI(_mm512_mask_sub_pd(_mm512_add_pd(t1, t2), 0x55, t1, t2));
}

/* MAXLOC/MINLOC. The value and index lanes of a pair: even and odd 32-bit lanes ({float or int
 * or short, int}, 2REAL), or even and odd 64-bit lanes (2DOUBLE_PRECISION, {double or long, int,
 * 4 padding bytes}, whose int32 index is the odd lane's low half). The values are compared
 * duplicated over their pair (xd, yd), so each verdict comes out spread over its pair with no
 * mask arithmetic (which costs more than the shuffle); the equality, masked to the index lanes,
 * makes a tie keep y's value (+0 and -0 tie) and take `lower`'s index lane, the lower index. */
#define LOC_PICK(bits, n_lanes_mask)                                                            \
    static inline __m512i loc_pick##bits(__m512i x, __m512i y, __mmask16 take_x, __mmask16 equal_odd, \
                                         __m512i lower)                                         \
    {                                                                                           \
        __m512i r = _mm512_mask_blend_epi##bits((n_lanes_mask)take_x, y, x);                   \
        return _mm512_mask_mov_epi##bits(r, (n_lanes_mask)equal_odd, lower);                   \
    }
LOC_PICK(32, __mmask16)
LOC_PICK(64, __mmask8)
static inline __m512i dup_even32(__m512i v) { return SI(_mm512_moveldup_ps(PS(v))); }
static inline __m512i dup_even64(__m512i v) { return _mm512_unpacklo_epi64(v, v); }
/* Compares into masks, under a mask k. Ordered float compares: a NaN value never wins and never
 * ties, so y is kept, as in the scalar. */
#define PS_GT(k, a, b) _mm512_mask_cmp_ps_mask(k, PS(a), PS(b), _CMP_GT_OQ)
#define PS_LT(k, a, b) _mm512_mask_cmp_ps_mask(k, PS(a), PS(b), _CMP_LT_OQ)
#define PS_EQ(k, a, b) _mm512_mask_cmp_ps_mask(k, PS(a), PS(b), _CMP_EQ_OQ)
#define PD_GT(k, a, b) _mm512_mask_cmp_pd_mask(k, PD(a), PD(b), _CMP_GT_OQ)
#define PD_LT(k, a, b) _mm512_mask_cmp_pd_mask(k, PD(a), PD(b), _CMP_LT_OQ)
#define PD_EQ(k, a, b) _mm512_mask_cmp_pd_mask(k, PD(a), PD(b), _CMP_EQ_OQ)
#define I32_GT(k, a, b) _mm512_mask_cmpgt_epi32_mask(k, a, b)
#define I32_LT(k, a, b) _mm512_mask_cmplt_epi32_mask(k, a, b)
#define I32_EQ(k, a, b) _mm512_mask_cmpeq_epi32_mask(k, a, b)
#define I64_GT(k, a, b) _mm512_mask_cmpgt_epi64_mask(k, a, b)
#define I64_LT(k, a, b) _mm512_mask_cmplt_epi64_mask(k, a, b)
#define I64_EQ(k, a, b) _mm512_mask_cmpeq_epi64_mask(k, a, b)
/* fname, lane bits, take-x compare, equality compare, KEY(v): the value lanes as compared,
 * LOWER: the lower of the two indices (x, y in scope) */
#define LOC_OP(fname, bits, CMP, EQ, KEY, LOWER)                                                \
    static inline __m512i fname(__m512i x_, __m512i y_)                                         \
    {                                                                                           \
        __m512i x = in_register(x_), y = in_register(y_);                                       \
        __m512i xd = dup_even##bits(KEY(x)), yd = dup_even##bits(KEY(y));                       \
        return loc_pick##bits(x, y, CMP(ALL##bits, xd, yd), EQ(ODD##bits, xd, yd), LOWER);       \
    }
/* GCC otherwise folds the loads of x and y into each instruction that reads them (MOVSLDUP,
 * the blend, the compare: five 512-bit loads a vector instead of two), and the 32-bit pair
 * kernels ran at two thirds of the speed of the 64-bit ones. */
static inline __m512i in_register(__m512i v)
{
    __asm__("" : "+v"(v));
    return v;
}
#define KEY_SAME(v) (v)
#define ALL32 0xffff /* the lanes of a mask */
#define ODD32 0xaaaa /* the index lanes */
#define ALL64 0xff
#define ODD64 0xaa
/* {short, 2 padding bytes, int}: the value in the low half of the even 32-bit lane; shifted to
 * the top half it compares as an int32 in the same order, without the padding. */
#define SHORT_KEY(v) _mm512_slli_epi32(v, 16)
/* The lower index: int32 (also the low half of a 64-bit lane; the padding dword's result is
 * never stored): SMIN. The float and double indices of 2REAL and 2DOUBLE_PRECISION:
 * MINPS/MINPD(x, y) = x < y ? x : y, the scalar's x.i < y.i ? x.i : y.i, NaN included. */
#define LOWER_I32 _mm512_min_epi32(x, y)
#define LOWER_F32 SI(_mm512_min_ps(PS(x), PS(y)))
#define LOWER_F64 SI(_mm512_min_pd(PD(x), PD(y)))
LOC_OP(maxloc_float_int, 32, PS_GT, PS_EQ, KEY_SAME, LOWER_I32)
LOC_OP(minloc_float_int, 32, PS_LT, PS_EQ, KEY_SAME, LOWER_I32)
LOC_OP(maxloc_2int, 32, I32_GT, I32_EQ, KEY_SAME, LOWER_I32)
LOC_OP(minloc_2int, 32, I32_LT, I32_EQ, KEY_SAME, LOWER_I32)
LOC_OP(maxloc_2float, 32, PS_GT, PS_EQ, KEY_SAME, LOWER_F32)
LOC_OP(minloc_2float, 32, PS_LT, PS_EQ, KEY_SAME, LOWER_F32)
LOC_OP(maxloc_short_int, 32, I32_GT, I32_EQ, SHORT_KEY, LOWER_I32)
LOC_OP(minloc_short_int, 32, I32_LT, I32_EQ, SHORT_KEY, LOWER_I32)
LOC_OP(maxloc_2double, 64, PD_GT, PD_EQ, KEY_SAME, LOWER_F64)
LOC_OP(minloc_2double, 64, PD_LT, PD_EQ, KEY_SAME, LOWER_F64)
LOC_OP(maxloc_double_int, 64, PD_GT, PD_EQ, KEY_SAME, LOWER_I32)
LOC_OP(minloc_double_int, 64, PD_LT, PD_EQ, KEY_SAME, LOWER_I32)
LOC_OP(maxloc_long_int, 64, I64_GT, I64_EQ, KEY_SAME, LOWER_I32)
LOC_OP(minloc_long_int, 64, I64_LT, I64_EQ, KEY_SAME, LOWER_I32)

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

/* ---- the kernels --------------------------------------------------------------------------- */

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
/*
 * The kernels of this file, one row each: K(slot, DEFINE, name, args...) defines `name` with
 * DEFINE(name, args...) and registers it in the table slot; KT(...) likewise, for a kernel with
 * a masked and a cascade tail (name, cascade_name, ...: VRED_TAIL picks); F(slot, name)
 * registers a kernel written out above. Defining and registering a kernel is one row here.
 */
#define AVX512_KERNELS(K, KT, F)                                                                    \
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
    KT(bin[VRED_OP_PROD][VRED_UINT64], AVX512_BINARY, vred_prod_u64_avx512, vred_prod_u64_avx512_cascade, vred_prod_u64_avx2, uint64_t, prod_u64) \
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
    KT(bin[VRED_OP_BXOR][VRED_UINT8], AVX512_BINARY, vred_bxor_u8_avx512, vred_bxor_u8_avx512_cascade, vred_bxor_u8_avx2, uint8_t, bxor_u8) \
    KT(bin[VRED_OP_MAX][VRED_FLOAT], AVX512_BINARY, vred_max_f32_avx512, vred_max_f32_avx512_cascade, vred_max_f32_avx2, float, max_f32) \
    KT(bin[VRED_OP_MIN][VRED_FLOAT], AVX512_BINARY, vred_min_f32_avx512, vred_min_f32_avx512_cascade, vred_min_f32_avx2, float, min_f32) \
    KT(bin[VRED_OP_SUM][VRED_FLOAT], AVX512_BINARY, vred_sum_f32_avx512, vred_sum_f32_avx512_cascade, vred_sum_f32_avx2, float, sum_f32) \
    KT(bin[VRED_OP_PROD][VRED_FLOAT], AVX512_BINARY, vred_prod_f32_avx512, vred_prod_f32_avx512_cascade, vred_prod_f32_avx2, float, prod_f32) \
    KT(bin[VRED_OP_MAX][VRED_DOUBLE], AVX512_BINARY, vred_max_f64_avx512, vred_max_f64_avx512_cascade, vred_max_f64_avx2, double, max_f64) \
    KT(bin[VRED_OP_MIN][VRED_DOUBLE], AVX512_BINARY, vred_min_f64_avx512, vred_min_f64_avx512_cascade, vred_min_f64_avx2, double, min_f64) \
    KT(bin[VRED_OP_SUM][VRED_DOUBLE], AVX512_BINARY, vred_sum_f64_avx512, vred_sum_f64_avx512_cascade, vred_sum_f64_avx2, double, sum_f64) \
    KT(bin[VRED_OP_PROD][VRED_DOUBLE], AVX512_BINARY, vred_prod_f64_avx512, vred_prod_f64_avx512_cascade, vred_prod_f64_avx2, double, prod_f64) \
    KT(bin[VRED_OP_PROD][VRED_C_FLOAT_COMPLEX], AVX512_BINARY, vred_prod_c32_avx512, vred_prod_c32_avx512_cascade, vred_prod_c32_avx2, vred_c32, prod_c32) \
    KT(bin[VRED_OP_PROD][VRED_C_DOUBLE_COMPLEX], AVX512_BINARY, vred_prod_c64_avx512, vred_prod_c64_avx512_cascade, vred_prod_c64_avx2, vred_c64, prod_c64) \
    KT(bin[VRED_OP_MAXLOC][VRED_FLOAT_INT], AVX512_BINARY, vred_maxloc_float_int_avx512, vred_maxloc_float_int_avx512_cascade, vred_maxloc_float_int_avx2, vred_float_int, maxloc_float_int) \
    KT(bin[VRED_OP_MINLOC][VRED_FLOAT_INT], AVX512_BINARY, vred_minloc_float_int_avx512, vred_minloc_float_int_avx512_cascade, vred_minloc_float_int_avx2, vred_float_int, minloc_float_int) \
    KT(bin[VRED_OP_MAXLOC][VRED_2INT], AVX512_BINARY, vred_maxloc_2int_avx512, vred_maxloc_2int_avx512_cascade, vred_maxloc_2int_avx2, vred_2int, maxloc_2int) \
    KT(bin[VRED_OP_MINLOC][VRED_2INT], AVX512_BINARY, vred_minloc_2int_avx512, vred_minloc_2int_avx512_cascade, vred_minloc_2int_avx2, vred_2int, minloc_2int) \
    KT(bin[VRED_OP_MAXLOC][VRED_2FLOAT], AVX512_BINARY, vred_maxloc_2float_avx512, vred_maxloc_2float_avx512_cascade, vred_maxloc_2float_avx2, vred_2float, maxloc_2float) \
    KT(bin[VRED_OP_MAXLOC][VRED_2DOUBLE], AVX512_BINARY, vred_maxloc_2double_avx512, vred_maxloc_2double_avx512_cascade, vred_maxloc_2double_avx2, vred_2double, maxloc_2double) \
    KT(bin[VRED_OP_MAXLOC][VRED_DOUBLE_INT], AVX512_PAIR12, vred_maxloc_double_int_avx512, vred_maxloc_double_int_avx512_cascade, vred_maxloc_double_int_avx2, vred_double_int, maxloc_double_int) \
    KT(bin[VRED_OP_MAXLOC][VRED_LONG_INT], AVX512_PAIR12, vred_maxloc_long_int_avx512, vred_maxloc_long_int_avx512_cascade, vred_maxloc_long_int_avx2, vred_long_int, maxloc_long_int) \
    KT(bin[VRED_OP_MAXLOC][VRED_SHORT_INT], AVX512_PAIR2, vred_maxloc_short_int_avx512, vred_maxloc_short_int_avx512_cascade, vred_maxloc_short_int_avx2, vred_short_int, maxloc_short_int) \
    KT(bin[VRED_OP_MINLOC][VRED_2FLOAT], AVX512_BINARY, vred_minloc_2float_avx512, vred_minloc_2float_avx512_cascade, vred_minloc_2float_avx2, vred_2float, minloc_2float) \
    KT(bin[VRED_OP_MINLOC][VRED_2DOUBLE], AVX512_BINARY, vred_minloc_2double_avx512, vred_minloc_2double_avx512_cascade, vred_minloc_2double_avx2, vred_2double, minloc_2double) \
    KT(bin[VRED_OP_MINLOC][VRED_DOUBLE_INT], AVX512_PAIR12, vred_minloc_double_int_avx512, vred_minloc_double_int_avx512_cascade, vred_minloc_double_int_avx2, vred_double_int, minloc_double_int) \
    KT(bin[VRED_OP_MINLOC][VRED_LONG_INT], AVX512_PAIR12, vred_minloc_long_int_avx512, vred_minloc_long_int_avx512_cascade, vred_minloc_long_int_avx2, vred_long_int, minloc_long_int) \
    KT(bin[VRED_OP_MINLOC][VRED_SHORT_INT], AVX512_PAIR2, vred_minloc_short_int_avx512, vred_minloc_short_int_avx512_cascade, vred_minloc_short_int_avx2, vred_short_int, minloc_short_int) \
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
    K(half_widen[VRED_HALF_BF16], AVX512_WIDEN, vred_widen_bf16_avx512, widen_bf16)                 \
    K(half_widen[VRED_HALF_F16], AVX512_WIDEN, vred_widen_f16_avx512, widen_f16)                    \
    K(half_narrow[VRED_HALF_BF16], AVX512_NARROW, vred_narrow_bf16_avx512, narrow_bf16)             \
    K(half_narrow[VRED_HALF_F16], AVX512_NARROW, vred_narrow_f16_avx512, narrow_f16)
AVX512_KERNELS(VRED_KERNEL_DEFINE, VRED_KERNEL_DEFINE, VRED_KERNEL_WRITTEN)

/* ---- the table ----------------------------------------------------------------------------- */
void vred_fill_avx512(vred_kernel_table *t, int masked_tail)
{
    (void)masked_tail;
    vred_ra_vbmi = vred_cpu()->avx512_vbmi;
    AVX512_KERNELS(VRED_KERNEL_SET, VRED_KERNEL_SET_TAIL, VRED_KERNEL_SET_WRITTEN)
}
