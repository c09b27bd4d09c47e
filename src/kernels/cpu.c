/*
 * What the CPU and the OS let us run. x86: CPUID for the features, XGETBV for the OS's promise to
 * save the wide registers (a CPU can have AVX-512 that the kernel does not enable). aarch64:
 * getauxval(AT_HWCAP). Read once, on first use.
 */
#include <string.h>
#include "kernels/kernel.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static void detect(vred_cpu_features *f)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return;
    f->sse41 = (c >> 19) & 1;
    f->fma = (c >> 12) & 1;
    f->f16c = (c >> 29) & 1;
    int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    if (osxsave) {
        uint64_t xcr0 = xgetbv0();
        f->os_ymm = (xcr0 & 0x6) == 0x6;            /* XMM and YMM state */
        f->os_zmm = f->os_ymm && (xcr0 & 0xe0) == 0xe0; /* opmask, ZMM_Hi256, Hi16_ZMM */
    }
    f->avx = avx && f->os_ymm;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        f->avx2 = f->avx && ((b >> 5) & 1);
        f->erms = (b >> 9) & 1;
        f->avx512f = f->os_zmm && ((b >> 16) & 1);
        f->avx512dq = f->avx512f && ((b >> 17) & 1);
        f->avx512bw = f->avx512f && ((b >> 30) & 1);
        f->avx512vl = f->avx512f && ((b >> 31) & 1);
        f->avx512_vbmi = f->avx512f && ((c >> 1) & 1);
        f->avx512_vbmi2 = f->avx512f && ((c >> 6) & 1);
        f->avx512_fp16 = f->avx512f && ((d >> 23) & 1);
        unsigned max_sub = a;
        if (max_sub >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d))
            f->avx512_bf16 = f->avx512f && ((a >> 5) & 1);
    }
    if (!f->os_ymm) f->fma = f->f16c = 0;
}

/* The validity checks of dispatch.c's ISA list: every sub-feature the file was compiled for,
 * with the OS saving the registers (detect() clears what the OS does not enable). */
int vred_cpu_runs_sse41(void) { return vred_cpu()->sse41; }
/* avx2.c is compiled with -mavx2 -mf16c */
int vred_cpu_runs_avx2(void) { return vred_cpu()->avx2 && vred_cpu()->f16c; }
/* avx512*.c are compiled with -mavx512f -mavx512bw -mavx512vl -mavx512dq (and AVX2, F16C) */
int vred_cpu_runs_avx512(void)
{
    const vred_cpu_features *f = vred_cpu();
    return f->avx512f && f->avx512bw && f->avx512vl && f->avx512dq && f->avx2 && f->f16c;
}

#elif defined(__aarch64__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1 << 1)
#endif
#ifndef HWCAP_FPHP
#define HWCAP_FPHP (1 << 9)
#endif
#ifndef HWCAP_SVE
#define HWCAP_SVE (1 << 22)
#endif
#ifndef HWCAP2_SVE2
#define HWCAP2_SVE2 (1 << 1)
#endif

static void detect(vred_cpu_features *f)
{
    unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
    f->asimd = (hw & HWCAP_ASIMD) != 0;
    f->fphp = (hw & HWCAP_FPHP) != 0;
    f->sve = (hw & HWCAP_SVE) != 0;
    f->sve2 = (hw2 & HWCAP2_SVE2) != 0;
#ifdef VRED_HAVE_SVE
    if (f->sve) f->sve_bits = vred_sve_vector_bits();
#endif
}

/* The validity checks of dispatch.c's ISA list. */
int vred_cpu_runs_neon(void) { return vred_cpu()->asimd; }
int vred_cpu_runs_sve(void) { return vred_cpu()->sve; }

#else
static void detect(vred_cpu_features *f) { (void)f; }
#endif

const vred_cpu_features *vred_cpu(void)
{
    /* Written once by the load-time constructor in dispatch.c before any other thread exists. */
    static vred_cpu_features features;
    static int done;
    if (!done) {
        memset(&features, 0, sizeof features);
        detect(&features);
        done = 1;
    }
    return &features;
}
