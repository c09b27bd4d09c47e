/*
 * libFuzzer harness for sparse pack/unpack (src/local/sparse.c), two modes picked by the first
 * byte:
 *
 * round trip (even): the input's bytes are the dense elements; every format, with the non-zero
 *   count given, unknown, and one too small, must pack to exactly the bytes of an independent
 *   encoder (the layout in sparse.h), never write past its size, and unpack (whole or streamed in
 *   fuzzed blocks) to the input again.
 * decode (odd): the input is a message off the wire, unpacked for the n and element size its
 *   header claims (or one off). Rejected: the destination is untouched and the streaming reader
 *   rejects it too. Accepted: the reader gives the same elements, and when every packed element
 *   is non-zero (a canonical message) packing the result again gives back the same bytes.
 *
 * Header bytes: [0] mode  [1] element size  [2] ISA cap  [3] source / destination byte offsets
 * [4] zero pattern  [5..6] streaming block seed  [7] decode: which expectation to skew.
 * Every buffer ends exactly where its allocation does, so ASan sees any access past it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "kernel.h"
#include "local/sparse.h"
#include "vred.h"

enum { HEADER = 8, MAX_ELEMS = 1 << 14 };

#define REQUIRE(c, ...)                                                                       \
    do {                                                                                      \
        if (!(c)) {                                                                           \
            fprintf(stderr, "FAILED %s:%d: ", __FILE__, __LINE__);                            \
            fprintf(stderr, __VA_ARGS__);                                                     \
            fprintf(stderr, "\n");                                                            \
            abort();                                                                          \
        }                                                                                     \
    } while (0)

static unsigned char *xmalloc(size_t b)
{
    unsigned char *p = malloc(b ? b : 1);
    if (!p) abort();
    return p;
}

/* A copy of p[0..bytes) at offset off of an allocation that ends right after it; the bytes
 * before it hold 0xa5. */
static unsigned char *exact(const void *p, size_t bytes, size_t off, unsigned char **base)
{
    *base = xmalloc(off + bytes);
    memset(*base, 0xa5, off);
    if (bytes) memcpy(*base + off, p, bytes);
    return *base + off;
}

static int untouched(const unsigned char *p, size_t bytes, unsigned char v)
{
    for (size_t i = 0; i < bytes; i++)
        if (p[i] != v) return 0;
    return 1;
}

static int nz(const unsigned char *p, size_t es)
{
    for (size_t b = 0; b < es; b++)
        if (p[b]) return 1;
    return 0;
}

/* The layout of sparse.h, written out plainly. */
static size_t ref_pack(vred_sparse_fmt f, const unsigned char *src, size_t n, size_t es,
                       unsigned char *out)
{
    size_t nnz = 0;
    for (size_t i = 0; i < n; i++) nnz += (size_t)nz(src + i * es, es);
    uint32_t magic = 0x50535256u, e32 = (uint32_t)es, z = 0;
    uint64_t n64 = n, nnz64 = nnz;
    unsigned char fv[4] = {(unsigned char)f, 1, 0, 0};
    memcpy(out, &magic, 4); memcpy(out + 4, fv, 4); memcpy(out + 8, &e32, 4);
    memcpy(out + 12, &z, 4); memcpy(out + 16, &n64, 8); memcpy(out + 24, &nnz64, 8);
    unsigned char *b = out + 32;
    if (f == VRED_FMT_DENSE) {
        if (n) memcpy(b, src, n * es);
        return 32 + n * es;
    }
    size_t aux = f == VRED_FMT_BITS ? (n + 63) / 64 * 8 : 4 * nnz;
    memset(b, 0, aux);
    unsigned char *v = b + aux;
    size_t c = 0;
    for (size_t i = 0; i < n; i++) {
        if (!nz(src + i * es, es)) continue;
        if (f == VRED_FMT_BITS) b[i / 8] |= (unsigned char)(1u << (i % 8));
        else { uint32_t ix = (uint32_t)i; memcpy(b + 4 * c, &ix, 4); }
        memcpy(v + c * es, src + i * es, es);
        c++;
    }
    return 32 + aux + nnz * es;
}

/* Streams the message through a reader in block sizes drawn from seed; 0 if init refused. */
static int stream(const unsigned char *msg, size_t bytes, size_t n, size_t es, unsigned seed,
                  unsigned char *dst)
{
    vred_sparse_reader r;
    if (vred_sparse_reader_init(&r, msg, bytes, n, es) != 0) return 0;
    size_t pos = 0;
    while (pos < n) {
        seed = seed * 1103515245u + 12345u;
        size_t k = (seed >> 16) % 4 == 0 ? (seed >> 8) % 8 : 1 + (seed >> 8) % 300;
        size_t kk = k > n - pos ? n - pos : k;
        vred_sparse_read(&r, k, dst + pos * es);
        pos += kk;
    }
    vred_sparse_read(&r, 3, dst + pos * es); /* past the end: nothing */
    return 1;
}

static void round_trip(const unsigned char *src, size_t n, size_t es, size_t doff, unsigned seed)
{
    size_t nnz = 0, dense = n * es;
    for (size_t i = 0; i < n; i++) nnz += (size_t)nz(src + i * es, es);
    REQUIRE(vred_sparse_nonzeros(src, n, es) == nnz, "nonzeros, esize %zu n %zu", es, n);
    unsigned char *ref = xmalloc(32 + (n + 63) / 64 * 8 + n * (es + 4));
    for (int f = VRED_FMT_DENSE; f <= VRED_FMT_IDX; f++) {
        size_t sz = vred_sparse_packed_size((vred_sparse_fmt)f, n, es, nnz);
        size_t rsz = ref_pack((vred_sparse_fmt)f, src, n, es, ref);
        REQUIRE(sz == rsz, "fmt %d packed_size %zu, reference %zu (esize %zu n %zu)", f, sz, rsz, es, n);
        for (int unknown = 0; unknown < 2; unknown++) {
            size_t room = unknown ? vred_sparse_packed_size((vred_sparse_fmt)f, n, es, n) : sz;
            unsigned char *base = xmalloc(doff + room), *buf = base + doff;
            memset(base, 0xa5, doff + room);
            size_t got = vred_sparse_pack((vred_sparse_fmt)f, src, n, es,
                                          unknown ? VRED_SPARSE_NNZ_UNKNOWN : nnz, buf);
            REQUIRE(got == sz, "fmt %d unknown %d: pack gave %zu, want %zu (esize %zu n %zu)", f,
                    unknown, got, sz, es, n);
            REQUIRE(memcmp(buf, ref, sz) == 0, "fmt %d unknown %d: packed bytes differ (esize %zu n %zu)",
                    f, unknown, es, n);
            REQUIRE(untouched(base, doff, 0xa5), "fmt %d: pack wrote before dst", f);
            free(base);
        }
        if (nnz > 0) {
            /* one non-zero too few declared: refused (DENSE records it), nothing past its size */
            size_t small = vred_sparse_packed_size((vred_sparse_fmt)f, n, es, nnz - 1);
            unsigned char *buf = xmalloc(small);
            size_t got = vred_sparse_pack((vred_sparse_fmt)f, src, n, es, nnz - 1, buf);
            REQUIRE(f == VRED_FMT_DENSE ? got == small : got == 0, "fmt %d: short count gave %zu", f, got);
            free(buf);
        }
        unsigned char *mbase, *msg = exact(ref, sz, (doff * 3 + 1) % 8, &mbase);
        unsigned char *dbase = xmalloc(doff + dense), *dst = dbase + doff;
        memset(dbase, 0xa5, doff + dense);
        REQUIRE(vred_sparse_unpack(msg, sz, n, es, dst) == 0, "fmt %d: unpack refused", f);
        REQUIRE(dense == 0 || memcmp(dst, src, dense) == 0, "fmt %d: unpack differs (esize %zu n %zu)", f, es, n);
        REQUIRE(untouched(dbase, doff, 0xa5), "fmt %d: unpack wrote before dst", f);
        memset(dbase, 0xa5, doff + dense);
        REQUIRE(stream(msg, sz, n, es, seed, dst), "fmt %d: reader refused", f);
        REQUIRE(dense == 0 || memcmp(dst, src, dense) == 0, "fmt %d: reader differs (esize %zu n %zu)", f, es, n);
        /* a wrong expectation or a truncated message: refused, dst untouched */
        memset(dbase, 0xa5, doff + dense);
        REQUIRE(vred_sparse_unpack(msg, sz, n + 1, es, dst) == -1, "fmt %d: n+1 accepted", f);
        REQUIRE(vred_sparse_unpack(msg, sz, n, es + 1, dst) == -1, "fmt %d: esize+1 accepted", f);
        REQUIRE(vred_sparse_unpack(msg, sz - 1, n, es, dst) == -1, "fmt %d: truncated accepted", f);
        REQUIRE(untouched(dbase, doff + dense, 0xa5), "fmt %d: a refused unpack wrote", f);
        free(mbase);
        free(dbase);
    }
    free(ref);
}

static void decode(const unsigned char *data, size_t bytes, unsigned skew, unsigned seed)
{
    if (bytes < 32) {
        unsigned char d[8];
        REQUIRE(vred_sparse_unpack(data, bytes, 1, 1, d) == -1, "a %zu-byte message accepted", bytes);
        return;
    }
    uint32_t e32;
    uint64_t n64;
    memcpy(&e32, data + 8, 4);
    memcpy(&n64, data + 16, 8);
    size_t es = e32, n = (size_t)n64;
    if (skew % 4 == 1) n++;
    if (skew % 4 == 2) es++;
    if (skew % 4 == 3 && n) n--;
    if (es == 0 || es > 4096 || n > MAX_ELEMS || n * es > (1u << 20)) return;
    size_t dense = n * es;
    unsigned char *mbase, *msg = exact(data, bytes, skew / 4 % 8, &mbase);
    unsigned char *dst = xmalloc(dense), *dst2 = xmalloc(dense);
    memset(dst, 0xa5, dense);
    int rc = vred_sparse_unpack(msg, bytes, n, es, dst);
    REQUIRE(rc == 0 || rc == -1, "unpack returned %d", rc);
    if (rc != 0) {
        REQUIRE(untouched(dst, dense, 0xa5), "a refused unpack wrote");
        vred_sparse_reader r;
        REQUIRE(vred_sparse_reader_init(&r, msg, bytes, n, es) == -1, "the reader accepts what unpack refused");
    } else {
        REQUIRE(stream(msg, bytes, n, es, seed, dst2), "the reader refuses what unpack accepted");
        REQUIRE(dense == 0 || memcmp(dst, dst2, dense) == 0, "reader and unpack disagree");
        uint64_t nnz64;
        memcpy(&nnz64, msg + 24, 8);
        if (vred_sparse_nonzeros(dst, n, es) == nnz64) {
            unsigned char *again = xmalloc(bytes);
            size_t got = vred_sparse_pack((vred_sparse_fmt)msg[4], dst, n, es, (size_t)nnz64, again);
            REQUIRE(got == bytes && memcmp(again, msg, bytes) == 0,
                    "a canonical message (fmt %u esize %zu n %zu) does not pack back to itself", msg[4], es, n);
            free(again);
        }
    }
    free(mbase);
    free(dst);
    free(dst2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t common[] = {1, 2, 4, 8, 12, 16, 32, 64, 3, 6, 24, 100};
    if (size < HEADER) return 0;
    const vred_isa *ladder;
    size_t nl = vred_isa_ladder(&ladder);
    vred_isa cap = ladder[data[2] % nl];
    if (!vred_isa_supported(cap)) cap = VRED_ISA_COUNT;
    REQUIRE(vred_isa_cap(cap) == VRED_OK, "cap %s refused", vred_isa_name(cap));
    unsigned seed = (unsigned)(data[5] | data[6] << 8);
    const unsigned char *body = data + HEADER;
    size_t nbody = size - HEADER;
    if (data[0] & 1) {
        decode(body, nbody, data[7], seed);
        return 0;
    }
    size_t es = data[1] < 192 ? common[data[1] % 12] : 1 + (size_t)data[1] % 64;
    size_t n = nbody / es;
    if (n > MAX_ELEMS) n = MAX_ELEMS;
    size_t soff = data[3] & 7, doff = (size_t)(data[3] >> 4) & 7;
    unsigned char *base, *src = exact(body, n * es, soff, &base);
    /* zero patterns the fuzzer reaches in one byte: elements whose first byte is even, and
     * runs of 2^k elements */
    for (size_t i = 0; i < n; i++) {
        int zero = ((data[4] & 1) && !(src[i * es] & 1)) ||
                   ((data[4] & 2) && ((i >> (data[4] >> 5)) & 1));
        if (zero) memset(src + i * es, 0, es);
    }
    round_trip(src, n, es, doff, seed);
    free(base);
    return 0;
}
