/*
 * Adaptive copy (see copy.h). Both copies are ours from LINE_MIN bytes up.
 *
 * The ordinary copy is not memcpy because the C library's choice of method depends on where
 * the buffers sit: glibc 2.36 copies 2 KiB to a few MiB with `rep movsb`, which on AMD Zen runs
 * at ~3.5 GB/s instead of ~55 when (dst - src) mod 4096 is 1..15 (a float buffer at 4 mod 64
 * against a page-aligned shared slice), and at 0.6-0.8x when it is 33..63 (measured on Zen 4,
 * docs/kernels.md "Alignment"). A loop of unaligned loads and 64-byte-aligned stores runs at the
 * same speed for every offset, and as fast as memcpy where memcpy is fast on Zen 4. On Zen 5
 * `rep movsb` is up to twice as fast where the destination is out of the private caches (it
 * writes whole lines without reading them first) and (dst - src) mod 4096 is not 1..63, but
 * not everywhere: made the ordinary copy of every collective, it sped up the allgather's copies
 * and slowed MA's at 16 MiB. So it serves where it was measured to pay: vred_copy_measured (the form this process
 * measured faster, string_chosen), and the bank stores' own timing (stores.h).
 *
 * The streaming copy is ours because the C library chooses streaming stores by copy size alone
 * (glibc: above ~3/4 of the shared cache), while the collectives know what the size cannot tell:
 * whether the destination is read again soon and how large the whole working set is.
 *
 * Streaming copy layout: ordinary stores (memcpy) up to the first 64-byte boundary of the
 * destination, then whole cache lines with streaming stores (a partial line written with
 * streaming stores would go through a write-combining buffer flushed half-full: slower than an
 * ordinary store), then the tail with memcpy. The source needs no alignment: unaligned loads
 * cost nothing extra when they do not cross a line, and little when they do. Copies below
 * NT_MIN are plain memcpy: the head and tail would dominate, and so small a destination is
 * cheap to keep in the cache anyway.
 */
#include "local/copy.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "config.h"
#include "kernels/dispatch.h"
#include "local/topo.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define NT_MIN 4096
/* Below this the ordinary copy is memcpy (its small-size paths use no `rep movsb`). */
#define LINE_MIN 256

#if defined(__x86_64__)
#ifdef VRED_HAVE_AVX512
/* copy_avx512.c: n a multiple of 64, dst 64-byte aligned. */
void vred_copy_stream_avx512(void *dst, const void *src, size_t n);
void vred_copy_lines_avx512(void *dst, const void *src, size_t n);
#endif

/* One line-copy loop per vector width, instantiated with ordinary (aligned) and streaming
 * stores: the two copies differ in nothing else. AVX2 is compiled here with a target attribute
 * (as sparse.c does) since it is a few lines; SSE2 is part of x86_64 and serves every CPU. */
#define LINES_AVX2(name, STORE)                                                                 \
    __attribute__((target("avx2"), noinline)) static void name(void *dst, const void *src,      \
                                                                size_t n)                       \
    {                                                                                           \
        char *d = dst;                                                                          \
        const char *s = src;                                                                    \
        for (size_t i = 0; i < n; i += 64)                                                      \
            for (size_t k = 0; k < 64; k += 32)                                                 \
                STORE((__m256i *)(void *)(d + i + k),                                           \
                      _mm256_loadu_si256((const __m256i *)(const void *)(s + i + k)));          \
    }
#define LINES_SSE2(name, STORE)                                                                 \
    static void name(void *dst, const void *src, size_t n)                                      \
    {                                                                                           \
        char *d = dst;                                                                          \
        const char *s = src;                                                                    \
        for (size_t i = 0; i < n; i += 64)                                                      \
            for (size_t k = 0; k < 64; k += 16)                                                 \
                STORE((__m128i *)(void *)(d + i + k),                                           \
                      _mm_loadu_si128((const __m128i *)(const void *)(s + i + k)));             \
    }
LINES_AVX2(lines_avx2, _mm256_store_si256)
LINES_AVX2(stream_avx2, _mm256_stream_si256)
LINES_SSE2(lines_sse2, _mm_store_si128)
LINES_SSE2(stream_sse2, _mm_stream_si128)

/* The line copies of each width, worst to best: the widest vectors the active ISA allows, so
 * VRED_ISA caps the copy as it caps the reductions (one knob to keep vred off 512-bit
 * registers). Chosen at start-up and when the cap changes (dispatch.h): no ISA test per call. */
typedef struct {
    void (*lines)(void *dst, const void *src, size_t n);  /* ordinary (aligned) stores */
    void (*stream)(void *dst, const void *src, size_t n); /* streaming stores */
} line_impl;

static const line_impl sse2 = {lines_sse2, stream_sse2}, avx2 = {lines_avx2, stream_avx2};
#ifdef VRED_HAVE_AVX512
static const line_impl avx512 = {vred_copy_lines_avx512, vred_copy_stream_avx512};
#endif
static const vred_isa_impl line_impls[] = {
    {VRED_ISA_SCALAR, NULL, &sse2}, /* SSE2 is part of x86_64: every CPU, whatever the cap */
    {VRED_ISA_AVX2, NULL, &avx2},
#ifdef VRED_HAVE_AVX512
    {VRED_ISA_AVX512, NULL, &avx512},
#endif
};
VRED_ISA_CHOICE(line_choice, line_impls, &sse2)

static void line_body(void *dst, const void *src, size_t n, int nt)
{
    const line_impl *m = vred_isa_chosen(&line_choice);
    (nt ? m->stream : m->lines)(dst, src, n);
}

/* The head up to dst's first 64-byte boundary and the tail after its last, with memcpy (under
 * 64 bytes each: no `rep movsb`), and the whole lines between with line_body. */
static void line_copy(unsigned char *d, const unsigned char *s, size_t n, int nt)
{
    size_t head = (size_t)(-(uintptr_t)d & 63); /* bytes to the next line boundary */
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    size_t body = n & ~(size_t)63;
    line_body(d, s, body, nt);
    memcpy(d + body, s + body, n - body);
}
#endif

#if defined(__x86_64__)
static void rep_movsb(void *dst, const void *src, size_t n)
{
    __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}
#endif

/* `rep movsb` on AMD Zen 2-4 runs at ~3.5 GB/s instead of ~55 where (dst - src) mod 4096 is
 * 1..15 and at 0.6-0.8x where it is 33..63 (the file comment); Zen 5 at about half its rate
 * there (256 KiB into destinations out of the private caches, skews 8-48: 4.4-4.8 us against
 * 2.1-2.9 at skews 0, 64 and 4080; into cached ones 2.8-3.1 against 2.1-2.3). So the string copy
 * is offered only outside 1..63; a shared slice can be placed to keep copies there
 * (bcast_pipe.c). */
int vred_copy_string(void *dst, const void *src, size_t n)
{
#if defined(__x86_64__)
    size_t skew = (size_t)((uintptr_t)dst - (uintptr_t)src) & 4095;
    if (n < LINE_MIN || (skew >= 1 && skew <= 63) || !vred_cpu()->erms) return 0;
    rep_movsb(dst, src, n);
    return 1;
#else
    (void)dst, (void)src, (void)n;
    return 0;
#endif
}

/*
 * Is the string copy slow at this skew ((dst - src) mod 4096)? Each skew 1..63 is measured at its
 * first question, in this process: SKEW_BYTES by `rep movsb` at skew 0 and at the skew, in cache,
 * SKEW_ROUNDS times each, alternating, the fastest of each; slow where the skewed copy takes more
 * than SKEW_SLOW times as long. Measured on the AVX2 EPYC (Zen 3, family 25 model 1): glibc's
 * memcpy of 256 KiB (`rep movsb`) at 1.9-2.1 GB/s against 35 at skews 1-31, 25-30 at 32-63;
 * process_vm_readv 1.6 against 8.3 GB/s at 1-31, 0.88-0.93x at 32-63; Zen 4: 1-15 slow. So the
 * window differs between CPUs of one family, and the answer is the CPU's.
 */
#if defined(__x86_64__)
enum { SKEW_BYTES = 16 << 10, SKEW_ROUNDS = 5 };
static const double SKEW_SLOW = 2.0;
static unsigned char skew_verdict[64]; /* 0 not measured, 1 fast, 2 slow */
static double seconds(void);

static int measure_skew(size_t skew)
{
    unsigned char *m = aligned_alloc(4096, 2 * SKEW_BYTES + 2 * 4096);
    if (!m) return 0;
    memset(m, 1, 2 * SKEW_BYTES + 2 * 4096);
    const unsigned char *src = m;
    unsigned char *dst = m + SKEW_BYTES + 4096; /* page-aligned, like src */
    double best[2] = {1e30, 1e30};
    for (int r = 0; r <= SKEW_ROUNDS; r++)
        for (int k = 0; k < 2; k++) {
            double t0 = seconds();
            rep_movsb(dst + (k ? skew : 0), src, SKEW_BYTES);
            double t = seconds() - t0;
            if (r && t < best[k]) best[k] = t; /* round 0 brings the lines in */
        }
    free(m);
    return best[1] > SKEW_SLOW * best[0];
}
#endif

int vred_copy_skew_slow(size_t skew)
{
    skew &= 4095;
    if (skew == 0 || skew > 63) return 0;
    vred_skew_mode mode = vred_config_get()->copy_skew;
    if (mode != VRED_SKEW_AUTO) return mode == VRED_SKEW_SLOW;
#if defined(__x86_64__)
    if (!vred_cpu()->erms) return 0;
    unsigned char v = __atomic_load_n(&skew_verdict[skew], __ATOMIC_RELAXED);
    if (!v) { /* two threads may both measure: each stores a valid answer */
        v = measure_skew(skew) ? 2 : 1;
        __atomic_store_n(&skew_verdict[skew], v, __ATOMIC_RELAXED);
    }
    return v == 2;
#else
    return 0; /* no string copy with this flaw here */
#endif
}

#if defined(__x86_64__)
/* vred_copy_measured's form from STRING_MIN bytes: vector stores, or the string copy where this
 * CPU runs it faster. Which one is the CPU's answer, so each process measures it once, at first
 * use: FORM_BUFS destinations of FORM_BYTES in turn (4 MiB: out of the private caches, as a
 * receive buffer is by the time a collective copies into it), each form FORM_ROUNDS times,
 * alternating, the fastest of each; the string copy is taken where it is clearly faster
 * (FORM_GAIN). On Zen 5 it copied 256 KiB so in 2.06 us against 4.02 for AVX-512 stores (it
 * writes whole lines without reading them first) and as fast into a cached destination; an
 * allgather of 1 MiB over 2 ranks, whose own block goes from the send to the receive buffer,
 * took 25.5 us instead of 29. */
enum { STRING_MIN = 4096, FORM_BYTES = 256 << 10, FORM_BUFS = 16, FORM_ROUNDS = 3 };
static const double FORM_GAIN = 1.05;
static int string_form = -1;   /* -1 not measured yet, 0 vector stores, 1 the string copy */
static double string_gain = 0; /* vector time / string time, as measured */

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int measure_form(void)
{
    if (!vred_cpu()->erms) return 0;
    size_t stride = FORM_BYTES + 4096;
    unsigned char *m = aligned_alloc(4096, stride * (FORM_BUFS + 1));
    if (!m) return 0;
    memset(m, 1, stride * (FORM_BUFS + 1));
    const unsigned char *src = m + stride * FORM_BUFS;
    double best[2] = {1e30, 1e30};
    for (int r = 0; r < FORM_ROUNDS; r++)
        for (int k = 0; k < 2; k++) {
            int f = (r + k) & 1; /* each round starts with the other form */
            double t0 = seconds();
            for (int b = 0; b < FORM_BUFS; b++) {
                unsigned char *d = m + stride * (size_t)b;
                if (!f || !vred_copy_string(d, src, FORM_BYTES)) line_copy(d, src, FORM_BYTES, 0);
            }
            double t = seconds() - t0;
            if (t < best[f]) best[f] = t;
        }
    free(m);
    double gain = best[1] > 0 ? best[0] / best[1] : 0;
    __atomic_store(&string_gain, &gain, __ATOMIC_RELAXED);
    return gain > FORM_GAIN;
}

static int string_chosen(void)
{
    int f = __atomic_load_n(&string_form, __ATOMIC_ACQUIRE);
    if (f < 0) { /* two threads may both measure: each stores a valid answer */
        f = measure_form();
        __atomic_store_n(&string_form, f, __ATOMIC_RELEASE);
    }
    return f;
}
#endif

void vred_copy_set_string_form(int form)
{
#if defined(__x86_64__)
    __atomic_store_n(&string_form, form < 0 ? -1 : form != 0, __ATOMIC_RELEASE);
#else
    (void)form;
#endif
}

int vred_copy_string_form(double *gain)
{
#if defined(__x86_64__)
    int f = string_chosen();
    if (gain) __atomic_load(&string_gain, gain, __ATOMIC_RELAXED);
    return f;
#else
    if (gain) *gain = 0;
    return 0;
#endif
}

void vred_copy(void *dst, const void *src, size_t n, int nt)
{
#if defined(__x86_64__)
    if (n >= (nt ? NT_MIN : LINE_MIN)) {
        line_copy(dst, src, n, nt != 0);
        return;
    }
#endif
    /* aarch64: STNP is only a hint (the cores may still allocate), and glibc's memcpy already
     * uses DC ZVA / wide pair stores for large copies; plain memcpy is the measured-safe choice. */
    (void)nt;
    if (n) memcpy(dst, src, n);
}

void vred_copy_measured(void *dst, const void *src, size_t n)
{
#if defined(__x86_64__)
    if (n >= STRING_MIN && string_chosen() && vred_copy_string(dst, src, n)) return;
#endif
    vred_copy(dst, src, n, 0);
}

void vred_copy_fence(void)
{
#if defined(__x86_64__)
    /* Streaming stores are weakly ordered: without this, a flag store could become visible to
     * another core before the data it announces. */
    _mm_sfence();
#elif defined(__aarch64__)
    /* Nothing streamed here (see vred_copy), but a caller may publish data from other threads'
     * stores too; a store barrier keeps the contract "earlier stores before later stores". */
    __asm__ volatile("dmb ishst" ::: "memory");
#else
    __atomic_thread_fence(__ATOMIC_RELEASE);
#endif
}

/* -1: VRED_NT decides; else a vred_nt_mode set at run time (benchmarks' ablations). */
static int mode_override = -1;

void vred_copy_set_mode(int mode)
{
    __atomic_store_n(&mode_override, mode, __ATOMIC_RELAXED);
}

/* Per thread: with MPI_THREAD_MULTIPLE two threads may run collectives of different classes at
 * once. */
static __thread int call_mode = -1;

void vred_copy_set_call_mode(int mode) { call_mode = mode; }

int vred_copy_mode(void)
{
    int m = __atomic_load_n(&mode_override, __ATOMIC_RELAXED);
    if (m < 0) m = (int)vred_config_get()->nt;
    return m == VRED_NT_AUTO && call_mode >= 0 ? call_mode : m;
}

int vred_copy_use_nt(int non_temporal, size_t working_set)
{
    switch ((vred_nt_mode)vred_copy_mode()) {
    case VRED_NT_OFF: return 0;
    case VRED_NT_ON: return non_temporal != 0;
    default:
        /* The paper's algorithm 1 as its text states it (the printed pseudo-code has the two
         * branches swapped): stream only data not read again soon, in a working set that does
         * not fit the cache anyway. */
        return non_temporal && working_set > vred_copy_cache_bytes();
    }
}

size_t vred_copy_cache_bytes(void)
{
    /* C = c' (+ p c'' when the last level does not hold copies of the private levels: then a
     * line lives in exactly one of them, and the private caches add to the capacity). Unknown
     * inclusiveness counts as inclusive: the smaller C, so streaming starts at worst a little
     * early, while a C too large would keep ordinary stores evicting dirty lines. */
    static size_t c; /* races only write the same value */
    size_t v = __atomic_load_n(&c, __ATOMIC_RELAXED);
    if (v) return v;
    const vred_topo *t = vred_topo_get();
    v = t->llc_bytes;
    if (t->llc_inclusive == 0) v += t->private_bytes * (size_t)t->cores_per_llc;
    __atomic_store_n(&c, v, __ATOMIC_RELAXED);
    return v;
}
