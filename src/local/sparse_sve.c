/*
 * Sparse pack/unpack with SVE, vector-length agnostic (128..2048 bits), 4- and 8-byte elements
 * (other sizes: the scalar code). Compiled with -march=armv8.2-a+sve; used only when the active
 * ISA is SVE.
 *
 * Pack: CMPNE gives the non-zero predicate, COMPACT packs the elements (and, for Idx, an INDEX
 * vector of positions); the predicate becomes mask bits by ORV over lanes holding 1 << lane.
 * Unpack (no expand instruction, no scatter): the mask bits are broadcast, AND with 1 << lane
 * gives the predicate, per-lane CNT of the lower bits gives each lane's slot among the packed
 * elements, TBL moves them into place and SEL zeroes the rest.
 * All memory accesses are byte loads/stores (LD1B/ST1B) under WHILELT predicates: any alignment,
 * nothing touched past the end.
 */
#include "local/sparse.h"

#include <arm_sve.h>
#include <string.h>
#include "kernels/kernel.h"

static inline uint64_t lowbits(unsigned k) { return k >= 64 ? ~0ull : (1ull << k) - 1; }

typedef struct {
    uint64_t acc;
    unsigned nb;
    unsigned char *out;
} bitw;
static inline void bitw_put(bitw *b, uint64_t e, unsigned E)
{
    if (b->nb + E < 64) {
        b->acc |= e << b->nb;
        b->nb += E;
        return;
    }
    uint64_t word = b->acc | (e << b->nb);
    memcpy(b->out, &word, 8);
    b->out += 8;
    unsigned used = 64 - b->nb;
    b->acc = used >= 64 ? 0 : e >> used;
    b->nb = b->nb + E - 64;
}

static inline uint64_t get_bits(const unsigned char *mask, size_t mbytes, size_t pos, unsigned ne)
{
    return vred_sparse_mask_bits(mask, mbytes, pos, ne) & lowbits(ne);
}

static int sve_handles(size_t esize) { return esize == 4 || esize == 8; }

/* ---- 4-byte elements: up to 64 lanes (2048 bits), so the bits come in two 32-bit halves ---- */

static size_t count32(const unsigned char *src, size_t n)
{
    size_t c = 0, L = svcntw();
    for (size_t i = 0; i < n; i += L) {
        svbool_t pg = svwhilelt_b32_u64(i, n);
        svuint32_t v = svreinterpret_u32_u8(svld1_u8(svwhilelt_b8_u64(4 * i, 4 * n), src + 4 * i));
        c += svcntp_b32(pg, svcmpne_n_u32(pg, v, 0));
    }
    return c;
}

static size_t count64(const unsigned char *src, size_t n)
{
    size_t c = 0, L = svcntd();
    for (size_t i = 0; i < n; i += L) {
        svbool_t pg = svwhilelt_b64_u64(i, n);
        svuint64_t v = svreinterpret_u64_u8(svld1_u8(svwhilelt_b8_u64(8 * i, 8 * n), src + 8 * i));
        c += svcntp_b64(pg, svcmpne_n_u64(pg, v, 0));
    }
    return c;
}

static size_t pack32(const unsigned char *src, size_t n, size_t cap, int idx_fmt,
                     unsigned char *aux, unsigned char *vals)
{
    const size_t L = svcntw();
    const svbool_t all = svptrue_b32();
    const svbool_t plo = svwhilelt_b32_u64(0, 32), phi = svbic_b_z(all, all, plo);
    const svuint32_t wts = svlsl_u32_x(all, svdup_n_u32(1), svand_n_u32_x(all, svindex_u32(0, 1), 31));
    size_t cnt = 0;
    bitw b = {0, 0, aux};
    for (size_t i = 0; i < n; i += L) {
        svbool_t pg = svwhilelt_b32_u64(i, n);
        size_t ne = n - i < L ? n - i : L;
        svuint32_t v = svreinterpret_u32_u8(svld1_u8(svwhilelt_b8_u64(4 * i, 4 * n), src + 4 * i));
        svbool_t nz = svcmpne_n_u32(pg, v, 0);
        size_t pc = svcntp_b32(pg, nz);
        if (pc > cap - cnt) return SIZE_MAX;
        svst1_u8(svwhilelt_b8_u64(0, 4 * pc), vals + 4 * cnt, svreinterpret_u8_u32(svcompact_u32(nz, v)));
        if (idx_fmt) {
            svuint32_t ix = svcompact_u32(nz, svindex_u32((uint32_t)i, 1));
            svst1_u8(svwhilelt_b8_u64(0, 4 * pc), aux + 4 * cnt, svreinterpret_u8_u32(ix));
        } else {
            uint64_t e = svorv_u32(svand_b_z(all, nz, plo), wts);
            if (L > 32) e |= (uint64_t)svorv_u32(svand_b_z(all, nz, phi), wts) << 32;
            bitw_put(&b, e, (unsigned)ne);
        }
        cnt += pc;
    }
    if (!idx_fmt && b.nb) memcpy(b.out, &b.acc, 8);
    return cnt;
}

static size_t pack64(const unsigned char *src, size_t n, size_t cap, int idx_fmt,
                     unsigned char *aux, unsigned char *vals)
{
    const size_t L = svcntd(); /* <= 32 */
    const svbool_t all = svptrue_b64();
    const svuint64_t wts = svlsl_u64_x(all, svdup_n_u64(1), svindex_u64(0, 1));
    size_t cnt = 0;
    bitw b = {0, 0, aux};
    for (size_t i = 0; i < n; i += L) {
        svbool_t pg = svwhilelt_b64_u64(i, n);
        size_t ne = n - i < L ? n - i : L;
        svuint64_t v = svreinterpret_u64_u8(svld1_u8(svwhilelt_b8_u64(8 * i, 8 * n), src + 8 * i));
        svbool_t nz = svcmpne_n_u64(pg, v, 0);
        size_t pc = svcntp_b64(pg, nz);
        if (pc > cap - cnt) return SIZE_MAX;
        svst1_u8(svwhilelt_b8_u64(0, 8 * pc), vals + 8 * cnt, svreinterpret_u8_u64(svcompact_u64(nz, v)));
        if (idx_fmt) {
            svuint64_t ix = svcompact_u64(nz, svindex_u64(i, 1));
            /* narrow to u32: the even u32 halves (little-endian low words) */
            svuint32_t lo = svuzp1_u32(svreinterpret_u32_u64(ix), svreinterpret_u32_u64(ix));
            svst1_u8(svwhilelt_b8_u64(0, 4 * pc), aux + 4 * cnt, svreinterpret_u8_u32(lo));
        } else {
            bitw_put(&b, svorv_u64(nz, wts), (unsigned)ne);
        }
        cnt += pc;
    }
    if (!idx_fmt && b.nb) memcpy(b.out, &b.acc, 8);
    return cnt;
}

static size_t expand32(const unsigned char *mask, size_t mbytes, size_t pos, size_t k,
                       const unsigned char *vals, unsigned char *dst)
{
    const size_t L = svcntw();
    const svbool_t all = svptrue_b32();
    const svbool_t phi = svbic_b_z(all, all, svwhilelt_b32_u64(0, 32));
    const svuint32_t sh = svand_n_u32_x(all, svindex_u32(0, 1), 31);
    const svuint32_t wts = svlsl_u32_x(all, svdup_n_u32(1), sh);
    const svuint32_t below = svsub_n_u32_x(all, wts, 1);
    size_t cnt = 0;
    for (size_t j = 0; j < k; j += L) {
        unsigned ne = (unsigned)(k - j < L ? k - j : L);
        uint64_t e = get_bits(mask, mbytes, pos + j, ne);
        uint32_t lo = (uint32_t)e, hi = (uint32_t)(e >> 32);
        svuint32_t wv = svsel_u32(phi, svdup_n_u32(hi), svdup_n_u32(lo));
        svbool_t p = svcmpne_n_u32(all, svand_u32_x(all, wv, wts), 0);
        svuint32_t slot = svcnt_u32_x(all, svand_u32_x(all, wv, below));
        slot = svadd_u32_m(phi, slot, svdup_n_u32((uint32_t)__builtin_popcount(lo)));
        unsigned pc = (unsigned)__builtin_popcountll(e);
        svuint32_t v = svreinterpret_u32_u8(svld1_u8(svwhilelt_b8_u64(0, 4 * (uint64_t)pc), vals + 4 * cnt));
        svuint32_t x = svsel_u32(p, svtbl_u32(v, slot), svdup_n_u32(0));
        svst1_u8(svwhilelt_b8_u64(0, 4 * (uint64_t)ne), dst + 4 * j, svreinterpret_u8_u32(x));
        cnt += pc;
    }
    return cnt;
}

static size_t expand64(const unsigned char *mask, size_t mbytes, size_t pos, size_t k,
                       const unsigned char *vals, unsigned char *dst)
{
    const size_t L = svcntd();
    const svbool_t all = svptrue_b64();
    const svuint64_t wts = svlsl_u64_x(all, svdup_n_u64(1), svindex_u64(0, 1));
    const svuint64_t below = svsub_n_u64_x(all, wts, 1);
    size_t cnt = 0;
    for (size_t j = 0; j < k; j += L) {
        unsigned ne = (unsigned)(k - j < L ? k - j : L);
        uint64_t e = get_bits(mask, mbytes, pos + j, ne);
        svuint64_t wv = svdup_n_u64(e);
        svbool_t p = svcmpne_n_u64(all, svand_u64_x(all, wv, wts), 0);
        svuint64_t slot = svcnt_u64_x(all, svand_u64_x(all, wv, below));
        unsigned pc = (unsigned)__builtin_popcountll(e);
        svuint64_t v = svreinterpret_u64_u8(svld1_u8(svwhilelt_b8_u64(0, 8 * (uint64_t)pc), vals + 8 * cnt));
        svuint64_t x = svsel_u64(p, svtbl_u64(v, slot), svdup_n_u64(0));
        svst1_u8(svwhilelt_b8_u64(0, 8 * (uint64_t)ne), dst + 8 * j, svreinterpret_u8_u64(x));
        cnt += pc;
    }
    return cnt;
}

static size_t sve_count(const unsigned char *src, size_t n, size_t esize)
{
    if (esize == 4) return count32(src, n);
    if (esize == 8) return count64(src, n);
    return vred_sparse_scalar_ops.count(src, n, esize);
}

static size_t sve_pack_bits(const unsigned char *src, size_t n, size_t esize, size_t cap,
                            unsigned char *mask, unsigned char *vals)
{
    if (esize == 4) return pack32(src, n, cap, 0, mask, vals);
    if (esize == 8) return pack64(src, n, cap, 0, mask, vals);
    return vred_sparse_scalar_ops.pack_bits(src, n, esize, cap, mask, vals);
}

static size_t sve_pack_idx(const unsigned char *src, size_t n, size_t esize, size_t cap,
                           unsigned char *idx, unsigned char *vals)
{
    if (esize == 4) return pack32(src, n, cap, 1, idx, vals);
    if (esize == 8) return pack64(src, n, cap, 1, idx, vals);
    return vred_sparse_scalar_ops.pack_idx(src, n, esize, cap, idx, vals);
}

static size_t sve_expand_bits(const unsigned char *mask, size_t mbytes, size_t pos, size_t k,
                              const unsigned char *vals, size_t esize, unsigned char *dst)
{
    if (esize == 4) return expand32(mask, mbytes, pos, k, vals, dst);
    if (esize == 8) return expand64(mask, mbytes, pos, k, vals, dst);
    return vred_sparse_scalar_ops.expand_bits(mask, mbytes, pos, k, vals, esize, dst);
}

const vred_sparse_ops vred_sparse_sve_ops = {
    sve_handles, sve_count, sve_pack_bits,
    sve_pack_idx, sve_expand_bits};
