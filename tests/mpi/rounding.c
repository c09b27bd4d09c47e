/*
 * Floating-point data that rounds, through every reduction collective and every vred algorithm
 * (issue 15, item 1). tests/mpi/coll.c feeds only values whose results are exact in any order;
 * this test feeds f32 and f64 inputs of mixed magnitudes (and, in dedicated cases, NaN, +-inf,
 * -0 and denormals) and checks what vred promises for them (docs/collectives.md, "What is
 * guaranteed"):
 *
 *   same bytes    allreduce: every rank gets the same bytes (a hash of the result, gathered);
 *   repeat        a second identical call gives the same bytes;
 *   in place      MPI_IN_PLACE gives the same bytes as separate buffers;
 *   SUM bound     |result - exact| <= (k-1) u sum|x_i| (1 + 1e-3) for k terms, u = 2^-24 or
 *                 2^-53; the exact sum from every rank's inputs (each rank regenerates the
 *                 others' from the case's seed), summed in long double with compensation;
 *   PROD bound    |result - exact| <= ((1+u)^(k-1) - 1) |exact| (1 + 1e-3), inputs near 1;
 *   exact cases   one term (scan rank 0, exscan rank 1) is copied bit for bit; SUM of denormals
 *                 (all partial sums exact) and the sign of zero sums; +-inf; PROD of zeros,
 *                 of denormals (underflows to a signed zero) and of infinities;
 *   NaN           a NaN in any rank's input (or inf - inf, inf * 0) gives a NaN for SUM and PROD;
 *   MAX/MIN       without NaN the exact extremum (either zero where +0 and -0 tie); with a NaN
 *                 in some input, the rule of docs/semantics.md ("the `in` operand wins") applied
 *                 in the algorithm's fold order: a NaN or one of the element's non-NaN inputs,
 *                 bit for bit; a NaN if every input is one. Each rank alike (the hash), each
 *                 call alike (repeat). dpml (up to 16 KiB) on one node folds in rank order: the
 *                 bits of ((x0 op x1) op x2) ..., NaN iff rank 0's value is.
 *
 * Collectives: allreduce, reduce (root 0 and the last rank), reduce_scatter_block,
 * reduce_scatter (uneven counts, one rank's zero), scan, exscan; every vred algorithm of each
 * (src/coll/select.c) forced with vred_mpi_force(), and "auto"; after each call
 * vred_mpi_last_alg() must name the forced algorithm. Counts 1 (mixed) or 7 (special: every
 * pattern once), 1001 (DPML, recursive doubling) and 5001 (MA above 16 KiB; ring and recursive
 * halving with real blocks; mixed: SUM and MAX only), plus 150001 f64 SUM (messages cut into
 * 256 KiB segments). Types f32 and f64; ops SUM PROD MAX MIN.
 *
 * Options: --sample=K[:P] (every K-th case from P), --inject-fault (rank 1 corrupts one
 * allreduce result: the same-bytes check must catch it), --alg=NAME, --only=COLL.
 * Prints one summary line per rank 0; exits 1 if any check failed on any rank.
 */
#include <float.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VRED_MPI_WEAK
#include "vred_mpi.h"

enum { C_ALLREDUCE, C_REDUCE, C_RSB, C_RS, C_SCAN, C_EXSCAN, NCOLL };
static const char *coll_name[NCOLL] = {"allreduce", "reduce", "reduce_scatter_block",
                                       "reduce_scatter", "scan", "exscan"};
static const char *coll_force[NCOLL] = {"allreduce", "reduce", "reduce_scatter",
                                        "reduce_scatter", "scan", "scan"};
/* The algorithms of src/coll/select.c, per collective, and "auto". */
static const char *const algs[NCOLL][9] = {
    {"auto", "recdbl", "binomial", "redscat", "ring", "dpml", "ma", "cma", NULL},
    {"auto", "binomial", "redscat", "ring", "dpml", "ma", "cma", NULL},
    {"auto", "binomial", "redscat", "ring", "dpml", "ma", "cma", NULL},
    {"auto", "binomial", "redscat", "ring", "dpml", "ma", "cma", NULL},
    {"auto", "recdbl", NULL},
    {"auto", "recdbl", NULL},
};

enum { O_SUM, O_PROD, O_MAX, O_MIN, NOPS };
static const char *op_name[NOPS] = {"SUM", "PROD", "MAX", "MIN"};
static MPI_Op op_handle(int o)
{
    return o == O_SUM ? MPI_SUM : o == O_PROD ? MPI_PROD : o == O_MAX ? MPI_MAX : MPI_MIN;
}
enum { K_MIXED, K_SPECIAL };

typedef struct {
    int coll, root, f32, o, kind;
    long count;
    const char *alg;
    uint64_t seed;
    int p, r;
    int seq; /* MAX/MIN: the result is the rank-order fold (dpml within one bank) */
} tcase;

static int wrank, wsize, inject_fault, only_coll = -1;
static int one_node = 1; /* all ranks on one node (dpml then folds in rank order) */
static const char *only_alg;
static long checks, failures, printed, cases, enumno, sample_k = 1, sample_phase;
static long served_mpi_auto, served_vred_auto, mpi_inplace_notes;
static long nan_maxmin_nan, nan_maxmin_value; /* MAX/MIN elements with a NaN input */

static void fail(const tcase *c, const char *what, const char *extra)
{
    failures++;
    if (printed++ < 30)
        printf("FAIL rank %d: %s alg=%s %s %s %s count=%ld root=%d: %s%s\n", wrank,
               coll_name[c->coll], c->alg, c->f32 ? "f32" : "f64", op_name[c->o],
               c->kind == K_MIXED ? "mixed" : "special", c->count, c->root, what,
               extra ? extra : "");
    fflush(stdout);
}

/* ---- inputs: a pure function of (case seed, rank, element): every rank can make any rank's -- */
static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
static uint64_t bits(const tcase *c, int q, size_t g, int salt)
{
    return mix(c->seed ^ mix((uint64_t)q * 0x100000001B3ull + (uint64_t)salt) ^
               mix((uint64_t)g * 0xD1B54A32D192ED03ull));
}

/* A finite value of mixed magnitude, exactly representable in the case's type. */
static double mixed(const tcase *c, int q, size_t g, int positive)
{
    uint64_t r = bits(c, q, g, 1);
    int span = c->o == O_PROD ? 2 : c->f32 ? 20 : 30;
    int e = (int)(r % (uint64_t)(2 * span + 1)) - span;
    double m = c->f32 ? 1.0 + (double)(r >> 41) / 8388608.0 : 1.0 + (double)(r >> 12) / 4503599627370496.0;
    double v = ldexp(m, e);
    return !positive && (r >> 40 & 1) ? -v : v;
}
static double denormal(const tcase *c, int q, size_t g)
{
    uint64_t r = bits(c, q, g, 2);
    /* few enough mantissa bits that every partial sum of up to 5 is exact */
    double m = c->f32 ? (double)(r % (1u << 20) + 1) : (double)(r % (1ull << 49) + 1);
    double v = ldexp(m, c->f32 ? -149 : -1074);
    return r >> 63 ? -v : v;
}

enum { NPAT = 9 };
static const char *pat_name[NPAT] = {"NaN on one rank", "NaN everywhere", "+inf on one rank",
                                     "+inf and -inf", "-0 everywhere", "-0 on one rank, +0 else",
                                     "denormals", "+inf and NaN", "denormals and normals"};

static double value(const tcase *c, int q, size_t g)
{
    if (c->kind == K_MIXED) return mixed(c, q, g, 0);
    int k = (int)(g % NPAT), p = c->p;
    int who = (int)((g / NPAT + c->seed) % (uint64_t)p), next = (who + 1) % p;
    switch (k) {
    case 0: return q == who ? NAN : mixed(c, q, g, 0);
    case 1: return NAN;
    case 2: return q == who ? INFINITY : mixed(c, q, g, 1);
    case 3: return q == who ? INFINITY : q == next ? -INFINITY : mixed(c, q, g, 1);
    case 4: return -0.0;
    case 5: return q == who ? -0.0 : 0.0;
    case 6: return denormal(c, q, g);
    case 7: return q == who ? INFINITY : q == next ? NAN : mixed(c, q, g, 0);
    default: return q % 2 ? denormal(c, q, g) : mixed(c, q, g, 0);
    }
}

static size_t es_of(const tcase *c) { return c->f32 ? 4 : 8; }
static void put(const tcase *c, unsigned char *p, double v)
{
    if (c->f32) {
        float f = (float)v;
        memcpy(p, &f, 4);
    } else {
        memcpy(p, &v, 8);
    }
}
static double get(const tcase *c, const unsigned char *p)
{
    if (c->f32) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    double d;
    memcpy(&d, p, 8);
    return d;
}
/* Bitwise equality in the case's type. */
static int same_bits(const tcase *c, double a, double b)
{
    unsigned char x[8], y[8];
    put(c, x, a);
    put(c, y, b);
    return !memcmp(x, y, es_of(c));
}

/* ---- the expected result of one element, from the k values that take part ---------------- */
/* 1 if `res` is right for the values v[0..k-1] (rank order) under the case's op; what was
 * expected written to `why` unless it is NULL (formatting it for every element took a third of
 * the test's time, so the caller asks for it again only for a wrong element). */
#define WHY(...) (why ? (void)snprintf(why, wn, __VA_ARGS__) : (void)0)
static int check_elem(const tcase *c, const double *v, int k, double res, char *why, size_t wn)
{
    double u = c->f32 ? ldexp(1, -24) : ldexp(1, -53);
    double tiny = c->f32 ? ldexp(1, -149) : ldexp(1, -1074);
    int nan = 0, pinf = 0, ninf = 0, zeros = 0, negzeros = 0, denorm = 0, neg = 0;
    for (int i = 0; i < k; i++) {
        nan |= isnan(v[i]);
        pinf |= v[i] == INFINITY;
        ninf |= v[i] == -INFINITY;
        zeros += v[i] == 0;
        negzeros += v[i] == 0 && signbit(v[i]);
        denorm += v[i] != 0 && fabs(v[i]) < (c->f32 ? FLT_MIN : DBL_MIN);
        neg ^= signbit(v[i]) != 0;
    }
    if (k == 1) { /* a single term: copied */
        WHY("one term: a copy of it");
        return same_bits(c, res, v[0]) || (isnan(v[0]) && isnan(res));
    }
    switch (c->o) {
    case O_SUM: {
        if (nan || (pinf && ninf)) {
            WHY("a NaN (NaN input or inf - inf)");
            return isnan(res) != 0;
        }
        if (pinf || ninf) {
            WHY("%sinf", pinf ? "+" : "-");
            return res == (pinf ? INFINITY : -INFINITY);
        }
        if (zeros == k) {
            WHY("%s0 (zeros only)", negzeros == k ? "-" : "+");
            return same_bits(c, res, negzeros == k ? -0.0 : 0.0);
        }
        if (zeros + denorm == k) { /* every partial sum exact */
            long double s = 0;
            for (int i = 0; i < k; i++) s += v[i];
            WHY("the exact sum of denormals %.9Lg", s);
            return same_bits(c, res, s == 0 ? 0.0 : (double)s);
        }
        /* Neumaier's compensated sum in long double: its error is far below the bound's. */
        long double s = 0, comp = 0, abssum = 0;
        for (int i = 0; i < k; i++) {
            long double x = v[i], t = s + x;
            comp += fabsl(s) >= fabsl(x) ? (s - t) + x : (x - t) + s;
            s = t;
            abssum += fabsl(x);
        }
        s += comp;
        long double bound = (long double)(k - 1) * u * abssum * 1.001L + abssum * 1e-30L;
        long double err = fabsl((long double)res - s);
        WHY("within %.3Lg of the exact %.17Lg (error %.3Lg)", bound, s, err);
        return isfinite(res) && err <= bound;
    }
    case O_PROD: {
        if (nan || ((pinf || ninf) && zeros)) {
            WHY("a NaN (NaN input or inf * 0)");
            return isnan(res) != 0;
        }
        if (pinf || ninf) {
            WHY("%sinf", neg ? "-" : "+");
            return same_bits(c, res, neg ? -INFINITY : INFINITY);
        }
        if (zeros || denorm == k) { /* a zero, or denormal x denormal: underflows to zero */
            WHY("%s0", neg ? "-" : "+");
            return same_bits(c, res, neg ? -0.0 : 0.0);
        }
        if (denorm) { /* underflow: absolute errors; only the sign and finiteness */
            WHY("finite, sign %s", neg ? "-" : "+");
            return isfinite(res) && (res == 0 || (signbit(res) != 0) == neg);
        }
        long double pr = 1;
        for (int i = 0; i < k; i++) pr *= v[i];
        long double bound = (powl(1 + (long double)u, k - 1) - 1) * fabsl(pr) * 1.001L;
        long double err = fabsl((long double)res - pr);
        WHY("within %.3Lg of the exact %.17Lg (error %.3Lg)", bound, pr, err);
        return isfinite(res) && err <= bound;
    }
    default: {
        int mx = c->o == O_MAX;
        if (c->seq) {
            /* dpml folds in rank order, ((v0 op v1) op v2) ..., the accumulator as `in`: the
             * kernel rule (docs/semantics.md) gives these exact bits, NaNs and zeros included. */
            double acc = v[0];
            for (int i = 1; i < k; i++)
                if (mx ? v[i] > acc : v[i] < acc) acc = v[i];
            WHY("%.17g: the rank-order fold of dpml", acc);
            if (nan) {
                if (isnan(res)) nan_maxmin_nan++;
                else nan_maxmin_value++;
            }
            return same_bits(c, res, acc) || (isnan(acc) && isnan(res));
        }
        if (nan) {
            /* The kernel rule in the algorithm's fold order: a NaN or one of the inputs. */
            WHY("a NaN or, bit for bit, one of the element's non-NaN inputs%s",
                     nan && k > 0 ? "" : "");
            int all_nan = 1;
            for (int i = 0; i < k; i++) all_nan &= isnan(v[i]) != 0;
            if (isnan(res)) {
                nan_maxmin_nan++;
                return 1;
            }
            nan_maxmin_value++;
            if (all_nan) return 0;
            for (int i = 0; i < k; i++)
                if (!isnan(v[i]) && same_bits(c, res, v[i])) return 1;
            return 0;
        }
        double best = v[0];
        for (int i = 1; i < k; i++)
            if (mx ? v[i] > best : v[i] < best) best = v[i];
        if (best == 0 && zeros > negzeros && negzeros > 0) {
            WHY("a zero (+0 and -0 tie)");
            return res == 0;
        }
        WHY("the exact %s %.17g", mx ? "maximum" : "minimum", best);
        (void)tiny;
        return same_bits(c, res, best);
    }
    }
}
#undef WHY

/* ---- one case -------------------------------------------------------------------------------- */
static uint64_t fnv(const unsigned char *p, size_t n)
{
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001B3ull;
    return h;
}

/* MPICH 4.0.2 crashes on two MPI_IN_PLACE cases of its own (tests/mpi/coll.c, mpi_inplace_bug):
 * under "auto" the call may be the MPI's, so the in-place call is skipped there. */
static int mpi_inplace_bug(const tcase *c, const int *rc)
{
#ifdef MPICH
    if (c->coll == C_REDUCE) return c->root != 0 && (size_t)c->count * es_of(c) > 2048;
    if (c->coll == C_RS) {
        long disp = 0;
        for (int i = 0; i < c->p; i++) {
            if (i && rc[i] > disp) return 1;
            disp += rc[i];
        }
    }
    return 0;
#else
    (void)c, (void)rc;
    return 0;
#endif
}

static int call(const tcase *c, const void *sb, void *rb, const int *rc)
{
    MPI_Datatype dt = c->f32 ? MPI_FLOAT : MPI_DOUBLE;
    MPI_Op op = op_handle(c->o);
    int n = (int)c->count;
    switch (c->coll) {
    case C_ALLREDUCE: return MPI_Allreduce(sb, rb, n, dt, op, MPI_COMM_WORLD);
    case C_REDUCE: return MPI_Reduce(sb, rb, n, dt, op, c->root, MPI_COMM_WORLD);
    case C_RSB: return MPI_Reduce_scatter_block(sb, rb, n, dt, op, MPI_COMM_WORLD);
    case C_RS: return MPI_Reduce_scatter(sb, rb, rc, dt, op, MPI_COMM_WORLD);
    case C_SCAN: return MPI_Scan(sb, rb, n, dt, op, MPI_COMM_WORLD);
    default: return MPI_Exscan(sb, rb, n, dt, op, MPI_COMM_WORLD);
    }
}

static void run_case(tcase *c)
{
    int p = c->p, r = c->r;
    size_t es = es_of(c);
    int rc[64];
    long total = 0, disp = 0;
    for (int i = 0; i < p; i++) {
        rc[i] = i % 3 == 1 ? 0 : (int)c->count + 3 * i; /* uneven, some zero */
        if (i < r) disp += rc[i];
        total += rc[i];
    }
    size_t nsend, nrecv, first = 0; /* first: global index of this rank's first result */
    int lo = 0, hi = p;             /* the ranks whose inputs make this rank's result */
    switch (c->coll) {
    case C_RSB: nsend = (size_t)c->count * p; nrecv = (size_t)c->count; first = (size_t)r * c->count; break;
    case C_RS: nsend = (size_t)total; nrecv = (size_t)rc[r]; first = (size_t)disp; break;
    default: nsend = nrecv = (size_t)c->count; break;
    }
    if (c->coll == C_SCAN) hi = r + 1;
    if (c->coll == C_EXSCAN) hi = r;
    int has = (c->coll != C_REDUCE || r == c->root) && hi > lo; /* defined result here */
    /* dpml serves the call itself (no MA fallback) up to the model's 16 KiB; across nodes
     * (scripts/multihost.sh) each node folds, then the leaders: not rank order */
    c->seq = one_node && !strcmp(c->alg, "dpml") && nsend * es <= 16384 && c->coll != C_SCAN &&
             c->coll != C_EXSCAN;

    unsigned char *sb = malloc(nsend * es + 8), *ra = malloc(nsend * es + 8),
                  *rb = malloc(nsend * es + 8), *ri = malloc(nsend * es + 8);
    for (size_t g = 0; g < nsend; g++) put(c, sb + g * es, value(c, r, g));
    memset(ra, 0xA5, nsend * es);
    memset(rb, 0x5A, nsend * es);

    cases++;
    checks++;
    int e1 = call(c, sb, ra, rc);
    const char *la = vred_mpi_last_alg ? vred_mpi_last_alg() : "(none)";
    char extra[400];
    if (e1 != MPI_SUCCESS) {
        snprintf(extra, sizeof extra, " (rc %d)", e1);
        fail(c, "the call failed", extra);
        goto out;
    }
    if (strcmp(c->alg, "auto")) {
        if (strcmp(la, c->alg)) {
            snprintf(extra, sizeof extra, " (last_alg \"%s\")", la);
            fail(c, "not served by the forced algorithm", extra);
        }
    } else if (!strcmp(la, "mpi")) {
        served_mpi_auto++;
    } else {
        served_vred_auto++;
    }
    if (inject_fault && wrank == 1 && c->coll == C_ALLREDUCE && nrecv) {
        ra[0] ^= 1;
        inject_fault = 0;
    }

    /* repeat */
    checks++;
    call(c, sb, rb, rc);
    if (has && memcmp(ra, rb, nrecv * es)) {
        size_t i = 0;
        while (!memcmp(ra + i * es, rb + i * es, es)) i++;
        snprintf(extra, sizeof extra, " (element %zu: %.17g then %.17g)", i, get(c, ra + i * es),
                 get(c, rb + i * es));
        fail(c, "a repeated call gave other bytes", extra);
    }
    /* in place */
    if (!(strcmp(c->alg, "auto") == 0 && mpi_inplace_bug(c, rc))) {
        checks++;
        int at_root = c->coll != C_REDUCE || r == c->root;
        memcpy(ri, sb, nsend * es);
        call(c, at_root ? MPI_IN_PLACE : sb, at_root ? ri : rb, rc);
        const char *la2 = vred_mpi_last_alg();
        if (has && memcmp(ra, ri, nrecv * es)) {
            size_t i = 0;
            while (!memcmp(ra + i * es, ri + i * es, es)) i++;
            snprintf(extra, sizeof extra, " (element %zu: %.17g, in place %.17g)", i,
                     get(c, ra + i * es), get(c, ri + i * es));
            if (!strcmp(la, "mpi") || !strcmp(la2, "mpi")) {
                /* "auto" passed the call to the MPI: its own behaviour, reported, not vred's */
                if (mpi_inplace_notes++ < 3)
                    printf("note rank %d: %s alg=auto served by the MPI: in place differs from "
                           "separate buffers (%s %s)%s\n", wrank, coll_name[c->coll],
                           c->f32 ? "f32" : "f64", op_name[c->o], extra);
            } else {
                fail(c, "in place differs from separate buffers", extra);
            }
        }
    }
    /* the values */
    if (has) {
        checks++;
        long bad = 0;
        for (size_t j = 0; j < nrecv; j++) {
            size_t g = first + j;
            double v[64], res = get(c, ra + j * es);
            int k = 0;
            for (int q = lo; q < hi; q++) {
                unsigned char tmp[8];
                put(c, tmp, value(c, q, g)); /* rounded to the type, as sent */
                v[k++] = get(c, tmp);
            }
            char why[200];
            if (!check_elem(c, v, k, res, NULL, 0) && bad++ == 0) {
                check_elem(c, v, k, res, why, sizeof why);
                int n = snprintf(extra, sizeof extra, " (element %zu%s%s: got %.17g, want %s; inputs",
                                 g, c->kind == K_SPECIAL ? ", " : "",
                                 c->kind == K_SPECIAL ? pat_name[g % NPAT] : "", res, why);
                for (int i = 0; i < k && n < (int)sizeof extra - 40; i++)
                    n += snprintf(extra + n, sizeof extra - n, " %.9g", v[i]);
                snprintf(extra + n, sizeof extra - n, ")");
                fail(c, "wrong value", extra);
            }
        }
    }
    /* every rank the same bytes (allreduce) */
    if (c->coll == C_ALLREDUCE) {
        checks++;
        uint64_t h = fnv(ra, nrecv * es), hs[64];
        PMPI_Allgather(&h, 1, MPI_UINT64_T, hs, 1, MPI_UINT64_T, MPI_COMM_WORLD);
        for (int q = 0; q < p; q++)
            if (hs[q] != hs[0]) {
                snprintf(extra, sizeof extra, " (rank %d's result differs from rank 0's)", q);
                if (r == 0) fail(c, "ranks got different bytes", extra);
                break;
            }
    }
out:
    free(sb);
    free(ra);
    free(rb);
    free(ri);
}

static int take(void)
{
    long e = enumno++;
    return e % sample_k == sample_phase;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    /* One node as vred sees nodes: VRED_NODE_SIZE, else MPI_COMM_TYPE_SHARED. */
    const char *ns = getenv("VRED_NODE_SIZE");
    if (ns && atoi(ns) > 0) {
        one_node = atoi(ns) >= wsize;
    } else {
        MPI_Comm node;
        int nsize = 0;
        PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        PMPI_Comm_size(node, &nsize);
        PMPI_Comm_free(&node);
        int all = nsize == wsize;
        PMPI_Allreduce(&all, &one_node, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    }
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--inject-fault")) inject_fault = 1;
        else if (!strncmp(argv[a], "--alg=", 6)) only_alg = argv[a] + 6;
        else if (!strncmp(argv[a], "--only=", 7)) {
            for (int c = 0; c < NCOLL; c++)
                if (!strcmp(argv[a] + 7, coll_name[c])) only_coll = c;
        } else if (!strncmp(argv[a], "--sample=", 9)) {
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
    if (wsize > 64 || !vred_mpi_force || !vred_mpi_last_alg) {
        if (!wrank) printf("skipped: %s\n", wsize > 64 ? "more than 64 ranks" : "vred not linked");
        MPI_Finalize();
        return 77;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    double t0 = PMPI_Wtime();
    static const long counts[] = {1, 7, 1001, 5001, 150001};
    for (int coll = 0; coll < NCOLL; coll++) {
        if (only_coll >= 0 && coll != only_coll) continue;
        for (int a = 0; algs[coll][a]; a++) {
            const char *alg = algs[coll][a];
            if (only_alg && strcmp(only_alg, alg)) continue;
            if (vred_mpi_force(coll_force[coll], alg)) {
                checks++, failures++;
                if (!wrank) printf("FAIL: vred_mpi_force(\"%s\", \"%s\") refused\n", coll_force[coll], alg);
                continue;
            }
            for (int root = 0; root < (coll == C_REDUCE ? 2 : 1); root++)
                for (int f32 = 0; f32 < 2; f32++)
                    for (int o = 0; o < NOPS; o++)
                        for (int kind = 0; kind < 2; kind++)
                            for (int ci = 0; ci < 5; ci++) {
                                /* mixed: 1, 1001, 5001 (SUM, MAX), 150001 (f64 SUM);
                                 * special (a pattern per element index): 7, 1001, 5001 */
                                if (ci == 4 && (f32 || o != O_SUM || kind != K_MIXED)) continue;
                                if (ci == 3 && kind == K_MIXED && (o == O_PROD || o == O_MIN)) continue;
                                if (ci == (kind == K_MIXED ? 1 : 0)) continue;
                                if (!take()) continue;
                                tcase c = {coll, root ? wsize - 1 : 0, f32, o, kind, counts[ci],
                                           alg, mix((uint64_t)enumno * 7919u), wsize, wrank, 0};
                                run_case(&c);
                            }
            vred_mpi_force(coll_force[coll], "auto");
        }
    }
    double t1 = PMPI_Wtime();
    long loc[8] = {checks, failures, cases, served_mpi_auto, served_vred_auto, nan_maxmin_nan,
                   nan_maxmin_value, mpi_inplace_notes}, tot[8];
    PMPI_Allreduce(loc, tot, 8, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (!wrank)
        printf("rounding: %d ranks, sample 1/%ld phase %ld: %ld cases (rank-cases %ld), %ld checks, "
               "%ld failed; auto served by vred %ld, by the MPI %ld (rank-calls); MAX/MIN "
               "elements with a NaN input: %ld gave NaN, %ld a non-NaN input; %.1f s\n",
               wsize, sample_k, sample_phase, tot[2] / wsize, tot[2], tot[0], tot[1], tot[4], tot[3],
               tot[5], tot[6], t1 - t0);
    if (!wrank && tot[7])
        printf("note: %ld calls that \"auto\" passed to the MPI gave other bytes in place than with "
               "separate buffers (MAX/MIN with NaN: the MPI folds in another order in place); "
               "vred's algorithms never did\n", tot[7]);
    MPI_Finalize();
    return tot[1] ? 1 : 0;
}
