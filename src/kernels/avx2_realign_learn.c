/*
 * From how many bytes the AVX2 kernels read a shifted input in aligned lines (avx2_realign.h),
 * learned on the CPU at hand.
 *
 * The trade: with 32-byte vectors and an input a whole number of dwords off the stores'
 * alignment, every second load splits across two lines. Reading aligned lines and joining
 * neighbours by a blend and VPERMD saves the split but adds two instructions a vector. Where
 * L1 holds the data the split costs little and the join more; from L2 on the split costs more.
 * Where that crossing lies depends on the core (its load ports, its split penalty, its shuffle
 * ports, its L1): on Zen 5 running the AVX2 kernels it lay between 16 and 64 KiB (`fold-ip`,
 * 16 KiB: split 0.82x of aligned, lines 0.76x; 64 KiB: 0.78x and 0.96x). The AVX2 kernels
 * serve the CPUs without AVX-512, which are other cores (Zen 2 and 3, Intel client parts), so a
 * bound measured on Zen 5 is not theirs: the first call that asks measures it here.
 *
 * The measurement: an in-place sum of floats with the input 16 bytes past a line (the
 * misalignment malloc gives) at 4-128 KiB, each size with lines forced and with split loads
 * forced in turn, the fastest of ROUNDS each. The bound is the smallest size from which the
 * lines are faster at every measured size, by VRED_REALIGN_GAIN (a tie keeps split loads, the
 * form without the join). About half a millisecond, once per process; every rank measures for itself, which
 * is harmless: both forms give the same bytes. VRED_REALIGN_FROM pins the bound.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "config.h"
#include "kernels/kernel.h"

__thread int vred_realign_force __attribute__((tls_model("initial-exec")));

#if defined(VRED_HAVE_AVX2)
void vred_sum_f32_avx2(const void *a, const void *b, void *o, size_t n);
#endif

enum { MIN_KIB = 4, MAX_KIB = 128, SIZES = 6, ROUNDS = 9, DEFAULT_FROM = 32 << 10 };

size_t vred_realign_from_bytes; /* the bound in force; 0: not yet known */
static int learning;         /* 1 once a thread has begun to measure */
static int how;              /* how from_bytes was set: vred_realign_how */
static double ratio[SIZES];  /* split time / lines time at 4, 8, ... 128 KiB (0: not measured) */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#if defined(VRED_HAVE_AVX2)
/* Seconds for `calls` in-place sums of n floats in the form `force` picks. */
static double time_sum(const float *in, float *io, size_t n, int calls, int force)
{
    vred_realign_force = force;
    double t0 = now_s();
    for (int c = 0; c < calls; c++) vred_sum_f32_avx2(in, io, io, n);
    double t = now_s() - t0;
    vred_realign_force = 0;
    return t;
}

/* The bound, measured (see the file comment); DEFAULT_FROM if the buffers cannot be had. */
static size_t measure(void)
{
    size_t max = (size_t)MAX_KIB << 10;
    unsigned char *m = aligned_alloc(4096, 2 * max + 8192);
    if (!m) return DEFAULT_FROM;
    float *io = (float *)(void *)m;                            /* page-aligned, like a slot */
    float *in = (float *)(void *)(m + max + 4096 + 16);       /* 16 past a line, as malloc's */
    memset(m, 0, 2 * max + 8192);
    for (size_t k = 0; k < max / 4; k++) in[k] = 1.0f / (float)(1 + k % 61);
    double best[SIZES][2];
    for (int s = 0; s < SIZES; s++) {
        size_t bytes = (size_t)MIN_KIB << (10 + s), n = bytes / 4;
        int calls = (int)(((size_t)64 << 10) / bytes) + 1; /* ~64 KiB of work a timing */
        best[s][0] = best[s][1] = 1e30;
        for (int r = 0; r <= ROUNDS; r++)
            for (int f = 0; f < 2; f++) {
                double t = time_sum(in, io, n, calls, f ? VRED_REALIGN_SPLIT : VRED_REALIGN_LINES);
                if (r && t < best[s][f]) best[s][f] = t; /* round 0 brings the lines in */
            }
        ratio[s] = best[s][1] / best[s][0];
    }
    free(m);
    size_t from = SIZE_MAX; /* lines nowhere */
    for (int s = SIZES - 1; s >= 0 && ratio[s] > VRED_REALIGN_GAIN; s--)
        from = (size_t)MIN_KIB << (10 + s);
    return from;
}
#endif

size_t vred_realign_from_learn(void)
{
    size_t v = __atomic_load_n(&vred_realign_from_bytes, __ATOMIC_ACQUIRE);
    if (v) return v;
    long pinned = vred_config_get()->realign_from;
    if (pinned > 0) {
        how = VRED_REALIGN_SETTING;
        __atomic_store_n(&vred_realign_from_bytes, (size_t)pinned, __ATOMIC_RELEASE);
        return (size_t)pinned;
    }
    /* One thread measures; the others (a split reduction's workers) use the default meanwhile. */
    if (__atomic_exchange_n(&learning, 1, __ATOMIC_ACQ_REL)) return DEFAULT_FROM;
#if defined(VRED_HAVE_AVX2)
    v = vred_cpu_runs_avx2() ? measure() : DEFAULT_FROM;
#else
    v = DEFAULT_FROM;
#endif
    how = VRED_REALIGN_MEASURED;
    __atomic_store_n(&vred_realign_from_bytes, v, __ATOMIC_RELEASE);
    return v;
}

void vred_realign_set_from(size_t bytes)
{
    how = bytes ? VRED_REALIGN_PINNED : 0;
    if (!bytes) __atomic_store_n(&learning, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&vred_realign_from_bytes, bytes, __ATOMIC_RELEASE);
}

size_t vred_realign_from_info(int *how_set, double ratios[6])
{
    size_t v = vred_realign_from_learn();
    if (how_set) *how_set = how;
    if (ratios) memcpy(ratios, ratio, sizeof ratio);
    return v;
}
