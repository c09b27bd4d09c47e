/*
 * Conformance of vred's reduction collectives with the MPI library's own: every rank calls MPI_X
 * (libvred-mpi.so, linked before the MPI) and PMPI_X (the MPI library) on identical copies of the
 * same inputs and compares the results bit for bit.
 *
 * Collectives: Allreduce; Reduce with root 0, last and middle (compared at the root only; a
 * non-root receive buffer must be left untouched by vred: a canary; every other case it is
 * NULL); Reduce_scatter_block (the count is per rank); Reduce_scatter with uneven recvcounts,
 * some zero; Scan; Exscan (rank 0's recvbuf is undefined: not compared). With MPI-4
 * (MPI_VERSION >= 4) every one also through its large-count _c entry point, on alternate cases.
 * In every mode, u8 results are also checked against the exact answer computed from all ranks'
 * inputs: where the MPI's own result is wrong (MPICH 4.0 MAX/MIN on unsigned types), vred must
 * give the exact one. MPICH 4.0.2 crashes on two MPI_IN_PLACE cases (see mpi_inplace_bug).
 * Types x ops: f32 f64 i16 i32 i64 (MPI_INT64_T) ll (MPI_LONG_LONG) u8 x SUM MAX MIN PROD BAND
 * BXOR (no bitwise op on floats). Float inputs keep every result exact whatever the order:
 * integers for SUM, {-1, 1, rarely 2} for PROD, any finite non-negative-zero value for MAX/MIN.
 * Integers are random (wrap-around is order independent).
 * Counts 0 1 2 3 7 31 64 100 1000 4097 65537, and 1M+3 for a few (type, op, algorithm) cases.
 * With and without MPI_IN_PLACE, at aligned and odd byte offsets; on MPI_COMM_WORLD, an odd/even
 * split, a dup and a reversed split (key = -rank). Each algorithm forced in turn with
 * vred_mpi_force(), and "auto"; after each call vred_mpi_last_alg() tells who served it.
 * Everywhere: the send buffer is not modified, nothing is written before or after the receive
 * buffer. A user-defined op (commutative and not) and derived datatypes (2 contiguous ints, a
 * resized int) go to the MPI (last_alg "mpi") and give its result (both MPIs refuse a predefined
 * op on a derived type), under "auto" and under forced algorithms.
 *
 * TEST_SHM_UNAVAILABLE=1 (tests/mpi/shm_full.sh): no region can be made; a forced shared-memory
 * algorithm must fall back to vred's point-to-point ones.
 * Options (identical on every rank):
 *   --expect-vred         fail unless vred served each call: last_alg is the forced algorithm,
 *                         or, under "auto", not "mpi" (predefined pairs, count > 0; on a
 *                         one-rank communicator any algorithm name is accepted); and
 *                         vred_mpi_force() accepts exactly the documented algorithms
 *   --expect-passthrough  (VRED_DISABLE=1) last_alg must be "mpi" for every call
 *   (neither)             compare only; report how many calls vred served
 *   --sparse              inputs 90% / 99% / 100% zeros (the communicator's last rank dense)
 *   --quick               skip the full (type, op) matrix
 *   --sample=K[:P]        run only every K-th case of the enumeration, starting at P (the
 *                         rotations follow the case's index, so each P covers other cases;
 *                         1M+3 under "auto" always runs). For slow oversubscribed MPIs.
 *   --only=COLL           allreduce|reduce|reduce_scatter_block|reduce_scatter|scan|exscan
 *   --alg=NAME            only this algorithm
 *   --cma=yes|no          cross-memory attach must work (or must be denied, under
 *                         tests/mpi/deny_cma); either way it is found out here (cma_probe.h),
 *                         and a forced "cma" must be served by "cma" exactly where it works
 *   --expect-nodes=N      fail unless MPI_COMM_WORLD spans N nodes as vred sees them
 *                         (MPI_COMM_TYPE_SHARED, or VRED_NODE_SIZE): the multi-host tests
 *   VRED_TEST_TRACE=1     print each case before it runs (to find a hang or a crash)
 *   --inject-fault        corrupt one result on rank 0 (checks that the test catches it)
 * Prints one summary line; exits 1 (after MPI_Finalize) if any check failed on any rank.
 */
#define _GNU_SOURCE /* process_vm_readv/writev (cma_probe.h) */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libvred-mpi.so's extension API, weak, so the test also links (and says so) while it is not. */
#define VRED_MPI_WEAK
#include "vred_mpi.h"
#include "node_of.h"
#include "cma_probe.h"

/* ---- tables ------------------------------------------------------------------------------- */
enum { C_ALLREDUCE, C_REDUCE, C_RSB, C_RS, C_SCAN, C_EXSCAN, NCOLL };
static const char *coll_name[NCOLL] = {"allreduce", "reduce", "reduce_scatter_block",
                                       "reduce_scatter", "scan", "exscan"};
static const char *coll_force[NCOLL] = {"allreduce", "reduce", "reduce_scatter",
                                        "reduce_scatter", "scan", "scan"};
enum { NALG = 9 };
static const char *alg_name[NALG] = {"auto", "mpi",    "binomial", "redscat", "ring",
                                     "recdbl", "ma",   "dpml",     "cma"};

static int is_shm_alg(const char *a)
{
    return !strcmp(a, "ma") || !strcmp(a, "dpml") || !strcmp(a, "cma");
}

static int cma_works; /* cross-memory attach between the ranks of every node (cma_probe.h) */
static const char *cma_want; /* --cma=yes|no */

/* The documented algorithms of each collective ("auto" and "mpi" everywhere). */
static int documented(int coll, const char *alg)
{
    if (!strcmp(alg, "auto") || !strcmp(alg, "mpi")) return 1;
    switch (coll) {
    case C_ALLREDUCE:
        return !strcmp(alg, "binomial") || !strcmp(alg, "redscat") || !strcmp(alg, "ring") ||
               !strcmp(alg, "recdbl") || is_shm_alg(alg);
    case C_REDUCE: case C_RSB: case C_RS:
        return !strcmp(alg, "binomial") || !strcmp(alg, "redscat") || !strcmp(alg, "ring") ||
               is_shm_alg(alg);
    default:
        return !strcmp(alg, "recdbl");
    }
}

enum { K_F32, K_F64, K_SINT, K_UINT };
typedef struct {
    const char *name;
    MPI_Datatype dt;
    int size, kind;
} tinfo;
typedef struct {
    const char *name;
    MPI_Op op;
    int on_float;
} oinfo;

#define NTYPES 7
#define NOPS 6
static tinfo types[NTYPES];
static oinfo ops[NOPS];
static void init_tables(void)
{
    tinfo t[NTYPES] = {{"f32", MPI_FLOAT, 4, K_F32},       {"f64", MPI_DOUBLE, 8, K_F64},
                       {"i16", MPI_SHORT, 2, K_SINT},      {"i32", MPI_INT, 4, K_SINT},
                       {"i64", MPI_INT64_T, 8, K_SINT},    {"ll", MPI_LONG_LONG, 8, K_SINT},
                       {"u8", MPI_UNSIGNED_CHAR, 1, K_UINT}};
    oinfo o[NOPS] = {{"SUM", MPI_SUM, 1},   {"MAX", MPI_MAX, 1},   {"MIN", MPI_MIN, 1},
                     {"PROD", MPI_PROD, 1}, {"BAND", MPI_BAND, 0}, {"BXOR", MPI_BXOR, 0}};
    memcpy(types, t, sizeof t);
    memcpy(ops, o, sizeof o);
}
enum { T_F32, T_F64, T_I16, T_I32, T_I64, T_LL, T_U8 };
enum { O_SUM, O_MAX, O_MIN, O_PROD, O_BAND, O_BXOR };

typedef struct { int t, o; } pairi;
static pairi pairs[NTYPES * NOPS];
static int npairs;

/* ---- options, tallies ------------------------------------------------------------------- */
enum { MODE_COMPARE, MODE_VRED, MODE_PASS };
static int trace, mode = MODE_COMPARE, sparse_mode, quick, inject_fault, only_coll = -1;
static const char *only_alg;
static long checks, failures, vred_calls, vred_served, printed, mpi_deviations;
static int expect_nodes; /* --expect-nodes=N: MPI_COMM_WORLD must span N nodes */
static int wrank, wsize;
static long caseno; /* identical on every rank: drives the rotations */
static long enumno, sample_k = 1, sample_phase; /* --sample=K[:P]: run enumerated case e iff e % K == P */
static int take(void)
{
    long e = enumno++;
    if (e % sample_k != sample_phase) return 0;
    caseno = e;
    return 1;
}

#define MAXPRINT 25
static void fail_line(const char *fmt, const char *desc, const char *extra)
{
    failures++;
    if (printed++ < MAXPRINT) printf("FAIL rank %d: %s: %s%s\n", wrank, desc, fmt, extra ? extra : "");
    else if (printed == MAXPRINT + 1) printf("rank %d: further failures not printed\n", wrank);
    fflush(stdout);
}

/* ---- data --------------------------------------------------------------------------------- */
static uint64_t rs;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

/* density: per mille of non-zero elements (1000 = dense). */
static void gen(unsigned char *p, size_t n, const tinfo *t, int op, int density)
{
    for (size_t i = 0; i < n; i++, p += t->size) {
        if (density < 1000 && (int)(rnd() % 1000) >= density) {
            memset(p, 0, (size_t)t->size);
            continue;
        }
        uint64_t r = rnd();
        if (t->kind == K_F32 || t->kind == K_F64) {
            double d;
            if (op == O_SUM) {
                /* integers: every partial sum exact (5 ranks x 2^20 < 2^24; x 2^40 < 2^53) */
                int64_t lim = t->kind == K_F32 ? (1 << 20) : (int64_t)1 << 40;
                d = (double)((int64_t)(r % (uint64_t)(2 * lim + 1)) - lim);
            } else if (op == O_PROD) {
                unsigned k = (unsigned)(r % 16);
                d = k == 0 ? 2.0 : k < 8 ? -1.0 : 1.0;
            } else { /* MAX/MIN: any finite value, no -0 (max(+0,-0) depends on the order) */
                if (t->kind == K_F32) {
                    uint32_t u = (uint32_t)r;
                    if ((u & 0x7F800000u) == 0x7F800000u) u &= ~0x40000000u;
                    if (u == 0x80000000u) u = 0;
                    memcpy(p, &u, 4);
                } else {
                    uint64_t u = r;
                    if ((u & 0x7FF0000000000000ull) == 0x7FF0000000000000ull)
                        u &= ~0x4000000000000000ull;
                    if (u == 0x8000000000000000ull) u = 0;
                    memcpy(p, &u, 8);
                }
                continue;
            }
            if (t->kind == K_F32) {
                float f = (float)d;
                memcpy(p, &f, 4);
            } else {
                memcpy(p, &d, 8);
            }
        } else {
            memcpy(p, &r, (size_t)t->size); /* little-endian: the low bytes */
        }
    }
}

static void fmt_elem(char *b, size_t bs, const unsigned char *p, const tinfo *t)
{
    switch (t->kind) {
    case K_F32: { float f; uint32_t u; memcpy(&f, p, 4); memcpy(&u, p, 4);
        snprintf(b, bs, "%.9g (0x%08x)", f, u); break; }
    case K_F64: { double d; uint64_t u; memcpy(&d, p, 8); memcpy(&u, p, 8);
        snprintf(b, bs, "%.17g (0x%016llx)", d, (unsigned long long)u); break; }
    case K_UINT: snprintf(b, bs, "%u (0x%02x)", p[0], p[0]); break;
    default: {
        int64_t v = 0;
        memcpy(&v, p, (size_t)t->size);
        int sh = 64 - 8 * t->size;
        if (sh) v = (int64_t)((uint64_t)v << sh) >> sh;
        snprintf(b, bs, "%lld (0x%llx)", (long long)v,
                 (unsigned long long)v & (~0ull >> sh));
    }
    }
}

static unsigned char canary(size_t i) { return (unsigned char)(0x5Au + 37u * (unsigned)i); }
/* canary(i) repeats every 256 bytes: one period, made where it is used and copied. */
enum { CANARY_PERIOD = 256 };
static void canary_period(unsigned char pat[CANARY_PERIOD])
{
    for (size_t i = 0; i < CANARY_PERIOD; i++) pat[i] = canary(i);
}
static void canary_fill(unsigned char *p, size_t n)
{
    unsigned char pat[CANARY_PERIOD];
    canary_period(pat);
    for (size_t i = 0; i < n; i += CANARY_PERIOD)
        memcpy(p + i, pat, n - i < CANARY_PERIOD ? n - i : CANARY_PERIOD);
}

/* A buffer with a canary region of PAD bytes before and GUARD after the `bytes` payload,
 * starting `off` bytes past a 64-byte boundary, PAD + off past a page's start: the ranks' and
 * buffers' page offsets then differ by the offsets' differences, which puts copies 1-7 bytes
 * past their source in a page (the string copy's slow skews, that vred routes around:
 * VRED_COPY_SKEW, tests mpi_coll_*_skew) among the cases. */
enum { PAD = 64, GUARD = 64 };
typedef struct {
    unsigned char *base, *p;
    size_t bytes, total;
} buf;
static void buf_alloc(buf *b, size_t bytes, int off)
{
    b->bytes = bytes;
    b->total = PAD + 8 + bytes + GUARD;
    b->base = aligned_alloc(4096, (b->total + 4095) / 4096 * 4096);
    if (!b->base) {
        fprintf(stderr, "rank %d: out of memory (%zu bytes)\n", wrank, b->total);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    canary_fill(b->base, b->total);
    b->p = b->base + PAD + off; /* PAD is a multiple of 64: aligned, then the offset */
}
/* The first index in [from, to) where p is not the canary, or `to`. Whole periods by memcmp:
 * byte by byte, canaries over megabytes took a third of a test's time. */
static size_t canary_mismatch(const unsigned char *p, size_t from, size_t to)
{
    unsigned char pat[CANARY_PERIOD];
    canary_period(pat);
    for (size_t i = from; i < to;) {
        size_t n = CANARY_PERIOD - i % CANARY_PERIOD;
        if (n > to - i) n = to - i;
        if (memcmp(p + i, pat + i % CANARY_PERIOD, n)) {
            while (p[i] == canary(i)) i++;
            return i;
        }
        i += n;
    }
    return to;
}
/* first byte of [base, p) or [p + from, total) not equal to the canary, or -1 */
static long canary_broken(const buf *b, size_t from)
{
    size_t pre = (size_t)(b->p - b->base);
    size_t i = canary_mismatch(b->base, 0, pre);
    if (i < pre) return (long)i - (long)pre;
    i = canary_mismatch(b->base, pre + from, b->total);
    if (i < b->total) return (long)(i - pre);
    return -1;
}

/* ---- communicators ------------------------------------------------------------------------ */
typedef struct {
    const char *name;
    MPI_Comm c;
    int rank, size;
    int shm; /* some node holds two of its ranks (shared-memory algorithms can serve) */
} commi;

/* Does some node hold two ranks of c? (node_of_me); VRED_SHM=off turns shared memory off. */
static int shm_possible(MPI_Comm c, int size)
{
    const char *off = getenv("VRED_SHM");
    if (off && !strcmp(off, "off")) return 0;
    if (getenv("TEST_SHM_UNAVAILABLE")) return 0; /* shm_full.sh: /dev/shm cannot hold a region */
    int *nodes = malloc((size_t)size * sizeof(int)), two = 0;
    int mine = node_of_me();
    PMPI_Allgather(&mine, 1, MPI_INT, nodes, 1, MPI_INT, c);
    for (int i = 0; i < size; i++)
        for (int j = i + 1; j < size; j++) two |= nodes[i] == nodes[j];
    free(nodes);
    return two;
}

/* ---- one case ----------------------------------------------------------------------------- */
enum { ROOT_FIRST, ROOT_LAST, ROOT_MIDDLE };
typedef struct {
    int coll, root_kind;
    const commi *cm;
    const char *alg;
    int t, o;
    long count; /* per rank for reduce_scatter_block; base count for reduce_scatter */
    int inplace, bigc, soff, roff, density;
    MPI_Datatype dt; /* a derived type or NULL-ish: the type table's */
    MPI_Op op;       /* a user op, or the table's */
    const char *tname, *oname;
    int esize;       /* bytes per element for derived types */
    int user;        /* 1: not a predefined pair: must go to the MPI */
} tcase;

static int root_of(const tcase *c)
{
    int p = c->cm->size;
    return c->root_kind == ROOT_FIRST ? 0 : c->root_kind == ROOT_LAST ? p - 1 : p / 2;
}

static void rs_counts(const tcase *c, long *rc)
{
    /* uneven, some ranks zero: which ones alternates with the case */
    for (int i = 0; i < c->cm->size; i++)
        rc[i] = c->count == 0 ? 0 : (i % 3 == (int)(caseno % 2)) ? 0 : c->count + i * 3;
    if (c->cm->size == 1 && c->count) rc[0] = c->count;
}

static int do_call(int vred, const tcase *c, const void *sb, void *rb, const long *rc)
{
    MPI_Comm comm = c->cm->c;
    MPI_Datatype dt = c->dt;
    MPI_Op op = c->op;
    int root = root_of(c);
    int n = (int)c->count;
#if MPI_VERSION >= 4
    if (c->bigc) {
        MPI_Count cn = (MPI_Count)c->count;
        MPI_Count crc[64];
        for (int i = 0; i < c->cm->size; i++) crc[i] = rc[i];
        switch (c->coll) {
        case C_ALLREDUCE:
            return vred ? MPI_Allreduce_c(sb, rb, cn, dt, op, comm)
                        : PMPI_Allreduce_c(sb, rb, cn, dt, op, comm);
        case C_REDUCE:
            return vred ? MPI_Reduce_c(sb, rb, cn, dt, op, root, comm)
                        : PMPI_Reduce_c(sb, rb, cn, dt, op, root, comm);
        case C_RSB:
            return vred ? MPI_Reduce_scatter_block_c(sb, rb, cn, dt, op, comm)
                        : PMPI_Reduce_scatter_block_c(sb, rb, cn, dt, op, comm);
        case C_RS:
            return vred ? MPI_Reduce_scatter_c(sb, rb, crc, dt, op, comm)
                        : PMPI_Reduce_scatter_c(sb, rb, crc, dt, op, comm);
        case C_SCAN:
            return vred ? MPI_Scan_c(sb, rb, cn, dt, op, comm) : PMPI_Scan_c(sb, rb, cn, dt, op, comm);
        default:
            return vred ? MPI_Exscan_c(sb, rb, cn, dt, op, comm)
                        : PMPI_Exscan_c(sb, rb, cn, dt, op, comm);
        }
    }
#endif
    int irc[64];
    for (int i = 0; i < c->cm->size; i++) irc[i] = (int)rc[i];
    switch (c->coll) {
    case C_ALLREDUCE:
        return vred ? MPI_Allreduce(sb, rb, n, dt, op, comm) : PMPI_Allreduce(sb, rb, n, dt, op, comm);
    case C_REDUCE:
        return vred ? MPI_Reduce(sb, rb, n, dt, op, root, comm)
                    : PMPI_Reduce(sb, rb, n, dt, op, root, comm);
    case C_RSB:
        return vred ? MPI_Reduce_scatter_block(sb, rb, n, dt, op, comm)
                    : PMPI_Reduce_scatter_block(sb, rb, n, dt, op, comm);
    case C_RS:
        return vred ? MPI_Reduce_scatter(sb, rb, irc, dt, op, comm)
                    : PMPI_Reduce_scatter(sb, rb, irc, dt, op, comm);
    case C_SCAN:
        return vred ? MPI_Scan(sb, rb, n, dt, op, comm) : PMPI_Scan(sb, rb, n, dt, op, comm);
    default:
        return vred ? MPI_Exscan(sb, rb, n, dt, op, comm) : PMPI_Exscan(sb, rb, n, dt, op, comm);
    }
}

static void describe(char *d, size_t ds, const tcase *c)
{
    char root[24] = "";
    if (c->coll == C_REDUCE) snprintf(root, sizeof root, " root=%d", root_of(c));
    snprintf(d, ds, "%s%s%s comm=%s(%d/%d) alg=%s type=%s op=%s count=%ld inplace=%d off=%d/%d%s",
             coll_name[c->coll], c->bigc ? "_c" : "", root, c->cm->name, c->cm->rank, c->cm->size,
             c->alg, c->tname, c->oname, c->count, c->inplace, c->soff, c->roff,
             c->density < 1000 ? (c->density == 0 ? " sparse=100%zeros"
                                  : c->density == 10 ? " sparse=99%zeros" : " sparse=90%zeros")
                               : "");
}

static int known_alg(const char *a)
{
    for (int i = 0; i < NALG; i++)
        if (a && !strcmp(a, alg_name[i])) return 1;
    return 0;
}

/* Who served the call just made through vred. */
static void check_alg(const tcase *c, long total, const char *desc)
{
    const char *la = vred_mpi_last_alg ? vred_mpi_last_alg() : NULL;
    vred_calls++;
    if (la && strcmp(la, "mpi") != 0) vred_served++;
    if (c->user) { /* whatever the mode: vred has no kernel for these */
        if (!la) return;
    } else {
        if (mode == MODE_COMPARE) return;
        if (total == 0) return; /* an empty call may end anywhere */
    }
    char extra[160];
    checks++;
    if (!vred_mpi_last_alg) {
        fail_line("vred_mpi_last_alg() is not exported by libvred-mpi.so (not served by vred?)",
                  desc, NULL);
        return;
    }
    snprintf(extra, sizeof extra, " (last_alg \"%s\")", la ? la : "(null)");
    if (mode == MODE_PASS || c->user) {
        if (!la || strcmp(la, "mpi"))
            fail_line(mode == MODE_PASS ? "must pass through to the MPI" :
                      "a user-defined op or derived datatype must go to the MPI", desc, extra);
        return;
    }
    if (!known_alg(la)) {
        fail_line("last_alg is not an algorithm name", desc, extra);
        return;
    }
    if (c->cm->size == 1) return; /* one rank: nothing to communicate, any algorithm will do */
    /* auto may hand a call to the MPI where the rule table says the MPI's own is faster (Open
     * MPI's small reduce): the forced runs are the ones that prove vred serves. */
    /* Without a node holding two ranks, a forced shared-memory algorithm is not usable and the
     * rule table's choice serves instead. */
    if (is_shm_alg(c->alg) && !c->cm->shm && strcmp(la, "mpi")) return;
    /* Without cross-memory attach a forced "cma" is served by vred's choice without it. */
    if (!strcmp(c->alg, "cma") && !cma_works && strcmp(la, "cma") && strcmp(la, "mpi")) return;
    if (strcmp(c->alg, "auto") && strcmp(la, c->alg)) {
        fail_line("not served by the forced algorithm", desc, extra);
    }
}

/* MPICH 4.0.2 bugs with MPI_IN_PLACE:
 * - MPI_Reduce at a root other than 0 crashes (SIGSEGV) above 2 KiB, where it switches to
 *   reduce-scatter + gather;
 * - MPI_Reduce_scatter (long messages, pairwise exchange) copies a rank's block to the start of
 *   its buffer with an overlapping memcpy, and aborts ("memcpy argument memory ranges overlap")
 *   when a rank's recvcount exceeds its displacement.
 * The MPI's own call (the reference) is then made without MPI_IN_PLACE, on a copy of the same
 * data; and so is vred's where vred may pass the call to the MPI (forced "mpi", user ops, not
 * --expect-vred). The decision is the same on every rank. */
static int mpi_inplace_bug(const tcase *c, size_t es, const long *rc)
{
#ifdef MPICH
    if (c->coll == C_REDUCE) return root_of(c) != 0 && (size_t)c->count * es > 2048;
    if (c->coll == C_RS) {
        long disp = 0;
        for (int i = 0; i < c->cm->size; i++) {
            if (i && rc[i] > disp) return 1;
            disp += rc[i];
        }
    }
    return 0;
#else
    (void)c, (void)es, (void)rc;
    return 0;
#endif
}

static void run_case(tcase *c)
{
    const commi *cm = c->cm;
    int p = cm->size, r = cm->rank;
    size_t es = c->esize ? (size_t)c->esize : (size_t)types[c->t].size;
    const tinfo *t = &types[c->t];
    long rc[64];
    rs_counts(c, rc);
    long total = 0;
    for (int i = 0; i < p; i++) total += rc[i];

    size_t nsend, nrecv, ncmp; /* elements */
    switch (c->coll) {
    case C_RSB: nsend = (size_t)c->count * p; nrecv = (size_t)c->count; break;
    case C_RS: nsend = (size_t)total; nrecv = (size_t)rc[r]; break;
    default: nsend = nrecv = (size_t)c->count; break;
    }
    long ctotal = c->coll == C_RSB ? c->count * p : c->coll == C_RS ? total : c->count;
    ncmp = nrecv;
    int root = root_of(c);
    int is_root = c->coll != C_REDUCE || r == root;
    if (c->coll == C_EXSCAN && r == 0) ncmp = 0;
    int ref_inplace = 1;
    if (c->inplace && mpi_inplace_bug(c, es, rc)) {
        ref_inplace = 0;
        if (mode != MODE_VRED || c->user || !strcmp(c->alg, "mpi") || !vred_mpi_force)
            c->inplace = 0;
    }
    int inplace = c->inplace && (c->coll != C_REDUCE || r == root);
    size_t rbytes = (inplace ? nsend : nrecv) * es;

    /* The inputs: the last rank of the communicator dense, the others sparse if asked. */
    unsigned char *data = malloc(nsend * es + 1);
    rs = 0x9E3779B97F4A7C15ull ^ ((uint64_t)(wrank + 1) * 0xD1B54A32D192ED03ull) ^
         ((uint64_t)caseno * 0x2545F4914F6CDD1Dull);
    rnd();
    int density = (c->density < 1000 && r == p - 1) ? 1000 : c->density;
    if (c->esize) { /* a derived type of ints: small values */
        int *q = (int *)data;
        for (size_t i = 0; i < nsend * es / sizeof(int); i++) q[i] = (int)(rnd() % 7) - 3;
    } else {
        gen(data, nsend, t, c->o, density);
    }

    buf sa, sb, ra, rb;
    buf_alloc(&sa, nsend * es, c->soff);
    buf_alloc(&sb, nsend * es, c->soff);
    buf_alloc(&ra, rbytes, c->roff);
    buf_alloc(&rb, rbytes, c->roff);
    memcpy(sa.p, data, nsend * es);
    memcpy(sb.p, data, nsend * es);
    if (inplace) {
        memcpy(ra.p, data, nsend * es);
        memcpy(rb.p, data, nsend * es);
    }

    char desc[320];
    describe(desc, sizeof desc, c);

    if (trace) {
        printf("trace rank %d case %ld: %s\n", wrank, caseno, desc);
        fflush(stdout);
    }
    /* A non-root Reduce: every other case recvbuf NULL (allowed: not significant there). */
    int null_recv = c->coll == C_REDUCE && !is_root && caseno % 2;
    int rv = do_call(1, c, inplace ? MPI_IN_PLACE : sa.p, null_recv ? NULL : ra.p, rc);
    check_alg(c, ctotal, desc);
    int rp = do_call(0, c, inplace && ref_inplace ? MPI_IN_PLACE : sb.p, null_recv ? NULL : rb.p, rc);

    if (inject_fault && wrank == 0 && caseno == 5 && ncmp && is_root) {
        ra.p[0] ^= 1;
        inject_fault = 0;
    }

    /* u8: the exact result too (MPICH 4.0 compares unsigned types as signed in MAX/MIN,
     * pmodels/mpich#6083; Open MPI 4.1's AVX-512 uint8 SUM saturates): where the MPI's result
     * deviates from it, vred is checked against the exact one. Every rank takes part. */
    unsigned char *ref = NULL;
    if (t->kind == K_UINT && !c->user && !c->esize) {
        unsigned char *all = malloc(nsend * (size_t)p + 1);
        PMPI_Allgather(data, (int)nsend, MPI_UNSIGNED_CHAR, all, (int)nsend, MPI_UNSIGNED_CHAR,
                       cm->c);
        size_t start = 0;
        int lo = 0, hi = p;
        if (c->coll == C_RSB) start = (size_t)r * (size_t)c->count;
        if (c->coll == C_RS)
            for (int i = 0; i < r; i++) start += (size_t)rc[i];
        if (c->coll == C_SCAN) hi = r + 1;
        if (c->coll == C_EXSCAN) hi = r;
        ref = malloc(ncmp + 1);
        for (size_t i = 0; i < ncmp; i++) {
            unsigned v = all[(size_t)lo * nsend + start + i];
            for (int k = lo + 1; k < hi; k++) {
                unsigned x = all[(size_t)k * nsend + start + i];
                switch (c->o) {
                case O_SUM: v = (v + x) & 0xFF; break;
                case O_PROD: v = (v * x) & 0xFF; break;
                case O_MAX: v = x > v ? x : v; break;
                case O_MIN: v = x < v ? x : v; break;
                case O_BAND: v &= x; break;
                default: v ^= x; break;
                }
            }
            ref[i] = (unsigned char)v;
        }
        free(all);
    }

    checks++;
    if (rv != MPI_SUCCESS || rp != MPI_SUCCESS) {
        if ((rv == MPI_SUCCESS) != (rp == MPI_SUCCESS)) {
            char e[64];
            snprintf(e, sizeof e, " (vred rc %d, MPI rc %d)", rv, rp);
            fail_line("return codes differ", desc, e);
        }
        goto out;
    }
    if (is_root && ncmp) {
        size_t bytes = ncmp * es;
        if (ref && memcmp(ra.p, rb.p, bytes) && !memcmp(ra.p, ref, bytes)) {
            mpi_deviations++; /* vred exact, the MPI not: a known MPI bug */
        } else if (memcmp(ra.p, rb.p, bytes)) {
            size_t i = 0;
            while (!memcmp(ra.p + i * es, rb.p + i * es, es)) i++;
            size_t ndiff = 0;
            for (size_t j = i; j < ncmp; j++) ndiff += memcmp(ra.p + j * es, rb.p + j * es, es) != 0;
            char va[64], vb[64], e[220];
            if (c->esize) {
                snprintf(va, sizeof va, "%d,%d", ((int *)(void *)(ra.p + i * es))[0],
                         ((int *)(void *)(ra.p + i * es))[1]);
                snprintf(vb, sizeof vb, "%d,%d", ((int *)(void *)(rb.p + i * es))[0],
                         ((int *)(void *)(rb.p + i * es))[1]);
            } else {
                fmt_elem(va, sizeof va, ra.p + i * es, t);
                fmt_elem(vb, sizeof vb, rb.p + i * es, t);
            }
            int k = snprintf(e, sizeof e, ": first differing index %zu: vred %s, MPI %s", i, va, vb);
            if (ref) k += snprintf(e + k, sizeof e - k, ", exact %u", ref[i]);
            snprintf(e + k, sizeof e - k, " (%zu of %zu elements differ)", ndiff, ncmp);
            fail_line("result differs", desc, e);
            goto out;
        }
    }
    /* Nothing written outside the result; a non-root Reduce receive buffer not touched. */
    checks++;
    {
        size_t from = c->coll == C_REDUCE && !is_root ? 0 : inplace ? nsend * es : ncmp * es;
        if (c->coll == C_EXSCAN && r == 0) from = inplace ? nsend * es : nrecv * es;
        /* in place, the part of the buffer past this rank's block is undefined afterwards */
        if (inplace && (c->coll == C_RSB || c->coll == C_RS)) from = nsend * es;
        long at = canary_broken(&ra, from);
        if (at != -1) {
            char e[96];
            snprintf(e, sizeof e, " (byte %ld from the start of recvbuf)", at);
            fail_line(c->coll == C_REDUCE && !is_root
                          ? "non-root recvbuf modified by vred"
                          : "vred wrote outside the receive buffer", desc, e);
            goto out;
        }
    }
    checks++;
    if (!inplace && (memcmp(sa.p, data, nsend * es) || canary_broken(&sa, nsend * es) != -1))
        fail_line("send buffer modified by vred", desc, NULL);
out:
    free(ref);
    free(data);
    free(sa.base);
    free(sb.base);
    free(ra.base);
    free(rb.base);
}

/* ---- sweeps ------------------------------------------------------------------------------- */
static const long counts[] = {0, 1, 2, 3, 7, 31, 64, 100, 1000, 4097, 65537};
enum { NCOUNTS = sizeof counts / sizeof counts[0] };
#define BIG (1048576L + 3)

/* Force `alg` for the collective; 1 if it is to be run. Same answer on every rank. */
static int force(int coll, const char *alg)
{
    if (only_alg && strcmp(only_alg, alg)) return 0;
    if (!vred_mpi_force) return !strcmp(alg, "auto");
    int rc = vred_mpi_force(coll_force[coll], alg);
    int want = documented(coll, alg) ? 0 : -1;
    if (mode != MODE_PASS && rc != want) {
        char e[96];
        snprintf(e, sizeof e, "vred_mpi_force(\"%s\", \"%s\") returned %d, documented %d",
                 coll_force[coll], alg, rc, want);
        checks++;
        fail_line(e, "force", NULL);
    }
    return rc == 0;
}
static void unforce(int coll)
{
    if (vred_mpi_force) vred_mpi_force(coll_force[coll], "auto");
}

static int sparse_density(long k) { return !sparse_mode ? 1000 : k % 3 == 0 ? 100 : k % 3 == 1 ? 10 : 0; }

static void base_case(tcase *c, const commi *cm, int coll, int root_kind, const char *alg, int pi)
{
    memset(c, 0, sizeof *c);
    c->cm = cm;
    c->coll = coll;
    c->root_kind = root_kind;
    c->alg = alg;
    c->t = pairs[pi].t;
    c->o = pairs[pi].o;
    c->dt = types[c->t].dt;
    c->op = ops[c->o].op;
    c->tname = types[c->t].name;
    c->oname = ops[c->o].name;
    c->density = sparse_density(caseno);
}

static void misalign(tcase *c, const commi *cm)
{
    if (caseno % 3 == 1) {
        c->soff = 1 + (int)(caseno % 7);
        c->roff = 1 + (int)((caseno / 3 + cm->rank) % 7);
    }
}

/* Every (collective, root, algorithm, count, in-place) on one communicator, the (type, op)
 * pair rotating, every third case misaligned, alternate cases through the _c entry point. */
static void sweep_shapes(const commi *cm)
{
    for (int coll = 0; coll < NCOLL; coll++) {
        if (only_coll >= 0 && coll != only_coll) continue;
        for (int a = 0; a < NALG; a++) {
            if (!force(coll, alg_name[a])) continue;
            for (int rk = 0; rk < (coll == C_REDUCE ? 3 : 1); rk++)
                for (int ci = 0; ci < NCOUNTS; ci++)
                    for (int ip = 0; ip < 2; ip++) {
                        tcase c;
                        if (!take()) continue;
                        base_case(&c, cm, coll, rk, alg_name[a], (int)((caseno * 7) % npairs));
                        c.count = counts[ci];
                        c.inplace = ip;
#if MPI_VERSION >= 4
                        c.bigc = (ci + ip) % 2;
#endif
                        misalign(&c, cm);
                        run_case(&c);
                    }
            unforce(coll);
        }
    }
}

/* Every (type, op) pair x collective x algorithm, counts 7 and 1000, on MPI_COMM_WORLD. */
static void sweep_pairs(const commi *cm)
{
    for (int coll = 0; coll < NCOLL; coll++) {
        if (only_coll >= 0 && coll != only_coll) continue;
        for (int a = 0; a < NALG; a++) {
            if (a == 1 || !force(coll, alg_name[a])) continue; /* not "mpi": PMPI vs PMPI */
            for (int pi = 0; pi < npairs; pi++)
                for (int k = 0; k < 2; k++) {
                    tcase c;
                    if (!take()) continue;
                    base_case(&c, cm, coll, (int)((pi + k) % 3), alg_name[a], pi);
                    c.count = k ? 1000 : 7;
                    c.inplace = (pi + k + a) % 2;
#if MPI_VERSION >= 4
                    c.bigc = (pi + a) % 2 && k;
#endif
                    misalign(&c, cm);
                    run_case(&c);
                }
            unforce(coll);
        }
    }
}

/* 1M+3 elements: a few (type, op) pairs under each algorithm. */
static void sweep_big(const commi *cm)
{
    static const struct { int coll, t, o; } big[] = {
        {C_ALLREDUCE, T_F64, O_SUM}, {C_ALLREDUCE, T_I32, O_BXOR}, {C_REDUCE, T_F32, O_MAX},
        {C_RSB, T_U8, O_SUM},        {C_RS, T_I16, O_MIN},         {C_SCAN, T_F64, O_SUM},
        {C_EXSCAN, T_I64, O_PROD},
    };
    for (size_t b = 0; b < sizeof big / sizeof big[0]; b++) {
        int coll = big[b].coll;
        if (only_coll >= 0 && coll != only_coll) continue;
        for (int a = 0; a < NALG; a++) {
            if (a == 1 || !force(coll, alg_name[a])) continue;
            /* the second pair of a collective: "auto" and ring only */
            if (b == 1 && a != 0 && strcmp(alg_name[a], "ring")) { unforce(coll); continue; }
            int pi = 0;
            while (pairs[pi].t != big[b].t || pairs[pi].o != big[b].o) pi++;
            tcase c;
            if (!take() && a != 0) { unforce(coll); continue; } /* "auto" always */
            caseno = enumno - 1;
            base_case(&c, cm, coll, ROOT_MIDDLE, alg_name[a], pi);
            c.count = coll == C_RSB || coll == C_RS ? BIG / cm->size + 1 : BIG;
            if (coll == C_RSB) c.count = BIG; /* per rank, u8: size x 1 MiB */
            c.inplace = (int)(caseno % 2);
#if MPI_VERSION >= 4
            c.bigc = (int)(b % 2);
#endif
            misalign(&c, cm);
            run_case(&c);
            unforce(coll);
        }
    }
}

/* ---- user op and derived datatype: the MPI's, untouched -------------------------------------- */
/* (a+1)(b+1)-1: commutative and associative, no predefined op computes it. */
static void op_cplus(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = (int)((unsigned)a[i] * (unsigned)b[i] + (unsigned)a[i] + (unsigned)b[i]);
}
/* a o b = a (the lower rank's value): associative, not commutative. */
static void op_first(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    memcpy(inout, in, (size_t)*len * sizeof(int));
}

static void sweep_user(const commi *cm)
{
    MPI_Op cplus, first;
    MPI_Datatype int2;
    MPI_Op_create(op_cplus, 1, &cplus);
    MPI_Op_create(op_first, 0, &first);
    MPI_Type_contiguous(2, MPI_INT, &int2);
    MPI_Type_commit(&int2);
    /* An int under another combiner: the same layout, still the MPI's. */
    MPI_Datatype rint;
    MPI_Type_create_resized(MPI_INT, 0, sizeof(int), &rint);
    MPI_Type_commit(&rint);
    int pi = 0;
    while (pairs[pi].t != T_I32 || pairs[pi].o != O_SUM) pi++;
    static const char *forced[NCOLL] = {"ring", "binomial", "redscat", "ring", "recdbl", "recdbl"};
    for (int pass = 0; pass < 2; pass++)
        for (int coll = 0; coll < NCOLL; coll++) {
            if (only_coll >= 0 && coll != only_coll) continue;
            const char *alg = pass ? forced[coll] : "auto";
            if (!force(coll, alg)) continue;
            for (int v = 0; v < 4; v++)
                for (int k = 0; k < 2; k++) {
                    tcase c;
                    if (!take()) continue;
                    base_case(&c, cm, coll, (v + k) % 3, alg, pi);
                    c.density = 1000;
                    c.user = 1;
                    c.count = k ? 1000 : 7;
                    c.inplace = (v + k + coll) % 2;
                    if (v == 0) { c.op = cplus; c.oname = "user(a+1)(b+1)-1"; }
                    if (v == 1) { c.op = first; c.oname = "user-noncommutative"; }
                    if (v == 2) { c.dt = int2; c.esize = 8; c.tname = "contiguous(2,MPI_INT)"; c.oname = "SUM"; }
                    if (v == 3) { c.dt = rint; c.esize = 4; c.tname = "resized(MPI_INT)"; c.oname = "SUM"; }
                    run_case(&c);
                }
            unforce(coll);
        }
    MPI_Type_free(&int2);
    MPI_Type_free(&rint);
    MPI_Op_free(&cplus);
    MPI_Op_free(&first);
}

/* ---- main --------------------------------------------------------------------------------- */
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    init_tables();
    trace = getenv("VRED_TEST_TRACE") != NULL;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--expect-vred")) mode = MODE_VRED;
        else if (!strcmp(argv[a], "--expect-passthrough")) mode = MODE_PASS;
        else if (!strcmp(argv[a], "--sparse")) sparse_mode = 1;
        else if (!strcmp(argv[a], "--quick")) quick = 1;
        else if (!strcmp(argv[a], "--inject-fault")) inject_fault = 1;
        else if (!strncmp(argv[a], "--expect-nodes=", 15)) expect_nodes = atoi(argv[a] + 15);
        else if (!strncmp(argv[a], "--alg=", 6)) only_alg = argv[a] + 6;
        else if (!strncmp(argv[a], "--cma=", 6)) cma_want = argv[a] + 6;
        else if (!strncmp(argv[a], "--sample=", 9)) {
            char *end;
            sample_k = strtol(argv[a] + 9, &end, 10);
            sample_phase = *end == ':' ? strtol(end + 1, NULL, 10) : 0;
            if (sample_k < 1) sample_k = 1;
            sample_phase %= sample_k;
        }
        else if (!strncmp(argv[a], "--only=", 7)) {
            for (int c = 0; c < NCOLL; c++)
                if (!strcmp(argv[a] + 7, coll_name[c])) only_coll = c;
            if (only_coll < 0) {
                if (!wrank) fprintf(stderr, "unknown collective %s\n", argv[a] + 7);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        } else {
            if (!wrank) fprintf(stderr, "unknown option %s\n", argv[a]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (wsize > 64) {
        if (!wrank) printf("more than 64 ranks: skipped\n");
        MPI_Finalize();
        return 77;
    }
    for (int t = 0; t < NTYPES; t++)
        for (int o = 0; o < NOPS; o++)
            if (types[t].kind == K_SINT || types[t].kind == K_UINT || ops[o].on_float)
                pairs[npairs++] = (pairi){t, o};

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    commi comms[4];
    comms[0] = (commi){"world", MPI_COMM_WORLD, 0, 0, 0};
    comms[1].name = "split-odd-even";
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &comms[1].c);
    comms[2].name = "dup";
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[2].c);
    comms[3].name = "split-reversed";
    MPI_Comm_split(MPI_COMM_WORLD, 0, -wrank, &comms[3].c);
    for (int i = 0; i < 4; i++) {
        MPI_Comm_rank(comms[i].c, &comms[i].rank);
        MPI_Comm_size(comms[i].c, &comms[i].size);
        comms[i].shm = shm_possible(comms[i].c, comms[i].size);
    }
    cma_works = cma_probe();
    if (cma_want && strcmp(cma_want, cma_works ? "yes" : "no")) {
        if (!wrank) printf("FAIL: cross-memory attach %s here, --cma=%s expected otherwise\n",
                           cma_works ? "works" : "is denied", cma_want);
        failures++;
    }
    if (expect_nodes) {
        /* The nodes MPI_COMM_TYPE_SHARED (or VRED_NODE_SIZE) makes of MPI_COMM_WORLD: node_of_me
         * is each node's lowest world rank, so the nodes are the ranks where it is their own. */
        int lead = node_of_me() == wrank, nodes = 0;
        PMPI_Allreduce(&lead, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (nodes != expect_nodes) {
            if (!wrank)
                printf("FAIL: MPI_COMM_WORLD spans %d node(s), expected %d (--expect-nodes)\n",
                       nodes, expect_nodes);
            failures++;
        }
    }

    double t0 = PMPI_Wtime();
    if (!vred_mpi_force && !wrank)
        printf("note: vred_mpi_force() is not exported by libvred-mpi.so: \"auto\" only\n");
    for (int i = 0; i < 4; i++) {
        sweep_shapes(&comms[i]);
        PMPI_Barrier(MPI_COMM_WORLD);
    }
    double t1 = PMPI_Wtime();
    if (!quick) sweep_pairs(&comms[0]);
    double t2 = PMPI_Wtime();
    sweep_big(&comms[0]);
    if (sparse_mode) sweep_big(&comms[3]);
    double t3 = PMPI_Wtime();
    for (int i = 0; i < 4; i++) sweep_user(&comms[i]);
    double t4 = PMPI_Wtime();

    long loc[5] = {checks, failures, vred_calls, vred_served, mpi_deviations}, tot[5];
    PMPI_Allreduce(loc, tot, 5, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (!wrank) {
        printf("coll: %d ranks, %s%s, sample 1/%ld phase %ld: %ld checks, %ld failed; vred served %ld of %ld calls "
               "(rank-calls); %.1f s (shapes %.1f, pairs %.1f, 1M+3 %.1f, user/derived %.1f)\n",
               wsize, mode == MODE_VRED ? "--expect-vred" : mode == MODE_PASS ? "--expect-passthrough"
                                                                             : "compare only",
               sparse_mode ? ", sparse inputs" : "", sample_k, sample_phase, tot[0], tot[1], tot[3], tot[2], t4 - t0,
               t1 - t0, t2 - t1, t3 - t2, t4 - t3);
        if (tot[4])
            printf("note: in %ld u8 results the MPI's own answer is wrong (a known MPI bug: MPICH "
                   "4.0 MAX/MIN compare unsigned as signed); vred matched the exact result\n",
                   tot[4]);
        if (mode == MODE_COMPARE && tot[3] < tot[2])
            printf("note: %ld calls not served by vred (compare-only mode does not fail on that)\n",
                   tot[2] - tot[3]);
    }
    for (int i = 1; i < 4; i++) MPI_Comm_free(&comms[i].c);
    MPI_Finalize();
    return tot[1] ? 1 : 0;
}
