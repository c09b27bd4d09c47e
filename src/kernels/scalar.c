/*
 * The scalar reference: every canonical (op, type) kernel in plain C. Every other ISA must equal
 * these bit for bit. Elements are accessed through under-aligned types (VRED_UNALIGNED): MPI
 * buffers may start at any byte, and every ISA's tail ends up here. Compiled with -fno-tree-vectorize so that "scalar" means scalar, both as a
 * reference and as the VRED_ISA=scalar baseline.
 */
#include <stddef.h>
#include <string.h>
#include "kernels/kernel.h"
#include "kernels/scalar_ops.h"

/* T at any address: a typedef may lower alignment; may_alias because callers pass raw bytes. */
#define VRED_UNALIGNED(T) typedef T __attribute__((aligned(1), may_alias)) u_t

/* out = a op b over n elements of T; EXPR sees x = a[i] (in) and y = b[i] (inout). */
#define SCALAR_BINARY(name, T, EXPR)                                                            \
    void name(const void *a_, const void *b_, void *o_, size_t n)                       \
    {                                                                                           \
        VRED_UNALIGNED(T);                                                                      \
        const u_t *a = a_, *b = b_;                                                             \
        u_t *o = o_;                                                                            \
        size_t i = 0;                                                                           \
        VRED_DUFF8(n, { T x = a[i], y = b[i]; o[i] = (T)(EXPR); i++; });                         \
    }

/* ---- integers ------------------------------------------------------------------------------ */

/* ---- floating point ------------------------------------------------------------------------ */

/* ---- complex PROD (SUM is served as SUM over 2n reals) ------------------------------------- */
/* The textbook product, as C computes it before its NaN recovery: re = ac - bd, im = ad + bc. */
#define COMPLEX_PROD(x, y) {(x).re * (y).re - (x).im * (y).im, (x).re * (y).im + (x).im * (y).re}
/* Structs: a typedef cannot lower a struct's alignment, so elements move through memcpy (which
 * compiles to plain loads and stores). */
#define LOAD_AT(p, i, T) ({ T v_; memcpy(&v_, (const char *)(p) + (i) * sizeof(T), sizeof v_); v_; })
#define SCALAR_CPROD(name, T)                                                                   \
    void name(const void *a_, const void *b_, void *o_, size_t n)                               \
    {                                                                                           \
        size_t i = 0;                                                                           \
        VRED_DUFF8(n, {                                                                         \
            T x = LOAD_AT(a_, i, T), y = LOAD_AT(b_, i, T);                                     \
            T r = COMPLEX_PROD(x, y);                                                           \
            memcpy((char *)o_ + i * sizeof(T), &r, sizeof r);                                   \
            i++;                                                                                \
        });                                                                                     \
    }

/* ---- MINLOC / MAXLOC ----------------------------------------------------------------------- */
/* The winner's value and index; on equal values the inout value and the lower index, in's
 * unless inout's is lower (as both MPIs write it: Open MPI `b->k < a->k ? b->k : a->k`, MPICH
 * MPL_MIN(inout, in)), which decides the float indices of 2REAL and 2DOUBLE_PRECISION where they
 * tie as numbers (+0 and -0) or do not compare (NaN): in's. Only the
 * two fields are written: padding bytes of out are left as they were. The value's bytes are the
 * winner's own, copied from its element: an x87 long double carries 6 unused bytes that a copy
 * through a register leaves undefined (they came out as whatever the stack held). memmove: in
 * place, out is the winner's element itself. */
#define SCALAR_LOC(name, T, CMP)                                                                \
    void name(const void *a_, const void *b_, void *o_, size_t n)                               \
    {                                                                                           \
        for (size_t i = 0; i < n; i++) {                                                        \
            T x = LOAD_AT(a_, i, T), y = LOAD_AT(b_, i, T);                                     \
            const void *win = (const char *)b_ + i * sizeof(T);                                 \
            __typeof__(y.i) idx = y.i;                                                          \
            if (x.v CMP y.v) win = (const char *)a_ + i * sizeof(T), idx = x.i;                 \
            else if (x.v == y.v && !(y.i < x.i)) idx = x.i;                                     \
            char *out = (char *)o_ + i * sizeof(T);                                             \
            memmove(out + offsetof(T, v), (const char *)win + offsetof(T, v), sizeof x.v);      \
            memcpy(out + offsetof(T, i), &idx, sizeof idx);                                     \
        }                                                                                       \
    }

/* ---- half precision: conversions ----------------------------------------------------------- */
static uint32_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

float vred_bf16_to_f32(uint16_t h) { return bits_f32((uint32_t)h << 16); }

/* Round to nearest even; a NaN keeps its sign and top payload bits and becomes quiet. */
uint16_t vred_f32_to_bf16(float f)
{
    uint32_t x = f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x0040u);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

float vred_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    /* inf, or a NaN made quiet, as F16C and FCVT do */
    if (e == 0x1f) return bits_f32(sign | 0x7f800000u | (m << 13) | (m ? 0x00400000u : 0));
    if (e != 0) return bits_f32(sign | ((e + 112u) << 23) | (m << 13));
    if (m == 0) return bits_f32(sign);
    /* subnormal: m * 2^-24, exact in float */
    float v = (float)m * 0x1p-24f;
    return bits_f32(sign | f32_bits(v));
}

/* IEEE binary16, round to nearest even, subnormals kept; the NaN rule of F16C/FCVT: quiet bit
 * set, top ten payload bits kept. */
uint16_t vred_f32_to_f16(float f)
{
    uint32_t x = f32_bits(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    x &= 0x7fffffffu;
    if (x > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((x >> 13) & 0x3ffu));
    if (x >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520: rounds to inf */
    if (x >= 0x38800000u)                                   /* normal in binary16 */
        return (uint16_t)(sign | ((x - 0x38000000u + 0xfffu + ((x >> 13) & 1u)) >> 13));
    if (x <= 0x33000000u) return sign; /* <= 2^-25: ties to the even zero */
    uint32_t e = x >> 23, mant = (x & 0x7fffffu) | 0x800000u, s = 126u - e;
    uint32_t r = mant >> s, rem = mant & ((1u << s) - 1u), half = 1u << (s - 1u);
    if (rem > half || (rem == half && (r & 1u))) r++;
    return (uint16_t)(sign | r);
}

/* ---- half precision: kernels --------------------------------------------------------------- */
/* Arithmetic: widen both, one float op, round once. MAX/MIN: compare widened, return the winner's
 * own bits (no rounding involved). */
#define SCALAR_HALF(name, TO_F, FROM_F, EXPR)                                                   \
    void name(const void *a_, const void *b_, void *o_, size_t n)                       \
    {                                                                                           \
        VRED_UNALIGNED(uint16_t);                                                               \
        const u_t *a = a_, *b = b_;                                                             \
        u_t *o = o_;                                                                            \
        for (size_t i = 0; i < n; i++) {                                                        \
            uint16_t hx = a[i], hy = b[i];                                                      \
            float x = TO_F(hx), y = TO_F(hy);                                                   \
            o[i] = (EXPR);                                                                      \
        }                                                                                       \
    }

/* acc = widen(a) op acc, for the n-ary form's float32 accumulation. */
#define SCALAR_HALF_ACC(name, TO_F, EXPR)                                                       \
    static void name(const void *a_, float *acc, size_t n)                                      \
    {                                                                                           \
        VRED_UNALIGNED(uint16_t);                                                               \
        const u_t *a = a_;                                                                      \
        for (size_t i = 0; i < n; i++) {                                                        \
            float x = TO_F(a[i]), y = acc[i];                                                   \
            acc[i] = (EXPR);                                                                    \
        }                                                                                       \
    }
/*
 * The kernels of this file, one row each: K(slot, DEFINE, name, args...) defines `name` with
 * DEFINE(name, args...) and registers it in the table slot; KT(...) likewise, for a kernel with
 * a masked and a cascade tail (name, cascade_name, ...: VRED_TAIL picks); F(slot, name)
 * registers a kernel written out above. Defining and registering a kernel is one row here.
 */
#define SCALAR_KERNELS(K, KT, F)                                                                    \
    K(bin[VRED_OP_MAX][VRED_INT8], SCALAR_BINARY, vred_max_i8_scalar, int8_t, VRED_MAX(x, y))       \
    K(bin[VRED_OP_MAX][VRED_UINT8], SCALAR_BINARY, vred_max_u8_scalar, uint8_t, VRED_MAX(x, y))     \
    K(bin[VRED_OP_MAX][VRED_INT16], SCALAR_BINARY, vred_max_i16_scalar, int16_t, VRED_MAX(x, y))    \
    K(bin[VRED_OP_MAX][VRED_UINT16], SCALAR_BINARY, vred_max_u16_scalar, uint16_t, VRED_MAX(x, y))  \
    K(bin[VRED_OP_MAX][VRED_INT32], SCALAR_BINARY, vred_max_i32_scalar, int32_t, VRED_MAX(x, y))    \
    K(bin[VRED_OP_MAX][VRED_UINT32], SCALAR_BINARY, vred_max_u32_scalar, uint32_t, VRED_MAX(x, y))  \
    K(bin[VRED_OP_MAX][VRED_INT64], SCALAR_BINARY, vred_max_i64_scalar, int64_t, VRED_MAX(x, y))    \
    K(bin[VRED_OP_MAX][VRED_UINT64], SCALAR_BINARY, vred_max_u64_scalar, uint64_t, VRED_MAX(x, y))  \
    K(bin[VRED_OP_MAX][VRED_FLOAT], SCALAR_BINARY, vred_max_f32_scalar, float, VRED_MAX(x, y))      \
    K(bin[VRED_OP_MAX][VRED_DOUBLE], SCALAR_BINARY, vred_max_f64_scalar, double, VRED_MAX(x, y))    \
    K(bin[VRED_OP_MAX][VRED_LONG_DOUBLE], SCALAR_BINARY, vred_max_ldbl_scalar, long double, VRED_MAX(x, y)) \
    K(bin[VRED_OP_MAX][VRED_BFLOAT16], SCALAR_HALF, vred_max_bf16_scalar, vred_bf16_to_f32, vred_f32_to_bf16, y > x ? hy : hx) \
    K(bin[VRED_OP_MAX][VRED_FLOAT16], SCALAR_HALF, vred_max_f16_scalar, vred_f16_to_f32, vred_f32_to_f16, y > x ? hy : hx) \
    K(bin[VRED_OP_MIN][VRED_INT8], SCALAR_BINARY, vred_min_i8_scalar, int8_t, VRED_MIN(x, y))       \
    K(bin[VRED_OP_MIN][VRED_UINT8], SCALAR_BINARY, vred_min_u8_scalar, uint8_t, VRED_MIN(x, y))     \
    K(bin[VRED_OP_MIN][VRED_INT16], SCALAR_BINARY, vred_min_i16_scalar, int16_t, VRED_MIN(x, y))    \
    K(bin[VRED_OP_MIN][VRED_UINT16], SCALAR_BINARY, vred_min_u16_scalar, uint16_t, VRED_MIN(x, y))  \
    K(bin[VRED_OP_MIN][VRED_INT32], SCALAR_BINARY, vred_min_i32_scalar, int32_t, VRED_MIN(x, y))    \
    K(bin[VRED_OP_MIN][VRED_UINT32], SCALAR_BINARY, vred_min_u32_scalar, uint32_t, VRED_MIN(x, y))  \
    K(bin[VRED_OP_MIN][VRED_INT64], SCALAR_BINARY, vred_min_i64_scalar, int64_t, VRED_MIN(x, y))    \
    K(bin[VRED_OP_MIN][VRED_UINT64], SCALAR_BINARY, vred_min_u64_scalar, uint64_t, VRED_MIN(x, y))  \
    K(bin[VRED_OP_MIN][VRED_FLOAT], SCALAR_BINARY, vred_min_f32_scalar, float, VRED_MIN(x, y))      \
    K(bin[VRED_OP_MIN][VRED_DOUBLE], SCALAR_BINARY, vred_min_f64_scalar, double, VRED_MIN(x, y))    \
    K(bin[VRED_OP_MIN][VRED_LONG_DOUBLE], SCALAR_BINARY, vred_min_ldbl_scalar, long double, VRED_MIN(x, y)) \
    K(bin[VRED_OP_MIN][VRED_BFLOAT16], SCALAR_HALF, vred_min_bf16_scalar, vred_bf16_to_f32, vred_f32_to_bf16, y < x ? hy : hx) \
    K(bin[VRED_OP_MIN][VRED_FLOAT16], SCALAR_HALF, vred_min_f16_scalar, vred_f16_to_f32, vred_f32_to_f16, y < x ? hy : hx) \
    K(bin[VRED_OP_SUM][VRED_UINT8], SCALAR_BINARY, vred_sum_u8_scalar, uint8_t, VRED_USUM(uint8_t, x, y)) \
    K(bin[VRED_OP_SUM][VRED_UINT16], SCALAR_BINARY, vred_sum_u16_scalar, uint16_t, VRED_USUM(uint16_t, x, y)) \
    K(bin[VRED_OP_SUM][VRED_UINT32], SCALAR_BINARY, vred_sum_u32_scalar, uint32_t, VRED_USUM(uint32_t, x, y)) \
    K(bin[VRED_OP_SUM][VRED_UINT64], SCALAR_BINARY, vred_sum_u64_scalar, uint64_t, VRED_USUM(uint64_t, x, y)) \
    K(bin[VRED_OP_SUM][VRED_FLOAT], SCALAR_BINARY, vred_sum_f32_scalar, float, x + y)               \
    K(bin[VRED_OP_SUM][VRED_DOUBLE], SCALAR_BINARY, vred_sum_f64_scalar, double, x + y)             \
    K(bin[VRED_OP_SUM][VRED_LONG_DOUBLE], SCALAR_BINARY, vred_sum_ldbl_scalar, long double, x + y)  \
    K(bin[VRED_OP_SUM][VRED_BFLOAT16], SCALAR_HALF, vred_sum_bf16_scalar, vred_bf16_to_f32, vred_f32_to_bf16, vred_f32_to_bf16(x + y)) \
    K(bin[VRED_OP_SUM][VRED_FLOAT16], SCALAR_HALF, vred_sum_f16_scalar, vred_f16_to_f32, vred_f32_to_f16, vred_f32_to_f16(x + y)) \
    K(bin[VRED_OP_PROD][VRED_UINT8], SCALAR_BINARY, vred_prod_u8_scalar, uint8_t, VRED_UPROD(uint8_t, x, y)) \
    K(bin[VRED_OP_PROD][VRED_UINT16], SCALAR_BINARY, vred_prod_u16_scalar, uint16_t, VRED_UPROD(uint16_t, x, y)) \
    K(bin[VRED_OP_PROD][VRED_UINT32], SCALAR_BINARY, vred_prod_u32_scalar, uint32_t, VRED_UPROD(uint32_t, x, y)) \
    K(bin[VRED_OP_PROD][VRED_UINT64], SCALAR_BINARY, vred_prod_u64_scalar, uint64_t, VRED_UPROD(uint64_t, x, y)) \
    K(bin[VRED_OP_PROD][VRED_FLOAT], SCALAR_BINARY, vred_prod_f32_scalar, float, x * y)             \
    K(bin[VRED_OP_PROD][VRED_DOUBLE], SCALAR_BINARY, vred_prod_f64_scalar, double, x * y)           \
    K(bin[VRED_OP_PROD][VRED_LONG_DOUBLE], SCALAR_BINARY, vred_prod_ldbl_scalar, long double, x * y) \
    K(bin[VRED_OP_PROD][VRED_C_FLOAT_COMPLEX], SCALAR_CPROD, vred_prod_c32_scalar, vred_c32)        \
    K(bin[VRED_OP_PROD][VRED_C_DOUBLE_COMPLEX], SCALAR_CPROD, vred_prod_c64_scalar, vred_c64)       \
    K(bin[VRED_OP_PROD][VRED_C_LONG_DOUBLE_COMPLEX], SCALAR_CPROD, vred_prod_cldbl_scalar, vred_cldbl) \
    K(bin[VRED_OP_PROD][VRED_BFLOAT16], SCALAR_HALF, vred_prod_bf16_scalar, vred_bf16_to_f32, vred_f32_to_bf16, vred_f32_to_bf16(x * y)) \
    K(bin[VRED_OP_PROD][VRED_FLOAT16], SCALAR_HALF, vred_prod_f16_scalar, vred_f16_to_f32, vred_f32_to_f16, vred_f32_to_f16(x * y)) \
    K(bin[VRED_OP_LAND][VRED_UINT8], SCALAR_BINARY, vred_land_u8_scalar, uint8_t, VRED_LAND(x, y))  \
    K(bin[VRED_OP_LAND][VRED_UINT16], SCALAR_BINARY, vred_land_u16_scalar, uint16_t, VRED_LAND(x, y)) \
    K(bin[VRED_OP_LAND][VRED_UINT32], SCALAR_BINARY, vred_land_u32_scalar, uint32_t, VRED_LAND(x, y)) \
    K(bin[VRED_OP_LAND][VRED_UINT64], SCALAR_BINARY, vred_land_u64_scalar, uint64_t, VRED_LAND(x, y)) \
    K(bin[VRED_OP_LOR][VRED_UINT8], SCALAR_BINARY, vred_lor_u8_scalar, uint8_t, VRED_LOR(x, y))     \
    K(bin[VRED_OP_LOR][VRED_UINT16], SCALAR_BINARY, vred_lor_u16_scalar, uint16_t, VRED_LOR(x, y))  \
    K(bin[VRED_OP_LOR][VRED_UINT32], SCALAR_BINARY, vred_lor_u32_scalar, uint32_t, VRED_LOR(x, y))  \
    K(bin[VRED_OP_LOR][VRED_UINT64], SCALAR_BINARY, vred_lor_u64_scalar, uint64_t, VRED_LOR(x, y))  \
    K(bin[VRED_OP_LXOR][VRED_UINT8], SCALAR_BINARY, vred_lxor_u8_scalar, uint8_t, VRED_LXOR(x, y))  \
    K(bin[VRED_OP_LXOR][VRED_UINT16], SCALAR_BINARY, vred_lxor_u16_scalar, uint16_t, VRED_LXOR(x, y)) \
    K(bin[VRED_OP_LXOR][VRED_UINT32], SCALAR_BINARY, vred_lxor_u32_scalar, uint32_t, VRED_LXOR(x, y)) \
    K(bin[VRED_OP_LXOR][VRED_UINT64], SCALAR_BINARY, vred_lxor_u64_scalar, uint64_t, VRED_LXOR(x, y)) \
    K(bin[VRED_OP_BAND][VRED_UINT8], SCALAR_BINARY, vred_band_u8_scalar, uint8_t, x & y)            \
    K(bin[VRED_OP_BOR][VRED_UINT8], SCALAR_BINARY, vred_bor_u8_scalar, uint8_t, x | y)              \
    K(bin[VRED_OP_BXOR][VRED_UINT8], SCALAR_BINARY, vred_bxor_u8_scalar, uint8_t, x ^ y)            \
    K(bin[VRED_OP_MAXLOC][VRED_FLOAT_INT], SCALAR_LOC, vred_maxloc_float_int_scalar, vred_float_int, >) \
    K(bin[VRED_OP_MAXLOC][VRED_DOUBLE_INT], SCALAR_LOC, vred_maxloc_double_int_scalar, vred_double_int, >) \
    K(bin[VRED_OP_MAXLOC][VRED_LONG_INT], SCALAR_LOC, vred_maxloc_long_int_scalar, vred_long_int, >) \
    K(bin[VRED_OP_MAXLOC][VRED_2INT], SCALAR_LOC, vred_maxloc_2int_scalar, vred_2int, >)            \
    K(bin[VRED_OP_MAXLOC][VRED_SHORT_INT], SCALAR_LOC, vred_maxloc_short_int_scalar, vred_short_int, >) \
    K(bin[VRED_OP_MAXLOC][VRED_LONG_DOUBLE_INT], SCALAR_LOC, vred_maxloc_ldbl_int_scalar, vred_ldbl_int, >) \
    K(bin[VRED_OP_MAXLOC][VRED_2FLOAT], SCALAR_LOC, vred_maxloc_2float_scalar, vred_2float, >)      \
    K(bin[VRED_OP_MAXLOC][VRED_2DOUBLE], SCALAR_LOC, vred_maxloc_2double_scalar, vred_2double, >)   \
    K(bin[VRED_OP_MINLOC][VRED_FLOAT_INT], SCALAR_LOC, vred_minloc_float_int_scalar, vred_float_int, <) \
    K(bin[VRED_OP_MINLOC][VRED_DOUBLE_INT], SCALAR_LOC, vred_minloc_double_int_scalar, vred_double_int, <) \
    K(bin[VRED_OP_MINLOC][VRED_LONG_INT], SCALAR_LOC, vred_minloc_long_int_scalar, vred_long_int, <) \
    K(bin[VRED_OP_MINLOC][VRED_2INT], SCALAR_LOC, vred_minloc_2int_scalar, vred_2int, <)            \
    K(bin[VRED_OP_MINLOC][VRED_SHORT_INT], SCALAR_LOC, vred_minloc_short_int_scalar, vred_short_int, <) \
    K(bin[VRED_OP_MINLOC][VRED_LONG_DOUBLE_INT], SCALAR_LOC, vred_minloc_ldbl_int_scalar, vred_ldbl_int, <) \
    K(bin[VRED_OP_MINLOC][VRED_2FLOAT], SCALAR_LOC, vred_minloc_2float_scalar, vred_2float, <)      \
    K(bin[VRED_OP_MINLOC][VRED_2DOUBLE], SCALAR_LOC, vred_minloc_2double_scalar, vred_2double, <)   \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_MAX], SCALAR_HALF_ACC, vred_acc_max_bf16_scalar, vred_bf16_to_f32, VRED_MAX(x, y)) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_MIN], SCALAR_HALF_ACC, vred_acc_min_bf16_scalar, vred_bf16_to_f32, VRED_MIN(x, y)) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_SUM], SCALAR_HALF_ACC, vred_acc_sum_bf16_scalar, vred_bf16_to_f32, x + y) \
    K(half_acc[VRED_HALF_BF16][VRED_HOP_PROD], SCALAR_HALF_ACC, vred_acc_prod_bf16_scalar, vred_bf16_to_f32, x * y) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_MAX], SCALAR_HALF_ACC, vred_acc_max_f16_scalar, vred_f16_to_f32, VRED_MAX(x, y)) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_MIN], SCALAR_HALF_ACC, vred_acc_min_f16_scalar, vred_f16_to_f32, VRED_MIN(x, y)) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_SUM], SCALAR_HALF_ACC, vred_acc_sum_f16_scalar, vred_f16_to_f32, x + y) \
    K(half_acc[VRED_HALF_F16][VRED_HOP_PROD], SCALAR_HALF_ACC, vred_acc_prod_f16_scalar, vred_f16_to_f32, x * y) \
    F(half_widen[VRED_HALF_BF16], vred_widen_bf16_scalar)                                           \
    F(half_widen[VRED_HALF_F16], vred_widen_f16_scalar)                                             \
    F(half_narrow[VRED_HALF_BF16], vred_narrow_bf16_scalar)                                         \
    F(half_narrow[VRED_HALF_F16], vred_narrow_f16_scalar)
SCALAR_KERNELS(VRED_KERNEL_DEFINE, VRED_KERNEL_DEFINE, VRED_KERNEL_WRITTEN)

static void vred_widen_bf16_scalar(const void *a_, float *o, size_t n)
{
    VRED_UNALIGNED(uint16_t);
    const u_t *a = a_;
    for (size_t i = 0; i < n; i++) o[i] = vred_bf16_to_f32(a[i]);
}
static void vred_widen_f16_scalar(const void *a_, float *o, size_t n)
{
    VRED_UNALIGNED(uint16_t);
    const u_t *a = a_;
    for (size_t i = 0; i < n; i++) o[i] = vred_f16_to_f32(a[i]);
}
static void vred_narrow_bf16_scalar(const float *a, void *o_, size_t n)
{
    VRED_UNALIGNED(uint16_t);
    u_t *o = o_;
    for (size_t i = 0; i < n; i++) o[i] = vred_f32_to_bf16(a[i]);
}
static void vred_narrow_f16_scalar(const float *a, void *o_, size_t n)
{
    VRED_UNALIGNED(uint16_t);
    u_t *o = o_;
    for (size_t i = 0; i < n; i++) o[i] = vred_f32_to_f16(a[i]);
}

/* ---- the table ----------------------------------------------------------------------------- */
void vred_fill_scalar(vred_kernel_table *t, int masked_tail)
{
    (void)masked_tail;
    SCALAR_KERNELS(VRED_KERNEL_SET, VRED_KERNEL_SET_TAIL, VRED_KERNEL_SET_WRITTEN)
}
