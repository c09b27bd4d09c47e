/*
 * Sparse pack/unpack (src/local/sparse.c): round trips of every format on many element sizes,
 * lengths 0..200 and a few large ones, src/dst byte offsets 0..7, densities 0..100% in random and
 * clustered patterns, under every ISA cap the CPU supports; the packed bytes equal an
 * independent reference encoder; the streaming reader equals the full unpack; malformed messages
 * are rejected (the packed copy is allocated to its exact size, so ASan sees any over-read).
 *
 * VRED_TEST_SEED changes the data; VRED_TEST_QUICK=1 thins the sweep (emulators);
 * VRED_TEST_LONG=0 keeps the whole sweep but takes the large lengths at 100003 elements, not
 * 1000003 (emulated runs at more vector lengths than one).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "dispatch.h"
#include "kernel.h"
#include "local/sparse.h"
#include "vred.h"

static long passed, failed;
static int quick, no_long;
static char ctx[160];

#define CHECK(c, ...)                                                                         \
    do {                                                                                      \
        if (c) passed++;                                                                      \
        else {                                                                                \
            if (failed++ < 30) {                                                              \
                printf("FAIL %s:%d [%s] ", __FILE__, __LINE__, ctx);                          \
                printf(__VA_ARGS__);                                                          \
                printf("\n");                                                                 \
            }                                                                                 \
        }                                                                                     \
    } while (0)

static uint64_t rng_state = 0x243f6a8885a308d3ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void *xmalloc(size_t b)
{
    void *p = malloc(b ? b : 1);
    if (!p) { perror("malloc"); exit(2); }
    return p;
}

/* A random non-zero element: sometimes -0.0 (only the sign bit), sometimes a single non-zero byte
 * anywhere (the lane-OR of a multi-lane element must see it). */
static void nonzero_elem(unsigned char *p, size_t es)
{
    memset(p, 0, es);
    switch (rnd() % 4) {
    case 0: p[es - 1] = 0x80; break; /* -0.0 for f32/f64 */
    case 1: p[rnd() % es] = (unsigned char)(1 + rnd() % 255); break;
    default:
        for (size_t b = 0; b < es; b++) p[b] = (unsigned char)rnd();
        p[rnd() % es] |= 1;
    }
}

/* density in per mille; clustered: runs of non-zeros */
static size_t gen(unsigned char *buf, size_t n, size_t es, unsigned pm, int clustered)
{
    size_t nnz = 0;
    memset(buf, 0, n * es);
    if (!clustered) {
        for (size_t i = 0; i < n; i++)
            if (rnd() % 1000 < pm) { nonzero_elem(buf + i * es, es); nnz++; }
        return nnz;
    }
    size_t i = 0;
    while (i < n) {
        size_t run = 1 + rnd() % 40;
        int on = (rnd() % 1000) < pm;
        for (size_t j = 0; j < run && i < n; j++, i++)
            if (on) { nonzero_elem(buf + i * es, es); nnz++; }
    }
    return nnz;
}

static int ref_nz(const unsigned char *p, size_t es)
{
    for (size_t b = 0; b < es; b++)
        if (p[b]) return 1;
    return 0;
}

/* The independent reference encoder (from the layout described in sparse.h). */
static size_t ref_pack(vred_sparse_fmt f, const unsigned char *src, size_t n, size_t es, unsigned char *out)
{
    size_t nnz = 0;
    for (size_t i = 0; i < n; i++) nnz += (size_t)ref_nz(src + i * es, es);
    uint32_t magic = 0x50535256u, e32 = (uint32_t)es, z = 0;
    uint64_t n64 = n, z64 = nnz;
    unsigned char fv[4] = {(unsigned char)f, 1, 0, 0};
    memcpy(out, &magic, 4); memcpy(out + 4, fv, 4); memcpy(out + 8, &e32, 4);
    memcpy(out + 12, &z, 4); memcpy(out + 16, &n64, 8); memcpy(out + 24, &z64, 8);
    unsigned char *b = out + 32;
    if (f == VRED_FMT_DENSE) { memcpy(b, src, n * es); return 32 + n * es; }
    size_t aux = f == VRED_FMT_BITS ? (n + 63) / 64 * 8 : 4 * nnz;
    memset(b, 0, aux);
    unsigned char *v = b + aux;
    size_t c = 0;
    for (size_t i = 0; i < n; i++) {
        if (!ref_nz(src + i * es, es)) continue;
        if (f == VRED_FMT_BITS) b[i / 8] |= (unsigned char)(1u << (i % 8));
        else { uint32_t ix = (uint32_t)i; memcpy(b + 4 * c, &ix, 4); }
        memcpy(v + c * es, src + i * es, es);
        c++;
    }
    return 32 + aux + nnz * es;
}

#define GUARD 16
static const unsigned char GB = 0xA5;

static int guards_ok(const unsigned char *base, size_t off, size_t len)
{
    for (size_t i = 0; i < off; i++) if (base[i] != GB) return 0;
    for (size_t i = 0; i < GUARD; i++) if (base[off + len + i] != GB) return 0;
    return 1;
}

/* A copy of p[0..bytes) at byte offset off of an allocation that ends exactly at its end. */
static unsigned char *exact_copy(const unsigned char *p, size_t bytes, size_t off, unsigned char **base)
{
    *base = xmalloc(bytes + off);
    memcpy(*base + off, p, bytes);
    return *base + off;
}

static void round_trip(const unsigned char *src, size_t n, size_t es, size_t nnz, size_t doff)
{
    size_t cnt = vred_sparse_nonzeros(src, n, es);
    CHECK(cnt == nnz, "nonzeros %zu != %zu", cnt, nnz);
    size_t dense_b = n * es;
    unsigned char *ref = xmalloc(32 + (n + 63) / 64 * 8 + n * (es + 4) + 64);
    for (int f = VRED_FMT_DENSE; f <= VRED_FMT_IDX; f++) {
        size_t sz = vred_sparse_packed_size((vred_sparse_fmt)f, n, es, nnz);
        size_t rsz = ref_pack((vred_sparse_fmt)f, src, n, es, ref);
        CHECK(sz == rsz, "fmt %d packed_size %zu != %zu", f, sz, rsz);
        /* pack with the count, and (dense, bits) with the count unknown: one pass */
        for (int unknown = 0; unknown < (f == VRED_FMT_IDX ? 2 : 2); unknown++) {
            size_t room = unknown ? vred_sparse_packed_size((vred_sparse_fmt)f, n, es, n) : sz;
            unsigned char *buf = xmalloc(room + doff + GUARD);
            memset(buf, GB, room + doff + GUARD);
            size_t got = vred_sparse_pack((vred_sparse_fmt)f, src, n, es,
                                          unknown ? VRED_SPARSE_NNZ_UNKNOWN : nnz, buf + doff);
            CHECK(got == sz, "fmt %d unknown %d pack returned %zu, want %zu", f, unknown, got, sz);
            CHECK(guards_ok(buf, doff, got == sz ? sz : room), "fmt %d pack wrote outside", f);
            CHECK(got != sz || memcmp(buf + doff, ref, sz) == 0, "fmt %d packed bytes differ from reference", f);
            free(buf);
        }
        /* a wrong (too small) count: 0, nothing written past the smaller size */
        if (nnz > 0) {
            size_t small = vred_sparse_packed_size((vred_sparse_fmt)f, n, es, nnz - 1);
            unsigned char *buf = xmalloc(small + GUARD);
            memset(buf, GB, small + GUARD);
            size_t got = vred_sparse_pack((vred_sparse_fmt)f, src, n, es, nnz - 1, buf);
            CHECK(f == VRED_FMT_DENSE ? got == small : got == 0, "fmt %d short count gave %zu", f, got);
            CHECK(guards_ok(buf, 0, small), "fmt %d short count wrote past its size", f);
            free(buf);
        }
        /* unpack from an exact-size copy at an odd offset into dst at doff */
        unsigned char *pbase, *pk = exact_copy(ref, sz, (doff * 3 + 1) % 8, &pbase);
        unsigned char *dbuf = xmalloc(dense_b + doff + GUARD);
        memset(dbuf, GB, dense_b + doff + GUARD);
        int rc = vred_sparse_unpack(pk, sz, n, es, dbuf + doff);
        CHECK(rc == 0, "fmt %d unpack rc %d", f, rc);
        CHECK(memcmp(dbuf + doff, src, dense_b) == 0, "fmt %d unpack differs", f);
        CHECK(guards_ok(dbuf, doff, dense_b), "fmt %d unpack wrote outside", f);
        /* streaming reader, random block sizes */
        vred_sparse_reader r;
        CHECK(vred_sparse_reader_init(&r, pk, sz, n, es) == 0, "fmt %d reader init", f);
        memset(dbuf, GB, dense_b + doff + GUARD);
        size_t pos = 0;
        while (pos < n) {
            size_t k = rnd() % 4 == 0 ? rnd() % 8 : 1 + rnd() % 300;
            size_t kk = k > n - pos ? n - pos : k;
            vred_sparse_read(&r, k, dbuf + doff + pos * es);
            pos += kk;
        }
        vred_sparse_read(&r, 5, dbuf + doff + n * es); /* past the end: nothing */
        CHECK(memcmp(dbuf + doff, src, dense_b) == 0, "fmt %d reader differs", f);
        CHECK(guards_ok(dbuf, doff, dense_b), "fmt %d reader wrote outside", f);
        /* wrong n / esize / size: rejected, dst untouched */
        memset(dbuf, GB, dense_b + doff + GUARD);
        CHECK(vred_sparse_unpack(pk, sz, n + 1, es, dbuf) == -1, "fmt %d n+1 accepted", f);
        if (n) CHECK(vred_sparse_unpack(pk, sz, n - 1, es, dbuf) == -1, "fmt %d n-1 accepted", f);
        CHECK(vred_sparse_unpack(pk, sz, n, es + 1, dbuf) == -1, "fmt %d esize+1 accepted", f);
        CHECK(vred_sparse_unpack(pk, sz - 1, n, es, dbuf) == -1, "fmt %d truncated accepted", f);
        CHECK(guards_ok(dbuf, 0, 0), "fmt %d rejected unpack wrote", f);
        free(pbase);
        free(dbuf);
    }
    free(ref);
}

/* Corrupted messages of one valid source. */
static void malformed(size_t n, size_t es)
{
    unsigned char *src = xmalloc(n * es + 1);
    size_t nnz = gen(src, n, es, 300, 0);
    if (nnz < 3) { free(src); return; }
    unsigned char *dst = xmalloc(n * es + 1);
    for (int f = VRED_FMT_DENSE; f <= VRED_FMT_IDX; f++) {
        size_t sz = vred_sparse_packed_size((vred_sparse_fmt)f, n, es, nnz);
        unsigned char *good = xmalloc(sz);
        CHECK(vred_sparse_pack((vred_sparse_fmt)f, src, n, es, nnz, good) == sz, "pack");
        unsigned char *bad = xmalloc(sz + 64);
        unsigned char *base;
#define TRY(desc, bytes, mutate)                                                              \
        do {                                                                                  \
            memcpy(bad, good, sz);                                                            \
            mutate;                                                                           \
            unsigned char *p = exact_copy(bad, (bytes), 3, &base);                            \
            CHECK(vred_sparse_unpack(p, (bytes), n, es, dst) == -1, "fmt %d: %s accepted", f, desc); \
            vred_sparse_reader rr;                                                            \
            CHECK(vred_sparse_reader_init(&rr, p, (bytes), n, es) == -1, "fmt %d: reader %s", f, desc); \
            free(base);                                                                       \
        } while (0)
        uint64_t v64;
        uint32_t v32;
        TRY("empty", 0, (void)0);
        TRY("header only", 31, (void)0);
        TRY("truncated", sz - 1, (void)0);
        TRY("trailing byte", sz + 1, bad[sz] = 0);
        TRY("bad magic", sz, bad[0] ^= 1);
        TRY("bad format", sz, bad[4] = 3);
        TRY("bad version", sz, bad[5] = 2);
        TRY("reserved set", sz, bad[13] = 1);
        TRY("wrong esize", sz, (v32 = (uint32_t)es + 1, memcpy(bad + 8, &v32, 4)));
        TRY("wrong n", sz, (v64 = n + 1, memcpy(bad + 16, &v64, 8)));
        TRY("nnz > n", sz, (v64 = n + 1, memcpy(bad + 24, &v64, 8)));
        TRY("huge nnz", sz, (v64 = ~0ull, memcpy(bad + 24, &v64, 8)));
        if (f != VRED_FMT_DENSE)
            TRY("nnz-1 with same size", sz, (v64 = nnz - 1, memcpy(bad + 24, &v64, 8)));
        if (f == VRED_FMT_BITS) {
            size_t mb = (n + 63) / 64 * 8;
            /* a zero bit turned on: popcount no longer nnz (the values would be over-read) */
            size_t z = 0;
            while (ref_nz(src + z * es, es)) z++;
            if (z < n) TRY("extra mask bit", sz, bad[32 + z / 8] |= (unsigned char)(1u << (z % 8)));
            /* one bit moved to a padding position */
            if (n % 64) {
                size_t s = 0;
                while (!ref_nz(src + s * es, es)) s++;
                TRY("padding bit", sz, (bad[32 + s / 8] &= (unsigned char)~(1u << (s % 8)),
                                        bad[32 + mb - 1] |= 0x80));
            }
        }
        if (f == VRED_FMT_IDX) {
            TRY("index == n", sz, (v32 = (uint32_t)n, memcpy(bad + 32 + 4 * (nnz - 1), &v32, 4)));
            TRY("index huge", sz, (v32 = 0xFFFFFFFFu, memcpy(bad + 32 + 4 * (nnz / 2), &v32, 4)));
            TRY("indices equal", sz, memcpy(bad + 32 + 4, bad + 32, 4));
            TRY("indices decreasing", sz, (memcpy(&v32, bad + 32 + 4, 4), memcpy(bad + 32, &v32, 4),
                                           v32 = 0, memcpy(bad + 32 + 4, &v32, 4)));
        }
#undef TRY
        free(bad);
        free(good);
    }
    /* bad arguments */
    CHECK(vred_sparse_pack(VRED_FMT_BITS, src, n, 0, 0, dst) == 0, "esize 0 packed");
    CHECK(vred_sparse_pack(VRED_FMT_BITS, src, n, es, n + 1, dst) == 0, "nnz > n packed");
    CHECK(vred_sparse_pack((vred_sparse_fmt)7, src, n, es, nnz, dst) == 0, "format 7 packed");
    CHECK(vred_sparse_unpack(NULL, 100, n, es, dst) == -1, "NULL message accepted");
    free(src);
    free(dst);
}

static void choose_rules(void)
{
    snprintf(ctx, sizeof ctx, "choose");
    size_t n = 1 << 20;
    CHECK(vred_sparse_choose(VRED_SPARSE_OFF, n, 4, 0, 1e9) == VRED_FMT_DENSE, "OFF");
    CHECK(vred_sparse_choose(VRED_SPARSE_BITS, n, 4, n / 2, 1e9) == VRED_FMT_BITS, "BITS forced");
    CHECK(vred_sparse_choose(VRED_SPARSE_BITS, n, 4, n, 1e9) == VRED_FMT_DENSE, "BITS larger than dense");
    CHECK(vred_sparse_choose(VRED_SPARSE_IDX, n, 4, n / 4, 1e9) == VRED_FMT_IDX, "IDX forced");
    CHECK(vred_sparse_choose(VRED_SPARSE_IDX, n, 4, n / 2, 1e9) == VRED_FMT_DENSE, "IDX larger than dense");
    CHECK(vred_sparse_choose(VRED_SPARSE_AUTO, n, 4, n, 1e9) == VRED_FMT_DENSE, "AUTO dense data");
    CHECK(vred_sparse_choose(VRED_SPARSE_AUTO, n, 4, 0, 1e9) != VRED_FMT_DENSE, "AUTO all zero");
    CHECK(vred_sparse_choose(VRED_SPARSE_AUTO, n, 4, n / 2, 1e6) == VRED_FMT_BITS, "AUTO slow link, half");
    CHECK(vred_sparse_choose(VRED_SPARSE_AUTO, n, 4, n / 1000, 1e6) == VRED_FMT_IDX, "AUTO slow link, 0.1%%");
    CHECK(vred_sparse_choose(VRED_SPARSE_AUTO, n, 4, n / 2, 1e15) == VRED_FMT_DENSE, "AUTO infinite link");
    CHECK(vred_sparse_choose(VRED_SPARSE_AUTO, n, 4, n / 1000, 0) == VRED_FMT_IDX, "AUTO no link rate");
    if (sizeof(size_t) > 4) {
        size_t big = (size_t)1 << 33;
        CHECK(vred_sparse_choose(VRED_SPARSE_IDX, big, 1, 1, 1e9) == VRED_FMT_DENSE, "IDX beyond 2^32");
        CHECK(vred_sparse_choose(VRED_SPARSE_AUTO, big, 1, 1, 1e9) != VRED_FMT_IDX, "AUTO IDX beyond 2^32");
        CHECK(vred_sparse_packed_size(VRED_FMT_IDX, big, 1, 1) == SIZE_MAX, "IDX size beyond 2^32");
    }
    CHECK(vred_sparse_packed_size(VRED_FMT_BITS, 10, 4, 11) == SIZE_MAX, "nnz > n size");
    CHECK(vred_sparse_packed_size(VRED_FMT_DENSE, SIZE_MAX / 2, 4, 0) == SIZE_MAX, "overflow size");
    CHECK(vred_sparse_packed_size(VRED_FMT_BITS, 65, 4, 2) == 32 + 16 + 8, "bits size");
    CHECK(vred_sparse_packed_size(VRED_FMT_IDX, 65, 4, 2) == 32 + 8 + 8, "idx size");
}

static const size_t esizes[] = {1, 2, 4, 8, 12, 16, 32, 3, 6, 24, 64, 100};
static const unsigned dens[] = {0, 10, 100, 500, 900, 1000};

static void sweep(const char *isa)
{
    size_t maxn = 200, maxes = 100;
    unsigned char *sb = xmalloc(maxn * maxes + 8);
    for (size_t e = 0; e < sizeof esizes / sizeof *esizes; e++) {
        size_t es = esizes[e];
        for (size_t n = 0; n <= maxn; n += (quick && n > 20) ? 7 : 1) {
            for (unsigned d = 0; d < 6; d++) {
                for (int cl = 0; cl < 2; cl++) {
                    size_t soff = (n + d + (size_t)cl) % 8, doff = (n * 3 + es + d) % 8;
                    if (quick && (n + d + (size_t)cl) % 3) continue;
                    snprintf(ctx, sizeof ctx, "%s esize %zu n %zu density %u/1000 %s soff %zu doff %zu",
                             isa, es, n, dens[d], cl ? "clustered" : "random", soff, doff);
                    size_t nnz = gen(sb + soff, n, es, dens[d], cl);
                    round_trip(sb + soff, n, es, nnz, doff);
                }
            }
        }
        snprintf(ctx, sizeof ctx, "%s malformed esize %zu", isa, es);
        malformed(77, es);
        malformed(128, es);
        malformed(1000, es);
    }
    free(sb);
    /* large, odd lengths */
    size_t bign = quick || no_long ? 100003 : 1000003;
    for (size_t e = 0; e < 7; e++) {
        size_t es = esizes[e];
        unsigned char *b = xmalloc(bign * es + 8);
        unsigned pms[] = {10, 500};
        for (int d = 0; d < 2; d++) {
            size_t off = (es + (size_t)d) % 8;
            snprintf(ctx, sizeof ctx, "%s large esize %zu n %zu density %u", isa, es, bign, pms[d]);
            size_t nnz = gen(b + off, bign, es, pms[d], d);
            round_trip(b + off, bign, es, nnz, (off + 5) % 8);
        }
        free(b);
    }
}

int main(void)
{
    const char *seed = getenv("VRED_TEST_SEED");
    if (seed) rng_state ^= strtoull(seed, NULL, 0) * 0x9e3779b97f4a7c15ull + 1;
    quick = getenv("VRED_TEST_QUICK") && atoi(getenv("VRED_TEST_QUICK"));
    no_long = getenv("VRED_TEST_LONG") && !atoi(getenv("VRED_TEST_LONG"));
    vred_isa best = vred_isa_best();
    printf("vred sparse test: best ISA %s%s%s\n", vred_isa_name(best),
           best == VRED_ISA_AVX512 && vred_cpu()->avx512_vbmi2 ? " (VBMI2)" : "",
           quick ? " (quick)" : "");
    if (best == VRED_ISA_SVE) printf("SVE vector length %u bits\n", vred_cpu()->sve_bits);
    choose_rules();
    /* every ISA of this build the CPU can run (those without sparse code run the scalar one) */
    const vred_isa *caps;
    size_t ncaps = vred_isa_ladder(&caps);
    for (size_t c = 0; c < ncaps; c++) {
        if (!vred_isa_supported(caps[c])) continue;
        if (vred_isa_cap(caps[c]) != VRED_OK) { CHECK(0, "cap to %s refused", vred_isa_name(caps[c])); continue; }
        printf("  ISA cap %s (active %s)\n", vred_isa_name(caps[c]), vred_isa_name(vred_isa_active()));
        long before = passed + failed;
        sweep(vred_isa_name(caps[c]));
        printf("    %ld checks\n", passed + failed - before);
    }
    vred_isa_cap(VRED_ISA_COUNT);
    printf("%ld checks: %ld passed, %ld failed\n", passed + failed, passed, failed);
    return failed ? 1 : 0;
}
