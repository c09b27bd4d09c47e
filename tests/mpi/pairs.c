/*
 * Every (op, datatype) pair vred serves, through every reduction collective and every family of
 * algorithms (issue 15, item 2). tests/mpi/coll.c covers 6 types x 6 ops; this test takes the
 * whole table of src/mpi/mpi_types.def (C and Fortran integers, multi-language integers, float,
 * double, long double, the Fortran reals, complex, C bool, Fortran LOGICAL, byte, and the
 * MINLOC/MAXLOC pair types, the padded ones included) x every op, keeps the pairs
 * vred_mpi_lookup() says vred serves, and runs each through
 *
 *   allreduce, reduce (the root rotating), reduce_scatter_block or reduce_scatter (alternating
 *   with the pair; uneven counts, one zero), each under a point-to-point algorithm (binomial,
 *   redscat, ring, recdbl, rotating with the pair), "dpml" and "ma" (shared memory: small and
 *   large counts); and scan or exscan (alternating; recursive doubling, the only one);
 *
 * forced with vred_mpi_force(); vred_mpi_last_alg() must name the forced algorithm ("mpi" for
 * the datatypes with holes, which the collectives pass on: tests/mpi/holes.c). The result
 * is compared bit for bit with the MPI library's own (PMPI_X on the same inputs), on the
 * significant bytes only (a pair's value and index, x87 long double's 10 bytes: never padding),
 * but complex PROD by value (the sign of a zero part depends on the fold's order, see same_elem).
 * In place on alternate cases.
 *
 * Inputs keep every result independent of the order of the fold (the MPI's order and vred's
 * differ): integers random (wrap-around is order independent) with many zeros (logical ops);
 * floating SUM small integers, PROD in {-1, 1, 2}, MAX/MIN finite, no -0; complex the same per
 * part; pairs from a small pool with ties (MINLOC/MAXLOC take the lower index: associative).
 *
 * Where the MPI's own answer is wrong, vred is checked against the exact one instead, computed
 * from every rank's inputs (each rank regenerates them from the case's seed), and the case is
 * counted as an MPI deviation: integer MAX/MIN that compare unsigned types as signed (MPICH
 * 4.0, pmodels/mpich#6083; Open MPI 4.1 on MPI_UNSIGNED_LONG, open-mpi/ompi#10276) or
 * MPI_OFFSET as unsigned (Open MPI 4.1); MINLOC/MAXLOC whose reduce returns a few wrong pairs
 * of MPI_DOUBLE_INT, MPI_LONG_INT and MPI_LONG_DOUBLE_INT (Intel MPI 2021.18.1: 531 pairs to
 * root 1, its call with and without MPI_IN_PLACE). Any other difference fails.
 *
 * Options: --sample=K[:P], --verbose (one line per pair), --inject-fault (rank 0 corrupts its
 * first result: the comparison must catch it). Exits 1 if any check failed.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "types.h" /* mpi.h, vred.h, vred_mpi.h and the classes of mpi_types.def */

typedef struct {
    const char *name;
    MPI_Datatype h;
    int cls, fixed;
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

/* ---- element layouts (as tests/mpi/conformance.c) --------------------------------------------- */
enum { FM_INT, FM_F32, FM_F64, FM_F80, FM_BOOL, FM_LOGICAL, FM_IDX, FM_IDXF, FM_RAW };
typedef struct {
    int ncomp;
    struct { int off, fmt, len; } c[2];
    int pair, uns; /* pair: MINLOC/MAXLOC type; uns: unsigned integer */
    size_t ext;
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

static int layout_of(const type_entry *t, layout *l)
{
    int size = 0;
    MPI_Aint lb, ext;
    memset(l, 0, sizeof *l);
    if (PMPI_Type_size(t->h, &size) != MPI_SUCCESS || size <= 0) return 0;
    if (PMPI_Type_get_extent(t->h, &lb, &ext) != MPI_SUCCESS || lb != 0 || ext < size) return 0;
    l->ext = (size_t)ext;
    l->uns = t->cls == VRED_MPI_C_UINT;
    switch (t->cls) {
    case VRED_MPI_C_SINT: case VRED_MPI_C_UINT: case VRED_MPI_ML_INT: case VRED_MPI_F_INT:
        comp(l, 0, FM_INT, size); return 1;
    case VRED_MPI_F_REAL: comp(l, 0, float_fmt(size), size); return 1;
    case VRED_MPI_F_COMPLEX:
        comp(l, 0, float_fmt(size / 2), size / 2);
        comp(l, size / 2, float_fmt(size / 2), size / 2);
        return 1;
    case VRED_MPI_F_LOGICAL: comp(l, 0, FM_LOGICAL, size); return 1;
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
    case VRED_BYTE: comp(l, 0, FM_INT, 1); l->uns = 1; break;
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

/* ---- inputs: order-independent results -------------------------------------------------------- */
static uint64_t rng;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A real value for op: exact in any order (see the header). */
static long double real_for(vred_op op, int pair)
{
    if (pair) {
        static const long double pool[] = {0.0L, 1.0L, -1.0L, 2.0L, 0.5L, 3.0L};
        return pool[next() % 6];
    }
    switch (op) {
    case VRED_OP_SUM: return (long double)((int)(next() % 2001) - 1000);
    case VRED_OP_PROD: {
        unsigned k = (unsigned)(next() % 16);
        return k == 0 ? 2.0L : k < 8 ? -1.0L : 1.0L;
    }
    default: { /* MAX/MIN: any finite value but -0 */
        long double v = (long double)(int64_t)(next() >> 11) / (long double)(1ull << (next() % 60));
        return v == 0 ? 0.0L : v;
    }
    }
}

static void put_real(unsigned char *q, int fmt, long double v)
{
    if (fmt == FM_F32) { float f = (float)v; memcpy(q, &f, 4); }
    else if (fmt == FM_F64) { double d = (double)v; memcpy(q, &d, 8); }
    else memcpy(q, &v, 10);
}

static void put_elem(unsigned char *p, const layout *l, vred_op op)
{
    for (size_t k = 0; k < l->ext; k++) p[k] = (unsigned char)next(); /* padding: junk */
    for (int c = 0; c < l->ncomp; c++) {
        unsigned char *q = p + l->c[c].off;
        int len = l->c[c].len;
        switch (l->c[c].fmt) {
        case FM_INT: {
            unsigned char b[16];
            uint64_t u0 = next(), u1 = next();
            memcpy(b, &u0, 8);
            memcpy(b + 8, &u1, 8);
            unsigned r = (unsigned)(next() % 8);
            if (l->pair) { /* small, many ties */
                int64_t v = (int64_t)(next() % 5) - 2;
                memcpy(b, &v, 8);
                memset(b + 8, v < 0 ? 0xFF : 0, 8);
            } else if (r < 2) {
                memset(b, 0, 16); /* zeros: the logical ops */
            } else if (r == 2) {
                memset(b, 0xFF, 16);
            }
            memcpy(q, b, (size_t)len);
            break;
        }
        case FM_F32: case FM_F64: case FM_F80:
            /* complex PROD: parts in {-1, 0, 1, 2}: products stay small exact integers */
            put_real(q, l->c[c].fmt, l->ncomp == 2 && !l->pair && op == VRED_OP_PROD
                                           ? (long double)((int)(next() % 4) - 1)
                                           : real_for(op, l->pair));
            break;
        case FM_BOOL: memset(q, 0, (size_t)len); q[0] = (unsigned char)(next() & 1); break;
        case FM_LOGICAL: {
            unsigned r = (unsigned)(next() % 3);
            memset(q, 0, (size_t)len);
            if (r == 1) q[0] = 1;
            if (r == 2) { uint64_t u = next() | 1; memcpy(q, &u, (size_t)len); }
            break;
        }
        case FM_IDX: { int64_t v = (int64_t)(next() % 6); memcpy(q, &v, (size_t)len); break; }
        case FM_IDXF: put_real(q, len == 4 ? FM_F32 : FM_F64, (long double)(next() % 6)); break;
        default: break;
        }
    }
}

/* Complex PROD: the sign of a zero part depends on the order of the fold ((1+i)(1+i) = +0+2i,
 * times -1 is -0-2i; in another order +0-2i), so those parts are compared by value: the inputs
 * are small integers, every product exact. Everything else bit for bit. */
static int by_value;

static long double get_real(const unsigned char *q, int fmt)
{
    if (fmt == FM_F32) { float f; memcpy(&f, q, 4); return f; }
    if (fmt == FM_F64) { double d; memcpy(&d, q, 8); return d; }
    long double v = 0;
    memcpy(&v, q, 10);
    return v;
}

static int same_elem(const unsigned char *a, const unsigned char *b, const layout *l)
{
    for (int c = 0; c < l->ncomp; c++) {
        int fmt = l->c[c].fmt;
        if (by_value && (fmt == FM_F32 || fmt == FM_F64 || fmt == FM_F80)) {
            if (get_real(a + l->c[c].off, fmt) != get_real(b + l->c[c].off, fmt)) return 0;
        } else if (memcmp(a + l->c[c].off, b + l->c[c].off, (size_t)l->c[c].len)) {
            return 0;
        }
    }
    return 1;
}

/* Integer MAX/MIN of `len` little-endian bytes: the exact answer. */
static void int_maxmin(const unsigned char *in, unsigned char *io, int len, int is_signed, int is_max)
{
    int cmp = 0; /* sign of io - in */
    for (int k = len - 1; k >= 0 && !cmp; k--) {
        unsigned a = in[k], b = io[k];
        if (k == len - 1 && is_signed) { a ^= 0x80; b ^= 0x80; }
        cmp = (b > a) - (b < a);
    }
    if (!(is_max ? cmp > 0 : cmp < 0)) memcpy(io, in, (size_t)len);
}

/* A pair's component as a number: an integer value or index (signed, len bytes), or a real. */
static long double pair_num(const unsigned char *q, int fmt, int len)
{
    if (fmt == FM_INT || fmt == FM_IDX) {
        uint64_t u = 0;
        memcpy(&u, q, (size_t)len);
        int sh = 64 - 8 * len;
        return (long double)((int64_t)(u << sh) >> sh);
    }
    return get_real(q, fmt == FM_IDXF ? (len == 4 ? FM_F32 : FM_F64) : fmt);
}

/* MINLOC/MAXLOC of the pair `in` into `io`: the exact answer (the greater or lesser value; on a
 * tie the lesser index). The inputs hold no NaN. */
static void pair_loc(const unsigned char *in, unsigned char *io, const layout *l, int is_max)
{
    long double a = pair_num(in + l->c[0].off, l->c[0].fmt, l->c[0].len);
    long double b = pair_num(io + l->c[0].off, l->c[0].fmt, l->c[0].len);
    long double ia = pair_num(in + l->c[1].off, l->c[1].fmt, l->c[1].len);
    long double ib = pair_num(io + l->c[1].off, l->c[1].fmt, l->c[1].len);
    if ((is_max ? a > b : a < b) || (a == b && ia < ib)) memcpy(io, in, l->ext);
}

/* ---- collectives ------------------------------------------------------------------------------ */
enum { C_ALLREDUCE, C_REDUCE, C_RSB, C_RS, C_SCAN, C_EXSCAN, NCOLL };
static const char *coll_name[NCOLL] = {"allreduce", "reduce", "reduce_scatter_block",
                                       "reduce_scatter", "scan", "exscan"};
static const char *coll_force[NCOLL] = {"allreduce", "reduce", "reduce_scatter",
                                        "reduce_scatter", "scan", "scan"};

static int wrank, wsize, verbose, inject_fault;
static long checks, failures, printed, cases, deviations, passthrough, enumno, sample_k = 1,
    sample_phase;
static long fam_cases[3];

static int call(int vred, int coll, const void *sb, void *rb, int n, const int *rc,
                MPI_Datatype dt, MPI_Op op, int root)
{
    MPI_Comm w = MPI_COMM_WORLD;
    switch (coll) {
    case C_ALLREDUCE: return vred ? MPI_Allreduce(sb, rb, n, dt, op, w) : PMPI_Allreduce(sb, rb, n, dt, op, w);
    case C_REDUCE: return vred ? MPI_Reduce(sb, rb, n, dt, op, root, w) : PMPI_Reduce(sb, rb, n, dt, op, root, w);
    case C_RSB: return vred ? MPI_Reduce_scatter_block(sb, rb, n, dt, op, w)
                            : PMPI_Reduce_scatter_block(sb, rb, n, dt, op, w);
    case C_RS: return vred ? MPI_Reduce_scatter(sb, rb, rc, dt, op, w)
                           : PMPI_Reduce_scatter(sb, rb, rc, dt, op, w);
    case C_SCAN: return vred ? MPI_Scan(sb, rb, n, dt, op, w) : PMPI_Scan(sb, rb, n, dt, op, w);
    default: return vred ? MPI_Exscan(sb, rb, n, dt, op, w) : PMPI_Exscan(sb, rb, n, dt, op, w);
    }
}

/* MPICH 4.0.2's own MPI_IN_PLACE bugs (tests/mpi/coll.c, mpi_inplace_bug): its reference call
 * is then made with separate buffers. */
static int mpi_inplace_bug(int coll, int root, size_t bytes, const int *rc)
{
#ifdef MPICH
    if (coll == C_REDUCE) return root != 0 && bytes > 2048;
    if (coll == C_RS) {
        long disp = 0;
        for (int i = 0; i < wsize; i++) {
            if (i && rc[i] > disp) return 1;
            disp += rc[i];
        }
    }
#else
    (void)coll, (void)root, (void)bytes, (void)rc;
#endif
    return 0;
}

static void fill(unsigned char *p, size_t n, const layout *l, vred_op op, uint64_t seed, int q)
{
    rng = seed ^ ((uint64_t)(q + 1) * 0xD1B54A32D192ED03ull);
    if (!rng) rng = 1;
    next();
    for (size_t i = 0; i < n; i++) put_elem(p + i * l->ext, l, op);
}

static void run(const type_entry *t, const op_entry *o, const layout *l, int coll,
                const char *alg, int fam, long count, int inplace, int root)
{
    int p = wsize, r = wrank;
    size_t ext = l->ext;
    int rc[64];
    long total = 0, disp = 0;
    for (int i = 0; i < p; i++) {
        rc[i] = i == p - 1 && p > 1 ? 0 : (int)count + 2 * i;
        if (i < r) disp += rc[i];
        total += rc[i];
    }
    size_t nsend, nrecv, first = 0;
    switch (coll) {
    case C_RSB: nsend = (size_t)count * p; nrecv = (size_t)count; first = (size_t)r * count; break;
    case C_RS: nsend = (size_t)total; nrecv = (size_t)rc[r]; first = (size_t)disp; break;
    default: nsend = nrecv = (size_t)count; break;
    }
    int lo = 0, hi = p;
    if (coll == C_SCAN) hi = r + 1;
    if (coll == C_EXSCAN) hi = r;
    int has = (coll != C_REDUCE || r == root) && hi > lo;
    uint64_t seed = 0x9E3779B97F4A7C15ull * (uint64_t)(enumno + 1);
    size_t bytes = nsend * ext + 16;
    unsigned char *sb = malloc(bytes), *va = malloc(bytes), *pa = malloc(bytes);
    fill(sb, nsend, l, o->op, seed, r);
    memset(va, 0xA5, bytes);
    memset(pa, 0xA5, bytes);
    int at_root = coll != C_REDUCE || r == root;
    int ip = inplace && at_root;
    if (ip) { memcpy(va, sb, nsend * ext); memcpy(pa, sb, nsend * ext); }
    int ref_ip = ip && !mpi_inplace_bug(coll, root, (size_t)count * ext, rc);
    if (ip && !ref_ip) memset(pa, 0xA5, bytes); /* the MPI's call: separate buffers */
    /* A datatype with holes goes to the MPI, whose copies leave them alone (holes.c): vred's
     * call is the MPI's then, and avoids the MPI's bugs in place the same way. */
    int tsize = 0;
    PMPI_Type_size(t->h, &tsize);
    int holes = (size_t)tsize < ext;
    if (holes && ip && !ref_ip) {
        ip = 0;
        memset(va, 0xA5, bytes);
    }

    cases++;
    fam_cases[fam]++;
    checks++;
    char desc[256];
    snprintf(desc, sizeof desc, "%s %s %s alg=%s count=%ld%s root=%d", coll_name[coll], o->name,
             t->name, alg, count, inplace ? " in-place" : "", root);
    int ev = call(1, coll, ip ? MPI_IN_PLACE : sb, va, (int)count, rc, t->h, o->h, root);
    const char *la = vred_mpi_last_alg();
    int ep = call(0, coll, ref_ip ? MPI_IN_PLACE : sb, pa, (int)count, rc, t->h, o->h, root);
    by_value = o->op == VRED_OP_PROD && l->ncomp == 2 && !l->pair;
    int bad = 0;
    if (ev != MPI_SUCCESS || ep != MPI_SUCCESS) {
        if (printed++ < 30) printf("FAIL rank %d: %s: rc vred %d, MPI %d\n", r, desc, ev, ep);
        failures++;
        goto out;
    }
    const char *want_alg = holes ? "mpi" : alg;
    if (strcmp(la, want_alg)) {
        if (printed++ < 30) printf("FAIL rank %d: %s: served by \"%s\"\n", r, desc, la);
        failures++;
    }
    if (!has) goto out;
    if (inject_fault && nrecv) { /* --inject-fault: the comparison must catch it */
        va[l->c[0].off] ^= 1;
        inject_fault = 0;
    }
    size_t i = 0;
    while (i < nrecv && same_elem(va + i * ext, pa + i * ext, l)) i++;
    if (i == nrecv) goto out;
    /* differ: is it a known MPI deviation (integer MAX/MIN; MINLOC/MAXLOC, where Intel MPI
     * 2021.18.1's reduce gets a few pairs of the padded types wrong), vred exact? */
    int intmm = (o->op == VRED_OP_MAX || o->op == VRED_OP_MIN) && l->ncomp == 1 &&
                l->c[0].fmt == FM_INT;
    int loc = (o->op == VRED_OP_MINLOC || o->op == VRED_OP_MAXLOC) && l->pair && l->ncomp == 2 &&
              l->c[0].fmt != FM_RAW && l->c[1].fmt != FM_RAW; /* pair_num reads numbers only */
    if (intmm || loc) {
        int is_max = o->op == VRED_OP_MAX || o->op == VRED_OP_MAXLOC;
        unsigned char *all = malloc(bytes), *exact = malloc(nrecv * ext + 16);
        for (int q = lo; q < hi; q++) {
            fill(all, nsend, l, o->op, seed, q);
            for (size_t j = 0; j < nrecv; j++) {
                unsigned char *in = all + (first + j) * ext, *io = exact + j * ext;
                if (q == lo) memcpy(io, in, ext);
                else if (intmm) int_maxmin(in, io, (int)ext, !l->uns && t->cls != VRED_MPI_C_UINT, is_max);
                else pair_loc(in, io, l, is_max);
            }
        }
        int vred_exact = 1;
        for (size_t j = 0; j < nrecv && vred_exact; j++)
            vred_exact = same_elem(exact + j * ext, va + j * ext, l);
        free(all);
        free(exact);
        if (vred_exact) {
            static const op_entry *last_o;
            static const type_entry *last_t;
            deviations++;
            if (r == 0 && (last_o != o || last_t != t))
                printf("note: the MPI's own %s on %s is wrong (vred gives the exact result)\n",
                       o->name, t->name);
            last_o = o, last_t = t;
            goto out;
        }
    }
    bad = 1;
    failures++;
    if (printed++ < 30) {
        size_t nd = 0;
        for (size_t j = i; j < nrecv; j++) nd += !same_elem(va + j * ext, pa + j * ext, l);
        char hv[80] = "", hp[80] = "";
        for (size_t k = 0; k < ext && k < 24; k++) {
            snprintf(hv + 2 * k + k / 4, 4, "%02x%s", va[i * ext + k], k % 4 == 3 ? " " : "");
            snprintf(hp + 2 * k + k / 4, 4, "%02x%s", pa[i * ext + k], k % 4 == 3 ? " " : "");
        }
        printf("FAIL rank %d: %s: element %zu of %zu differs (%zu differ): vred %s MPI %s\n", r,
               desc, i, nrecv, nd, hv, hp);
    }
out:
    (void)bad;
    fflush(stdout);
    free(sb);
    free(va);
    free(pa);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--verbose")) verbose = 1;
        else if (!strcmp(argv[a], "--inject-fault")) inject_fault = wrank == 0;
        else if (!strncmp(argv[a], "--sample=", 9)) {
            char *end;
            sample_k = strtol(argv[a] + 9, &end, 10);
            sample_phase = *end == ':' ? strtol(end + 1, NULL, 10) : 0;
            if (sample_k < 1) sample_k = 1;
            sample_phase %= sample_k;
        } else {
            if (!wrank) fprintf(stderr, "unknown option %s\n", argv[a]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (wsize < 2 || wsize > 64) {
        if (!wrank) printf("skipped: 2 to 64 ranks\n");
        MPI_Finalize();
        return 77;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
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
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        int dup = types[i].h == MPI_DATATYPE_NULL;
        for (int j = 0; j < ntypes && !dup; j++) dup = types[j].h == types[i].h;
        if (!dup) types[ntypes++] = types[i];
    }
    static const char *p2p[NCOLL][4] = {{"recdbl", "binomial", "redscat", "ring"},
                                        {"binomial", "redscat", "ring", "binomial"},
                                        {"binomial", "redscat", "ring", "ring"},
                                        {"binomial", "redscat", "ring", "redscat"},
                                        {"recdbl", "recdbl", "recdbl", "recdbl"},
                                        {"recdbl", "recdbl", "recdbl", "recdbl"}};
    double t0 = PMPI_Wtime();
    long pairs = 0;
    for (int ti = 0; ti < ntypes; ti++) {
        layout l;
        if (!layout_of(&types[ti], &l)) continue;
        for (int oi = 0; oi < nops; oi++) {
            int vt, vo;
            if (!vred_mpi_lookup(types[ti].h, ops[oi].h, &vt, &vo)) {
                passthrough++;
                continue;
            }
            pairs++;
            long f0 = failures;
            for (int g = 0; g < 4; g++) {
                int coll = g == 0 ? C_ALLREDUCE : g == 1 ? C_REDUCE
                           : g == 2 ? ((ti + oi) % 2 ? C_RS : C_RSB)
                                    : ((ti + oi) % 2 ? C_EXSCAN : C_SCAN);
                for (int fam = 0; fam < (g == 3 ? 1 : 3); fam++) {
                    const char *alg = fam == 0 ? p2p[coll][(ti + oi) % 4] : fam == 1 ? "dpml" : "ma";
                    /* dpml: a small message; ma: above 16 KiB (the model's switch) */
                    long count = fam == 0 ? 101 : fam == 1 ? 13 : (long)(17000 / l.ext) | 1;
                    if (coll == C_RSB || coll == C_RS) count = fam == 2 ? count / wsize + 1 : count;
                    long e = enumno++;
                    if (e % sample_k != sample_phase) continue;
                    if (vred_mpi_force(coll_force[coll], alg)) {
                        failures++;
                        if (!wrank) printf("FAIL: vred_mpi_force(%s, %s) refused\n", coll_force[coll], alg);
                        continue;
                    }
                    run(&types[ti], &ops[oi], &l, coll, alg, fam, count, (int)(e % 2),
                        (int)(e % wsize));
                    vred_mpi_force(coll_force[coll], "auto");
                }
            }
            if (verbose && !wrank)
                printf("%s %s: %s\n", ops[oi].name, types[ti].name, failures > f0 ? "FAIL" : "ok");
        }
    }
    double t1 = PMPI_Wtime();
    long loc[7] = {checks, failures, cases, deviations, fam_cases[0], fam_cases[1], fam_cases[2]}, tot[7];
    PMPI_Allreduce(loc, tot, 7, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (!wrank) {
        printf("pairs: %d ranks, sample 1/%ld phase %ld: %ld (op, datatype) pairs vred serves (%ld "
               "passed to the MPI), %ld cases (p2p %ld, dpml %ld, ma %ld), %ld checks (rank-cases), "
               "%ld failed; %.1f s\n",
               wsize, sample_k, sample_phase, pairs, passthrough, tot[2] / wsize, tot[4] / wsize,
               tot[5] / wsize, tot[6] / wsize, tot[0], tot[1], t1 - t0);
        if (tot[3])
            printf("note: %ld rank-results where the MPI's own result is wrong (integer MAX/MIN, "
                   "a known upstream bug; MINLOC/MAXLOC); vred matched the exact result there\n",
                   tot[3]);
    }
    MPI_Finalize();
    return tot[1] ? 1 : 0;
}
