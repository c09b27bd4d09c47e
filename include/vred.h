/*
 * vred: vectorized MPI-style reductions. MPI-free public API.
 *
 * Every (op, type) pair the MPI standard allows is available, plus bfloat16/float16.
 * Results are bit-for-bit identical on every ISA (see docs/semantics.md):
 *   - integer SUM/PROD wrap (two's complement);
 *   - MAX(in, inout) = inout > in ? inout : in, MIN likewise with <: on a NaN or a +0/-0 tie
 *     the result is `in` (the rule of the MPI libraries' own scalar operators);
 *   - LAND/LOR/LXOR give 0 or 1; MINLOC/MAXLOC ties take the lower index;
 *   - bfloat16/float16 are computed in float32 and rounded to nearest-even.
 *
 * "a op b" below always means: a plays MPI's `in` role, b the `inout` role.
 */
#ifndef VRED_H
#define VRED_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define VRED_API __attribute__((visibility("default")))
#else
#define VRED_API
#endif

#define VRED_VERSION_MAJOR 0
#define VRED_VERSION_MINOR 1

typedef enum {
    VRED_OP_MAX, VRED_OP_MIN, VRED_OP_SUM, VRED_OP_PROD,
    VRED_OP_LAND, VRED_OP_LOR, VRED_OP_LXOR,
    VRED_OP_BAND, VRED_OP_BOR, VRED_OP_BXOR,
    VRED_OP_MINLOC, VRED_OP_MAXLOC,
    VRED_OP_COUNT
} vred_op;

/* Fixed-width element types. Named C types (int, long, ...) map onto these by size. */
typedef enum {
    VRED_INT8, VRED_UINT8, VRED_INT16, VRED_UINT16,
    VRED_INT32, VRED_UINT32, VRED_INT64, VRED_UINT64,
    VRED_FLOAT, VRED_DOUBLE, VRED_LONG_DOUBLE,
    VRED_C_FLOAT_COMPLEX, VRED_C_DOUBLE_COMPLEX, VRED_C_LONG_DOUBLE_COMPLEX,
    VRED_BOOL,                   /* C _Bool / C++ bool: logical ops */
    VRED_BYTE,                   /* MPI_BYTE: bitwise ops */
    VRED_BFLOAT16, VRED_FLOAT16, /* raw 16-bit storage */
    /* MINLOC/MAXLOC pairs, laid out as the C structs {value; index} */
    VRED_FLOAT_INT, VRED_DOUBLE_INT, VRED_LONG_INT, VRED_2INT,
    VRED_SHORT_INT, VRED_LONG_DOUBLE_INT,
    VRED_2FLOAT, VRED_2DOUBLE, /* Fortran MPI_2REAL, MPI_2DOUBLE_PRECISION */
    VRED_TYPE_COUNT
} vred_type;

typedef enum {
    VRED_ISA_SCALAR, VRED_ISA_SSE41, VRED_ISA_AVX2, VRED_ISA_AVX512,
    VRED_ISA_NEON, VRED_ISA_SVE,
    VRED_ISA_COUNT
} vred_isa;

enum {
    VRED_OK = 0,
    VRED_ERR_OP_TYPE = 1, /* the op is not defined for the type (e.g. BAND on float) */
    VRED_ERR_ARG = 2,     /* a null pointer with a non-zero count, an unknown op/type/ISA */
    VRED_ERR_ISA = 3      /* the ISA is not supported by this CPU or this build */
};

/* inout[i] = in[i] op inout[i]. */
VRED_API int vred_reduce(vred_op op, vred_type type, const void *in, void *inout, size_t count);

/* out[i] = a[i] op b[i]. out may be a or b (exact aliasing), not a partial overlap. */
VRED_API int vred_reduce3(vred_op op, vred_type type, const void *a, const void *b, void *out,
                 size_t count);

/* out[i] = src[0][i] op (src[1][i] op (... op src[n-1][i])), nsrc >= 1: the order of MPI_Reduce
 * over ranks 0..n-1. bfloat16/float16 accumulate in float32 and round once at the end.
 * out may be one of the sources. */
VRED_API int vred_reduce_n(vred_op op, vred_type type, const void *const *src, size_t nsrc, void *out,
                  size_t count);

/* *result = in[0] op in[1] op ... op in[count-1] in vred's canonical order (docs/semantics.md),
 * which is the same on every ISA. count == 0 leaves *result untouched. */
VRED_API int vred_reduce_all(vred_op op, vred_type type, const void *in, size_t count, void *result);

/* 1 if the MPI standard (plus vred's half types) defines op on type. */
VRED_API int vred_op_valid(vred_op op, vred_type type);
VRED_API size_t vred_type_size(vred_type type);
VRED_API const char *vred_type_name(vred_type type);
VRED_API const char *vred_op_name(vred_op op);
/* The inverse of the two above (case-insensitive, e.g. "f32", "sum"); VRED_TYPE_COUNT /
 * VRED_OP_COUNT if the name is unknown. */
VRED_API vred_type vred_type_from_name(const char *name);
VRED_API vred_op vred_op_from_name(const char *name);

/* The ISA in use, and the best this CPU and build can run. */
VRED_API vred_isa vred_isa_active(void);
VRED_API vred_isa vred_isa_best(void);
VRED_API const char *vred_isa_name(vred_isa isa);
/* Parse "scalar|sse41|avx2|avx512|neon|sve"; returns VRED_ISA_COUNT if unknown. */
VRED_API vred_isa vred_isa_from_name(const char *name);
/* Use at most `cap` (never more than the hardware supports); VRED_ISA_COUNT: no cap.
 * VRED_ERR_ISA for an ISA of another architecture. Reductions running meanwhile finish with the
 * old or the new kernels. The VRED_ISA variable does this at load. */
VRED_API int vred_isa_cap(vred_isa cap);
/* The CPU as the OS names it, with what tells models apart under one name: "AMD EPYC (family 25
 * model 1)" on x86, implementer and part on Arm, "unknown CPU" where the OS does not say. */
VRED_API void vred_cpu_name(char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
