/*
 * The handle tables of types.h, built from mpi_types.def. C types map by sizeof and
 * signedness (MPI_LONG -> int64 on LP64), Fortran types by the MPI's own MPI_Type_size; every
 * entry is checked against the MPI's extent, so a layout vred does not share is passed through.
 */
#include <fenv.h>
#include <float.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "mpi/types.h"
#include "next/next.h"
#include "config.h"

vred_mpi_slot vred_mpi_type_slots[1u << VRED_MPI_TYPE_BITS];
vred_mpi_slot vred_mpi_op_slots[1u << VRED_MPI_OP_BITS];
unsigned char vred_mpi_holes[VRED_TYPE_COUNT];
unsigned char vred_mpi_span[VRED_TYPE_COUNT];
int vred_mpi_state;

#define OPBIT(o) (1u << (o))
enum {
    ALL_OPS = (1u << VRED_OP_COUNT) - 1u,
    LOGICAL_OPS = OPBIT(VRED_OP_LAND) | OPBIT(VRED_OP_LOR) | OPBIT(VRED_OP_LXOR)
};
/* MPI-4.1 table 6.2 allows LAND/LOR/LXOR on C integers and logicals only: not on Fortran
 * integers nor on MPI_AINT/MPI_OFFSET/MPI_COUNT. vred's integer group has them all. */

/* A Fortran LOGICAL is served as an unsigned integer under the logical ops only, and only if the
 * MPI's own operators give what vred gives (any non-zero word is true, the result is 0 or 1):
 * probed once at init through PMPI_Reduce_local, since .TRUE. is a property of the Fortran
 * compiler the MPI was configured with (1 for gfortran, -1 for some others). */
static int logical_matches(MPI_Datatype dt, int size)
{
    static const struct { int op; int64_t in, io, want; } probes[] = {
        {VRED_OP_LAND, 2, -1, 1}, {VRED_OP_LAND, 0, 7, 0}, {VRED_OP_LOR, 0, 0, 0},
        {VRED_OP_LOR, 0, 4, 1},   {VRED_OP_LXOR, 3, 5, 0}, {VRED_OP_LXOR, 0, -8, 1},
    };
    const MPI_Op ops[] = {[VRED_OP_LAND] = MPI_LAND, [VRED_OP_LOR] = MPI_LOR,
                          [VRED_OP_LXOR] = MPI_LXOR};
    if (size != 4 && size != 8) return 0;
    for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++) {
        union { int32_t w; int64_t d; } in, io;
        if (size == 4) { in.w = (int32_t)probes[k].in; io.w = (int32_t)probes[k].io; }
        else { in.d = probes[k].in; io.d = probes[k].io; }
        if (vred_next()->Reduce_local(&in, &io, 1, dt, ops[probes[k].op]) != MPI_SUCCESS) return 0;
        int64_t got = size == 4 ? io.w : io.d;
        if (got != probes[k].want) return 0;
    }
    return 1;
}

/*
 * Complex PROD: vred computes the textbook product (re = ac - bd, im = ad + bc). An MPI whose
 * operator is C's `*` (C99 Annex G: infinities recovered from a NaN+NaN*i product, __mulsc3)
 * gives other bits when an input holds an infinity or a NaN. Which one an MPI uses differs by
 * MPI, version and type (Open MPI 4.1 and 5.0: C's `*` for all complex types; MPICH 4.0: C's `*`
 * for MPI_C_*COMPLEX only; MPICH 5.0: for all), so it is probed once per datatype: PROD is
 * served only if the MPI's operator gives vred's bits on products that tell the two apart.
 * Intel MPI 2021.18 computes the textbook product for the Fortran and the C++ float and double
 * complex types but flips the sign of a NaN that comes from the subtracted product
 * ((1+1i) * (1+NaN i): re = +NaN where 1 - 1*NaN gives the NaN's own sign): the last probe.
 */
static int cprod_matches(MPI_Datatype dt, vred_type vt)
{
    enum { N = 7 };
    static const double probe[N][4] = { /* in.re, in.im, inout.re, inout.im; 9 = inf, 8 = NaN */
        {9, 9, 1, 0}, {8, 9, 2, 3}, {9, 8, 0, 0}, {-9, 1, 0, 9}, {1, 2, 3, 4}, {9, 0, 0, 1},
        {1, 1, 1, 8}};
    const double inf = __builtin_inf();
    uint64_t nan_bits = 0xFFF8000000000000ull; /* the x86 default NaN, as arithmetic makes it */
    double nan;
    memcpy(&nan, &nan_bits, sizeof nan);
    size_t part = vt == VRED_C_FLOAT_COMPLEX ? sizeof(float)
                  : vt == VRED_C_DOUBLE_COMPLEX ? sizeof(double) : sizeof(long double);
    size_t sig = vt == VRED_C_LONG_DOUBLE_COMPLEX ? LDBL_MANT_DIG == 64 ? 10 : part : part;
    unsigned char in[N * 2 * sizeof(long double)], a[sizeof in], b[sizeof in];
    memset(in, 0, sizeof in);
    memset(a, 0, sizeof a);
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 4; k++) {
            double v = probe[i][k] == 9 ? inf : probe[i][k] == -9 ? -inf
                       : probe[i][k] == 8 ? nan : probe[i][k];
            unsigned char *p = (k < 2 ? in : a) + (2 * i + k % 2) * part;
            if (part == sizeof(float)) { float f = (float)v; memcpy(p, &f, part); }
            else if (part == sizeof(double)) memcpy(p, &v, part);
            else { long double l = v; memcpy(p, &l, sizeof l); }
        }
    memcpy(b, a, sizeof a);
    if (vred_next()->Reduce_local(in, a, N, dt, MPI_PROD) != MPI_SUCCESS) return 0;
    if (vred_reduce(VRED_OP_PROD, vt, in, b, N) != VRED_OK) return 0;
    for (int j = 0; j < 2 * N; j++)
        if (memcmp(a + j * part, b + j * part, sig)) return 0;
    return 1;
}

static vred_type int_of(size_t size, int is_signed)
{
    switch (size) {
    case 1: return is_signed ? VRED_INT8 : VRED_UINT8;
    case 2: return is_signed ? VRED_INT16 : VRED_UINT16;
    case 4: return is_signed ? VRED_INT32 : VRED_UINT32;
    case 8: return is_signed ? VRED_INT64 : VRED_UINT64;
    default: return VRED_TYPE_COUNT;
    }
}

/* vred type for a predefined MPI datatype of the given class; VRED_TYPE_COUNT = not served.
 * *ops narrows the ops where MPI allows fewer than vred's group (Fortran and multi-language
 * integers, Fortran LOGICAL). */
static vred_type classify(MPI_Datatype dt, int cls, int fixed, size_t csize, unsigned *ops)
{
    int size = 0;
    if (PMPI_Type_size(dt, &size) != MPI_SUCCESS || size <= 0) return VRED_TYPE_COUNT;
    *ops = ALL_OPS;
    switch (cls) {
    case VRED_MPI_C_SINT: return size == (int)csize ? int_of(csize, 1) : VRED_TYPE_COUNT;
    case VRED_MPI_C_UINT: return size == (int)csize ? int_of(csize, 0) : VRED_TYPE_COUNT;
    case VRED_MPI_ML_INT:
        *ops = ALL_OPS & ~LOGICAL_OPS;
        return size == (int)csize ? int_of(csize, 1) : VRED_TYPE_COUNT;
    case VRED_MPI_C_FIXED: return (vred_type)fixed;
    case VRED_MPI_F_INT:
        *ops = ALL_OPS & ~LOGICAL_OPS;
        return int_of((size_t)size, 1);
    case VRED_MPI_F_REAL:
        return size == 4 ? VRED_FLOAT : size == 8 ? VRED_DOUBLE : VRED_TYPE_COUNT;
    case VRED_MPI_F_COMPLEX:
        return size == 8 ? VRED_C_FLOAT_COMPLEX : size == 16 ? VRED_C_DOUBLE_COMPLEX
                                                             : VRED_TYPE_COUNT;
    case VRED_MPI_F_LOGICAL:
        *ops = LOGICAL_OPS;
        return logical_matches(dt, size) ? int_of((size_t)size, 0) : VRED_TYPE_COUNT;
    case VRED_MPI_F_2REAL:
        return size == 8 ? VRED_2FLOAT : size == 16 ? VRED_2DOUBLE : VRED_TYPE_COUNT;
    case VRED_MPI_F_2INT: return size == 8 ? VRED_2INT : VRED_TYPE_COUNT;
    default: return VRED_TYPE_COUNT;
    }
}

/* The MPI's layout must be vred's: lower bound 0, extent = vred's element size, and no holes
 * beyond the padding of vred's own struct (size <= extent). */
static int layout_matches(MPI_Datatype dt, vred_type vt)
{
    MPI_Aint lb = 0, extent = 0;
    int size = 0;
    if (PMPI_Type_get_extent(dt, &lb, &extent) != MPI_SUCCESS) return 0;
    if (PMPI_Type_size(dt, &size) != MPI_SUCCESS) return 0;
    return lb == 0 && (size_t)extent == vred_type_size(vt) && size > 0 && size <= extent;
}

/* Where the MPI's datatype has holes (its size is below its extent: MPI_DOUBLE_INT's 12 bytes
 * in 16, MPI_SHORT_INT's 6 in 8), which the MPI never reads or writes: noted for vred's type,
 * with the bytes from the element's start to the end of its last significant one (the true
 * extent; 12 for MPI_DOUBLE_INT, 20 for MPI_LONG_DOUBLE_INT). Every datatype that maps to a
 * vred type has vred's layout (layout_matches), so one answer serves them all. */
static void note_holes(MPI_Datatype dt, vred_type vt)
{
    MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;
    int size = 0;
    if (PMPI_Type_size(dt, &size) != MPI_SUCCESS ||
        PMPI_Type_get_extent(dt, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(dt, &tlb, &textent) != MPI_SUCCESS)
        return;
    if (size >= extent) return;
    vred_mpi_holes[vt] = 1;
    vred_mpi_span[vt] = tlb == 0 && textent > 0 && textent <= extent && textent < 256
                            ? (unsigned char)textent
                            : (unsigned char)vred_type_size(vt);
}

static void insert(vred_mpi_slot *t, unsigned bits, uint64_t key, unsigned value, unsigned ops)
{
    unsigned mask = (1u << bits) - 1u;
    unsigned i = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> (64 - bits));
    for (;; i = (i + 1) & mask) {
        if (!t[i].used) break;
        if (t[i].key == key) return; /* an alias (MPI_LONG_LONG = MPI_LONG_LONG_INT): first wins */
    }
    t[i].key = key;
    t[i].used = 1;
    t[i].type = (uint16_t)value;
    t[i].ops = ops;
}

/* What `arg` of mpi_types.def means per class: a C type (integers: its sizeof), a vred type
 * (fixed), or nothing (Fortran: sized at run time). */
#define ARG_FIXED_VRED_MPI_C_SINT(a) 0
#define ARG_FIXED_VRED_MPI_C_UINT(a) 0
#define ARG_FIXED_VRED_MPI_C_FIXED(a) (a)
#define ARG_SIZE_VRED_MPI_C_SINT(a) sizeof(a)
#define ARG_SIZE_VRED_MPI_C_UINT(a) sizeof(a)
#define ARG_FIXED_VRED_MPI_ML_INT(a) 0
#define ARG_SIZE_VRED_MPI_ML_INT(a) sizeof(a)
#define ARG_SIZE_VRED_MPI_C_FIXED(a) 0
#define ARG_FIXED_VRED_MPI_F_INT(a) 0
#define ARG_SIZE_VRED_MPI_F_INT(a) 0
#define ARG_FIXED_VRED_MPI_F_REAL(a) 0
#define ARG_SIZE_VRED_MPI_F_REAL(a) 0
#define ARG_FIXED_VRED_MPI_F_COMPLEX(a) 0
#define ARG_SIZE_VRED_MPI_F_COMPLEX(a) 0
#define ARG_FIXED_VRED_MPI_F_LOGICAL(a) 0
#define ARG_SIZE_VRED_MPI_F_LOGICAL(a) 0
#define ARG_FIXED_VRED_MPI_F_2REAL(a) 0
#define ARG_SIZE_VRED_MPI_F_2REAL(a) 0
#define ARG_FIXED_VRED_MPI_F_2INT(a) 0
#define ARG_SIZE_VRED_MPI_F_2INT(a) 0

/* The signedness a C integer's class claims is the C type's own. */
#define CHECK_VRED_MPI_C_SINT(T) _Static_assert((T)-1 < (T)0, #T " must be signed");
#define CHECK_VRED_MPI_C_UINT(T) _Static_assert((T)-1 > (T)0, #T " must be unsigned");
#define CHECK_VRED_MPI_ML_INT(T) _Static_assert((T)-1 < (T)0, #T " must be signed");
#define CHECK_VRED_MPI_C_FIXED(a)
#define CHECK_VRED_MPI_F_INT(a)
#define CHECK_VRED_MPI_F_REAL(a)
#define CHECK_VRED_MPI_F_COMPLEX(a)
#define CHECK_VRED_MPI_F_LOGICAL(a)
#define CHECK_VRED_MPI_F_2REAL(a)
#define CHECK_VRED_MPI_F_2INT(a)
#define VRED_MPI_TYPE(h, cls, arg) CHECK_##cls(arg)
#include "mpi/mpi_types.def"
#undef VRED_MPI_TYPE

static void add_type(MPI_Datatype dt, int cls, int fixed, size_t csize)
{
    if (dt == MPI_DATATYPE_NULL) return;
    unsigned ops = 0;
    vred_type vt = classify(dt, cls, fixed, csize, &ops);
    if ((unsigned)vt >= VRED_TYPE_COUNT || !layout_matches(dt, vt)) return;
    note_holes(dt, vt);
    if ((vt == VRED_C_FLOAT_COMPLEX || vt == VRED_C_DOUBLE_COMPLEX ||
         vt == VRED_C_LONG_DOUBLE_COMPLEX) && !cprod_matches(dt, vt))
        ops &= ~OPBIT(VRED_OP_PROD);
    unsigned served = 0;
    for (unsigned o = 0; o < VRED_OP_COUNT; o++)
        if ((ops >> o & 1u) && vred_op_valid((vred_op)o, vt)) served |= OPBIT(o);
    insert(vred_mpi_type_slots, VRED_MPI_TYPE_BITS, VRED_MPI_HANDLE_BITS(dt), vt, served);
}

static void build(void)
{
#define VRED_MPI_TYPE(h, cls, arg) add_type(h, cls, ARG_FIXED_##cls(arg), ARG_SIZE_##cls(arg));
#include "mpi/mpi_types.def"
#undef VRED_MPI_TYPE
#define VRED_MPI_OP(h, vop)                                                                     \
    if ((h) != MPI_OP_NULL)                                                                     \
        insert(vred_mpi_op_slots, VRED_MPI_OP_BITS, VRED_MPI_HANDLE_BITS(h), vop, 0);
#include "mpi/mpi_types.def"
#undef VRED_MPI_OP
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

int vred_mpi_disabled;

__attribute__((constructor)) static void read_disable(void)
{
    vred_mpi_disabled = vred_config_get()->disable;
}

/* The probes (cprod_matches: inf * 0, NaN operands) raise IEEE invalid in the caller's thread:
 * run them with the floating-point environment held (flags cleared, traps off) and put it back
 * as it was, so that the program neither traps (feenableexcept) nor sees flags it did not raise
 * (gfortran reports them at STOP: Quantum ESPRESSO printed a line it does not print alone). */
static void build_once(void)
{
    fenv_t env;
    int held = feholdexcept(&env) == 0;
    build();
    if (held) fesetenv(&env);
    int unbuilt = VRED_MPI_UNBUILT; /* a racing MPI_Finalize wins */
    __atomic_compare_exchange_n(&vred_mpi_state, &unbuilt, VRED_MPI_READY, 0, __ATOMIC_RELEASE,
                                __ATOMIC_RELAXED);
}

int vred_mpi_tables_init(void)
{
    /* The Fortran sizes and extents come from the MPI: ask only once it is initialized. A call
     * before MPI_Init (erroneous) or after MPI_Finalize is passed through untouched. */
    int init = 0, fini = 0;
    if (PMPI_Initialized(&init) != MPI_SUCCESS || !init) return 0;
    if (PMPI_Finalized(&fini) != MPI_SUCCESS || fini) return 0;
    pthread_once(&once, build_once);
    return __atomic_load_n(&vred_mpi_state, __ATOMIC_ACQUIRE) == VRED_MPI_READY;
}

int vred_mpi_contiguous_of(MPI_Datatype dt, MPI_Datatype *named, size_t *per)
{
    /* Walk down the contiguous layers; each derived handle MPI_Type_get_contents returns is the
     * caller's to free (named ones must not be). A depth bound: no datatype nests this deep in
     * practice, and a walk must end. */
    MPI_Datatype cur = dt;
    size_t n = 1;
    int found = 0;
    for (int depth = 0; depth < 32; depth++) {
        int ni, na, nd, combiner, k = 0;
        MPI_Aint none = 0;
        MPI_Datatype inner;
        if (cur == MPI_DATATYPE_NULL ||
            PMPI_Type_get_envelope(cur, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
            break;
        if (combiner == MPI_COMBINER_NAMED) {
            found = cur != dt;
            break;
        }
        if (combiner != MPI_COMBINER_CONTIGUOUS || ni != 1 || na != 0 || nd != 1 ||
            PMPI_Type_get_contents(cur, 1, 0, 1, &k, &none, &inner) != MPI_SUCCESS)
            break;
        if (cur != dt) PMPI_Type_free(&cur);
        cur = inner;
        if (k < 0 || (k > 0 && n > SIZE_MAX / (size_t)k)) break;
        n *= (size_t)k;
    }
    if (found) {
        *named = cur;
        *per = n;
        return 1;
    }
    int ni, na, nd, combiner;
    if (cur != dt && cur != MPI_DATATYPE_NULL &&
        PMPI_Type_get_envelope(cur, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
        combiner != MPI_COMBINER_NAMED)
        PMPI_Type_free(&cur);
    return 0;
}

int vred_mpi_lookup(MPI_Datatype datatype, MPI_Op op, int *type, int *vop)
{
    vred_type vt;
    vred_op vo;
    if (!vred_mpi_map(datatype, op, &vt, &vo)) return 0;
    if (type) *type = (int)vt;
    if (vop) *vop = (int)vo;
    return 1;
}
