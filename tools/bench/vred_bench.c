/*
 * vred-bench: vred against the MPI library underneath it, in one process, side by side.
 *
 *   vred-bench local    [--case LIST|default|all] [--sizes LIST | --min B --max B] [--mode warm|cold|both]
 *                       [--isa best|scalar|sse41|avx2|avx512|neon|sve|all] [--reps N] [--budget S]
 *                       [--validate] [--csv FILE] [--label NAME] [--llc BYTES] [--align A | --offset N[/R]]
 *   vred-bench counters [--case f32:sum,u8:sum] [--bytes 16M] [--isa ...] [--which both|vred|mpi]
 *   vred-bench coll | offsets | tune | scalar  (all ranks; bench_coll.c, bench_offsets.c,
 *                                               bench_tune.c, bench_scalar.c)
 *
 * `local` times MPI_Reduce_local served by vred (MPI_Reduce_local, from libvred-mpi.so), by the
 * MPI library (PMPI_Reduce_local) and a memcpy of the same size. Every repetition runs the three
 * in turn (cycling through all six orders, so none always follows the same one), each over a batch
 * of calls; a table row is the median over the repetitions. Two modes:
 *   warm  the same buffers on every call, shared by the three variants (in cache whenever they fit);
 *   cold  every call takes the next buffers of a pool at least twice the size of the last-level
 *         cache, visited in an order that defeats the prefetchers, so a call's operands were last
 *         touched one whole pool ago: they come from memory.
 * --validate compares vred's inout with the MPI's bit for bit after every repetition (both start
 * from the same bytes and see the same calls). The pool comes from plain malloc by default, so
 * every slot has malloc's placement (glibc: 16 mod 64 for large blocks), as an application's
 * buffers would; --align A and --offset N[/R] (in N, inout R bytes past a 4096-aligned address)
 * place them otherwise. Every table header and CSV row says which (columns sync, buffers).
 *
 * `counters` runs one reduction through vred and one through the MPI, each inside its own
 * function (bench_counted_vred, bench_counted_mpi) so that
 *   valgrind --tool=callgrind --toggle-collect=bench_counted_vred ...
 * counts just that call; tools/bench/counters.sh does it and prints the table.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "vred.h"
#include "bench_common.h"
#include "kernels/kernel.h" /* the pair structs */
#include "bench_coll.h"     /* coll, tune */

#ifndef VRED_BENCH_FLAVOR
#define VRED_BENCH_FLAVOR "mpi"
#endif

/* ---- cases: the (op, type) pairs of vred's table that the MPI also names -------------------- */


typedef struct {
    vred_op op;
    vred_type type;
    MPI_Datatype dt;
    MPI_Op mop;
    const char *dt_name, *op_name;
    size_t esize;
} bcase;

/* The MPI datatype of each vred type; MPI_DATATYPE_NULL where MPI has none (bf16, f16). */
static MPI_Datatype mpi_type(vred_type t, const char **name)
{
#define R(d) do { *name = #d; return d; } while (0)
    switch (t) {
    case VRED_INT8: R(MPI_INT8_T);
    case VRED_UINT8: R(MPI_UINT8_T);
    case VRED_INT16: R(MPI_INT16_T);
    case VRED_UINT16: R(MPI_UINT16_T);
    case VRED_INT32: R(MPI_INT32_T);
    case VRED_UINT32: R(MPI_UINT32_T);
    case VRED_INT64: R(MPI_INT64_T);
    case VRED_UINT64: R(MPI_UINT64_T);
    case VRED_FLOAT: R(MPI_FLOAT);
    case VRED_DOUBLE: R(MPI_DOUBLE);
    case VRED_LONG_DOUBLE: R(MPI_LONG_DOUBLE);
    case VRED_C_FLOAT_COMPLEX: R(MPI_C_FLOAT_COMPLEX);
    case VRED_C_DOUBLE_COMPLEX: R(MPI_C_DOUBLE_COMPLEX);
    case VRED_C_LONG_DOUBLE_COMPLEX: R(MPI_C_LONG_DOUBLE_COMPLEX);
    case VRED_BOOL: R(MPI_C_BOOL);
    case VRED_BYTE: R(MPI_BYTE);
    case VRED_FLOAT_INT: R(MPI_FLOAT_INT);
    case VRED_DOUBLE_INT: R(MPI_DOUBLE_INT);
    case VRED_LONG_INT: R(MPI_LONG_INT);
    case VRED_2INT: R(MPI_2INT);
    case VRED_SHORT_INT: R(MPI_SHORT_INT);
    case VRED_LONG_DOUBLE_INT: R(MPI_LONG_DOUBLE_INT);
    case VRED_2FLOAT: R(MPI_2REAL);
    case VRED_2DOUBLE: R(MPI_2DOUBLE_PRECISION);
    default: *name = "none"; return MPI_DATATYPE_NULL;
    }
#undef R
}

static MPI_Op mpi_op(vred_op op, const char **name)
{
#define R(o) do { *name = #o; return o; } while (0)
    switch (op) {
    case VRED_OP_MAX: R(MPI_MAX);
    case VRED_OP_MIN: R(MPI_MIN);
    case VRED_OP_SUM: R(MPI_SUM);
    case VRED_OP_PROD: R(MPI_PROD);
    case VRED_OP_LAND: R(MPI_LAND);
    case VRED_OP_LOR: R(MPI_LOR);
    case VRED_OP_LXOR: R(MPI_LXOR);
    case VRED_OP_BAND: R(MPI_BAND);
    case VRED_OP_BOR: R(MPI_BOR);
    case VRED_OP_BXOR: R(MPI_BXOR);
    case VRED_OP_MINLOC: R(MPI_MINLOC);
    case VRED_OP_MAXLOC: R(MPI_MAXLOC);
    default: *name = "none"; return MPI_OP_NULL;
    }
#undef R
}

/* 0 and a reason if the pair cannot be benchmarked against this MPI. */
static int make_case(vred_op op, vred_type t, bcase *c, const char **why)
{
    memset(c, 0, sizeof *c);
    c->op = op, c->type = t, c->esize = vred_type_size(t);
    if (!vred_op_valid(op, t)) return *why = "not a valid (op, type) pair", 0;
    c->dt = mpi_type(t, &c->dt_name);
    c->mop = mpi_op(op, &c->op_name);
    if (c->dt == MPI_DATATYPE_NULL) return *why = "the MPI has no such datatype", 0;
    MPI_Aint lb, extent;
    if (MPI_Type_get_extent(c->dt, &lb, &extent) != MPI_SUCCESS || lb != 0 ||
        (size_t)extent != c->esize)
        return *why = "the MPI datatype's extent differs from vred's type (or it is unavailable)", 0;
    return 1;
}


static const char *const default_cases = "f32:sum,f64:max,i32:prod,u8:sum,u8:band,i64:bxor";

/* Parses LIST|default|all into cases; reports and drops pairs the MPI cannot run. */
static int build_cases(const char *spec, bcase **out, int verbose)
{
    int cap = VRED_OP_COUNT * VRED_TYPE_COUNT, n = 0;
    bcase *cs = calloc((size_t)cap, sizeof *cs);
    const char *why;
    if (!strcmp(spec, "all")) {
        for (int op = 0; op < VRED_OP_COUNT; op++)
            for (int t = 0; t < VRED_TYPE_COUNT; t++) {
                if (!vred_op_valid((vred_op)op, (vred_type)t)) continue;
                if (make_case((vred_op)op, (vred_type)t, &cs[n], &why)) n++;
                else if (verbose)
                    fprintf(stderr, "# skipped %s:%s: %s\n", vred_type_name((vred_type)t),
                            vred_op_name((vred_op)op), why);
            }
    } else {
        char list[1024];
        snprintf(list, sizeof list, "%s", !strcmp(spec, "default") ? default_cases : spec);
        for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
             tok = strtok_r(NULL, ",", &save)) {
            vred_op op = VRED_OP_SUM;
            vred_type t = VRED_FLOAT;
            if (!bench_parse_case(tok, &op, &t)) {
                fprintf(stderr, "vred-bench: unknown case '%s' (write type:op, e.g. f32:sum)\n", tok);
                exit(2);
            }
            if (make_case(op, t, &cs[n], &why)) n++;
            else fprintf(stderr, "# skipped %s: %s\n", tok, why);
        }
    }
    *out = cs;
    return n;
}

/* ---- operands --------------------------------------------------------------------------------
 * Repeated in-place application must stay finite, free of subnormals and identical between vred
 * and the MPI: floating PROD multiplies by +-1 (complex: by +-i), floating SUM adds multiples of
 * 1/8, logical operands are 0 or not with equal odds, MINLOC/MAXLOC values repeat (ties).
 * Padding bytes are zero in every buffer. */
static uint32_t rnd(uint32_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 17, *s ^= *s << 5;
    return *s;
}

static void fill(const bcase *c, void *buf, size_t count, uint32_t seed, int is_in)
{
    unsigned char *b = buf;
    uint32_t s = seed * 2654435761u + 1;
    int prod = c->op == VRED_OP_PROD, logical = c->op >= VRED_OP_LAND && c->op <= VRED_OP_LXOR;
    memset(buf, 0, count * c->esize);
    for (size_t i = 0; i < count; i++) {
        uint32_t r = rnd(&s);
        double fv = prod ? (is_in ? ((r & 1) ? -1.0 : 1.0) : 1.0 + (r % 1024) / 1024.0)
                         : ((double)(r % 2001) - 1000.0) * 0.125;
        void *e = b + i * c->esize;
        int ival = (int)(r % 8);
        switch (c->type) {
        case VRED_FLOAT: *(float *)e = (float)fv; break;
        case VRED_DOUBLE: *(double *)e = fv; break;
        case VRED_LONG_DOUBLE: *(long double *)e = fv; break;
        case VRED_C_FLOAT_COMPLEX:
            if (prod && is_in) ((float *)e)[0] = 0, ((float *)e)[1] = (r & 2) ? 1.0f : -1.0f;
            else ((float *)e)[0] = (float)fv, ((float *)e)[1] = (float)(fv * 0.5);
            break;
        case VRED_C_DOUBLE_COMPLEX:
            if (prod && is_in) ((double *)e)[0] = 0, ((double *)e)[1] = (r & 2) ? 1.0 : -1.0;
            else ((double *)e)[0] = fv, ((double *)e)[1] = fv * 0.5;
            break;
        case VRED_C_LONG_DOUBLE_COMPLEX:
            if (prod && is_in) ((long double *)e)[0] = 0, ((long double *)e)[1] = (r & 2) ? 1.0L : -1.0L;
            else ((long double *)e)[0] = fv, ((long double *)e)[1] = fv * 0.5;
            break;
        case VRED_BOOL: *(uint8_t *)e = (r >> 3) & 1; break;
        case VRED_FLOAT_INT: ((vred_float_int *)e)->v = (float)ival, ((vred_float_int *)e)->i = (int32_t)i; break;
        case VRED_DOUBLE_INT: ((vred_double_int *)e)->v = ival, ((vred_double_int *)e)->i = (int32_t)i; break;
        case VRED_LONG_INT: ((vred_long_int *)e)->v = ival, ((vred_long_int *)e)->i = (int32_t)i; break;
        case VRED_2INT: ((vred_2int *)e)->v = ival, ((vred_2int *)e)->i = (int32_t)(i ^ (size_t)is_in); break;
        case VRED_SHORT_INT: ((vred_short_int *)e)->v = (int16_t)ival, ((vred_short_int *)e)->i = (int32_t)i; break;
        case VRED_LONG_DOUBLE_INT: ((vred_ldbl_int *)e)->v = ival, ((vred_ldbl_int *)e)->i = (int32_t)i; break;
        case VRED_2FLOAT: ((vred_2float *)e)->v = (float)ival, ((vred_2float *)e)->i = (float)i; break;
        case VRED_2DOUBLE: ((vred_2double *)e)->v = ival, ((vred_2double *)e)->i = (double)i; break;
        default: /* integers and bytes */
            for (size_t k = 0; k < c->esize; k += 4) {
                uint32_t w = k ? rnd(&s) : r;
                if (logical && (w >> 7) % 2 == 0) w = 0;
                else if (prod) w |= 1;
                memcpy((char *)e + k, &w, c->esize - k < 4 ? c->esize - k : 4);
            }
            if (logical && c->esize < 4 && (r >> 9) % 2 == 0) memset(e, 0, c->esize);
            break;
        }
    }
}

/* ---- machine ---------------------------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}



/* The largest data/unified cache of cpu0, from sysfs (or glibc); 32 MiB if unknown. */
static size_t llc_bytes(void)
{
    size_t best = 0;
    for (int i = 0; i < 8; i++) {
        char path[128], v[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *f = fopen(path, "r");
        if (!f) break;
        if (fgets(v, sizeof v, f)) {
            char *end;
            size_t x = strtoull(v, &end, 10);
            if (*end == 'K') x <<= 10;
            else if (*end == 'M') x <<= 20;
            if (x > best) best = x;
        }
        fclose(f);
    }
#ifdef _SC_LEVEL3_CACHE_SIZE
    if (!best) {
        long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
        best = l3 > 0 ? (size_t)l3 : l2 > 0 ? (size_t)l2 : 0;
    }
#endif
    return best ? best : (size_t)32 << 20;
}



static void fmt_bytes(char *buf, size_t n, size_t b)
{
    if (b >= (1u << 30) && b % (1u << 30) == 0) snprintf(buf, n, "%zu GiB", b >> 30);
    else if (b >= (1u << 20) && b % (1u << 20) == 0) snprintf(buf, n, "%zu MiB", b >> 20);
    else if (b >= 1024 && b % 1024 == 0) snprintf(buf, n, "%zu KiB", b >> 10);
    else snprintf(buf, n, "%zu B", b);
}

/* ---- the MPI under test ------------------------------------------------------------------------ */

static char mpi_lib[MPI_MAX_LIBRARY_VERSION_STRING];
static char baseline[128];
static const char *reduce_local_from = "unknown";

static void describe_mpi(const char *label)
{
    int len = 0;
    MPI_Get_library_version(mpi_lib, &len);
    mpi_lib[strcspn(mpi_lib, "\n")] = 0;
    for (char *p = mpi_lib; *p; p++) {
        if (*p == ',') *p = ';'; /* CSV-safe */
        if (*p == '\t') *p = ' ';
    }
    /* Which object MPI_Reduce_local resolved to: libvred-mpi.so, or the MPI itself. */
    Dl_info info;
    if (dladdr((void *)MPI_Reduce_local, &info) && info.dli_fname) reduce_local_from = info.dli_fname;
    if (label) {
        snprintf(baseline, sizeof baseline, "%s", label);
        return;
    }
    snprintf(baseline, sizeof baseline, "%s", VRED_BENCH_FLAVOR);
    const char *op = getenv("OMPI_MCA_op");
    if (strstr(mpi_lib, "Open MPI")) {
        if (op && strstr(op, "^") && strstr(op, "avx")) strcat(baseline, "-noavx");
        else if (op && *op) snprintf(baseline + strlen(baseline), 64, "-op=%s", op);
        else strcat(baseline, "-avx");
        const char *cap = getenv("OMPI_MCA_op_avx_support");
        if (cap && *cap) snprintf(baseline + strlen(baseline), 48, "-cap%s", cap);
    }
}

static const char *baseline_note(void)
{
    if (!strstr(mpi_lib, "Open MPI")) return "the library's own operator";
    const char *op = getenv("OMPI_MCA_op");
    if (op && strstr(op, "^") && strstr(op, "avx"))
        return "op/avx excluded (--mca op ^avx): Open MPI's scalar C operator";
    return "Open MPI's default: op/avx (SSE..AVX-512 intrinsics where the CPU has them)";
}

static int vred_is_linked(void) { return strstr(reduce_local_from, "vred") != NULL; }

/* ---- local ------------------------------------------------------------------------------------ */

typedef struct {
    size_t sizes[64];
    int nsizes;
    int warm, cold, reps, validate;
    double budget;
    size_t flush;
    FILE *csv;
    bench_mode mode;   /* buffers: malloc (default), --align A, --offset N[/R]; calls always back to back */
    size_t unit;       /* slots start at multiples of it from the pool's base: 64, the alignment, or 4096 */
    char bufname[32];  /* malloc, align64, offset16, offset0/16 */
    char cpu[256];
} local_opts;

typedef struct {
    char *base;      /* three pools (vred, MPI, memcpy), each K slots of [in | inout] */
    size_t capacity; /* bytes of the whole allocation */
    void *alloc;     /* what to free */
} pool_t;

typedef void *(*memcpy_fn)(void *, const void *, size_t);
static memcpy_fn volatile the_memcpy = memcpy;

enum { V_VRED, V_MPI, V_COPY };

static size_t gcd(size_t a, size_t b)
{
    while (b) {
        size_t t = a % b;
        a = b, b = t;
    }
    return a;
}

typedef struct {
    const bcase *c;
    size_t size, stride, K, P, count;
    size_t sin, sio;    /* in and inout: bytes past the start of their half slot (--offset) */
    char *pv, *pm, *pc; /* pool bases of the three variants */
} layout;

static inline char *slot_in(const layout *L, char *pool, size_t s) { return pool + s * L->stride + L->sin; }
static inline char *slot_io(const layout *L, char *pool, size_t s)
{
    return pool + s * L->stride + L->stride / 2 + L->sio;
}

/* k calls of one variant over slots (cursor .. cursor+k-1) * P mod K; returns seconds. */
static double run_batch(const layout *L, int v, size_t cursor, int k)
{
    const bcase *c = L->c;
    int count = (int)L->count;
    double t0 = now_s();
    for (int j = 0; j < k; j++) {
        size_t s = ((cursor + (size_t)j) * L->P) % L->K;
        switch (v) {
        case V_VRED:
            MPI_Reduce_local(slot_in(L, L->pv, s), slot_io(L, L->pv, s), count, c->dt, c->mop);
            break;
        case V_MPI:
            PMPI_Reduce_local(slot_in(L, L->pm, s), slot_io(L, L->pm, s), count, c->dt, c->mop);
            break;
        default: the_memcpy(slot_io(L, L->pc, s), slot_in(L, L->pc, s), L->size); break;
        }
    }
    return now_s() - t0;
}

/* Compares vred's and the MPI's inout of the slots just used; resynchronizes on a difference. */
static int check_batch(const layout *L, size_t cursor, int k, int *reported)
{
    int bad = 0;
    for (int j = 0; j < k && (size_t)j < L->K; j++) {
        size_t s = ((cursor + (size_t)j) * L->P) % L->K;
        char *a = slot_io(L, L->pv, s), *b = slot_io(L, L->pm, s);
        if (memcmp(a, b, L->size) == 0) continue;
        bad++;
        if (!*reported) {
            size_t e = 0;
            while (memcmp(a + e * L->c->esize, b + e * L->c->esize, L->c->esize) == 0) e++;
            printf("# VALIDATION FAILED %s:%s size %zu: element %zu differs: vred 0x", vred_type_name(L->c->type),
                   vred_op_name(L->c->op), L->size, e);
            for (size_t q = L->c->esize; q-- > 0;) printf("%02x", (unsigned char)a[e * L->c->esize + q]);
            printf(", MPI 0x");
            for (size_t q = L->c->esize; q-- > 0;) printf("%02x", (unsigned char)b[e * L->c->esize + q]);
            printf(" (little-endian element, most significant byte first)\n");
            *reported = 1;
        }
        memcpy(a, b, L->size);
    }
    return bad;
}

static void print_header_common(vred_isa isa, const local_opts *o)
{
    char host[256] = "?", model[256], llc[32], flush[32];
    gethostname(host, sizeof host);
    bench_cpu_model(model, sizeof model);
    fmt_bytes(llc, sizeof llc, llc_bytes());
    fmt_bytes(flush, sizeof flush, o->flush);
    printf("# vred-bench local: MPI_Reduce_local served by vred vs by the MPI library vs memcpy, one process\n");
    printf("# MPI library:   %s\n", mpi_lib);
    printf("# MPI baseline:  %s [%s] (PMPI_Reduce_local)\n", baseline, baseline_note());
    printf("# vred:          %d.%d, ISA %s (best here %s); MPI_Reduce_local resolves to %s%s\n",
           VRED_VERSION_MAJOR, VRED_VERSION_MINOR, vred_isa_name(isa), vred_isa_name(vred_isa_best()),
           reduce_local_from, vred_is_linked() ? "" : "  <-- NOT vred: both columns are the MPI");
    printf("# machine:       %s, %s, %ld CPUs online, LLC %s (cold pool >= %s)\n", host, model,
           sysconf(_SC_NPROCESSORS_ONLN), llc, flush);
    printf("# timing:        median of the repetitions; each repetition runs vred, MPI, memcpy in turn\n"
           "#                (all six orders in turn), each a batch of k calls back to back; us per call;\n"
           "#                warm: the three share the same buffers\n");
    printf("# GB/s:          1e9 bytes/s of bytes moved: a reduction moves 3 x size (read in, read\n"
           "#                inout, write inout), memcpy 2 x size (read src, write dst)\n");
    printf("# vred/MPI = MPI(us) / vred(us) (> 1: vred faster); vred/memcpy = vred GB/s / memcpy GB/s\n");
}

/* The buffer placement's line of every table header. */
static void print_mode(const local_opts *o, const pool_t *pool)
{
    const char *how = o->mode.offset ? "N bytes past a 4096-aligned address"
                      : o->mode.align ? "aligned_alloc" : "plain malloc, as applications allocate";
    size_t sin = o->mode.offset ? (size_t)o->mode.soff : 0, sio = o->mode.offset ? (size_t)o->mode.roff : 0;
    printf("# mode: sync back-to-back (one process: batches of calls, nothing between them); buffers %s (%s): "
           "in %u mod 64, inout %u mod 64\n", o->bufname, how,
           (unsigned)(((uintptr_t)pool->base + sin) % 64), (unsigned)(((uintptr_t)pool->base + sio) % 64));
}

static void bench_case(const bcase *c, vred_isa isa, int cold, const local_opts *o, pool_t *pool)
{
    const char *modename = cold ? "cold" : "warm";
    printf("\n# case: %s %s (%s, %s)   mode: %s   ISA: %s   baseline: %s\n", vred_type_name(c->type),
           vred_op_name(c->op), c->dt_name, c->op_name,
           cold ? "cold (operands from memory: calls rotate over a pool >= 2 x LLC)"
                : "warm (the same buffers every call, shared by vred, MPI and memcpy)",
           vred_isa_name(isa), baseline);
    print_mode(o, pool);
    printf("# Size       Avg Latency(us): vred, the MPI, memcpy; ratio vred/MPI = MPI time / vred time; "
           "bandwidth\n");
    printf("# %-10s %11s %11s %11s %9s %11s %12s %12s%s\n", "(B)", "vred(us)", "MPI(us)",
           "memcpy(us)", "vred/MPI", "vred(GB/s)", "memcpy(GB/s)", "vred/memcpy",
           o->validate ? "  mismatches" : "");
    fflush(stdout);
    for (int si = 0; si < o->nsizes; si++) {
        size_t size = o->sizes[si];
        if (size % c->esize) continue;
        layout L = {.c = c, .size = size, .count = size / c->esize};
        if (L.count > (size_t)INT32_MAX) continue;
        /* Each half slot (in, inout) starts at a multiple of o->unit from the pool's base, so every
         * slot has the base's placement (malloc: glibc's 16 mod 64) plus the --offset shift. */
        if (o->mode.offset) L.sin = (size_t)o->mode.soff, L.sio = (size_t)o->mode.roff;
        size_t shift = L.sin > L.sio ? L.sin : L.sio;
        L.stride = 2 * ((size + shift + o->unit - 1) / o->unit * o->unit);
        size_t per_pool = pool->capacity / 3 / o->unit * o->unit;
        L.K = 1;
        if (cold) {
            L.K = (o->flush + 3 * L.stride - 1) / (3 * L.stride);
            if (L.K < 2) L.K = 2;
            if (L.K * L.stride > per_pool) L.K = per_pool / L.stride;
            if (L.K < 2) {
                fprintf(stderr, "vred-bench: pool too small for %zu B cold; skipped\n", size);
                continue;
            }
        }
        /* Successive slots at least 8 KiB apart, so no prefetcher runs from one into the next. */
        L.P = 1;
        if (cold) {
            L.P = 8192 / L.stride + 1;
            while (gcd(L.P, L.K) != 1) L.P++;
        }
        L.pv = pool->base, L.pm = pool->base + per_pool, L.pc = pool->base + 2 * per_pool;
        /* Same bytes in the three pools: slot 0 filled, then copied. */
        fill(c, slot_in(&L, L.pv, 0), L.count, 1, 1);
        fill(c, slot_io(&L, L.pv, 0), L.count, 2, 0);
        for (size_t s = 1; s < L.K; s++) memcpy(slot_in(&L, L.pv, s), slot_in(&L, L.pv, 0), L.stride);
        memcpy(L.pm, L.pv, L.K * L.stride);
        memcpy(L.pc, L.pv, L.K * L.stride);

        /* Calibrate: the slowest variant's median of three single calls (after one untimed
         * call in warm mode); a single call only when it takes over 5 ms. */
        size_t cursor = 0;
        double single = 0;
        for (int v = 0; v < 3; v++) {
            if (!cold) run_batch(&L, v, 0, 1);
            double c3[3];
            int n3 = 0;
            for (; n3 < 3; n3++) {
                c3[n3] = run_batch(&L, v, cursor + (size_t)n3, 1);
                if (c3[n3] > 5e-3) {
                    n3++;
                    break;
                }
            }
            double t = bench_median(c3, n3);
            if (t > single) single = t;
        }
        cursor += 3;
        int k = (int)(30e-6 / (single > 1e-9 ? single : 1e-9));
        if (k < 1) k = 1;
        if (k > 5000) k = 5000;
        int reps = o->reps;
        if (reps <= 0) {
            reps = (int)(o->budget / (3.0 * k * single));
            if (reps < 9) reps = 9;
            if (reps > 201) reps = 201;
        }
        double *t[3];
        for (int v = 0; v < 3; v++) t[v] = malloc(sizeof(double) * (size_t)reps);
        int mismatches = 0, reported = 0;
        if (o->validate) { /* the calibration calls: equalize before counting */
            memcpy(L.pv, L.pm, L.K * L.stride);
        }
        /* Warm: validate on the separate pools first, then time all three variants on the same
         * buffers. Separate buffers sit on different physical pages and cache sets, which moved
         * the ratio of two identical implementations by up to 20% (VRED_DISABLE=1 control) at
         * the L2-sized messages. Cold mode keeps a pool per variant: each must miss on its own. */
        layout T = L;
        if (!cold) {
            if (o->validate)
                for (int r = 0; r < 3; r++, cursor += (size_t)k) {
                    run_batch(&L, V_VRED, cursor, k);
                    run_batch(&L, V_MPI, cursor, k);
                    mismatches += check_batch(&L, cursor, k, &reported);
                }
            T.pm = T.pc = T.pv;
        }
        /* All six orders in turn: a rotation alone always puts the same variant after memcpy
         * (whose store stream slowed the next variant by ~7% at 4 KiB in the control). */
        static const int order[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
        for (int r = 0; r < reps; r++) {
            for (int q = 0; q < 3; q++) {
                int v = order[r % 6][q];
                t[v][r] = run_batch(&T, v, cursor, k) / k;
            }
            if (o->validate && cold) mismatches += check_batch(&L, cursor, k, &reported);
            cursor += (size_t)k;
        }
        double tv = bench_median(t[V_VRED], reps), tm = bench_median(t[V_MPI], reps), tc = bench_median(t[V_COPY], reps);
        double gv = 3.0 * size / tv * 1e-9, gm = 3.0 * size / tm * 1e-9, gc = 2.0 * size / tc * 1e-9;
        printf("  %-10zu %11.3f %11.3f %11.3f %9.2f %11.2f %12.2f %12.2f", size, tv * 1e6, tm * 1e6,
               tc * 1e6, tm / tv, gv, gc, gv / gc);
        if (o->validate) printf("  %d", mismatches);
        printf("\n");
        fflush(stdout);
        if (o->csv) {
            fprintf(o->csv, "%s,%s,%s,%s,%s,%s,%s,%zu,%zu,%d,%d,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f,%.3f,%.4f,%s,"
                            "back-to-back,%s,%u,%u,%s\n",
                    baseline, mpi_lib, vred_is_linked() ? "vred" : "none", vred_isa_name(isa),
                    vred_type_name(c->type), vred_op_name(c->op), modename, size, L.count, reps, k,
                    tv * 1e6, tm * 1e6, tc * 1e6, tm / tv, gv, gm, gc, gv / gc,
                    o->validate ? (mismatches ? "FAIL" : "ok") : "", o->bufname,
                    (unsigned)((uintptr_t)slot_in(&L, L.pv, 0) % 64), (unsigned)((uintptr_t)slot_io(&L, L.pv, 0) % 64),
                    o->cpu);
            fflush(o->csv);
        }
        for (int v = 0; v < 3; v++) free(t[v]);
    }
}

static int isa_list(const char *spec, vred_isa *out)
{
    int n = 0;
    if (!strcmp(spec, "all")) {
        for (int i = 0; i < VRED_ISA_COUNT; i++)
            if (vred_isa_cap((vred_isa)i) == VRED_OK && vred_isa_active() == (vred_isa)i) out[n++] = (vred_isa)i;
        return n;
    }
    if (!strcmp(spec, "best")) {
        out[0] = vred_isa_best();
        return 1;
    }
    vred_isa i = vred_isa_from_name(spec);
    if (i == VRED_ISA_COUNT) {
        fprintf(stderr, "vred-bench: unknown ISA '%s'\n", spec);
        exit(2);
    }
    out[n++] = i;
    return n;
}

static void usage(FILE *f)
{
    fprintf(f,
        "usage: vred-bench local [options]      MPI_Reduce_local: vred vs the MPI vs memcpy\n"
        "       vred-bench counters [options]   one call each, for valgrind --toggle-collect\n"
        "       vred-bench coll [options]       reduction collectives on all ranks: the MPI vs vred's algorithms\n"
        "       vred-bench offsets [options]    each algorithm at buffer offsets against its own aligned time,\n"
        "                                       the offsets taking turns in one run\n"
        "       vred-bench tune [--out FILE]    measure the cost model (all ranks); file for VRED_TUNE_FILE\n"
        "       vred-bench scalar [options]     an array reduced to one value on all ranks: vred vs loops vs\n"
        "                                       MPI_Reduce (strong/weak scaling, the fourth paper)\n"
        "                                       (vred-bench coll|offsets|tune|scalar --help for their options)\n"
        "local:\n"
        "  --case LIST       type:op,... | default (%s) | all\n"
        "  --sizes LIST      sizes in bytes (K/M/G suffixes), e.g. 1K,64K,16M\n"
        "  --min B --max B   powers of two from min to max (default 1K..128M)\n"
        "  --mode M          warm | cold | both (default both)\n"
        "  --isa I           best | scalar | sse41 | avx2 | avx512 | neon | sve | all (default best)\n"
        "  --reps N          repetitions (default: as many as --budget allows, 9..201)\n"
        "  --budget S        seconds per table row (default 0.25)\n"
        "  --validate        compare vred's result with the MPI's bit for bit, every repetition\n"
        "  --csv FILE        also write every row as CSV (one file, all cases)\n"
        "  --label NAME      baseline name in the output (default: flavor + Open MPI op component)\n"
        "  --llc B           last-level cache size (default: from sysfs); the cold pool is 2x it\n"
        "  --align A         buffers aligned to A bytes (power of two, 8..4096), e.g. --align 64\n"
        "  --offset N        in and inout N bytes past a 4096-aligned address (--offset S/R: in S, inout R)\n"
        "                    default: buffers from plain malloc (glibc: 16 mod 64); calls are always back\n"
        "                    to back (one process); the mode is in every table header and the CSV\n"
        "counters:\n"
        "  --case LIST       default f32:sum,u8:sum\n"
        "  --bytes B         message size (default 16M)\n"
        "  --isa I           ISA for vred (default best)\n"
        "  --which W         both | vred | mpi (default both)\n",
        default_cases);
}

static int cmd_local(int argc, char **argv)
{
    local_opts o = {.warm = 1, .cold = 1, .budget = 0.25};
    const char *cases_spec = "default", *isa_spec = "best", *csv = NULL, *label = NULL;
    size_t minb = 1024, maxb = (size_t)128 << 20, llc = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int m = bench_mode_arg(&o.mode, a, v, 1);
        if (m < 0) return usage(stderr), 2;
        if (m > 0) {
            if (o.mode.barrier_each)
                return fprintf(stderr, "vred-bench local: --sync barrier: one process, no barrier to add\n"), 2;
            i++;
        } else if (!strcmp(a, "--case") && v) cases_spec = v, i++;
        else if (!strcmp(a, "--sizes") && v) {
            char list[1024];
            snprintf(list, sizeof list, "%s", v);
            for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok && o.nsizes < 64;
                 tok = strtok_r(NULL, ",", &save))
                if (bench_parse_bytes(tok)) o.sizes[o.nsizes++] = bench_parse_bytes(tok);
            i++;
        } else if (!strcmp(a, "--min") && v) minb = bench_parse_bytes(v), i++;
        else if (!strcmp(a, "--max") && v) maxb = bench_parse_bytes(v), i++;
        else if (!strcmp(a, "--mode") && v) {
            o.warm = !strcmp(v, "warm") || !strcmp(v, "both");
            o.cold = !strcmp(v, "cold") || !strcmp(v, "both");
            if (!o.warm && !o.cold) return usage(stderr), 2;
            i++;
        } else if (!strcmp(a, "--isa") && v) isa_spec = v, i++;
        else if (!strcmp(a, "--reps") && v) o.reps = atoi(v), i++;
        else if (!strcmp(a, "--budget") && v) o.budget = atof(v), i++;
        else if (!strcmp(a, "--validate")) o.validate = 1;
        else if (!strcmp(a, "--csv") && v) csv = v, i++;
        else if (!strcmp(a, "--label") && v) label = v, i++;
        else if (!strcmp(a, "--llc") && v) llc = bench_parse_bytes(v), i++;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout), 0;
        else return fprintf(stderr, "vred-bench local: bad argument '%s'\n", a), usage(stderr), 2;
    }
    if (!o.nsizes)
        for (size_t s = minb ? minb : 1; s <= maxb && o.nsizes < 64; s *= 2) o.sizes[o.nsizes++] = s;
    describe_mpi(label);
    bcase *cases;
    int ncases = build_cases(cases_spec, &cases, 1);
    vred_isa isas[VRED_ISA_COUNT];
    int nisa = isa_list(isa_spec, isas);
    o.flush = 2 * (llc ? llc : llc_bytes());

    size_t maxsize = 0;
    for (int i = 0; i < o.nsizes; i++)
        if (o.sizes[i] > maxsize) maxsize = o.sizes[i];
    o.unit = o.mode.offset ? 4096 : o.mode.align > 64 ? (size_t)o.mode.align : 64;
    bench_buffers_name(&o.mode, o.bufname, sizeof o.bufname);
    bench_cpu_model(o.cpu, sizeof o.cpu);
    size_t shift = o.mode.offset ? (size_t)(o.mode.soff > o.mode.roff ? o.mode.soff : o.mode.roff) : 0;
    size_t slot_max = 2 * ((maxsize + shift + o.unit - 1) / o.unit * o.unit);
    pool_t pool;
    pool.capacity = 3 * (slot_max * 2 > o.flush / 3 + slot_max ? slot_max * 2 : o.flush / 3 + slot_max);
    if (!o.cold) pool.capacity = 3 * slot_max;
    pool.capacity = (pool.capacity + 4095) / 4096 * 4096;
    /* The pool's base decides every slot's placement: malloc's (default), aligned, or 4096-aligned
     * for --offset (each slot then adds its shift). */
    void *pbase = NULL;
    pool.base = bench_buf_alloc(&o.mode, 0, pool.capacity, &pbase);
    if (o.mode.offset && pool.base) pool.base = pbase; /* 4096-aligned: the shifts are per slot (sin, sio) */
    pool.alloc = pbase;
    if (!pool.base) {
        fprintf(stderr, "vred-bench: cannot allocate %zu bytes\n", pool.capacity);
        return 1;
    }
    memset(pool.base, 0, pool.capacity); /* fault every page in before timing */

    if (csv) {
        o.csv = fopen(csv, "w");
        if (!o.csv) return perror(csv), 1;
        fprintf(o.csv, "baseline,mpi_library,vred_linked,isa,type,op,mode,size_bytes,count,reps,calls,"
                       "vred_us,mpi_us,memcpy_us,speedup_vs_mpi,vred_gbs,mpi_gbs,memcpy_gbs,"
                       "vred_over_memcpy,validation,sync,buffers,in_mod64,inout_mod64,cpu\n");
    }
    for (int ii = 0; ii < nisa; ii++) {
        if (vred_isa_cap(isas[ii]) != VRED_OK || vred_isa_active() != isas[ii]) {
            printf("# ISA %s is not runnable here (active: %s): skipped\n", vred_isa_name(isas[ii]),
                   vred_isa_name(vred_isa_active()));
            continue;
        }
        print_header_common(isas[ii], &o);
        for (int ci = 0; ci < ncases; ci++) {
            if (o.warm) bench_case(&cases[ci], isas[ii], 0, &o, &pool);
            if (o.cold) bench_case(&cases[ci], isas[ii], 1, &o, &pool);
        }
    }
    if (o.csv) fclose(o.csv);
    free(pool.alloc);
    free(cases);
    return 0;
}

/* ---- counters --------------------------------------------------------------------------------- */

/* One call each; named, not inlined, not merged, so callgrind's --toggle-collect finds them. */
#if defined(__GNUC__) && !defined(__clang__)
#define COUNTED __attribute__((noinline, noipa, used))
#else
#define COUNTED __attribute__((noinline, used))
#endif
COUNTED int bench_counted_vred(const void *in, void *inout, int count, MPI_Datatype dt, MPI_Op op)
{
    return MPI_Reduce_local(in, inout, count, dt, op);
}

COUNTED int bench_counted_mpi(const void *in, void *inout, int count, MPI_Datatype dt, MPI_Op op)
{
    return PMPI_Reduce_local(in, inout, count, dt, op);
}

static int cmd_counters(int argc, char **argv)
{
    const char *cases_spec = "f32:sum,u8:sum", *isa_spec = "best", *which = "both";
    size_t bytes = (size_t)16 << 20;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--case") && v) cases_spec = v, i++;
        else if (!strcmp(a, "--bytes") && v) bytes = bench_parse_bytes(v), i++;
        else if (!strcmp(a, "--isa") && v) isa_spec = v, i++;
        else if (!strcmp(a, "--which") && v) which = v, i++;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout), 0;
        else return fprintf(stderr, "vred-bench counters: bad argument '%s'\n", a), usage(stderr), 2;
    }
    describe_mpi(NULL);
    bcase *cases;
    int ncases = build_cases(cases_spec, &cases, 1);
    vred_isa isas[VRED_ISA_COUNT];
    if (isa_list(isa_spec, isas) != 1) {
        fprintf(stderr, "vred-bench counters: give one ISA\n");
        return 2;
    }
    vred_isa_cap(isas[0]);
    int do_v = strcmp(which, "mpi") != 0, do_m = strcmp(which, "vred") != 0;
    printf("# vred-bench counters: MPI library %s; baseline %s; vred ISA %s (best %s); "
           "MPI_Reduce_local from %s\n", mpi_lib, baseline, vred_isa_name(vred_isa_active()),
           vred_isa_name(vred_isa_best()), reduce_local_from);
    int rc = 0;
    for (int ci = 0; ci < ncases; ci++) {
        const bcase *c = &cases[ci];
        size_t count = bytes / c->esize;
        char *in = aligned_alloc(64, (bytes + 63) / 64 * 64), *iv = aligned_alloc(64, (bytes + 63) / 64 * 64),
             *im = aligned_alloc(64, (bytes + 63) / 64 * 64);
        fill(c, in, count, 1, 1);
        fill(c, iv, count, 2, 0);
        memcpy(im, iv, bytes);
        if (do_v) bench_counted_vred(in, iv, (int)count, c->dt, c->mop);
        if (do_m) bench_counted_mpi(in, im, (int)count, c->dt, c->mop);
        int same = !(do_v && do_m) || memcmp(iv, im, bytes) == 0;
        printf("# case %s:%s, %zu bytes (%zu elements): %s%s\n", vred_type_name(c->type),
               vred_op_name(c->op), bytes, count, do_v && do_m ? "vred == MPI bitwise: " : "ran",
               do_v && do_m ? (same ? "yes" : "NO") : "");
        rc |= !same;
        free(in), free(iv), free(im);
    }
    free(cases);
    return rc;
}

int main(int argc, char **argv)
{
    int all_ranks = argc >= 2 && (!strcmp(argv[1], "coll") || !strcmp(argv[1], "tune") ||
                                  !strcmp(argv[1], "scalar") || !strcmp(argv[1], "offsets"));
    if (argc < 2 || (strcmp(argv[1], "local") && strcmp(argv[1], "counters") && !all_ranks)) {
        int help = argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
        usage(help ? stdout : stderr);
        if (argc >= 2 && !strcmp(argv[1], "tails"))
            fprintf(stderr, "tails is in the MPI-free vred-kbench: vred-kbench tails\n");
        return help ? 0 : 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rc = 0;
    if (all_ranks) /* collectives: every rank takes part */
        rc = !strcmp(argv[1], "coll")      ? cmd_coll(argc - 2, argv + 2)
             : !strcmp(argv[1], "offsets") ? cmd_offsets(argc - 2, argv + 2)
             : !strcmp(argv[1], "scalar")  ? cmd_scalar(argc - 2, argv + 2)
                                          : cmd_tune(argc - 2, argv + 2);
    else if (rank == 0) /* a local benchmark: other ranks, if any, only wait */
        rc = !strcmp(argv[1], "local") ? cmd_local(argc - 2, argv + 2) : cmd_counters(argc - 2, argv + 2);
    MPI_Finalize();
    return rc;
}
