/*
 * The adaptive copy (src/local/copy.c) and the topology it sizes C from (src/local/topo.c).
 *
 * Copies: every length 0..1100 at every (src, dst) misalignment 0..63, lengths around the
 * streaming threshold (4 KiB, where the head / body / tail split starts), and a few large ones
 * (64 KiB + 7, 1 MiB + 3) at sampled misalignments; ordinary and streaming, under every ISA cap
 * the CPU supports (the streaming body is SSE2, AVX2 or AVX-512 by the cap). Each copy must give
 * the source's bytes and write nothing outside [dst, dst + n): 64 guard bytes either side.
 *
 * The measured copy (vred_copy_measured, nt = -1 below) gets the ordinary copy's checks, twice:
 * with its form pinned to vector stores and to the string copy (vred_copy_set_string_form); the
 * form measured must be 0 or 1, the string copy only on a CPU with fast strings (x86_64),
 * measured there.
 *
 * The string copy (vred_copy_string): where it copies, the same checks at every misalignment pair
 * for lengths around its 256-byte floor and a few large ones; it must refuse below 256 bytes,
 * where (dst - src) mod 4096 is 1..63, and wherever the CPU reports no fast strings (or is not
 * x86_64), and copy everywhere else on a CPU that does.
 *
 * The skew question (vred_copy_skew_slow): never slow at skews 0 and from 64 on, an answer that
 * does not change when asked again, every skew 1..63 slow under VRED_COPY_SKEW=slow and none
 * under fast, none off x86_64 or without fast strings. `test_copy skew` runs this part alone
 * (the tests under each VRED_COPY_SKEW).
 *
 * The rule: with VRED_NT unset (auto), use_nt(0, huge) = 0, use_nt(1, 1) = 0, use_nt(1, 1 TiB)
 * = 1; with VRED_NT=on/off the overrides. The topology: sizes > 0, sockets >= 1, my socket in
 * range, C >= the last-level cache.
 *
 * VRED_TEST_QUICK=1 thins the sweep (emulators, sanitizers).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "dispatch.h"
#include "kernel.h"
#include "local/copy.h"
#include "local/topo.h"
#include "vred.h"

static long passed, failed;
static int quick;

#include "check.h"

#define GUARD 64
#define GUARD_BYTE 0xa5

static unsigned char *srcbuf, *dstbuf;
static size_t bufsize;

/* One copy of n bytes from srcbuf + 64 + so to dstbuf + 64 + do_; checks data and guards. */
static void one(size_t n, size_t so, size_t doff, int nt)
{
    const unsigned char *s = srcbuf + GUARD + so;
    unsigned char *d = dstbuf + GUARD + doff;
    /* guards and the destination itself: a byte the copy skips shows as GUARD_BYTE ^ 0x5a... */
    memset(dstbuf + doff, GUARD_BYTE, n + 2 * GUARD);
    if (nt < 0) vred_copy_measured(d, s, n);
    else vred_copy(d, s, n, nt);
    vred_copy_fence();
    int ok = memcmp(d, s, n) == 0;
    CHECK(ok, "n=%zu src+%zu dst+%zu nt=%d: data differs", n, so, doff, nt);
    int guard_ok = 1;
    for (size_t i = 0; i < GUARD; i++)
        guard_ok &= d[-1 - (ptrdiff_t)i] == GUARD_BYTE && d[n + i] == GUARD_BYTE;
    CHECK(guard_ok, "n=%zu src+%zu dst+%zu nt=%d: wrote outside [dst, dst+n)", n, so, doff, nt);
}

static void sweep(int small)
{
    /* small: every length, every misalignment pair (quick: a diagonal and a few rows) */
    for (size_t n = 0; small && n <= 1100; n += quick ? 7 : 1)
        for (size_t so = 0; so < 64; so++)
            for (size_t d = 0; d < 64; d++) {
                if (quick && so != d && so != (d * 13 + n) % 64 && d != 0) continue;
                one(n, so, d, 0);
                one(n, so, d, 1);
                one(n, so, d, -1);
            }
    /* around the streaming threshold and one line over: every head/tail combination */
    for (size_t n = 4096 - 80; n <= 4096 + 200; n += quick ? 13 : 1)
        for (size_t so = 0; so < 64; so += quick ? 21 : 5)
            for (size_t d = 0; d < 64; d++) one(n, so, d, 1);
    /* large: sampled misalignments */
    static const size_t big[] = {8191, 65536 + 7, (1u << 20) + 3};
    for (size_t b = 0; b < sizeof big / sizeof *big; b++)
        for (size_t so = 0; so < 64; so += quick ? 31 : 9)
            for (size_t d = 0; d < 64; d += quick ? 17 : 7) {
                one(big[b], so, d, 0);
                one(big[b], so, d, 1);
                one(big[b], so, d, -1);
            }
}

/* Copies from a source that is a whole allocation of its own, so that under AddressSanitizer a
 * load of one byte before or after it fails the test: the AVX-512 line copy reads whole aligned
 * source lines when the source sits some dwords past a line (copy_avx512.c), and must not read
 * the lines around the buffer. Every destination offset, so every shift of the source against
 * the destination's line comes up. */
static void exact_source(void)
{
    static const size_t lens[] = {256, 300, 511, 4096 + 28, 65536 + 12};
    for (size_t l = 0; l < sizeof lens / sizeof *lens; l++) {
        size_t n = lens[l];
        unsigned char *src = malloc(n);
        if (!src) continue;
        memcpy(src, srcbuf, n);
        for (size_t d = 0; d < 64; d++)
            for (int nt = 0; nt < 2; nt++) {
                unsigned char *dst = dstbuf + GUARD + d;
                vred_copy(dst, src, n, nt);
                vred_copy_fence();
                CHECK(memcmp(dst, src, n) == 0, "exact source n=%zu dst+%zu nt=%d: data differs", n, d, nt);
            }
        free(src);
    }
}

/* One string copy, as one() checks a vred_copy: data and guards where it copies, the offer
 * (copied or not) as the rule says, and nothing written where it refuses. */
static void one_string(size_t n, size_t so, size_t doff)
{
    const unsigned char *s = srcbuf + GUARD + so;
    unsigned char *d = dstbuf + GUARD + doff;
    memset(dstbuf + doff, GUARD_BYTE, n + 2 * GUARD);
    size_t skew = (size_t)((uintptr_t)d - (uintptr_t)s) & 4095;
#if defined(__x86_64__)
    int offered = n >= 256 && !(skew >= 1 && skew <= 63) && vred_cpu()->erms;
#else
    int offered = 0;
#endif
    int copied = vred_copy_string(d, s, n);
    CHECK(copied == offered, "string n=%zu src+%zu dst+%zu (skew %zu): copied %d, expected %d", n,
          so, doff, skew, copied, offered);
    int untouched = 1;
    for (size_t i = 0; i < n + 2 * GUARD && !copied; i++) untouched &= dstbuf[doff + i] == GUARD_BYTE;
    CHECK(untouched, "string n=%zu src+%zu dst+%zu: refused but wrote", n, so, doff);
    if (!copied) return;
    CHECK(memcmp(d, s, n) == 0, "string n=%zu src+%zu dst+%zu: data differs", n, so, doff);
    int guard_ok = 1;
    for (size_t i = 0; i < GUARD; i++)
        guard_ok &= d[-1 - (ptrdiff_t)i] == GUARD_BYTE && d[n + i] == GUARD_BYTE;
    CHECK(guard_ok, "string n=%zu src+%zu dst+%zu: wrote outside [dst, dst+n)", n, so, doff);
}

/* The string copy: both buffers 64-aligned here, so (dst - src) mod 4096 is the offsets'
 * difference plus the buffers' own distance mod 4096; offsets 0..127 reach skews 0..63 (refused
 * from 1) and 64..127 (offered) from either side. */
static void sweep_string(void)
{
    static const size_t lens[] = {0, 1, 255, 256, 257, 4095, 65536 + 7, (1u << 20) + 3};
    for (size_t b = 0; b < sizeof lens / sizeof *lens; b++)
        for (size_t so = 0; so < 128; so += quick ? 19 : 3)
            for (size_t d = 0; d < 128; d += quick ? 23 : 5)
                if (lens[b] + d + 2 * GUARD <= bufsize && lens[b] + so + GUARD <= bufsize)
                    one_string(lens[b], so, d);
#if defined(__x86_64__)
    printf("  string copy: fast strings %s\n", vred_cpu()->erms ? "reported" : "not reported");
#endif
}

static void check_rule(void)
{
    vred_nt_mode mode = vred_config_get()->nt;
    size_t c = vred_copy_cache_bytes();
    size_t huge = (size_t)1 << 40;
    printf("  C = %zu bytes, VRED_NT mode %d\n", c, (int)mode);
    CHECK(c >= vred_topo_get()->llc_bytes, "C %zu below the LLC", c);
    CHECK(vred_copy_cache_bytes() == c, "C changes between calls");
    if (mode == VRED_NT_AUTO) {
        CHECK(vred_copy_use_nt(0, huge) == 0, "auto: temporal data must not stream");
        CHECK(vred_copy_use_nt(1, 1) == 0, "auto: a 1-byte working set must not stream");
        CHECK(vred_copy_use_nt(1, huge) == 1, "auto: non-temporal data in 1 TiB must stream");
        CHECK(vred_copy_use_nt(1, c) == 0, "auto: W = C fits the cache");
        CHECK(vred_copy_use_nt(1, c + 1) == 1, "auto: W = C + 1 does not fit");
    } else if (mode == VRED_NT_ON) {
        CHECK(vred_copy_use_nt(1, 1) == 1 && vred_copy_use_nt(0, huge) == 0, "VRED_NT=on");
    } else {
        CHECK(vred_copy_use_nt(1, huge) == 0 && vred_copy_use_nt(0, huge) == 0, "VRED_NT=off");
    }
}

static void check_topo(void)
{
    const vred_topo *t = vred_topo_get();
    int me = vred_topo_my_socket();
    printf("  topology: LLC %zu B (inclusive %d, %d cores share it), private %zu B, %d cores, "
           "%d socket(s), mine %d\n",
           t->llc_bytes, t->llc_inclusive, t->cores_per_llc, t->private_bytes, t->cores,
           t->sockets, me);
    CHECK(t == vred_topo_get(), "vred_topo_get: one table");
    CHECK(t->llc_bytes > 0 && t->private_bytes > 0, "cache sizes");
    CHECK(t->llc_inclusive >= -1 && t->llc_inclusive <= 1, "inclusive %d", t->llc_inclusive);
    CHECK(t->cores >= 1 && t->cores_per_llc >= 1 && t->cores_per_llc <= t->cores, "cores");
    CHECK(t->sockets >= 1, "sockets %d", t->sockets);
    CHECK(me >= -1 && me < t->sockets, "my socket %d", me);
}

static void check_skew(void)
{
    vred_skew_mode mode = vred_config_get()->copy_skew;
    static const size_t never[] = {0, 64, 65, 100, 2048, 4095, 4096, 4096 + 64};
    for (size_t i = 0; i < sizeof never / sizeof never[0]; i++)
        CHECK(!vred_copy_skew_slow(never[i]), "skew %zu slow", never[i]);
    char slow[64 * 4] = "";
    size_t len = 0;
    for (size_t k = 1; k < 64; k++) {
        int v = vred_copy_skew_slow(k);
        CHECK(v == 0 || v == 1, "skew %zu: %d", k, v);
        CHECK(vred_copy_skew_slow(k) == v && vred_copy_skew_slow(k + 4096) == v,
              "skew %zu: another answer when asked again", k);
        if (mode == VRED_SKEW_SLOW) CHECK(v == 1, "skew %zu fast under VRED_COPY_SKEW=slow", k);
        if (mode == VRED_SKEW_FAST) CHECK(v == 0, "skew %zu slow under VRED_COPY_SKEW=fast", k);
#if defined(__x86_64__)
        if (mode == VRED_SKEW_AUTO && !vred_cpu()->erms) CHECK(v == 0, "skew %zu slow without fast strings", k);
#else
        if (mode == VRED_SKEW_AUTO) CHECK(v == 0, "skew %zu slow off x86_64", k);
#endif
        if (v && len < sizeof slow - 8) len += (size_t)snprintf(slow + len, sizeof slow - len, " %zu", k);
    }
    printf("  string copy slow at skews:%s (VRED_COPY_SKEW mode %d)\n", len ? slow : " none", (int)mode);
}

int main(int argc, char **argv)
{
    quick = getenv("VRED_TEST_QUICK") && atoi(getenv("VRED_TEST_QUICK"));
    if (argc > 1 && !strcmp(argv[1], "skew")) {
        check_skew();
        printf("%ld checks: %ld passed, %ld failed\n", passed + failed, passed, failed);
        return failed ? 1 : 0;
    }
    printf("vred copy test: best ISA %s%s\n", vred_isa_name(vred_isa_best()), quick ? " (quick)" : "");
    bufsize = (1u << 20) + 3 + 2 * GUARD + 128;
    srcbuf = aligned_alloc(4096, bufsize + 4096 - bufsize % 4096);
    dstbuf = aligned_alloc(4096, bufsize + 4096 - bufsize % 4096);
    if (!srcbuf || !dstbuf) return printf("out of memory\n"), 1;
    for (size_t i = 0; i < bufsize; i++) srcbuf[i] = (unsigned char)(i * 251 + (i >> 8) * 7 + 1);

    check_topo();
    check_rule();
    check_skew();
    /* every ISA the CPU runs: the cap picks the streaming body (SSE2 below AVX2) */
    const vred_isa *caps;
    size_t ncaps = vred_isa_ladder(&caps);
    for (size_t c = 0; c < ncaps; c++) {
        if (!vred_isa_supported(caps[c])) continue;
        if (vred_isa_cap(caps[c]) != VRED_OK) continue;
        /* both forms of the measured copy from 4 KiB: vector stores and, where offered, the
         * string copy (copy.h: the process measures which one it uses) */
        for (int form = 0; form < 2; form++) {
            long before = passed + failed;
            vred_copy_set_string_form(form);
            /* below the threshold no ISA is involved: the small lengths once, under the first cap */
            sweep(c == 0 && form == 0);
            exact_source();
            printf("  ISA cap %s, measured copy as %s: %ld checks\n", vred_isa_name(caps[c]),
                   form ? "string where offered" : "vector stores", passed + failed - before);
        }
    }
    vred_isa_cap(VRED_ISA_COUNT);
    /* the measured form: a valid answer, and the string copy only where the CPU offers it */
    vred_copy_set_string_form(-1);
    double gain = -1;
    int form = vred_copy_string_form(&gain);
    printf("  measured copy from 4 KiB: %s (vector / string time %.2f)\n",
           form ? "the string copy" : "vector stores", gain);
    CHECK(form == 0 || form == 1, "string form %d", form);
#if defined(__x86_64__)
    CHECK(!form || vred_cpu()->erms, "string copy chosen without fast strings");
    CHECK(!vred_cpu()->erms || gain > 0, "fast strings reported but the forms not measured");
#else
    CHECK(form == 0, "string copy chosen off x86_64");
#endif
    long before = passed + failed;
    sweep_string();
    printf("  string copy: %ld checks\n", passed + failed - before);
    free(srcbuf);
    free(dstbuf);
    printf("%ld checks: %ld passed, %ld failed\n", passed + failed, passed, failed);
    return failed ? 1 : 0;
}
