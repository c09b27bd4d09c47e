/*
 * Internal kernel interface: element storage types, the kernel function signatures and the
 * function table that dispatch fills once at start-up. Not installed.
 */
#ifndef VRED_KERNEL_H
#define VRED_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include "vred.h"

/* Type groups of the MPI standard (see ops.def). */
enum {
    VRED_G_INT = 1 << 0, VRED_G_FLOAT = 1 << 1, VRED_G_COMPLEX = 1 << 2,
    VRED_G_LOGICAL = 1 << 3, VRED_G_BYTE = 1 << 4, VRED_G_HALF = 1 << 5,
    VRED_G_PAIR = 1 << 6
};

/* Storage of the composite types: plain structs, so the layout is the C (and MPI) one. */
typedef struct { float re, im; } vred_c32;
typedef struct { double re, im; } vred_c64;
typedef struct { long double re, im; } vred_cldbl;
typedef struct { float v; int32_t i; } vred_float_int;
typedef struct { double v; int32_t i; } vred_double_int;
typedef struct { int64_t v; int32_t i; } vred_long_int;
typedef struct { int32_t v; int32_t i; } vred_2int;
typedef struct { int16_t v; int32_t i; } vred_short_int;
typedef struct { long double v; int32_t i; } vred_ldbl_int;
typedef struct { float v, i; } vred_2float;
typedef struct { double v, i; } vred_2double;

/*
 * out[i] = a[i] op b[i] for i < n (a: MPI's `in`, b: `inout`). out may equal a or b.
 * Every kernel of every ISA has this signature and equals the scalar one bit for bit.
 */
typedef void (*vred_binary_fn)(const void *a, const void *b, void *out, size_t n);

/* Half precision with float32 accumulation (for the n-ary form):
 * acc[i] = widen(a[i]) op acc[i], and out[i] = round_to_nearest_even(acc[i]). */
typedef void (*vred_half_acc_fn)(const void *a, float *acc, size_t n);
typedef void (*vred_half_widen_fn)(const void *a, float *out, size_t n);
typedef void (*vred_half_narrow_fn)(const float *acc, void *out, size_t n);

enum { VRED_HALF_BF16, VRED_HALF_F16, VRED_HALF_COUNT };
/* Index of the four half ops in the accumulate table. */
enum { VRED_HOP_MAX, VRED_HOP_MIN, VRED_HOP_SUM, VRED_HOP_PROD, VRED_HOP_COUNT };

/*
 * One ISA's kernels. An ISA fills only the entries it accelerates; dispatch starts from the
 * scalar table and lets each better ISA (up to the cap) overwrite entries. Entries exist only
 * for canonical (op, type) pairs (see vred_canonical()).
 */
typedef struct {
    vred_binary_fn bin[VRED_OP_COUNT][VRED_TYPE_COUNT];
    vred_half_acc_fn half_acc[VRED_HALF_COUNT][VRED_HOP_COUNT];
    vred_half_widen_fn half_widen[VRED_HALF_COUNT];
    vred_half_narrow_fn half_narrow[VRED_HALF_COUNT];
} vred_kernel_table;

/* How a public (op, type) is served: by the kernel of (op, type) over count * scale elements. */
typedef struct {
    vred_op op;
    vred_type type;
    unsigned scale;
} vred_canon;

/* Maps e.g. SUM on int8 to SUM on uint8 (wrapping arithmetic is sign-blind), BAND on int64 to
 * BAND on 8x uint8, SUM on float complex to SUM on 2x float. Only valid pairs may be passed. */
vred_canon vred_canonical(vred_op op, vred_type type);

/* Group of a type (from ops.def). */
unsigned vred_type_group(vred_type type);

/* Table fillers, one per ISA translation unit, each listed in dispatch.c's ISA list. Each sets
 * only what it implements. `masked_tail` selects the masked tail (1) or the
 * 512->256->128->scalar cascade (0) where an ISA has both; the others ignore it. */
typedef void (*vred_fill_fn)(vred_kernel_table *t, int masked_tail);
void vred_fill_scalar(vred_kernel_table *t, int masked_tail);
void vred_fill_sse41(vred_kernel_table *t, int masked_tail);
void vred_fill_avx2(vred_kernel_table *t, int masked_tail);
void vred_fill_avx512(vred_kernel_table *t, int masked_tail);
void vred_fill_neon(vred_kernel_table *t, int masked_tail);
void vred_fill_sve(vred_kernel_table *t, int masked_tail);

/*
 * How an ISA file defines and registers its kernels: one list, <ISA>_KERNELS(K, KT, F), one row
 * per kernel, expanded twice:
 *   <ISA>_KERNELS(VRED_KERNEL_DEFINE, VRED_KERNEL_DEFINE, VRED_KERNEL_WRITTEN)   defines them,
 *   <ISA>_KERNELS(VRED_KERNEL_SET, VRED_KERNEL_SET_TAIL, VRED_KERNEL_SET_WRITTEN) in the filler
 * fills the table. Rows:
 *   K(slot, DEFINE, name, args...)            `name` is DEFINE(name, args...), in t->slot;
 *   KT(slot, DEFINE, name, cascade, args...)  the same with two tails: t->slot is `name` (masked)
 *                                             or `cascade` as masked_tail says;
 *   F(slot, name)                             a kernel written out in the file, in t->slot.
 * slot is the table member, e.g. bin[VRED_OP_SUM][VRED_FLOAT] (the (op, type) of ops.def) or
 * half_widen[VRED_HALF_BF16].
 */
#define VRED_KERNEL_DEFINE(slot, DEFINE, ...) DEFINE(__VA_ARGS__)
#define VRED_KERNEL_WRITTEN(slot, name)
#define VRED_KERNEL_SET(slot, DEFINE, name, ...) t->slot = name;
#define VRED_KERNEL_SET_TAIL(slot, DEFINE, name, cascade, ...) t->slot = masked_tail ? name : cascade;
#define VRED_KERNEL_SET_WRITTEN(slot, name) t->slot = name;

/* CPU detection (cpu.c). */
typedef struct {
    /* x86 */
    int sse41, avx, avx2, f16c, fma, avx512f, avx512bw, avx512vl, avx512dq, avx512_bf16,
        avx512_fp16, avx512_vbmi, avx512_vbmi2, os_ymm, os_zmm;
    int erms; /* enhanced `rep movsb` (fast strings): local/copy.c's string copy */
    /* aarch64 */
    int asimd, fphp, sve, sve2;
    unsigned sve_bits;
} vred_cpu_features;

const vred_cpu_features *vred_cpu(void);
/* The value of the first processor's /proc/cpuinfo line `key` (cpu_id.c) into buf; its length,
 * 0 (and "") without one. */
size_t vred_cpuinfo(const char *key, char *buf, size_t size);
unsigned vred_sve_vector_bits(void); /* sve.c: svcntb() * 8 */
int vred_isa_supported(vred_isa isa); /* by the CPU, the OS and this build (dispatch.c) */
/* The checks of the ISAs in dispatch.c's list (cpu.c): the CPU and the OS run the instructions
 * the ISA's file was compiled for. */
int vred_cpu_runs_sse41(void);
int vred_cpu_runs_avx2(void);
int vred_cpu_runs_avx512(void);
int vred_cpu_runs_neon(void);
int vred_cpu_runs_sve(void);

/* The active table (dispatch.c). Filled before main() runs. */
extern vred_kernel_table vred_active;

/*
 * Calls whose output is a line another core has just written and whose input streams from
 * beyond the private caches (MA's fold of a rank's own input into the shared slot, in place):
 * between vred_kernels_far(1) and vred_kernels_far(0) this thread's AVX-512 kernels read a
 * misaligned input with split loads, as the other ISAs do, not in aligned lines joined by
 * VALIGND or a permute (avx512_realign.h). Where the data sits in L1 the aligned lines save the split loads'
 * second access; in those folds, whose loads wait on other cores and on memory, the extra
 * instruction per vector cost more than it saved: MA's allreduce of 16 MiB ran at 0.87-0.91x of
 * its aligned time with the send buffer at 16, 32 or 48 mod 64, 0.97-1.00x with split loads
 * (2 ranks, Zen 5; docs/kernels.md, "Folds into another core's lines"). A hint: the bytes are
 * the same either way. Worker threads of a split reduction (local/threads.c) do not see it.
 */
extern __thread int vred_kernels_far_now __attribute__((tls_model("initial-exec")));
static inline void vred_kernels_far(int on) { vred_kernels_far_now = on; }

/*
 * From how many bytes of vectors the AVX2 and AVX-512 kernels read an input off the stores'
 * alignment in aligned lines rather than by split loads (avx2_realign.h, avx512_realign.h; the
 * AVX2 kernels at whole dwords only, the AVX-512 ones at any shift): measured on this CPU at
 * the first call that asks (realign_learn.c), unless VRED_REALIGN_FROM pins it. Where the
 * output sits 1-63 bytes above that input in its page, each split load would also wait on the
 * store before it (4 KiB aliasing, simd_body.h), and the trade is another one, with a bound of
 * its own (the _NEAR ones). Only a matter of speed: both forms give the same bytes.
 */
/* VRED_REALIGN_PAIR: the AVX-512 pair form's bound (8- and 16-byte elements 4 bytes past a
 * line, avx512_realign.h): from which size its loop takes four vectors a trip, each pair's
 * loads first. VRED_REALIGN_AVX2 is the AVX2 lines' bound at a shift of 4..28 bytes other than
 * 16 (a blend and VPERMD a vector) and the AVX2 pair form's (doubles at 4 mod 8),
 * VRED_REALIGN_AVX2_HALF at 16 (one VPERM2I128), which costs less and so pays from another
 * size (avx2_realign.h). The _NEAR bounds are the same three where the output sits 1-63 bytes
 * above the input in its page (vred_simd_near_above): there the split loads take the
 * loads-first loop (simd_body.h), and which form wins differs by core: on Zen 5 the lines at
 * every size, on the Xeon guest the AVX2 kernels' split loads (realign_learn.c). */
typedef enum {
    VRED_REALIGN_AVX2,
    VRED_REALIGN_AVX512,
    VRED_REALIGN_PAIR,
    VRED_REALIGN_AVX2_HALF,
    VRED_REALIGN_AVX2_NEAR,
    VRED_REALIGN_AVX2_HALF_NEAR,
    VRED_REALIGN_AVX512_NEAR,
    VRED_REALIGN_ISAS
} vred_realign_isa;
/* vred_realign_force: the form a bound turns on (lines; the pair form's four a trip) at every
 * size, or at none */
enum { VRED_REALIGN_ON = 1, VRED_REALIGN_OFF = 2 };
enum { VRED_REALIGN_MEASURED = 1, VRED_REALIGN_SETTING, VRED_REALIGN_PINNED }; /* how it was set */
enum { VRED_REALIGN_SIZES = 6 }; /* measured at 4, 8, ... 128 KiB */
/* The bound's cost over the sizes measured, with the form on from size index `first` (0: every
 * size, VRED_REALIGN_SIZES: none): the time taken beyond the faster form, summed, relative
 * (ratios: time off / time on per size, 0 where not measured). The measured bound minimizes it. */
double vred_realign_loss(const double r[VRED_REALIGN_SIZES], int first);
extern size_t vred_realign_from_bytes[VRED_REALIGN_ISAS]; /* 0: not yet known */
/* This thread only (the measurement): VRED_REALIGN_ON or _OFF at every size; 0: the bounds. */
extern __thread int vred_realign_force __attribute__((tls_model("initial-exec")));
size_t vred_realign_from_learn(vred_realign_isa isa); /* the bound, measuring it if need be */
static inline size_t vred_realign_from(vred_realign_isa isa)
{
    if (vred_realign_force) return vred_realign_force == VRED_REALIGN_ON ? 0 : SIZE_MAX;
    size_t v = __atomic_load_n(&vred_realign_from_bytes[isa], __ATOMIC_RELAXED);
    return v ? v : vred_realign_from_learn(isa);
}
/* Pin the bound for this process (tests, benchmarks); 0: measure again at the next call that
 * asks (or take VRED_REALIGN_FROM). */
void vred_realign_set_from(vred_realign_isa isa, size_t bytes);
/* The bound (learning it if need be; 1: every size; SIZE_MAX: none), how it was set (0: the
 * default, the CPU lacking the ISA), and, when measured, time off / time on per size. */
size_t vred_realign_from_info(vred_realign_isa isa, int *how, double ratios[VRED_REALIGN_SIZES]);

/* Scalar half-precision conversions (the reference; scalar.c). */
float vred_bf16_to_f32(uint16_t h);
uint16_t vred_f32_to_bf16(float f);
float vred_f16_to_f32(uint16_t h);
uint16_t vred_f32_to_f16(float f);

#endif
