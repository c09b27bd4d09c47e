/*
 * From how many bytes the AVX2 and AVX-512 kernels read a shifted input in aligned lines
 * (avx2_realign.h, avx512_realign.h) rather than by split loads, learned on the CPU at hand.
 *
 * The trade: with an input off the stores' alignment, its loads split across two lines (every
 * second 32-byte load, every 64-byte one). Reading aligned lines and joining neighbours (AVX2:
 * a blend and VPERMD; AVX-512: VALIGND or a two-source permute) saves the splits but adds work
 * to every vector. Where L1 holds the data the split costs little and the join may cost more;
 * from L2 on the split costs more. Where that crossing lies depends on the core (its load
 * ports, its split penalty, its shuffle ports, its L1): on Zen 5 running the AVX2 kernels it
 * lay at 16 KiB (`fold` at 16 KiB: split 0.81-0.84x of aligned, lines 0.94-0.95x), while its
 * AVX-512 kernels gained from lines at every size (4 KiB: 19-22 ns against 24-31). The AVX2
 * kernels serve CPUs without AVX-512 (Zen 2 and 3, Intel client parts), the AVX-512 ones Intel
 * server parts as well as Zen 4 and 5: a bound measured on one core is not another's, so the
 * first call that asks measures it here.
 *
 * The AVX-512 pair form (8- and 16-byte elements 4 bytes past a line, avx512_realign.h) has
 * a bound of the same kind: from which size its loop takes four vectors a trip, each pair's
 * loads first, rather than two with the lines swapping roles. Zen 4 ran the first (then two a
 * trip, loads first) faster only from L2 on (the 32 KiB set by hand, for an earlier form of
 * the second loop); on Zen 5 (family 26 model 2, 2026-12-05, test_realign_from three times)
 * four a trip won by 14-32% at 4-16 KiB, lost 4-11% at 32 KiB and tied above: "every size".
 *
 * The AVX2 lines have two bounds: a join by a blend and VPERMD (a shift of 4..28 bytes but 16)
 * and one by VPERM2I128 (16 bytes, malloc's 16 mod 64 against a line), a third of its work. On
 * the Xeon guest (family 6 model 207, 2026-12-07) the first lost to split loads at every size
 * (split / lines 0.59-0.91 at 4-128 KiB, measured with the input 16 past a line, before the
 * second existed), where the second ties or wins (0.96-1.06). The first also gates the AVX2
 * pair form (doubles at 4 mod 8, avx2_realign.h).
 *
 * Where the output sits 1-63 bytes above the shifted input in its page (vred_simd_near_above),
 * a split load would also wait on the store just made (4 KiB aliasing), and the split loads take
 * the loop that loads a trip first (simd_body.h). The lines once served there at every size, as
 * Zen 5 measured; on the Xeon guest the AVX2 split loads won there by 1.5-2x in L1 (`local` at
 * 0/4, 4 KiB: 0.42-0.47x of aligned with the lines, 0.80-0.84x split). So those layouts have
 * bounds of their own (the _NEAR ones, kernel.h), measured alike with the input that many bytes
 * below the output in its page.
 *
 * The measurement: at 4-128 KiB, two sums of floats with the input 16 bytes past a line (the
 * misalignment malloc gives; 4 bytes for the AVX2 blend's bound; of doubles with both at 4 past
 * a line for the pair form): in place (`in` shifted, as MPI_Reduce_local on a user's buffers),
 * and into a third buffer with the shifted input second (as the collectives fold a user's
 * buffer with a page-aligned shared slice: `inout` shifted). Each size with the bound's form
 * forced on and forced off in turn, the fastest of ROUNDS each, the two shapes' times added. The
 * in-place sum alone had the AVX2 blend's lines from 32 KiB on the Xeon guest, where the fold
 * ran them at 0.82-0.89x of aligned against 0.97-1.02x split. The bound is the size from which the form
 * turned on loses least over the sizes measured (vred_realign_loss: the time either form
 * takes beyond the faster of the two, summed; ties go to the higher bound, the form without
 * the join): 1 where on from the smallest size loses least, SIZE_MAX where off everywhere
 * does. Not "from the first size where lines win": on Zen 5 the AVX-512 lines won by 14-22% at
 * 4-16 KiB and by 2-7% at 32 KiB, where the working set leaves L1, and such a rule once put
 * the bound at 64 KiB, above a noisy 32 KiB, against the lines everywhere below it. About
 * a millisecond per bound, once per process; every rank measures for itself, which is
 * harmless: both forms give the same bytes. VRED_REALIGN_FROM pins every bound.
 */
#include <fenv.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "config.h"
#include "kernels/kernel.h"

__thread int vred_realign_force __attribute__((tls_model("initial-exec")));
size_t vred_realign_from_bytes[VRED_REALIGN_ISAS]; /* the bounds in force; 0: not yet known */

enum { MIN_KIB = 4, SIZES = VRED_REALIGN_SIZES, ROUNDS = 9 };

/* Until a thread has measured: the bounds set by hand (the file comment). */
static const size_t default_from[VRED_REALIGN_ISAS] = {32 << 10, 1, 32 << 10, 32 << 10, 1, 1, 1};

static int learning[VRED_REALIGN_ISAS];            /* 1 once a thread has begun to measure */
static int how[VRED_REALIGN_ISAS];                 /* how the bound was set (kernel.h) */
static double ratio[VRED_REALIGN_ISAS][SIZES];     /* time off / time on (0: not measured) */

typedef void (*sum_fn)(const void *a, const void *b, void *o, size_t n);
#if defined(VRED_HAVE_AVX2)
void vred_sum_f32_avx2(const void *a, const void *b, void *o, size_t n);
#endif
#if defined(VRED_HAVE_AVX512)
void vred_sum_f32_avx512(const void *a, const void *b, void *o, size_t n);
void vred_sum_f64_avx512(const void *a, const void *b, void *o, size_t n);
#endif

/* What a bound is measured with: an in-place sum, the input and the output this many bytes
 * past a page. */
typedef struct {
    sum_fn sum; /* NULL: not in this build, or the CPU lacks the ISA */
    size_t in_off, io_off, esize;
} probe;

/* A _NEAR bound's probe: its base bound's, with the input `gap` bytes below the output in its
 * page instead (the output on a page, the input at 4096 - gap): shifted as before against its
 * lines (16 and 4 bytes off AVX2's 32-byte lines as 16 and 28, 16 off AVX-512's as 48). */
static probe probe_near(probe p, size_t gap)
{
    p.in_off = 4096 - gap;
    p.io_off = 0;
    return p;
}

static probe probe_for(vred_realign_isa which)
{
    if (which == VRED_REALIGN_AVX2_NEAR) return probe_near(probe_for(VRED_REALIGN_AVX2), 4);
    if (which == VRED_REALIGN_AVX2_HALF_NEAR) return probe_near(probe_for(VRED_REALIGN_AVX2_HALF), 16);
    if (which == VRED_REALIGN_AVX512_NEAR) return probe_near(probe_for(VRED_REALIGN_AVX512), 16);
    probe p = {NULL, 16, 0, 4};
#if defined(VRED_HAVE_AVX2)
    /* the AVX2 joins: by a blend and VPERMD at 4 bytes past a line, by VPERM2I128 at 16 */
    if (which == VRED_REALIGN_AVX2 && vred_isa_supported(VRED_ISA_AVX2))
        p = (probe){vred_sum_f32_avx2, 4, 0, 4};
    if (which == VRED_REALIGN_AVX2_HALF && vred_isa_supported(VRED_ISA_AVX2))
        p.sum = vred_sum_f32_avx2;
#endif
#if defined(VRED_HAVE_AVX512)
    if (which == VRED_REALIGN_AVX512 && vred_isa_supported(VRED_ISA_AVX512))
        p.sum = vred_sum_f32_avx512;
    if (which == VRED_REALIGN_PAIR && vred_isa_supported(VRED_ISA_AVX512))
        p = (probe){vred_sum_f64_avx512, 4, 4, 8};
#endif
    (void)which;
    return p;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Seconds for `calls` sums of n elements in the form `force` picks: in place (io = in + io)
 * where `other` is NULL, else the 3-buffer fold io = other + in, the shifted input second. */
static double time_sum(sum_fn sum, const void *other, const void *in, void *io, size_t n,
                       int calls, int force)
{
    vred_realign_force = force;
    double t0 = now_s();
    for (int c = 0; c < calls; c++) {
        if (other) sum(other, in, io, n);
        else sum(in, io, io, n);
    }
    double t = now_s() - t0;
    vred_realign_force = 0;
    return t;
}

/* The bound `which`, measured with its probe (see the file comment); the default if the
 * buffers cannot be had. Fills r with (time with the form off) / (time with it on) per size. */
static size_t measure(const probe *pr, vred_realign_isa which, double r[SIZES])
{
    size_t max = (size_t)MIN_KIB << (10 + SIZES - 1);
    unsigned char *m = aligned_alloc(4096, 3 * max + 8192);
    if (!m) return default_from[which];
    /* the output, the shifted input, and the fold's other input (zeros, on a page) */
    unsigned char *io = m + pr->io_off, *in = m + max + 4096 + pr->in_off;
    unsigned char *other = m + 2 * max + 8192;
    memset(m, 0, 3 * max + 8192);
    for (size_t k = 0; k < max / 8; k++) { /* values that round, neither growing nor huge */
        double x = 1.0 / (double)(1 + k % 61);
        if (pr->esize == 8) memcpy(in + 8 * k, &x, 8);
        else {
            float f[2] = {(float)x, (float)-x};
            memcpy(in + 8 * k, f, 8);
        }
    }
    for (int s = 0; s < SIZES; s++) {
        size_t bytes = (size_t)MIN_KIB << (10 + s), n = bytes / pr->esize;
        int calls = (int)(((size_t)64 << 10) / bytes) + 1; /* ~64 KiB of work a timing */
        double best[2][2] = {{1e30, 1e30}, {1e30, 1e30}}; /* [form][in place, fold] */
        for (int round = 0; round <= ROUNDS; round++)
            for (int f = 0; f < 2; f++)
                for (int shape = 0; shape < 2; shape++) {
                    int force = f ? VRED_REALIGN_OFF : VRED_REALIGN_ON;
                    double t = time_sum(pr->sum, shape ? other : NULL, in, io, n, calls, force);
                    if (round && t < best[f][shape]) best[f][shape] = t; /* round 0: lines in */
                }
        r[s] = (best[1][0] + best[1][1]) / (best[0][0] + best[0][1]);
    }
    free(m);
    /* the first size with the form on: 0 (every size) .. SIZES (none), the one losing least */
    int first = SIZES;
    double least = vred_realign_loss(r, SIZES);
    for (int k = SIZES - 1; k >= 0; k--) {
        double l = vred_realign_loss(r, k);
        if (l < least) least = l, first = k;
    }
    return first == SIZES ? SIZE_MAX : first ? (size_t)MIN_KIB << (10 + first) : 1;
}

double vred_realign_loss(const double r[VRED_REALIGN_SIZES], int first)
{
    double loss = 0;
    for (int s = 0; s < SIZES; s++) {
        if (r[s] <= 0) continue;
        if (s < first && r[s] > 1) loss += r[s] - 1;      /* off there, on faster */
        if (s >= first && r[s] < 1) loss += 1 / r[s] - 1; /* on there, off faster */
    }
    return loss;
}

size_t vred_realign_from_learn(vred_realign_isa isa)
{
    size_t v = __atomic_load_n(&vred_realign_from_bytes[isa], __ATOMIC_ACQUIRE);
    if (v) return v;
    long pinned = vred_config_get()->realign_from;
    if (pinned > 0) {
        how[isa] = VRED_REALIGN_SETTING;
        __atomic_store_n(&vred_realign_from_bytes[isa], (size_t)pinned, __ATOMIC_RELEASE);
        return (size_t)pinned;
    }
    /* One thread measures; the others (a split reduction's workers) take the default meanwhile. */
    if (__atomic_exchange_n(&learning[isa], 1, __ATOMIC_ACQ_REL)) return default_from[isa];
    /* The probe sums floats in the caller's thread, inside its call: hold the floating-point
     * environment (flags cleared, traps off) and put it back, so that an integer reduction
     * neither raises FE_INEXACT in the program nor traps where it enabled that. */
    fenv_t env;
    int held = feholdexcept(&env) == 0;
    probe pr = probe_for(isa);
    v = pr.sum ? measure(&pr, isa, ratio[isa]) : default_from[isa];
    if (held) fesetenv(&env);
    how[isa] = pr.sum ? VRED_REALIGN_MEASURED : 0;
    __atomic_store_n(&vred_realign_from_bytes[isa], v, __ATOMIC_RELEASE);
    return v;
}

void vred_realign_set_from(vred_realign_isa isa, size_t bytes)
{
    how[isa] = bytes ? VRED_REALIGN_PINNED : 0;
    if (!bytes) __atomic_store_n(&learning[isa], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&vred_realign_from_bytes[isa], bytes, __ATOMIC_RELEASE);
}

size_t vred_realign_from_info(vred_realign_isa isa, int *how_set, double ratios[VRED_REALIGN_SIZES])
{
    size_t v = vred_realign_from_learn(isa);
    if (how_set) *how_set = how[isa];
    if (ratios) memcpy(ratios, ratio[isa], sizeof ratio[isa]);
    return v;
}
