/*
 * Sparse pack/unpack with AVX-512: one loop for every element size up to 64 bytes.
 *
 * An element of esize bytes is g lanes of w bytes (w = 4 when esize % 4 == 0, else 2 or 1, which
 * need VBMI2). A 64-byte step holds E = (64/w)/g elements. Per step: a masked load, VPTESTM gives
 * the non-zero lanes, the lanes of an element are OR-ed and gathered to one bit per element with
 * PEXT (g > 1), spread back to whole elements with PDEP, then the register forms of
 * VPCOMPRESSD/W/B and VPEXPANDD/W/B with masked loads/stores (the memory forms are microcoded on
 * Zen4). Bits are appended to the bitmask through a 64-bit accumulator.
 */
#include "local/sparse.h"

#include <immintrin.h>
#include <string.h>
#include "kernels/kernel.h"

#define AI static inline __attribute__((always_inline))

AI uint64_t lowbits(unsigned k) { return _bzhi_u64(~0ull, k); } /* k >= 64: all ones */

AI __m512i load_w(int w, uint64_t m, const void *p)
{
    return w == 4 ? _mm512_maskz_loadu_epi32((__mmask16)m, p)
         : w == 2 ? _mm512_maskz_loadu_epi16((__mmask32)m, p)
                  : _mm512_maskz_loadu_epi8((__mmask64)m, p);
}
AI void store_w(int w, uint64_t m, void *p, __m512i v)
{
    if (w == 4) _mm512_mask_storeu_epi32(p, (__mmask16)m, v);
    else if (w == 2) _mm512_mask_storeu_epi16(p, (__mmask32)m, v);
    else _mm512_mask_storeu_epi8(p, (__mmask64)m, v);
}
AI uint64_t test_w(int w, __m512i v)
{
    return w == 4 ? (uint64_t)_mm512_test_epi32_mask(v, v)
         : w == 2 ? (uint64_t)_mm512_test_epi16_mask(v, v)
                  : (uint64_t)_mm512_test_epi8_mask(v, v);
}
AI __m512i compress_w(int w, uint64_t m, __m512i v)
{
    return w == 4 ? _mm512_maskz_compress_epi32((__mmask16)m, v)
         : w == 2 ? _mm512_maskz_compress_epi16((__mmask32)m, v)
                  : _mm512_maskz_compress_epi8((__mmask64)m, v);
}
AI __m512i expand_w(int w, uint64_t m, __m512i v)
{
    return w == 4 ? _mm512_maskz_expand_epi32((__mmask16)m, v)
         : w == 2 ? _mm512_maskz_expand_epi16((__mmask32)m, v)
                  : _mm512_maskz_expand_epi8((__mmask64)m, v);
}

/* Geometry of one element size. */
typedef struct {
    unsigned w, g, E;  /* lane bytes, lanes per element, elements per step */
    uint64_t rep, fill; /* bit 0 of each element's lanes; g ones */
} geom;

static int geom_of(size_t esize, int vbmi2, geom *o)
{
    if (esize == 0 || esize > 64) return 0;
    unsigned w = esize % 4 == 0 ? 4 : esize % 2 == 0 ? 2 : 1;
    if (w < 4 && !vbmi2) return 0;
    o->w = w;
    o->g = (unsigned)esize / w;
    o->E = (64 / w) / o->g;
    o->rep = 0;
    for (unsigned e = 0; e < o->E; e++) o->rep |= 1ull << (e * o->g);
    o->fill = lowbits(o->g);
    return 1;
}

/* One bit per element from the lane mask. */
AI uint64_t elem_bits(const geom *G, unsigned g, uint64_t m)
{
    if (g == 1) return m;
    uint64_t t = m;
    for (unsigned s = 1; s < g; s++) t |= m >> s;
    return _pext_u64(t, G->rep);
}
AI uint64_t lane_mask(const geom *G, unsigned g, uint64_t e)
{
    return g == 1 ? e : _pdep_u64(e, G->rep) * G->fill;
}

/* ---- count ---- */

AI size_t count_core(int w, unsigned g, const geom *G, const unsigned char *src, size_t n,
                     size_t esize)
{
    size_t c = 0, i = 0;
    const unsigned E = G->E;
    if (g == 1) { /* four vectors per iteration */
        for (; i + 4 * E <= n; i += 4 * E) {
            const unsigned char *p = src + i * esize;
            c += (size_t)_mm_popcnt_u64(test_w(w, _mm512_loadu_si512(p)));
            c += (size_t)_mm_popcnt_u64(test_w(w, _mm512_loadu_si512(p + 64)));
            c += (size_t)_mm_popcnt_u64(test_w(w, _mm512_loadu_si512(p + 128)));
            c += (size_t)_mm_popcnt_u64(test_w(w, _mm512_loadu_si512(p + 192)));
        }
    }
    for (; i < n; i += E) {
        size_t ne = n - i < E ? n - i : E;
        __m512i v = load_w(w, lowbits((unsigned)ne * g), src + i * esize);
        c += (size_t)_mm_popcnt_u64(elem_bits(G, g, test_w(w, v)));
    }
    return c;
}

/* ---- pack ---- */

/* Appends E bits of element flags to the bitmask, 8 bytes at a time. */
typedef struct {
    uint64_t acc;
    unsigned nb;
    unsigned char *out;
} bitw;
AI void bitw_put(bitw *b, uint64_t e, unsigned E)
{
    if (b->nb + E < 64) {
        b->acc |= e << b->nb;
        b->nb += E;
        return;
    }
    uint64_t word = b->acc | (e << b->nb); /* nb < 64 here */
    memcpy(b->out, &word, 8);
    b->out += 8;
    unsigned used = 64 - b->nb;
    b->acc = used >= 64 ? 0 : e >> used;
    b->nb = b->nb + E - 64;
}
AI void bitw_flush(bitw *b)
{
    if (b->nb) memcpy(b->out, &b->acc, 8);
}

/* Indices base+j of the set bits j of e (E <= 64 bits), 16 at a time. */
AI void emit_idx(unsigned char *out, uint64_t e, unsigned E, uint32_t base)
{
    const __m512i iota = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    for (unsigned c = 0; c < E; c += 16) {
        __mmask16 s = (__mmask16)(e >> c);
        __m512i ix = _mm512_add_epi32(iota, _mm512_set1_epi32((int)(base + c)));
        unsigned k = (unsigned)_mm_popcnt_u32(s);
        _mm512_mask_storeu_epi32(out, (__mmask16)lowbits(k), _mm512_maskz_compress_epi32(s, ix));
        out += 4 * k;
    }
}

AI size_t pack_core(int w, unsigned g, const geom *G, int idx_fmt, const unsigned char *src,
                    size_t n, size_t esize, size_t cap, unsigned char *aux, unsigned char *vals)
{
    const unsigned E = G->E;
    size_t cnt = 0;
    bitw b = {0, 0, aux};
    for (size_t i = 0; i < n; i += E) {
        size_t ne = n - i < E ? n - i : E;
        __m512i v = load_w(w, lowbits((unsigned)ne * g), src + i * esize);
        uint64_t e = elem_bits(G, g, test_w(w, v));
        unsigned pc = (unsigned)_mm_popcnt_u64(e);
        if (pc > cap - cnt) return SIZE_MAX;
        store_w(w, lowbits(pc * g), vals + cnt * esize, compress_w(w, lane_mask(G, g, e), v));
        if (idx_fmt) emit_idx(aux + 4 * cnt, e, E, (uint32_t)i);
        else bitw_put(&b, e, (unsigned)ne);
        cnt += pc;
    }
    if (!idx_fmt) bitw_flush(&b);
    return cnt;
}

/* ---- unpack ---- */

/* ne <= 64 bits of the bitmask from bit position pos, never reading past mbytes. */
AI uint64_t get_bits(const unsigned char *mask, size_t mbytes, size_t pos, unsigned ne)
{
    return _bzhi_u64(vred_sparse_mask_bits(mask, mbytes, pos, ne), ne);
}

AI size_t expand_core(int w, unsigned g, const geom *G, const unsigned char *mask, size_t mbytes,
                      size_t pos, size_t k, const unsigned char *vals, size_t esize,
                      unsigned char *dst)
{
    const unsigned E = G->E;
    size_t cnt = 0;
    for (size_t j = 0; j < k; j += E) {
        unsigned ne = (unsigned)(k - j < E ? k - j : E);
        uint64_t e = get_bits(mask, mbytes, pos + j, ne);
        unsigned pc = (unsigned)_mm_popcnt_u64(e);
        __m512i v = load_w(w, lowbits(pc * g), vals + cnt * esize);
        store_w(w, lowbits(ne * g), dst + j * esize, expand_w(w, lane_mask(G, g, e), v));
        cnt += pc;
    }
    return cnt;
}

/* ---- entry points: constant (w, g) for the common sizes, variable g otherwise ---- */

static int have_vbmi2(void) { return vred_cpu()->avx512_vbmi2; }

static int avx512_handles(size_t esize)
{
    geom G;
    return geom_of(esize, have_vbmi2(), &G);
}

#define DISPATCH(call)                                                                        \
    do {                                                                                      \
        if (G.w == 4 && G.g == 1) return call(4, 1);                                           \
        if (G.w == 4 && G.g == 2) return call(4, 2);                                           \
        if (G.w == 4) return call(4, G.g);                                                     \
        if (G.w == 2 && G.g == 1) return call(2, 1);                                           \
        if (G.w == 2) return call(2, G.g);                                                     \
        if (G.g == 1) return call(1, 1);                                                       \
        return call(1, G.g);                                                                   \
    } while (0)

static size_t avx512_count(const unsigned char *src, size_t n, size_t esize)
{
    geom G;
    if (!geom_of(esize, 1, &G)) return vred_sparse_scalar_ops.count(src, n, esize); /* BW: no VBMI2 needed */
#define C(w, g) count_core(w, g, &G, src, n, esize)
    DISPATCH(C);
#undef C
}

static size_t avx512_pack_bits(const unsigned char *src, size_t n, size_t esize, size_t cap,
                               unsigned char *mask, unsigned char *vals)
{
    geom G;
    if (!geom_of(esize, have_vbmi2(), &G))
        return vred_sparse_scalar_ops.pack_bits(src, n, esize, cap, mask, vals);
#define C(w, g) pack_core(w, g, &G, 0, src, n, esize, cap, mask, vals)
    DISPATCH(C);
#undef C
}

static size_t avx512_pack_idx(const unsigned char *src, size_t n, size_t esize, size_t cap,
                              unsigned char *idx, unsigned char *vals)
{
    geom G;
    if (!geom_of(esize, have_vbmi2(), &G))
        return vred_sparse_scalar_ops.pack_idx(src, n, esize, cap, idx, vals);
#define C(w, g) pack_core(w, g, &G, 1, src, n, esize, cap, idx, vals)
    DISPATCH(C);
#undef C
}

static size_t avx512_expand_bits(const unsigned char *mask, size_t mbytes, size_t pos, size_t k,
                                 const unsigned char *vals, size_t esize, unsigned char *dst)
{
    geom G;
    if (!geom_of(esize, have_vbmi2(), &G))
        return vred_sparse_scalar_ops.expand_bits(mask, mbytes, pos, k, vals, esize, dst);
#define C(w, g) expand_core(w, g, &G, mask, mbytes, pos, k, vals, esize, dst)
    DISPATCH(C);
#undef C
}

const vred_sparse_ops vred_sparse_avx512_ops = {
    avx512_handles, avx512_count, avx512_pack_bits,
    avx512_pack_idx, avx512_expand_bits};
