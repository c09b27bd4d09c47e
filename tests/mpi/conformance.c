/*
 * MPI_Reduce_local conformance: for every predefined (op, datatype) pair of src/mpi/mpi_types.def,
 * calls MPI_Reduce_local (vred, when libvred-mpi.so is linked first or preloaded) and
 * PMPI_Reduce_local (the MPI library's own operator) on identical copies of the same data and
 * compares the results bit for bit: every count 0..600, each at an aligned start and at a start
 * misaligned by 1..7 bytes, data with NaN (the hardware's default NaN only), +-0, +-inf,
 * denormals and the integer extremes. For pair types the value and index fields are compared,
 * for x87 long double the 10 significant bytes: never padding. Pairs vred passes through (per
 * vred_mpi_lookup) are not compared; pairs MPI-4.1 does not allow are not called (some MPIs
 * assert on them), only checked not to be served.
 *
 * Built twice per MPI: linked with libvred-mpi.so, and linked with the MPI only (run under
 * LD_PRELOAD). It calls no vred function directly: it finds vred's by dlsym.
 *
 * Options:
 *   --expect-vred        fail unless MPI_Reduce_local resolves into libvred-mpi.so and
 *                        int8 100 + 100 gives -56 through it
 *   --isa=NAME           exit 77 (skipped) unless vred runs ISA NAME (VRED_ISA caps it)
 *   --distinguish        prove that vred is the one serving: on calls where vred's result and
 *                        the MPI's own differ (Open MPI's AVX op saturates int8 SUM, 100 + 100 =
 *                        127; MPICH 4.0 and Open MPI 4.1 compare some unsigned types as signed),
 *                        MPI_Reduce_local must give vred's result; exit 77 if there is no such
 *                        call with this MPI
 *   --expect-passthrough (with VRED_DISABLE=1) the same calls must give the MPI's result
 *   --no-compare         skip the sweep
 *   --table              print the datatype table: served by vred or passed to the MPI
 * Prints "N passed, M failed"; exits 1 on any mismatch.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "types.h" /* mpi.h, vred.h and the classes of mpi_types.def */

/* ---- the handle list, from the same table the library uses ----------------------------------- */
typedef struct {
    const char *name;
    MPI_Datatype h;
    int cls;
    int fixed; /* vred type for VRED_MPI_C_FIXED */
} type_entry;

#define FIXED_VRED_MPI_C_SINT(a) -1
#define FIXED_VRED_MPI_C_UINT(a) -1
#define FIXED_VRED_MPI_ML_INT(a) -1
#define FIXED_VRED_MPI_C_FIXED(a) (a)
#define FIXED_VRED_MPI_F_INT(a) -1
#define FIXED_VRED_MPI_F_REAL(a) -1
#define FIXED_VRED_MPI_F_COMPLEX(a) -1
#define FIXED_VRED_MPI_F_LOGICAL(a) -1
#define FIXED_VRED_MPI_F_2REAL(a) -1
#define FIXED_VRED_MPI_F_2INT(a) -1

typedef struct {
    const char *name;
    MPI_Op h;
    vred_op op;
} op_entry;

/* ---- element layouts ------------------------------------------------------------------------ */
enum fmt {
    FM_INT,    /* two's complement integer, any width */
    FM_F32, FM_F64, FM_F80, /* F80: x87 extended in 16 bytes, 10 significant */
    FM_BOOL,   /* 0 or 1 */
    FM_LOGICAL,/* Fortran LOGICAL: 0, 1 or any non-zero word */
    FM_IDX,    /* pair index (int): small values, many ties */
    FM_IDXF,   /* pair index stored as a float/double (MPI_2REAL): small integers */
    FM_RAW     /* a format vred does not serve (quad precision...): random bytes */
};

typedef struct {
    int ncomp;
    struct {
        int off, fmt, len;
    } c[2];
    int pair;   /* value drawn from a small pool (ties) */
    size_t ext; /* bytes per element */
} layout;

typedef struct { float v; int i; } s_float_int;
typedef struct { double v; int i; } s_double_int;
typedef struct { long v; int i; } s_long_int;
typedef struct { short v; int i; } s_short_int;
typedef struct { long double v; int i; } s_ldbl_int;

static void comp(layout *l, int off, int fmt, int len)
{
    l->c[l->ncomp].off = off;
    l->c[l->ncomp].fmt = fmt;
    l->c[l->ncomp].len = len;
    l->ncomp++;
}

static int float_fmt(int size) { return size == 4 ? FM_F32 : size == 8 ? FM_F64 : FM_RAW; }

/* 0 if the MPI reports no usable size. */
static int layout_of(const type_entry *t, layout *l)
{
    int size = 0;
    MPI_Aint lb, ext;
    memset(l, 0, sizeof *l);
    if (PMPI_Type_size(t->h, &size) != MPI_SUCCESS || size <= 0) return 0;
    if (PMPI_Type_get_extent(t->h, &lb, &ext) != MPI_SUCCESS || lb != 0 || ext < size) return 0;
    l->ext = (size_t)ext;
    switch (t->cls) {
    case VRED_MPI_C_SINT: case VRED_MPI_C_UINT: case VRED_MPI_ML_INT: case VRED_MPI_F_INT:
        comp(l, 0, FM_INT, size);
        return 1;
    case VRED_MPI_F_REAL:
        comp(l, 0, float_fmt(size), size);
        return 1;
    case VRED_MPI_F_COMPLEX:
        comp(l, 0, float_fmt(size / 2), size / 2);
        comp(l, size / 2, float_fmt(size / 2), size / 2);
        return 1;
    case VRED_MPI_F_LOGICAL:
        comp(l, 0, FM_LOGICAL, size);
        return 1;
    case VRED_MPI_F_2REAL:
        l->pair = 1;
        comp(l, 0, float_fmt(size / 2), size / 2);
        comp(l, size / 2, float_fmt(size / 2) == FM_RAW ? FM_RAW : FM_IDXF, size / 2);
        return 1;
    case VRED_MPI_F_2INT:
        l->pair = 1;
        comp(l, 0, FM_INT, size / 2);
        comp(l, size / 2, FM_IDX, size / 2);
        return 1;
    default: break;
    }
    /* VRED_MPI_C_FIXED */
    switch ((vred_type)t->fixed) {
    case VRED_FLOAT: comp(l, 0, FM_F32, 4); break;
    case VRED_DOUBLE: comp(l, 0, FM_F64, 8); break;
    case VRED_LONG_DOUBLE: comp(l, 0, FM_F80, 10); break;
    case VRED_C_FLOAT_COMPLEX: comp(l, 0, FM_F32, 4); comp(l, 4, FM_F32, 4); break;
    case VRED_C_DOUBLE_COMPLEX: comp(l, 0, FM_F64, 8); comp(l, 8, FM_F64, 8); break;
    case VRED_C_LONG_DOUBLE_COMPLEX:
        comp(l, 0, FM_F80, 10);
        comp(l, (int)sizeof(long double), FM_F80, 10);
        break;
    case VRED_BOOL: comp(l, 0, FM_BOOL, size); break;
    case VRED_BYTE: comp(l, 0, FM_INT, 1); break;
#define PAIR(S, VF, VL)                                                                         \
    l->pair = 1;                                                                                \
    comp(l, offsetof(S, v), VF, VL);                                                            \
    comp(l, offsetof(S, i), FM_IDX, sizeof(int));                                              \
    break;
    case VRED_FLOAT_INT: PAIR(s_float_int, FM_F32, 4)
    case VRED_DOUBLE_INT: PAIR(s_double_int, FM_F64, 8)
    case VRED_LONG_INT: PAIR(s_long_int, FM_INT, sizeof(long))
    case VRED_2INT: PAIR(struct { int v; int i; }, FM_INT, sizeof(int))
    case VRED_SHORT_INT: PAIR(s_short_int, FM_INT, sizeof(short))
    case VRED_LONG_DOUBLE_INT: PAIR(s_ldbl_int, FM_F80, 10)
    default: comp(l, 0, FM_RAW, size); break;
    }
    return 1;
}

/* ---- MPI-4.1 table 6.2: which ops each group allows (independent of vred's ops.def) ---------- */
enum { G_CINT = 1, G_FINT = 2, G_MLINT = 4, G_FLOAT = 8, G_COMPLEX = 16, G_LOGICAL = 32,
       G_BYTE = 64, G_PAIR = 128 };

static int group_of(const type_entry *t)
{
    switch (t->cls) {
    case VRED_MPI_C_SINT: case VRED_MPI_C_UINT: return G_CINT;
    case VRED_MPI_ML_INT: return G_MLINT;
    case VRED_MPI_F_INT: return G_FINT;
    case VRED_MPI_F_REAL: return G_FLOAT;
    case VRED_MPI_F_COMPLEX: return G_COMPLEX;
    case VRED_MPI_F_LOGICAL: return G_LOGICAL;
    case VRED_MPI_F_2REAL: case VRED_MPI_F_2INT: return G_PAIR;
    default: break;
    }
    switch ((vred_type)t->fixed) {
    case VRED_FLOAT: case VRED_DOUBLE: case VRED_LONG_DOUBLE: return G_FLOAT;
    case VRED_C_FLOAT_COMPLEX: case VRED_C_DOUBLE_COMPLEX: case VRED_C_LONG_DOUBLE_COMPLEX:
        return G_COMPLEX;
    case VRED_BOOL: return G_LOGICAL;
    case VRED_BYTE: return G_BYTE;
    default: return G_PAIR;
    }
}

static int std_allows(const type_entry *t, vred_op op)
{
    int g = group_of(t), ints = G_CINT | G_FINT | G_MLINT;
    switch (op) {
    case VRED_OP_MAX: case VRED_OP_MIN: return (g & (ints | G_FLOAT)) != 0;
    case VRED_OP_SUM: case VRED_OP_PROD: return (g & (ints | G_FLOAT | G_COMPLEX)) != 0;
    case VRED_OP_LAND: case VRED_OP_LOR: case VRED_OP_LXOR: return (g & (G_CINT | G_LOGICAL)) != 0;
    case VRED_OP_BAND: case VRED_OP_BOR: case VRED_OP_BXOR: return (g & (ints | G_BYTE)) != 0;
    default: return g == G_PAIR;
    }
}

/* Integer MAX/MIN have one right answer; where an MPI's own operator gets it wrong (MPICH 4.0.x
 * compares unsigned types as signed, pmodels/mpich#6083; Open MPI 4.1.2-4.1.4 compares
 * MPI_UNSIGNED_LONG as signed, open-mpi/ompi#10276 #10525; Open MPI 4.1.4 and 5.0.11 compare
 * MPI_OFFSET as unsigned), vred is checked against this instead and the MPI's deviation is
 * reported. */
static int int_signed(const type_entry *t) { return t->cls != VRED_MPI_C_UINT; }

static void ref_int_maxmin(const unsigned char *in, const unsigned char *io, unsigned char *out,
                           int len, int is_signed, int is_max)
{
    /* compare as big integers of `len` little-endian bytes */
    int cmp = 0; /* sign of io - in */
    for (int k = len - 1; k >= 0 && !cmp; k--) {
        unsigned a = in[k], b = io[k];
        if (k == len - 1 && is_signed) { a ^= 0x80; b ^= 0x80; }
        cmp = (b > a) - (b < a);
    }
    int take_io = is_max ? cmp > 0 : cmp < 0;
    memcpy(out, take_io ? io : in, (size_t)len);
}

/* ---- data ----------------------------------------------------------------------------------- */
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The default NaN of x86 SSE and x87 ("real indefinite"): every NaN in the inputs is this one,
 * so every NaN an operation produces has the same bits whichever operand it came from. */
static const uint32_t NAN32 = 0xFFC00000u;
static const uint64_t NAN64 = 0xFFF8000000000000ull;

static void put_f32(unsigned char *p, int pair)
{
    static const float pool[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.0f, 0.5f, 3.0f};
    uint32_t u;
    float f;
    unsigned r = (unsigned)(next() % 20);
    if (pair && r >= 8) r = 7;
    switch (r) {
    case 0: f = 0.0f; memcpy(&u, &f, 4); break;
    case 1: f = -0.0f; memcpy(&u, &f, 4); break;
    case 2: u = 0x7F800000u; break;
    case 3: u = 0xFF800000u; break;
    case 4: u = NAN32; break;
    case 5: u = (uint32_t)(next() & 0x807FFFFFu); break; /* denormal (or zero) */
    case 6: u = (next() & 1) ? 0x7F7FFFFFu : 0xFF7FFFFFu; break; /* +-FLT_MAX */
    case 7: f = pool[next() % 7]; memcpy(&u, &f, 4); break;
    default:
        u = (uint32_t)next();
        if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x7FFFFFu)) u = NAN32;
        break;
    }
    memcpy(p, &u, 4);
}

static void put_f64(unsigned char *p, int pair)
{
    static const double pool[] = {0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 3.0};
    uint64_t u;
    double f;
    unsigned r = (unsigned)(next() % 20);
    if (pair && r >= 8) r = 7;
    switch (r) {
    case 0: f = 0.0; memcpy(&u, &f, 8); break;
    case 1: f = -0.0; memcpy(&u, &f, 8); break;
    case 2: u = 0x7FF0000000000000ull; break;
    case 3: u = 0xFFF0000000000000ull; break;
    case 4: u = NAN64; break;
    case 5: u = next() & 0x800FFFFFFFFFFFFFull; break;
    case 6: u = (next() & 1) ? 0x7FEFFFFFFFFFFFFFull : 0xFFEFFFFFFFFFFFFFull; break;
    case 7: f = pool[next() % 7]; memcpy(&u, &f, 8); break;
    default:
        u = next();
        if ((u & 0x7FF0000000000000ull) == 0x7FF0000000000000ull && (u & 0xFFFFFFFFFFFFFull))
            u = NAN64;
        break;
    }
    memcpy(p, &u, 8);
}

/* x87 extended: only canonical encodings (explicit integer bit set for normals, clear for
 * denormals), so no pseudo-denormal or unnormal reaches either side. */
static void put_f80(unsigned char *p, int pair)
{
    unsigned char b[16];
    memset(b, 0, sizeof b);
    uint64_t mant;
    uint16_t se;
    unsigned r = (unsigned)(next() % 20);
    if (pair && r >= 8) r = 7;
    switch (r) {
    case 0: mant = 0; se = 0; break;
    case 1: mant = 0; se = 0x8000; break;
    case 2: mant = 1ull << 63; se = 0x7FFF; break;
    case 3: mant = 1ull << 63; se = 0xFFFF; break;
    case 4: mant = 3ull << 62; se = 0xFFFF; break; /* the x87 default NaN */
    case 5: mant = next() >> 1; se = (uint16_t)((next() & 1) << 15); break; /* denormal */
    case 6: mant = ~0ull; se = (uint16_t)(0x7FFE | ((next() & 1) << 15)); break; /* +-LDBL_MAX */
    case 7: {
        static const long double pool[] = {0.0L, -0.0L, 1.0L, -1.0L, 2.0L, 0.5L, 3.0L};
        long double v = pool[next() % 7];
        memcpy(b, &v, 10);
        memcpy(p, b, 10);
        return;
    }
    default:
        mant = next() | (1ull << 63);
        se = (uint16_t)((next() % 0x7FFE + 1) | ((next() & 1) << 15));
        break;
    }
    memcpy(b, &mant, 8);
    memcpy(b + 8, &se, 2);
    memcpy(p, b, 10);
}

static void put_int(unsigned char *p, int len, int pair)
{
    unsigned char b[16];
    unsigned r = (unsigned)(next() % 9);
    if (pair) { /* small values with many ties, some extremes */
        int64_t v = r < 7 ? (int64_t)(next() % 5) - 2 : r == 7 ? INT64_MIN : INT64_MAX;
        if (len < 8 && r >= 7) {
            int64_t lim = (int64_t)1 << (len * 8 - 1);
            v = r == 7 ? -lim : lim - 1;
        }
        memcpy(b, &v, 8);
        memcpy(p, b, (size_t)len);
        return;
    }
    for (int k = 0; k < 16; k += 8) {
        uint64_t u = next();
        memcpy(b + k, &u, 8);
    }
    switch (r) {
    case 0: case 1: memset(b, 0, 16); break;          /* zeros: the logical ops */
    case 2: memset(b, 0, 16); b[0] = 1; break;
    case 3: memset(b, 0xFF, 16); break;                /* -1 / the unsigned maximum */
    case 4: memset(b, 0, 16); b[len - 1] = 0x80; break; /* the signed minimum */
    case 5: memset(b, 0xFF, 16); b[len - 1] = 0x7F; break; /* the signed maximum */
    case 6: memset(b, 0, 16); b[0] = 100; break;       /* 100 + 100 overflows int8 */
    default: break;
    }
    memcpy(p, b, (size_t)len);
}

static void put_elem(unsigned char *p, const layout *l)
{
    for (size_t k = 0; k < l->ext; k++) p[k] = (unsigned char)next(); /* padding: junk */
    for (int c = 0; c < l->ncomp; c++) {
        unsigned char *q = p + l->c[c].off;
        int len = l->c[c].len;
        switch (l->c[c].fmt) {
        case FM_INT: put_int(q, len, l->pair); break;
        case FM_F32: put_f32(q, l->pair); break;
        case FM_F64: put_f64(q, l->pair); break;
        case FM_F80: put_f80(q, l->pair); break;
        case FM_BOOL: memset(q, 0, (size_t)len); q[0] = (unsigned char)(next() & 1); break;
        case FM_LOGICAL: {
            unsigned r = (unsigned)(next() % 4);
            memset(q, 0, (size_t)len);
            if (r == 1) q[0] = 1;
            if (r == 2) { /* any non-zero word is .TRUE. */
                uint64_t u = next() | 1ull << (next() % (uint64_t)(len * 8));
                memcpy(q, &u, (size_t)len);
            }
            break;
        }
        case FM_IDX: {
            int64_t v = (int64_t)(next() % 6) - 1;
            memcpy(q, &v, (size_t)len);
            break;
        }
        case FM_IDXF: {
            double d = (double)(next() % 6);
            float f = (float)d;
            if (len == 4) memcpy(q, &f, 4);
            else memcpy(q, &d, 8);
            break;
        }
        default: break; /* FM_RAW: the junk stays */
        }
    }
}

/* Significant bytes of element i equal? */
static int same_elem(const unsigned char *a, const unsigned char *b, const layout *l)
{
    for (int c = 0; c < l->ncomp; c++)
        if (memcmp(a + l->c[c].off, b + l->c[c].off, (size_t)l->c[c].len)) return 0;
    return 1;
}

/* ---- the sweep ------------------------------------------------------------------------------ */
enum { MAXCOUNT = 600, GUARD = 64, MAXEXT = 32 };

static int counts[MAXCOUNT + 1], ncounts;
static long passed, failed, extensions, mpi_deviations, passthrough_pairs;
static int (*lookup)(MPI_Datatype, MPI_Op, int *, int *); /* vred_mpi_lookup, if vred is here */
static int verbose_failures = 3; /* full dumps per pair */
static long pair_failures; /* failures of the current (op, type) */

static void make_counts(void)
{
    for (int c = 0; c <= MAXCOUNT; c++) counts[ncounts++] = c;
}

typedef int (*reduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op);

static unsigned char *src_in, *src_io, *a_in, *a_io, *b_in, *b_io;

static void report(const char *what, const type_entry *t, const op_entry *o, int count, int off,
                   const char *detail)
{
    failed++;
    pair_failures++;
    if (verbose_failures-- > 0)
        printf("FAIL %s: %s %s count=%d offset=%d %s\n", what, o->name, t->name, count, off,
               detail);
}

static int errclass(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    return cls;
}

/* One (op, type, count, offset) case; returns 0 if the MPI rejects the pair. */
static int one_case(const type_entry *t, const op_entry *o, const layout *l, int count, int off,
                    int big)
{
    size_t n = (size_t)count * l->ext, span = n + GUARD;
    size_t start = (size_t)(next() % (MAXCOUNT / 2)) * l->ext;
    memcpy(a_in + off, src_in + start, span);
    memcpy(a_io + off, src_io + start, span);
    memcpy(b_in + off, src_in + start, span);
    memcpy(b_io + off, src_io + start, span);
    int rv, rp;
#if MPI_VERSION >= 4
    if (big) {
        rv = MPI_Reduce_local_c(a_in + off, a_io + off, count, t->h, o->h);
        rp = PMPI_Reduce_local_c(b_in + off, b_io + off, count, t->h, o->h);
    } else
#endif
    {
        (void)big;
        rv = MPI_Reduce_local(a_in + off, a_io + off, count, t->h, o->h);
        rp = PMPI_Reduce_local(b_in + off, b_io + off, count, t->h, o->h);
    }
    if (rp != MPI_SUCCESS) {
        if (rv == MPI_SUCCESS) {
            /* A pair MPI-4.1 allows but this MPI rejects, which vred serves. */
            return -1;
        }
        if (errclass(rv) != errclass(rp)) {
            char d[64];
            snprintf(d, sizeof d, "error class %d (vred) vs %d (MPI)", errclass(rv), errclass(rp));
            report("rc", t, o, count, off, d);
        }
        return 0;
    }
    if (rv != MPI_SUCCESS) {
        report("rc", t, o, count, off, "vred failed where the MPI succeeded");
        return 1;
    }
    int mismatch = -1;
    for (int i = 0; i < count && mismatch < 0; i++) {
        size_t at = off + (size_t)i * l->ext;
        if (!same_elem(a_io + at, b_io + at, l)) mismatch = i;
    }
    if (mismatch >= 0 && (group_of(t) & (G_CINT | G_FINT | G_MLINT)) &&
        (o->op == VRED_OP_MAX || o->op == VRED_OP_MIN)) {
        /* The MPI's operator disagrees: is vred right? */
        int right = 1;
        unsigned char ref[16];
        for (int i = 0; i < count && right; i++) {
            size_t at = (size_t)i * l->ext;
            ref_int_maxmin(src_in + start + at, src_io + start + at, ref, (int)l->ext,
                           int_signed(t), o->op == VRED_OP_MAX);
            right = memcmp(ref, a_io + off + at, l->ext) == 0;
        }
        if (right) {
            mpi_deviations++;
            mismatch = -1;
        }
    }
    if (mismatch >= 0) {
        int i = mismatch;
        size_t at = off + (size_t)i * l->ext, src = start + (size_t)i * l->ext;
        char d[200], e[200];
        int k = snprintf(d, sizeof d, "element %d: in", i);
        for (size_t j = 0; j < l->ext; j++)
            k += snprintf(d + k, sizeof d - k, "%s%02x", j % 4 ? "" : " ", src_in[src + j]);
        k += snprintf(d + k, sizeof d - k, " | inout");
        for (size_t j = 0; j < l->ext; j++)
            k += snprintf(d + k, sizeof d - k, "%s%02x", j % 4 ? "" : " ", src_io[src + j]);
        k = snprintf(e, sizeof e, "    vred:");
        for (size_t j = 0; j < l->ext; j++)
            k += snprintf(e + k, sizeof e - k, "%s%02x", j % 4 ? "" : " ", a_io[at + j]);
        k += snprintf(e + k, sizeof e - k, "  MPI:");
        for (size_t j = 0; j < l->ext; j++)
            k += snprintf(e + k, sizeof e - k, "%s%02x", j % 4 ? "" : " ", b_io[at + j]);
        report("value", t, o, count, off, d);
        if (verbose_failures >= 0) printf("%s\n", e);
        return 1;
    }
    /* Nothing outside the elements' fields changes: the input, the guard after the end. */
    if (memcmp(a_in + off, src_in + start, span)) {
        report("input modified", t, o, count, off, "");
        return 1;
    }
    if (memcmp(a_io + off + n, src_io + start + n, GUARD)) {
        report("write past the end", t, o, count, off, "");
        return 1;
    }
    passed++;
    return 1;
}

static void sweep(const type_entry *types, int ntypes, const op_entry *ops, int nops)
{
    size_t bytes = (MAXCOUNT + MAXCOUNT / 2 + 2) * MAXEXT + GUARD + 64;
    src_in = malloc(bytes); src_io = malloc(bytes);
    a_in = aligned_alloc(64, bytes + 64); a_io = aligned_alloc(64, bytes + 64);
    b_in = aligned_alloc(64, bytes + 64); b_io = aligned_alloc(64, bytes + 64);
    make_counts();
    for (int ti = 0; ti < ntypes; ti++) {
        const type_entry *t = &types[ti];
        layout l;
        if (!layout_of(t, &l) || l.ext > MAXEXT) {
            printf("note: %s: no usable size or extent; skipped\n", t->name);
            continue;
        }
        for (size_t k = 0; k + l.ext <= bytes - 64; k += l.ext) {
            put_elem(src_in + k, &l);
            put_elem(src_io + k, &l);
        }
        for (int oi = 0; oi < nops; oi++) {
            const op_entry *o = &ops[oi];
            int ok = 1;
            if (!std_allows(t, o->op)) {
                /* Not a reduction MPI-4.1 defines (some MPIs assert on these: not called). */
                int vt, vo;
                if (lookup && lookup(t->h, o->h, &vt, &vo)) {
                    failed++;
                    printf("FAIL %s on %s: not allowed by MPI-4.1, but vred serves it\n",
                           o->name, t->name);
                } else {
                    passed++;
                }
                continue;
            }
            int vt_, vo_;
            if (lookup && !lookup(t->h, o->h, &vt_, &vo_)) {
                /* vred passes it through: MPI_Reduce_local is PMPI_Reduce_local, nothing to
                 * compare (and some MPIs crash on pairs they define but cannot compute, e.g.
                 * MPI_REAL16 in the PyPI Open MPI 5 and MPICH 5 built without Fortran). */
                passthrough_pairs++;
                continue;
            }
            long dev0 = mpi_deviations;
            pair_failures = 0;
            verbose_failures = 3;
            if (getenv("VRED_TEST_TRACE")) {
                printf("trace: %s on %s\n", o->name, t->name);
                fflush(stdout);
            }
            for (int ci = 0; ci < ncounts && ok; ci++) {
                int c = counts[ci];
                /* Offsets 0 and one of 1..7; every offset recurs across the counts. */
                for (int pass = 0; pass < 2 && ok; pass++) {
                    int off = pass == 0 ? 0 : 1 + (c + ti + oi) % 7;
                    int r = one_case(t, o, &l, c, off, 0);
                    if (r == -1) {
                        /* vred must never accept a call the MPI rejects. */
                        extensions++;
                        failed++;
                        printf("FAIL %s on %s: the MPI rejects it (count %d), vred serves it\n",
                               o->name, t->name, c);
                        ok = 0;
                    } else if (r == 0) {
                        ok = 0; /* the MPI does not define this pair: only the rc was compared */
                    }
                }
            }
#if MPI_VERSION >= 4
            if (ok) /* the large-count entry point, a few counts */
                for (int c = 0; c <= 70; c += 7) one_case(t, o, &l, c, c % 8, 1);
#endif
            if (mpi_deviations > dev0)
                printf("note: %s on %s: the MPI's own operator is wrong in %ld cases (a known "
                       "upstream bug); vred checked against the exact integer result there\n",
                       o->name, t->name, mpi_deviations - dev0);
            if (pair_failures)
                printf("FAIL %s on %s: %ld mismatching cases\n", o->name, t->name, pair_failures);
        }
    }
}

/* ---- vred-is-active checks ------------------------------------------------------------------ */
static int sum_int8(reduce_fn f, int8_t *result)
{
    enum { N = 256 };
    int8_t in[N], io[N];
    for (int i = 0; i < N; i++) in[i] = io[i] = 100;
    if (f(in, io, N, MPI_INT8_T, MPI_SUM) != MPI_SUCCESS) return 0;
    for (int i = 1; i < N; i++)
        if (io[i] != io[0]) return 0;
    *result = io[0];
    return 1;
}

/* Calls on which vred and an MPI's operator are known to differ (upstream MPI bugs). */
typedef struct {
    const char *what;
    MPI_Datatype dt;
    MPI_Op op;
    int size;
    uint64_t in, io;
} probe;

static int check_distinguishing(int passthrough)
{
    enum { N = 256 };
    const probe probes[] = {
        {"int8 SUM 100 + 100 (Open MPI 4.1, 5.0 op/avx saturate)", MPI_INT8_T, MPI_SUM, 1, 100, 100},
        {"MPI_UNSIGNED MAX 2^31 vs 1 (MPICH 4.0 compares signed)", MPI_UNSIGNED, MPI_MAX, 4,
         0x80000000u, 1},
        {"MPI_UNSIGNED_LONG MAX 2^63 vs 1 (Open MPI 4.1, MPICH 4.0 compare signed)",
         MPI_UNSIGNED_LONG, MPI_MAX, 8, 1ull << 63, 1},
        {"MPI_OFFSET MAX -2^63 vs 1 (Open MPI 4.1, 5.0 compare unsigned)", MPI_OFFSET, MPI_MAX, 8,
         1ull << 63, 1},
    };
    int (*vreduce)(vred_op, vred_type, const void *, void *, size_t) =
        (int (*)(vred_op, vred_type, const void *, void *, size_t))dlsym(RTLD_DEFAULT,
                                                                         "vred_reduce");
    if (!lookup || !vreduce) {
        printf("FAIL: vred is not in the process\n");
        return 1;
    }
    int found = 0, bad = 0;
    for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++) {
        const probe *p = &probes[k];
        unsigned char in[N * 8], io_v[N * 8], io_p[N * 8], io_m[N * 8];
        int vt, vo;
        if (!lookup(p->dt, p->op, &vt, &vo)) continue;
        for (int i = 0; i < N; i++) {
            memcpy(in + i * p->size, &p->in, (size_t)p->size);
            memcpy(io_v + i * p->size, &p->io, (size_t)p->size);
        }
        memcpy(io_p, io_v, sizeof io_v);
        memcpy(io_m, io_v, sizeof io_v);
        vreduce((vred_op)vo, (vred_type)vt, in, io_v, N);
        if (PMPI_Reduce_local(in, io_p, N, p->dt, p->op) != MPI_SUCCESS) continue;
        if (!memcmp(io_v, io_p, sizeof io_v)) continue;
        found++;
        MPI_Reduce_local(in, io_m, N, p->dt, p->op);
        int served = !memcmp(io_m, io_v, sizeof io_v), passed = !memcmp(io_m, io_p, sizeof io_p);
        int ok = passthrough ? passed : served;
        printf("%-4s %s: MPI_Reduce_local gives %s's result\n", ok ? "ok" : "FAIL", p->what,
               served ? "vred" : passed ? "the MPI" : "neither");
        bad |= !ok;
    }
    if (!found) {
        printf("vred and this MPI agree on every probe: cannot tell who serves; skipped\n");
        return 77;
    }
    return bad;
}

static int in_vred(void)
{
    Dl_info info;
    reduce_fn f = MPI_Reduce_local;
    if (!dladdr((void *)f, &info) || !info.dli_fname) return 0;
    printf("MPI_Reduce_local resolves into %s\n", info.dli_fname);
    return strstr(info.dli_fname, "libvred-mpi") != NULL;
}

int main(int argc, char **argv)
{
    int expect_vred = 0, distinguish = 0, passthrough = 0, compare = 1, table = 0;
    const char *isa = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--expect-vred")) expect_vred = 1;
        else if (!strcmp(argv[i], "--distinguish")) distinguish = 1;
        else if (!strcmp(argv[i], "--expect-passthrough")) passthrough = 1;
        else if (!strcmp(argv[i], "--no-compare")) compare = 0;
        else if (!strcmp(argv[i], "--table")) table = 1;
        else if (!strncmp(argv[i], "--isa=", 6)) isa = argv[i] + 6;
        else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    type_entry types[] = {
#define VRED_MPI_TYPE(h, cls, arg) {#h, h, cls, FIXED_##cls(arg)},
#include "mpi_types.def"
#undef VRED_MPI_TYPE
    };
    op_entry ops[] = {
#define VRED_MPI_OP(h, vop) {#h, h, vop},
#include "mpi_types.def"
#undef VRED_MPI_OP
    };
    int ntypes = 0, nops = (int)(sizeof ops / sizeof ops[0]);
    /* Drop handles the MPI leaves null and aliases of an earlier name (MPI_LONG_LONG). */
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        int dup = types[i].h == MPI_DATATYPE_NULL;
        for (int j = 0; j < ntypes && !dup; j++) dup = types[j].h == types[i].h;
        if (!dup) types[ntypes++] = types[i];
    }

    int bad = 0;
    /* vred's own diagnostics, if vred is in the process (linked or preloaded). */
    lookup = (int (*)(MPI_Datatype, MPI_Op, int *, int *))dlsym(RTLD_DEFAULT, "vred_mpi_lookup");
    vred_isa (*isa_active)(void) = (vred_isa(*)(void))dlsym(RTLD_DEFAULT, "vred_isa_active");
    const char *(*isa_name)(vred_isa) =
        (const char *(*)(vred_isa))dlsym(RTLD_DEFAULT, "vred_isa_name");
    const char *(*type_name)(vred_type) =
        (const char *(*)(vred_type))dlsym(RTLD_DEFAULT, "vred_type_name");
    const char *active = isa_active && isa_name ? isa_name(isa_active()) : "(no vred)";
    printf("vred ISA: %s\n", active);
    if (isa && strcmp(isa, active) != 0) {
        printf("ISA %s is not available in this build or on this CPU (active: %s): skipped\n",
               isa, active);
        MPI_Finalize();
        return 77;
    }

    if (expect_vred) {
        int8_t r = 0;
        if (!in_vred()) {
            printf("FAIL: MPI_Reduce_local is not libvred-mpi's\n");
            bad = 1;
        } else if (!lookup) {
            printf("FAIL: vred_mpi_lookup not found\n");
            bad = 1;
        }
        if (!sum_int8(MPI_Reduce_local, &r) || r != -56) {
            printf("FAIL: int8 100 + 100 through MPI_Reduce_local gave %d, not -56\n", r);
            bad = 1;
        } else {
            printf("int8 100 + 100 through MPI_Reduce_local: -56\n");
        }
    }
    if (distinguish || passthrough) {
        int r = check_distinguishing(passthrough);
        if (r == 77) {
            MPI_Finalize();
            return 77;
        }
        bad |= r;
    }

    if (table) {
        printf("%-30s %4s  %-12s %s\n", "datatype", "size", "vred type", "ops served by vred");
        for (int i = 0; i < ntypes; i++) {
            int size = 0, vt = -1, vo;
            PMPI_Type_size(types[i].h, &size);
            char served[128] = "";
            for (int o = 0; o < nops; o++)
                if (lookup && lookup(types[i].h, ops[o].h, &vt, &vo))
                    strcat(strcat(served, ops[o].name + 4), " ");
            printf("%-30s %4d  %-12s %s\n", types[i].name, size,
                   vt >= 0 && type_name ? type_name((vred_type)vt) : "-",
                   served[0] ? served : "(passed to the MPI)");
        }
    }

    if (compare) {
        sweep(types, ntypes, ops, nops);
        if (passthrough_pairs)
            printf("%ld (op, datatype) pairs vred passes to the MPI: not compared\n",
                   passthrough_pairs);
        printf("%ld passed, %ld failed", passed, failed);
        if (extensions) printf(" (%ld pairs the MPI rejects but vred served)", extensions);
        if (mpi_deviations) printf(" (%ld cases where the MPI's integer MAX/MIN is wrong)", mpi_deviations);
        printf("\n");
        if (failed) bad = 1;
    }
    MPI_Finalize();
    return bad;
}
