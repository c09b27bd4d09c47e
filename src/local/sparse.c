/* Sparse message compression: the format, validation, the cost model and the scalar reference.
 * The vector primitives live in sparse_avx512.c / sparse_sve.c. See sparse.h, docs/sparse.md. */
#include "local/sparse.h"

#include <string.h>
#include "config.h"
#include "kernels/dispatch.h"

#define SPARSE_MAGIC 0x50535256u /* "VRSP" */
#define SPARSE_VERSION 1u

/* ---- scalar reference ---- */

static inline int is_nz(const unsigned char *p, size_t esize)
{
    switch (esize) {
    case 1: return p[0] != 0;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v != 0; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v != 0; }
    case 8: { uint64_t v; memcpy(&v, p, 8); return v != 0; }
    default: {
        size_t i = 0;
        for (; i + 8 <= esize; i += 8) {
            uint64_t v;
            memcpy(&v, p + i, 8);
            if (v) return 1;
        }
        for (; i < esize; i++)
            if (p[i]) return 1;
        return 0;
    }
    }
}

static inline void copy_elem(unsigned char *d, const unsigned char *s, size_t esize)
{
    switch (esize) {
    case 1: *d = *s; break;
    case 2: memcpy(d, s, 2); break;
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    default: memcpy(d, s, esize);
    }
}

static int scalar_handles(size_t esize) { return esize > 0; }

static size_t scalar_count(const unsigned char *src, size_t n, size_t esize)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += (size_t)is_nz(src + i * esize, esize);
    return c;
}

static size_t scalar_pack_bits(const unsigned char *src, size_t n, size_t esize, size_t cap,
                               unsigned char *mask, unsigned char *vals)
{
    size_t cnt = 0;
    for (size_t w = 0; w < n; w += 64) {
        uint64_t word = 0;
        size_t e = n - w < 64 ? n - w : 64;
        for (size_t j = 0; j < e; j++) {
            const unsigned char *p = src + (w + j) * esize;
            if (is_nz(p, esize)) {
                if (cnt == cap) return SIZE_MAX;
                copy_elem(vals + cnt * esize, p, esize);
                cnt++;
                word |= 1ull << j;
            }
        }
        memcpy(mask + w / 8, &word, 8);
    }
    return cnt;
}

static size_t scalar_pack_idx(const unsigned char *src, size_t n, size_t esize, size_t cap,
                              unsigned char *idx, unsigned char *vals)
{
    size_t cnt = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = src + i * esize;
        if (is_nz(p, esize)) {
            if (cnt == cap) return SIZE_MAX;
            uint32_t ix = (uint32_t)i;
            memcpy(idx + cnt * 4, &ix, 4);
            copy_elem(vals + cnt * esize, p, esize);
            cnt++;
        }
    }
    return cnt;
}

static size_t scalar_expand_bits(const unsigned char *mask, size_t mbytes, size_t pos, size_t k,
                                 const unsigned char *vals, size_t esize, unsigned char *dst)
{
    (void)mbytes;
    size_t cnt = 0;
    for (size_t j = 0; j < k; j++) {
        size_t i = pos + j;
        unsigned char *d = dst + j * esize;
        if (mask[i >> 3] >> (i & 7) & 1) {
            copy_elem(d, vals + cnt * esize, esize);
            cnt++;
        } else {
            memset(d, 0, esize);
        }
    }
    return cnt;
}

const vred_sparse_ops vred_sparse_scalar_ops = {
    scalar_handles, scalar_count, scalar_pack_bits, scalar_pack_idx, scalar_expand_bits};

/* ---- AVX2 fallback, 4- and 8-byte elements (no compress instruction: permutation tables) ---- */
#if defined(VRED_HAVE_AVX2) && defined(__x86_64__)
#include <immintrin.h>
#define AVX2_FN static __attribute__((target("avx2"), noinline))
#define AVX2_AI static inline __attribute__((target("avx2"), always_inline))

static uint32_t a2_comp[256][8]; /* lane mask -> its set lanes, in order */
static uint32_t a2_exp[256][8];  /* lane mask -> lane j takes packed lane popcount(m & below j) */
static uint8_t a2_pop[256], a2_pair[256], a2_spread[16];

__attribute__((constructor)) static void a2_tables(void)
{
    for (unsigned m = 0; m < 256; m++) {
        unsigned k = 0, pr = 0;
        for (unsigned j = 0; j < 8; j++) {
            a2_exp[m][j] = k;
            if (m >> j & 1) a2_comp[m][k++] = j;
        }
        for (unsigned j = k; j < 8; j++) a2_comp[m][j] = 0;
        a2_pop[m] = (uint8_t)k;
        for (unsigned e = 0; e < 4; e++) pr |= (unsigned)((m >> (2 * e) & 3) != 0) << e;
        a2_pair[m] = (uint8_t)pr;
    }
    for (unsigned e = 0; e < 16; e++) {
        unsigned l = 0;
        for (unsigned j = 0; j < 4; j++) l |= (e >> j & 1) * 3u << (2 * j);
        a2_spread[e] = (uint8_t)l;
    }
}

AVX2_AI __m256i a2_first(unsigned k) /* lanes < k all ones */
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

static inline uint64_t a2_get_bits(const unsigned char *mask, size_t mbytes, size_t pos, unsigned ne)
{
    return vred_sparse_mask_bits(mask, mbytes, pos, ne) & ((1ull << ne) - 1); /* ne <= 8 */
}

AVX2_AI size_t a2_pack(unsigned g, int idx_fmt, const unsigned char *src, size_t n, size_t cap,
                       unsigned char *aux, unsigned char *vals)
{
    const unsigned E = 8 / g;
    const size_t es = 4 * g;
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), zero = _mm256_setzero_si256();
    size_t cnt = 0;
    uint64_t acc = 0;
    unsigned nb = 0;
    for (size_t i = 0; i < n; i += E) {
        unsigned ne = (unsigned)(n - i < E ? n - i : E);
        __m256i v = _mm256_maskload_epi32((const int *)(const void *)(src + i * es), a2_first(ne * g));
        unsigned m = ~(unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, zero))) & 0xffu;
        unsigned e = g == 1 ? m : a2_pair[m], lm = g == 1 ? m : a2_spread[e];
        unsigned pc = a2_pop[e];
        if (pc > cap - cnt) return SIZE_MAX;
        __m256i c = _mm256_permutevar8x32_epi32(v, _mm256_loadu_si256((const __m256i *)(const void *)a2_comp[lm]));
        _mm256_maskstore_epi32((int *)(void *)(vals + cnt * es), a2_first(pc * g), c);
        if (idx_fmt) {
            __m256i ix = _mm256_add_epi32(iota, _mm256_set1_epi32((int)(uint32_t)i));
            ix = _mm256_permutevar8x32_epi32(ix, _mm256_loadu_si256((const __m256i *)(const void *)a2_comp[e]));
            _mm256_maskstore_epi32((int *)(void *)(aux + 4 * cnt), a2_first(pc), ix);
        } else {
            acc |= (uint64_t)e << nb;
            nb += ne;
            if (nb == 64) { memcpy(aux, &acc, 8); aux += 8; acc = 0; nb = 0; }
        }
        cnt += pc;
    }
    if (!idx_fmt && nb) memcpy(aux, &acc, 8);
    return cnt;
}

AVX2_AI size_t a2_expand(unsigned g, const unsigned char *mask, size_t mbytes, size_t pos, size_t k,
                         const unsigned char *vals, unsigned char *dst)
{
    const unsigned E = 8 / g;
    const size_t es = 4 * g;
    const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    size_t cnt = 0;
    for (size_t j = 0; j < k; j += E) {
        unsigned ne = (unsigned)(k - j < E ? k - j : E);
        unsigned e = (unsigned)a2_get_bits(mask, mbytes, pos + j, ne);
        unsigned lm = g == 1 ? e : a2_spread[e], pc = a2_pop[e];
        __m256i v = _mm256_maskload_epi32((const int *)(const void *)(vals + cnt * es), a2_first(pc * g));
        __m256i x = _mm256_permutevar8x32_epi32(v, _mm256_loadu_si256((const __m256i *)(const void *)a2_exp[lm]));
        __m256i keep = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)lm), bit), bit);
        _mm256_maskstore_epi32((int *)(void *)(dst + j * es), a2_first(ne * g), _mm256_and_si256(x, keep));
        cnt += pc;
    }
    return cnt;
}

static int a2_handles(size_t esize) { return esize == 4 || esize == 8; }
AVX2_FN size_t a2_count(const unsigned char *src, size_t n, size_t esize)
{
    if (esize != 4 && esize != 8) return scalar_count(src, n, esize);
    const unsigned g = (unsigned)esize / 4, E = 8 / g;
    const __m256i zero = _mm256_setzero_si256();
    size_t c = 0;
    for (size_t i = 0; i < n; i += E) {
        unsigned ne = (unsigned)(n - i < E ? n - i : E);
        __m256i v = _mm256_maskload_epi32((const int *)(const void *)(src + i * esize), a2_first(ne * g));
        unsigned m = ~(unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, zero))) & 0xffu;
        c += a2_pop[g == 1 ? m : a2_pair[m]];
    }
    return c;
}
AVX2_FN size_t a2_pack_bits(const unsigned char *src, size_t n, size_t esize, size_t cap,
                            unsigned char *mask, unsigned char *vals)
{
    return esize == 4 ? a2_pack(1, 0, src, n, cap, mask, vals) : a2_pack(2, 0, src, n, cap, mask, vals);
}
AVX2_FN size_t a2_pack_idx(const unsigned char *src, size_t n, size_t esize, size_t cap,
                           unsigned char *idx, unsigned char *vals)
{
    return esize == 4 ? a2_pack(1, 1, src, n, cap, idx, vals) : a2_pack(2, 1, src, n, cap, idx, vals);
}
AVX2_FN size_t a2_expand_bits(const unsigned char *mask, size_t mbytes, size_t pos, size_t k,
                              const unsigned char *vals, size_t esize, unsigned char *dst)
{
    return esize == 4 ? a2_expand(1, mask, mbytes, pos, k, vals, dst)
                      : a2_expand(2, mask, mbytes, pos, k, vals, dst);
}
static const vred_sparse_ops avx2_ops = {a2_handles, a2_count, a2_pack_bits, a2_pack_idx,
                                         a2_expand_bits};
#endif

/* The primitives of each ISA, worst to best (dispatch.h: chosen at start-up and when the
 * VRED_ISA cap changes, never per call). */
static const vred_isa_impl sparse_impls[] = {
    {VRED_ISA_SCALAR, NULL, &vred_sparse_scalar_ops},
#if defined(VRED_HAVE_AVX2) && defined(__x86_64__)
    {VRED_ISA_AVX2, NULL, &avx2_ops},
#endif
#if defined(VRED_HAVE_AVX512)
    {VRED_ISA_AVX512, NULL, &vred_sparse_avx512_ops},
#endif
#if defined(VRED_HAVE_SVE)
    {VRED_ISA_SVE, NULL, &vred_sparse_sve_ops},
#endif
};
VRED_ISA_CHOICE(sparse_choice, sparse_impls, &vred_sparse_scalar_ops)

/* The active ISA's primitives if they take this esize (count takes every esize), else the
 * scalar ones. */
static const vred_sparse_ops *ops_for(size_t esize, int for_count)
{
    const vred_sparse_ops *o = vred_isa_chosen(&sparse_choice);
    if (for_count || o->handles(esize)) return o;
    return &vred_sparse_scalar_ops;
}

/* ---- format ---- */

static size_t mask_bytes(size_t n) { return (n / 64 + (n % 64 != 0)) * 8; }

static int mul_ovf(size_t a, size_t b, size_t *r)
{
    if (a && b > SIZE_MAX / a) return 1;
    *r = a * b;
    return 0;
}

size_t vred_sparse_packed_size(vred_sparse_fmt f, size_t n, size_t esize, size_t nnz)
{
    size_t body, aux;
    if (esize == 0 || nnz > n || esize > UINT32_MAX) return SIZE_MAX;
    switch (f) {
    case VRED_FMT_DENSE:
        if (mul_ovf(n, esize, &body)) return SIZE_MAX;
        aux = 0;
        break;
    case VRED_FMT_BITS:
        if (mul_ovf(nnz, esize, &body)) return SIZE_MAX;
        aux = mask_bytes(n);
        break;
    case VRED_FMT_IDX:
        if (n > UINT32_MAX) return SIZE_MAX;
        if (mul_ovf(nnz, esize, &body) || mul_ovf(nnz, 4, &aux)) return SIZE_MAX;
        break;
    default: return SIZE_MAX;
    }
    if (body > SIZE_MAX - aux - VRED_SPARSE_HEADER) return SIZE_MAX;
    return VRED_SPARSE_HEADER + aux + body;
}

size_t vred_sparse_nonzeros(const void *buf, size_t n, size_t esize)
{
    if (!esize || !n) return 0;
    return ops_for(esize, 1)->count((const unsigned char *)buf, n, esize);
}

static void put_header(unsigned char *h, vred_sparse_fmt f, size_t n, size_t esize, size_t nnz)
{
    uint32_t magic = SPARSE_MAGIC, es = (uint32_t)esize, z32 = 0;
    uint64_t n64 = n, nnz64 = nnz;
    unsigned char fv[4] = {(unsigned char)f, SPARSE_VERSION, 0, 0};
    memcpy(h, &magic, 4);
    memcpy(h + 4, fv, 4);
    memcpy(h + 8, &es, 4);
    memcpy(h + 12, &z32, 4);
    memcpy(h + 16, &n64, 8);
    memcpy(h + 24, &nnz64, 8);
}

size_t vred_sparse_pack(vred_sparse_fmt f, const void *src_, size_t n, size_t esize, size_t nnz,
                        void *dst_)
{
    const unsigned char *src = src_;
    unsigned char *dst = dst_;
    if (!esize || (n && (!src || !dst)) || !dst) return 0;
    size_t cap = nnz == VRED_SPARSE_NNZ_UNKNOWN ? n : nnz;
    if (cap > n) return 0;
    if (nnz == VRED_SPARSE_NNZ_UNKNOWN && f == VRED_FMT_IDX)
        cap = nnz = vred_sparse_nonzeros(src, n, esize);
    if (vred_sparse_packed_size(f, n, esize, cap) == SIZE_MAX) return 0;
    const vred_sparse_ops *o = ops_for(esize, 0);
    size_t got;
    unsigned char *body = dst + VRED_SPARSE_HEADER;
    switch (f) {
    case VRED_FMT_DENSE:
        if (n) memcpy(body, src, n * esize);
        got = nnz == VRED_SPARSE_NNZ_UNKNOWN ? vred_sparse_nonzeros(src, n, esize) : nnz;
        break;
    case VRED_FMT_BITS:
        got = n ? o->pack_bits(src, n, esize, cap, body, body + mask_bytes(n)) : 0;
        break;
    case VRED_FMT_IDX:
        got = n ? o->pack_idx(src, n, esize, cap, body, body + 4 * cap) : 0;
        break;
    default: return 0;
    }
    if (got == SIZE_MAX || (nnz != VRED_SPARSE_NNZ_UNKNOWN && got != nnz)) return 0;
    put_header(dst, f, n, esize, got);
    return vred_sparse_packed_size(f, n, esize, got);
}

/* ---- receiving: never trust the header ---- */

int vred_sparse_reader_init(vred_sparse_reader *r, const void *packed_, size_t bytes, size_t n,
                            size_t esize)
{
    const unsigned char *p = packed_;
    if (!r || !p || bytes < VRED_SPARSE_HEADER || !esize) return -1;
    uint32_t magic, es, z32;
    uint64_t n64, nnz64;
    memcpy(&magic, p, 4);
    memcpy(&es, p + 8, 4);
    memcpy(&z32, p + 12, 4);
    memcpy(&n64, p + 16, 8);
    memcpy(&nnz64, p + 24, 8);
    unsigned fmt = p[4];
    if (magic != SPARSE_MAGIC || p[5] != SPARSE_VERSION || p[6] || p[7] || z32) return -1;
    if (fmt > VRED_FMT_IDX || es != esize || n64 != (uint64_t)n || nnz64 > n64) return -1;
    size_t nnz = (size_t)nnz64;
    if (vred_sparse_packed_size((vred_sparse_fmt)fmt, n, esize, nnz) != bytes) return -1;
    const unsigned char *body = p + VRED_SPARSE_HEADER;
    memset(r, 0, sizeof *r);
    r->n = n;
    r->esize = esize;
    r->nnz = nnz;
    r->fmt = (int)fmt;
    if (fmt == VRED_FMT_DENSE) {
        r->vals = body;
    } else if (fmt == VRED_FMT_BITS) {
        size_t mb = mask_bytes(n), ones = 0;
        for (size_t i = 0; i < mb; i += 8) {
            uint64_t w;
            memcpy(&w, body + i, 8);
            ones += (size_t)__builtin_popcountll(w);
        }
        if (n % 64) {
            uint64_t last;
            memcpy(&last, body + mb - 8, 8);
            if (last >> (n % 64)) return -1; /* padding bits set */
        }
        if (ones != nnz) return -1;
        r->mask = body;
        r->mbytes = mb;
        r->vals = body + mb;
    } else {
        uint32_t prev = 0;
        for (size_t j = 0; j < nnz; j++) {
            uint32_t ix;
            memcpy(&ix, body + 4 * j, 4);
            if ((uint64_t)ix >= n64 || (j && ix <= prev)) return -1;
            prev = ix;
        }
        r->idx = body;
        r->vals = body + 4 * nnz;
    }
    return 0;
}

void vred_sparse_read(vred_sparse_reader *r, size_t k, void *dst_)
{
    unsigned char *dst = dst_;
    if (k > r->n - r->pos) k = r->n - r->pos;
    if (!k) return;
    size_t es = r->esize;
    if (r->fmt == VRED_FMT_DENSE) {
        memcpy(dst, r->vals + r->pos * es, k * es);
    } else if (r->fmt == VRED_FMT_BITS) {
        const vred_sparse_ops *o = ops_for(es, 0);
        r->cnt += o->expand_bits(r->mask, r->mbytes, r->pos, k, r->vals + r->cnt * es, es, dst);
    } else {
        memset(dst, 0, k * es);
        size_t end = r->pos + k, c = r->cnt;
        const unsigned char *vals = r->vals;
        for (; c < r->nnz; c++) {
            uint32_t ix;
            memcpy(&ix, r->idx + 4 * c, 4);
            if (ix >= end) break;
            unsigned char *d = dst + (ix - r->pos) * es;
            const unsigned char *s = vals + c * es;
            switch (es) {
            case 4: memcpy(d, s, 4); break;
            case 8: memcpy(d, s, 8); break;
            default: memcpy(d, s, es);
            }
        }
        r->cnt = c;
    }
    r->pos += k;
}

int vred_sparse_unpack(const void *packed, size_t bytes, size_t n, size_t esize, void *dst)
{
    vred_sparse_reader r;
    if (vred_sparse_reader_init(&r, packed, bytes, n, esize)) return -1;
    if (n && !dst) return -1;
    vred_sparse_read(&r, n, dst);
    return 0;
}

/* ---- the choice ---- */

/* Pack and unpack time of n*esize = D dense bytes at non-zero fraction d:
 *   t = D * (a + b*d + c*4d(1-d))   (c: the branch mispredictions of the scalar code peak at 50%),
 * in picoseconds per dense byte: the least-squares fits that `vred-kbench sparse` prints (f32) on an
 * AMD Zen4, for 1 MiB (in cache; used up to SPARSE_CACHE_BYTES) and 64 MiB (DRAM-bound; above).
 * The SVE build uses the same vector rows (not measured on SVE hardware). See docs/sparse.md.
 * [memory][vector][format-1][pack, unpack]. */
typedef struct { double a, b, c; } sparse_cost;
#define SPARSE_CACHE_BYTES (4u << 20)
static const sparse_cost cost_tab[2][2][2][2] = {
    /*                 BITS pack          BITS unpack            IDX pack            IDX unpack */
    {/* 1 MiB  scalar */ {{{164, 59, 829}, {314, -164, 1046}}, {{86, 103, 1033}, {19, 293, 0}}},
     /*        vector */ {{{40, 9, 0}, {42, 15, 0}}, {{63, 55, -35}, {22, 295, 0}}}},
    {/* 64 MiB scalar */ {{{317, -71, 1366}, {632, -435, 1404}}, {{559, -228, 1200}, {282, 767, 0}}},
     /*        vector */ {{{157, 83, 31}, {207, 37, -13}}, {{214, 171, -40}, {247, 790, 71}}}}};

static double cost_s(const sparse_cost *c, double D, double d)
{
    return 1e-12 * D * (c->a + c->b * d + c->c * 4 * d * (1 - d));
}

vred_sparse_fmt vred_sparse_choose(int mode, size_t n, size_t esize, size_t nnz,
                                   double link_bytes_per_s)
{
    size_t dense = vred_sparse_packed_size(VRED_FMT_DENSE, n, esize, 0);
    if (mode == VRED_SPARSE_OFF || dense == SIZE_MAX || nnz > n) return VRED_FMT_DENSE;
    size_t sb = vred_sparse_packed_size(VRED_FMT_BITS, n, esize, nnz);
    size_t si = vred_sparse_packed_size(VRED_FMT_IDX, n, esize, nnz);
    if (mode == VRED_SPARSE_BITS) return sb < dense ? VRED_FMT_BITS : VRED_FMT_DENSE;
    if (mode == VRED_SPARSE_IDX) return si < dense ? VRED_FMT_IDX : VRED_FMT_DENSE;
    if (link_bytes_per_s <= 0) {
        if (si < sb && si < dense) return VRED_FMT_IDX;
        return sb < dense ? VRED_FMT_BITS : VRED_FMT_DENSE;
    }
    const vred_sparse_ops *o = ops_for(esize, 0);
    int vec = o != &vred_sparse_scalar_ops;
    double db = (double)n * (double)esize, d = n ? (double)nnz / (double)n : 0;
    double best_t = (double)dense / link_bytes_per_s;
    vred_sparse_fmt best = VRED_FMT_DENSE;
    for (int f = VRED_FMT_BITS; f <= VRED_FMT_IDX; f++) {
        size_t s = f == VRED_FMT_BITS ? sb : si;
        if (s == SIZE_MAX || s >= dense) continue;
        const sparse_cost *c = cost_tab[db > SPARSE_CACHE_BYTES][vec][f - 1];
        double t = (double)s / link_bytes_per_s + cost_s(&c[0], db, d) + cost_s(&c[1], db, d);
        if (t < best_t) {
            best_t = t;
            best = (vred_sparse_fmt)f;
        }
    }
    return best;
}
