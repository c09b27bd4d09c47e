/*
 * vred-bench coll: the reduction collectives, bcast and allgather on all ranks of MPI_COMM_WORLD,
 * the MPI library's own (PMPI_X) against each of vred's algorithms (MPI_X after vred_mpi_force;
 * with --nt, each algorithm under each copy mode of vred_mpi_nt, a column each), OSU style:
 *
 *   - by default calls back to back, the way applications and IMB/OSU call: per timed batch one
 *     barrier (PMPI_Barrier), then its k calls with nothing between them; a call's time is the
 *     batch's time / k on the slowest rank (PMPI_Allreduce MAX over the ranks). --sync barrier:
 *     a barrier before every call instead, each call timed alone (the mean over the batch, MAX
 *     over the ranks);
 *   - buffers from plain malloc by default (glibc: 16 mod 64 for large blocks); --align A and
 *     --offset N[/R] place them otherwise (bench_common.h); the header and every CSV row say
 *     which mode (columns sync, buffers) and the CPU (column cpu);
 *   - the implementations alternate in rounds (round k: MPI, alg1, alg2, ..., the next round
 *     rotated and reversed), so none always follows the same one; a batch's length is adapted to
 *     the size so that one (collective, size) takes about --budget seconds; the table gives the
 *     median over the rounds;
 *   - next to the times: MPI time / vred time (> 1: vred faster), the algorithm `auto` chose
 *     (vred_mpi_last_alg) and the cost model's prediction (vred_mpi_predict) for each algorithm;
 *   - the DAV bound: the paper's data-access volume of the call on the node (YHCCL tables 1-3;
 *     dav_bytes() has the formulas) / the node's memcpy rate measured at start (every rank of the
 *     node copying 64 MiB at once), and bound% = that time / the best vred time. It is a bound
 *     for data that comes from memory: below the cache's size vred can beat it (bound% > 100).
 *
 * Size = bytes of the whole vector per rank (reduce_scatter_block: the whole input vector, so
 * recvcount = size / element size / p; bcast: the vector root 0 sends; allgather: the whole result
 * vector, each rank sending size / p). Inputs are integer-valued, so every algorithm's result is
 * exact and --validate compares it with the MPI's bit for bit. VRED_BENCH_DEBUG=1 (rank 0's
 * environment) prints each measurement's wall time, rounds and calls on stderr.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "bench_coll.h"
#include "bench_common.h"

#ifndef VRED_BENCH_FLAVOR
#define VRED_BENCH_FLAVOR "mpi"
#endif

const char *const bc_names[BC_COUNT] = {"allreduce", "reduce", "reduce_scatter_block", "scan", "bcast",
                                        "allgather", "reduce_local"};
const char *const bc_vnames[BC_COUNT] = {"allreduce", "reduce", "reduce_scatter", "scan", "bcast", "allgather",
                                         NULL};

/* The algorithms each collective is measured with, in this order; --algs filters (and orders).
 * vred_mpi_force must also accept the name: a vred without an algorithm loses its column rather
 * than silently measuring `auto` twice under another name. MPI_Reduce_local has no algorithms:
 * "vred" is vred's kernel (MPI_Reduce_local), "mpi" the MPI's (PMPI_Reduce_local). */
const char *const bc_algs[BC_COUNT] = {
    "auto,binomial,redscat,ring,recdbl,ma,dpml,cma", /* allreduce */
    "auto,binomial,redscat,ring,ma,dpml,cma",        /* reduce */
    "auto,binomial,redscat,ring,ma,dpml,cma",        /* reduce_scatter_block */
    "auto,recdbl",                                   /* scan */
    "auto,pipe,cma",                                 /* bcast */
    "auto,pipe,cma",                                 /* allgather */
    "vred",                                          /* reduce_local */
};

double bc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}


static uint32_t xs32(uint32_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 17, *s ^= *s << 5;
    return *s;
}

/* Integers in [-1000, 1000] (PROD: +-1), so any order of any algorithm gives the exact result. */
void bc_fill(void *buf, MPI_Datatype dt, MPI_Op op, size_t count, unsigned seed, double sparsity)
{
    uint32_t s = seed * 2654435761u + 12345u, z = seed * 40503u + 777u;
    if (!z) z = 1;
    uint32_t thr = sparsity >= 1 ? UINT32_MAX : (uint32_t)(sparsity * 4294967296.0);
    for (size_t i = 0; i < count; i++) {
        uint32_t r = xs32(&s);
        long v = op == MPI_PROD ? ((r & 1) ? -1 : 1) : (long)(r % 2001) - 1000;
        if (sparsity > 0 && xs32(&z) < thr) v = 0;
        if (dt == MPI_FLOAT) ((float *)buf)[i] = (float)v;
        else if (dt == MPI_DOUBLE) ((double *)buf)[i] = (double)v;
        else if (dt == MPI_INT32_T) ((int32_t *)buf)[i] = (int32_t)v;
        else if (dt == MPI_INT64_T) ((int64_t *)buf)[i] = (int64_t)v;
        else if (dt == MPI_UINT8_T) ((uint8_t *)buf)[i] = (uint8_t)v; /* SUM wraps alike */
    }
}

int bc_rcount(const bc_run *r)
{
    int p;
    MPI_Comm_size(r->comm, &p);
    return (int)(r->count / (size_t)p);
}

int bc_is_vred(const bc_run *r, int i) { return r->alg[i] && strcmp(r->alg[i], "mpi") != 0; }

/* One call, vred's or the MPI's, on the given buffers. */
static int call_on(const bc_run *r, int vred, const void *sbuf, void *rbuf)
{
    int n = (int)r->count;
    switch (r->coll) {
    case BC_ALLREDUCE:
        return vred ? MPI_Allreduce(sbuf, rbuf, n, r->dt, r->op, r->comm)
                    : PMPI_Allreduce(sbuf, rbuf, n, r->dt, r->op, r->comm);
    case BC_REDUCE:
        return vred ? MPI_Reduce(sbuf, rbuf, n, r->dt, r->op, 0, r->comm)
                    : PMPI_Reduce(sbuf, rbuf, n, r->dt, r->op, 0, r->comm);
    case BC_RSB:
        return vred ? MPI_Reduce_scatter_block(sbuf, rbuf, bc_rcount(r), r->dt, r->op, r->comm)
                    : PMPI_Reduce_scatter_block(sbuf, rbuf, bc_rcount(r), r->dt, r->op, r->comm);
    case BC_SCAN:
        return vred ? MPI_Scan(sbuf, rbuf, n, r->dt, r->op, r->comm)
                    : PMPI_Scan(sbuf, rbuf, n, r->dt, r->op, r->comm);
    case BC_BCAST: /* rank 0's rbuf goes to everyone's rbuf */
        return vred ? MPI_Bcast(rbuf, n, r->dt, 0, r->comm) : PMPI_Bcast(rbuf, n, r->dt, 0, r->comm);
    case BC_ALLGATHER: /* each rank's first count/p elements of sbuf, in rank order, into rbuf */
        return vred ? MPI_Allgather(sbuf, bc_rcount(r), r->dt, rbuf, bc_rcount(r), r->dt, r->comm)
                    : PMPI_Allgather(sbuf, bc_rcount(r), r->dt, rbuf, bc_rcount(r), r->dt, r->comm);
    case BC_REDUCE_LOCAL: /* inout = in op inout: in is the send buffer, inout the receive buffer */
        return vred ? MPI_Reduce_local(sbuf, rbuf, n, r->dt, r->op) : PMPI_Reduce_local(sbuf, rbuf, n, r->dt, r->op);
    default:
        return MPI_ERR_ARG;
    }
}

/* One call of impl i, on its own buffers where it has them. */
static int do_call(const bc_run *r, int i)
{
    return call_on(r, bc_is_vred(r, i), r->sbufs[i] ? r->sbufs[i] : r->sbuf, r->rbufs[i] ? r->rbufs[i] : r->rbuf);
}

/* The algorithm, and the copy mode if the impl has one: set before each batch, since the impls
 * alternate and each may want a different mode (the mode is process-wide in vred). */
static void force(const bc_run *r, int impl)
{
    if (bc_is_vred(r, impl) && vred_mpi_force && bc_vnames[r->coll]) vred_mpi_force(bc_vnames[r->coll], r->alg[impl]);
    if (bc_is_vred(r, impl) && r->nt[impl] && vred_mpi_nt) vred_mpi_nt(r->nt[impl]);
}

static void unforce(const bc_run *r)
{
    if (vred_mpi_force && bc_vnames[r->coll]) vred_mpi_force(bc_vnames[r->coll], "auto");
    int any_nt = 0;
    for (int i = 1; i < r->nimpl; i++) any_nt |= r->nt[i] != NULL;
    if (any_nt && vred_mpi_nt) vred_mpi_nt("env"); /* back to VRED_NT for whatever runs next */
}

/*
 * Each batch of k timed calls begins with calls not timed (lead_calls: half as many, and at least
 * LEAD_SECONDS of them), so that what is timed follows calls of the same implementation, as in an
 * application's loop, not the other implementation's batch, whose aftermath the first calls pay
 * for: its cache contents (a receive buffer streamed out of the cache, the other one's shared
 * slices) and, lasting longer, the caches' replacement state. One leading call was not enough
 * on the AVX2 EPYC (Zen 3): after 20 x 1 MiB of glibc's memcpy with the destination 16 bytes
 * past the source's page offset (4 KiB aliasing: 0.08x of its speed), a 1 MiB vred_reduce3 on
 * three other buffers took 90 us, then 57-61 for some 25 calls (1.5 ms), then 47; after the same
 * copies at 0/0, 53 and then 46 (no MPI involved). Open MPI 4.1's own MPI_Reduce runs such copies
 * when the receive buffer sits 4-31 bytes past the send buffer's page offset, and with one
 * leading call the alignment table blamed vred's MA reduce for it (1 MiB at 0/16: 0.72x of its
 * 0/0 time; alone in a loop, 0.94-1.0x). The calls not timed count in the budget.
 */
static const double LEAD_SECONDS = 2e-3;

/* Calls before impl's k timed ones, from per_call[impl] (seconds a call took in the last round,
 * the same on every rank: the ranks must make the same calls). */
static int lead_calls(const double *per_call, int impl, int k)
{
    int lead = k / 2 > 1 ? k / 2 : 1;
    double t = per_call[impl] > 0 ? LEAD_SECONDS / per_call[impl] : 0;
    if (t > 100000) t = 100000;
    return (int)t > lead ? (int)t : lead;
}

/* Mean seconds per call over k calls (this rank's view) after `lead` calls not timed: back to
 * back after one barrier, or with r->barrier_each a barrier before each call, each timed alone. */
static double batch(bc_run *r, int impl, int k, int lead)
{
    force(r, impl);
    if (r->before) r->before(r, impl);
    double sum = 0;
    for (int j = 0; j < lead; j++) do_call(r, impl);
    if (r->barrier_each)
        for (int j = 0; j < k; j++) {
            PMPI_Barrier(r->comm);
            double t0 = bc_now();
            do_call(r, impl);
            sum += bc_now() - t0;
        }
    else {
        PMPI_Barrier(r->comm);
        double t0 = bc_now();
        for (int j = 0; j < k; j++) do_call(r, impl);
        sum = bc_now() - t0;
    }
    if (!bc_is_vred(r, impl)) snprintf(r->served[impl], sizeof r->served[impl], "mpi");
    else if (r->coll == BC_REDUCE_LOCAL || !vred_mpi_last_alg) snprintf(r->served[impl], sizeof r->served[impl], "vred");
    else snprintf(r->served[impl], sizeof r->served[impl], "%s", vred_mpi_last_alg());
    return sum / k;
}

/* Seconds one round of k timed calls per implementation takes, lead calls and barriers included,
 * by per_call (the implementations' last times) and bar (a barrier's). */
static double round_time(const bc_run *r, const double *per_call, double bar, int k)
{
    double t = 0;
    for (int i = 0; i < r->nimpl; i++)
        t += (double)(k + lead_calls(per_call, i, k)) * per_call[i] + (r->barrier_each ? k : 1) * bar;
    return t;
}

/* The most timed calls per batch (1..100000) whose round fits in `seconds`; 0 if one does not. */
static int calls_within(const bc_run *r, const double *per_call, double bar, double seconds)
{
    if (round_time(r, per_call, bar, 1) > seconds) return 0;
    int lo = 1, hi = 100000;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (round_time(r, per_call, bar, mid) <= seconds) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

int bc_measure(bc_run *r)
{
    int n = r->nimpl, p;
    MPI_Comm_size(r->comm, &p);
    if (r->count == 0 || r->count > (size_t)INT_MAX) return -1;
    if ((r->coll == BC_RSB || r->coll == BC_ALLGATHER) && bc_rcount(r) < 1) return -1;
    /* Warm up (the first call on a communicator sets vred's state up), then one timed call each
     * and the cost of a barrier, to size the batches. */
    double loc[BC_MAX_IMPL + 1], glob[BC_MAX_IMPL + 1], per_call[BC_MAX_IMPL], tm0 = bc_now();
    for (int i = 0; i < n; i++) batch(r, i, 1, 1);
    for (int i = 0; i < n; i++) loc[i] = batch(r, i, 1, 1);
    double t0 = bc_now();
    for (int j = 0; j < 5; j++) PMPI_Barrier(r->comm);
    loc[n] = (bc_now() - t0) / 5;
    PMPI_Allreduce(loc, glob, n + 1, MPI_DOUBLE, MPI_MAX, r->comm);
    double tcal = bc_now(), bar = glob[n];
    for (int i = 0; i < n; i++) per_call[i] = glob[i] > 1e-8 ? glob[i] : 1e-8;
    int rounds = r->reps > 0 ? r->reps : 15;
    int min_rounds = r->reps > 0 && r->reps < 5 ? r->reps : 5;
    if (r->min_rounds > min_rounds) min_rounds = r->min_rounds < rounds ? r->min_rounds : rounds;
    int k = calls_within(r, per_call, bar, r->budget / rounds);
    if (k < 1) {
        k = 1;
        int fit = (int)(r->budget / round_time(r, per_call, bar, 1));
        if (fit < rounds) rounds = fit < min_rounds ? min_rounds : fit;
    }
    /* The first round is a short probe (an eighth of the batch): the single calibration call
     * misjudges a loaded machine, where barriers wait for descheduled ranks. */
    int iters = k / 8 > 1 ? k / 8 : 1;
    double spent = 0, done_iters = 0;
    const int stride = rounds; /* rounds may only shrink below */
    double *t = malloc(sizeof(double) * (size_t)n * (size_t)rounds), *col = malloc(sizeof(double) * (size_t)rounds);
    for (int q = 0; q < rounds; q++) {
        double w0 = bc_now();
        int lead[BC_MAX_IMPL];
        for (int j = 0; j < n; j++) {
            int i = (q + ((q & 1) ? n - 1 - j : j)) % n;
            lead[i] = lead_calls(per_call, i, iters);
            loc[i] = batch(r, i, iters, lead[i]);
        }
        loc[n] = bc_now() - w0; /* the round's wall time */
        PMPI_Allreduce(loc, glob, n + 1, MPI_DOUBLE, MPI_MAX, r->comm);
        for (int i = 0; i < n; i++) t[(size_t)i * stride + q] = glob[i];
        spent += glob[n], done_iters += iters;
        if (spent > 2 * r->budget && q + 1 >= min_rounds) { /* stalls ate the budget: enough */
            rounds = q + 1;
            break;
        }
        /* Resize the batches from this round (the same on every rank): the calls' times change
         * with the load, and a loaded machine's barriers wait for descheduled ranks, which the
         * model cannot see: its time is scaled to the round's wall time. */
        double model = 0;
        for (int i = 0; i < n; i++) {
            per_call[i] = glob[i] > 1e-8 ? glob[i] : 1e-8;
            model += (double)(iters + lead[i]) * per_call[i] + (r->barrier_each ? iters : 1) * bar;
        }
        double stretch = model > 0 && glob[n] > model ? glob[n] / model : 1;
        double left = r->budget - spent;
        if (left < 0.25 * r->budget) left = 0.25 * r->budget;
        int rem = rounds - q - 1;
        if (rem > 0) {
            k = calls_within(r, per_call, bar, left / rem / stretch);
            if (k < 1) {
                k = 1;
                int fit = q + 1 + (int)(left / (stretch * round_time(r, per_call, bar, 1)));
                if (fit < rounds) rounds = fit < min_rounds ? min_rounds : fit;
            }
            iters = k;
        }
    }
    for (int i = 0; i < n; i++) {
        for (int q = 0; q < rounds; q++) col[q] = t[q] / t[(size_t)i * stride + q]; /* impl 0's round q / ours */
        r->paired[i] = bench_median(col, rounds);
        memcpy(col, t + (size_t)i * stride, sizeof(double) * (size_t)rounds);
        r->med[i] = bench_median(col, rounds); /* sorts col */
        r->min[i] = col[0];
    }
    r->rounds = rounds, r->iters = (int)done_iters;
    if (getenv("VRED_BENCH_DEBUG")) {
        int me;
        MPI_Comm_rank(r->comm, &me);
        if (!me) fprintf(stderr, "# debug: %s count %zu: %.3f s (calibration %.3f s), %d rounds, %d calls each\n",
                         bc_names[r->coll], r->count, bc_now() - tm0, tcal - tm0, rounds, iters);
    }
    unforce(r);
    free(t), free(col);
    return 0;
}

/* ---- the subcommand ----------------------------------------------------------------------------- */

int bc_type_of(const char *name, MPI_Datatype *dt, size_t *esize)
{
    if (!strcmp(name, "f32") || !strcmp(name, "float")) return *dt = MPI_FLOAT, *esize = 4, 1;
    if (!strcmp(name, "f64") || !strcmp(name, "double")) return *dt = MPI_DOUBLE, *esize = 8, 1;
    if (!strcmp(name, "i32") || !strcmp(name, "int32")) return *dt = MPI_INT32_T, *esize = 4, 1;
    if (!strcmp(name, "i64") || !strcmp(name, "int64")) return *dt = MPI_INT64_T, *esize = 8, 1;
    if (!strcmp(name, "u8") || !strcmp(name, "uint8")) return *dt = MPI_UINT8_T, *esize = 1, 1;
    return 0;
}

int bc_op_of(const char *name, MPI_Op *op)
{
    if (!strcmp(name, "sum")) return *op = MPI_SUM, 1;
    if (!strcmp(name, "max")) return *op = MPI_MAX, 1;
    if (!strcmp(name, "min")) return *op = MPI_MIN, 1;
    if (!strcmp(name, "prod")) return *op = MPI_PROD, 1;
    return 0;
}

#define ALL_ALGS "auto,binomial,redscat,ring,recdbl,ma,dpml,pipe,cma"

int bc_in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *q = list; *q;) {
        const char *end = strchr(q, ',');
        size_t len = end ? (size_t)(end - q) : strlen(q);
        if (len == n && !strncmp(q, name, n)) return 1;
        if (!end) break;
        q = end + 1;
    }
    return 0;
}

/* The paper's data-access volume (YHCCL tables 1-3 and sec. 3.6) of one call on one node of p
 * ranks, in bytes, one socket group (m = 1; the socket-aware variants add 2s(m-1)). s = the size
 * as vred-bench defines it: the whole vector per rank; reduce_scatter_block: the whole input
 * vector per rank; allgather: S = the whole result vector. Every byte loaded or stored counts
 * once: a copy of b bytes is 2b, a reduction C = A + B of b bytes is 3b.
 *   allreduce       s(5p-1)   MA reduce-scatter s(3p-1) + every rank copies the result out, 2sp
 *   reduce          s(3p+1)   MA reduce-scatter s(3p-1) + the root copies it out, 2s
 *   reduce_scatter  s(3p-1)   table 1
 *   bcast           2sp       the root copies s in (2s), the other p-1 copy it out (2s each)
 *   allgather       2S+2Sp    each rank copies its S/p in (2S in all), each copies S out (2Sp)
 *   scan            none (no formula: "-")
 * 0 if the collective has none. */
static double dav_bytes(bc_coll c, double s, int p, const char **formula)
{
    switch (c) {
    case BC_ALLREDUCE: *formula = "s(5p-1)"; return s * (5.0 * p - 1);
    case BC_REDUCE: *formula = "s(3p+1)"; return s * (3.0 * p + 1);
    case BC_RSB: *formula = "s(3p-1)"; return s * (3.0 * p - 1);
    case BC_BCAST: *formula = "2sp"; return 2.0 * s * p;
    case BC_ALLGATHER: *formula = "2S+2Sp"; return 2.0 * s + 2.0 * s * p;
    default: *formula = ""; return 0;
    }
}

/* The node's memcpy rate, bytes per second: every rank of the node copies its own 64 MiB buffer
 * at the same moment (a barrier first); bytes read + written by all of them / the slowest rank's
 * time; the median of 5 reps after a warm-up that faults the pages in. That is what the memory
 * system gives when every core streams at once, i.e. the most a collective inside the node can
 * get; the DAV bound divides the data-access volume by it. 0 if a rank could not allocate. */
static double node_memcpy_rate(MPI_Comm node)
{
    const size_t n = (size_t)64 << 20;
    int np, ok, all_ok;
    MPI_Comm_size(node, &np);
    char *a = aligned_alloc(64, n), *b = aligned_alloc(64, n);
    ok = a && b;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, node); /* collective either way */
    if (!all_ok) {
        free(a), free(b);
        return 0;
    }
    memset(a, 1, n), memset(b, 0, n);
    double t[6];
    volatile char sink = 0;
    for (int k = 0; k < 6; k++) {
        PMPI_Barrier(node);
        double t0 = bc_now();
        memcpy(b, a, n);
        double dt = bc_now() - t0;
        sink = (char)(sink + b[(size_t)k * 4096]); /* b is read: the copy cannot be elided */
        PMPI_Allreduce(&dt, &t[k], 1, MPI_DOUBLE, MPI_MAX, node);
    }
    (void)sink;
    free(a), free(b);
    double med = bench_median(t + 1, 5); /* t[0]: warm-up */
    return med > 0 ? 2.0 * (double)n * np / med : 0;
}

static void coll_usage(FILE *f)
{
    fprintf(f,
        "vred-bench coll [options]   (run on every rank: mpirun -np P vred-bench coll ...)\n"
        "  --coll LIST       allreduce,reduce,reduce_scatter_block,scan,bcast,allgather\n"
        "                    (default: allreduce,reduce,reduce_scatter_block)\n"
        "  --algs LIST       auto,binomial,redscat,ring,recdbl,ma,dpml,pipe,cma (default: all; each\n"
        "                    collective runs those it has: allreduce auto,binomial,redscat,ring,recdbl,\n"
        "                    ma,dpml,cma; reduce and reduce_scatter_block the same without recdbl;\n"
        "                    scan auto,recdbl; bcast and allgather auto,pipe,cma)\n"
        "  --nt LIST         run each vred algorithm under each copy mode (vred_mpi_nt: off = ordinary\n"
        "                    stores, on = streaming, auto = adaptive, env = VRED_NT), one column each\n"
        "                    (ma/off, ma/on, ...); default: VRED_NT for all\n"
        "  --min B --max B   size range (default 4K..64M)\n"
        "  --step 2|4        sizes grow by this factor (default 4)\n"
        "  --sizes LIST      explicit sizes instead, e.g. 4K,1M,64M\n"
        "  --type T          f32 | f64 | i32 | i64 | u8 (default f32)\n"
        "  --op O            sum | max | min | prod (default sum)\n"
        "  --reps N          rounds (default 15; fewer, at least 5, when a call is long)\n"
        "  --budget S        seconds per (collective, size) (default 0.5)\n"
        "  --sparsity S      fraction of each rank's input elements that are exactly zero\n"
        "  --dense-rank R    rank R keeps a fully dense input\n"
        "  --validate        compare every vred column's result with the MPI's bit for bit\n"
        "  --csv FILE        one row per (collective, size, implementation)\n"
        "  --label NAME      transport label in the output (default: flavor, +tcp / +nodesize)\n"
        "Mode (printed in every table header, columns sync and buffers of the CSV):\n"
        "  default           calls back to back: per timed batch one barrier, then its calls with none\n"
        "                    between them (as IMB and OSU); time = batch time / calls, slowest rank;\n"
        "                    buffers from plain malloc (glibc: 16 mod 64 for large blocks)\n"
        "  --sync barrier    a barrier before every call instead (--sync back-to-back: the default)\n"
        "  --align A         buffers aligned to A bytes (power of two, 8..4096), e.g. --align 64\n"
        "  --offset N        send and receive buffers N bytes past a 4096-aligned address\n"
        "  --offset S/R      send S, receive R bytes past one (e.g. 0/16)\n"
        "Size: bytes of the whole vector per rank; reduce_scatter_block: the whole input vector\n"
        "(recvcount = size/esize/p); allgather: the whole result vector (each rank sends size/p).\n"
        "DAV(us): the YHCCL data-access volume of the call on one node / the node's memcpy rate;\n"
        "bound%%: DAV(us) / the best vred column's time (100%%: at the memory's limit).\n");
}

int bc_split(const char *spec, char out[][32], int max)
{
    char list[512];
    int n = 0;
    snprintf(list, sizeof list, "%s", spec);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save))
        snprintf(out[n++], 32, "%s", tok);
    return n;
}

/* Poisons buf, except that the root of a bcast starts from its input (what it broadcasts). */
static void prepare(const bc_run *r, void *buf, int rank, int poison, size_t bytes)
{
    if (r->coll == BC_BCAST && rank == 0) memcpy(buf, r->sbuf, bytes);
    else memset(buf, poison, bytes);
}

int cmd_coll(int argc, char **argv)
{
    const char *coll_spec = "allreduce,reduce,reduce_scatter_block", *alg_spec = ALL_ALGS, *nt_spec = NULL;
    const char *type = "f32", *opname = "sum", *csv = NULL, *label = NULL;
    size_t minb = 4096, maxb = (size_t)64 << 20, sizes[64];
    int nsizes = 0, step = 4, reps = 15, validate = 0, dense_rank = -1;
    double budget = 0.5, sparsity = 0;
    bench_mode mode = {0};
    int rank, p;
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int m = bench_mode_arg(&mode, a, v, !rank);
        if (m < 0) {
            if (!rank) coll_usage(stderr);
            return 2;
        } else if (m > 0) i++;
        else if (!strcmp(a, "--coll") && v) coll_spec = v, i++;
        else if (!strcmp(a, "--algs") && v) alg_spec = v, i++;
        else if (!strcmp(a, "--nt") && v) nt_spec = v, i++;
        else if (!strcmp(a, "--min") && v) minb = bench_parse_bytes(v), i++;
        else if (!strcmp(a, "--max") && v) maxb = bench_parse_bytes(v), i++;
        else if (!strcmp(a, "--step") && v) step = atoi(v), i++;
        else if (!strcmp(a, "--sizes") && v) {
            char tok[64][32];
            int m = bc_split(v, tok, 64);
            for (int j = 0; j < m; j++)
                if (bench_parse_bytes(tok[j])) sizes[nsizes++] = bench_parse_bytes(tok[j]);
            i++;
        } else if (!strcmp(a, "--type") && v) type = v, i++;
        else if (!strcmp(a, "--op") && v) opname = v, i++;
        else if (!strcmp(a, "--reps") && v) reps = atoi(v), i++;
        else if (!strcmp(a, "--budget") && v) budget = atof(v), i++;
        else if (!strcmp(a, "--sparsity") && v) sparsity = atof(v), i++;
        else if (!strcmp(a, "--dense-rank") && v) dense_rank = atoi(v), i++;
        else if (!strcmp(a, "--validate")) validate = 1;
        else if (!strcmp(a, "--csv") && v) csv = v, i++;
        else if (!strcmp(a, "--label") && v) label = v, i++;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (!rank) coll_usage(stdout);
            return 0;
        } else {
            if (!rank) fprintf(stderr, "vred-bench coll: bad argument '%s'\n", a), coll_usage(stderr);
            return 2;
        }
    }
    MPI_Datatype dt;
    MPI_Op op;
    size_t esize;
    if (!bc_type_of(type, &dt, &esize) || !bc_op_of(opname, &op)) {
        if (!rank) fprintf(stderr, "vred-bench coll: unknown --type %s or --op %s\n", type, opname);
        return 2;
    }
    if (step != 2 && step != 4) step = 4;
    if (!nsizes)
        for (size_t s = minb ? minb : esize; s <= maxb && nsizes < 64; s *= (size_t)step) sizes[nsizes++] = s;
    char colls[8][32], algs[16][32], nts[4][32];
    int ncoll = bc_split(coll_spec, colls, 8), nalg = bc_split(alg_spec, algs, 16), nnt = 0;
    if (nt_spec) {
        nnt = bc_split(nt_spec, nts, 4);
        for (int k = 0; k < nnt; k++)
            if (!bc_in_list("off,on,auto,env", nts[k])) {
                if (!rank) fprintf(stderr, "vred-bench coll: --nt: unknown mode '%s' (off,on,auto,env)\n", nts[k]);
                return 2;
            }
        if (!vred_mpi_nt) {
            if (!rank) fprintf(stderr, "vred-bench coll: --nt: vred_mpi_nt not exported by this libvred-mpi; ignored\n");
            nnt = 0;
        }
    }

    /* Where the ranks are: hosts, and what vred is told (VRED_NODE_SIZE). */
    char host[MPI_MAX_PROCESSOR_NAME] = {0}, *hosts = calloc((size_t)p, MPI_MAX_PROCESSOR_NAME);
    int hl;
    MPI_Get_processor_name(host, &hl);
    PMPI_Allgather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm);
    int nhosts = 0;
    for (int i = 0; i < p; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++) seen |= !strcmp(hosts + (size_t)i * MPI_MAX_PROCESSOR_NAME, hosts + (size_t)j * MPI_MAX_PROCESSOR_NAME);
        nhosts += !seen;
    }
    free(hosts);
    const char *ns = getenv("VRED_NODE_SIZE");
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = 0;
    for (char *c = lib; *c; c++)
        if (*c == ',') *c = ';';
    char lab[128];
    if (label) snprintf(lab, sizeof lab, "%s", label);
    else {
        const char *btl = getenv("OMPI_MCA_btl");
        snprintf(lab, sizeof lab, "%s%s%s%s", VRED_BENCH_FLAVOR, btl && strstr(btl, "tcp") ? "-tcp" : "",
                 ns && *ns ? "-nodesize" : "", ns && *ns ? ns : "");
    }

    /* The DAV bound holds for one node whose ranks vred serves through shared memory: every rank
     * on one host, and no VRED_NODE_SIZE splitting them into smaller "nodes" (then the traffic
     * is point-to-point and the formulas do not apply). The memcpy rate is measured anyway, on
     * each host's ranks, and rank 0's host's is printed. */
    MPI_Comm node;
    PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int node_p;
    MPI_Comm_size(node, &node_p);
    double rate = node_memcpy_rate(node);
    PMPI_Bcast(&rate, 1, MPI_DOUBLE, 0, comm);
    PMPI_Comm_free(&node);
    long nsz = ns && *ns ? atol(ns) : 0;
    int dav_ok = nhosts == 1 && node_p == p && (nsz <= 0 || nsz >= p) && rate > 0;

    size_t maxsize = 0;
    for (int i = 0; i < nsizes; i++)
        if (sizes[i] > maxsize) maxsize = sizes[i];
    size_t maxcount = maxsize / esize + 1;
    /* In the mode's placement (malloc by default); the validation's reference output like the
     * receive buffer. */
    void *sbase = NULL, *rbase = NULL, *refbase = NULL;
    void *sbuf = bench_buf_alloc(&mode, 0, maxcount * esize, &sbase);
    void *rbuf = bench_buf_alloc(&mode, 1, maxcount * esize, &rbase);
    void *ref = validate ? bench_buf_alloc(&mode, 1, maxcount * esize, &refbase) : NULL;
    if (!sbuf || !rbuf || (validate && !ref)) {
        fprintf(stderr, "vred-bench coll: cannot allocate %zu bytes\n", maxcount * esize);
        return 1;
    }
    bc_fill(sbuf, dt, op, maxcount, 1000u + (unsigned)rank, rank == dense_rank ? 0 : sparsity);
    memset(rbuf, 0, maxcount * esize);
    /* The mode, as every table header prints it and the CSV records it. */
    char cpu[256], bufname[32], bufdesc[160], modeline[400];
    bench_cpu_model(cpu, sizeof cpu);
    bench_buffers_name(&mode, bufname, sizeof bufname);
    bench_buffers_desc(&mode, sbuf, rbuf, bufdesc, sizeof bufdesc);
    snprintf(modeline, sizeof modeline, "# mode: sync %s (%s); %s\n", bench_sync_name(&mode),
             mode.barrier_each ? "a barrier before every call"
                               : "calls back to back, one barrier per timed batch, as IMB and OSU",
             bufdesc);

    FILE *cf = NULL;
    if (csv && !rank) {
        cf = fopen(csv, "w");
        if (!cf) perror(csv);
        else /* dav_bytes: dav_formula with s = size_bytes, p = ranks; dav_us = dav_bytes / memcpy_gbs;
              * bound_pct = dav_us / this row's median_us * 100 */
            fprintf(cf, "label,mpi_library,ranks,hosts,vred_node_size,collective,type,op,sparsity,size_bytes,"
                        "count,impl,served_by,rounds,calls,median_us,min_us,mpi_over_impl,predicted_us,"
                        "validation,alg,nt,dav_formula,dav_bytes,memcpy_gbs,dav_us,bound_pct,sync,buffers,"
                        "sbuf_mod64,rbuf_mod64,cpu\n");
    }
    if (!rank) {
        printf("# vred-bench coll: %s; %d ranks on %d host(s); VRED_NODE_SIZE=%s; label %s\n", lib, p, nhosts,
               ns ? ns : "(unset)", lab);
        printf("# %s:%s; sparsity %.3g%s; time = %s, median over rounds; x:ALG = MPI time / ALG time "
               "(> 1: vred faster)\n", type, opname, sparsity, dense_rank >= 0 ? " (one rank dense)" : "",
               mode.barrier_each ? "duration of one call on the slowest rank (a barrier before each)"
                                 : "a batch of calls back to back / calls, on the slowest rank");
        printf("# cpu: %s\n", cpu);
        printf("# memcpy rate %.2f GB/s (read+write, all ranks of the node)\n", rate * 1e-9);
        if (dav_ok)
            printf("# DAV(us) = data-access volume per node (YHCCL tables 1-3; s = size, p = %d, one socket group): "
                   "allreduce s(5p-1), reduce s(3p+1), reduce_scatter_block s(3p-1), bcast 2sp, allgather 2S+2Sp "
                   "(S = the result vector), scan none / memcpy rate; bound%% = DAV(us) / best vred time\n", p);
        else
            printf("# DAV bound: n/a (ranks on %d host(s), VRED_NODE_SIZE=%s: not one shared-memory node)\n", nhosts,
                   ns ? ns : "(unset)");
        fputs(modeline, stdout);
        if (nnt) printf("# copy modes (vred_mpi_nt): %s; a column ALG/MODE is ALG with that mode\n", nt_spec);
        if (!vred_mpi_force) printf("# libvred-mpi is not linked: only the MPI library is measured\n");
        fflush(stdout);
    }
    int total_bad = 0;
    for (int ci = 0; ci < ncoll; ci++) {
        int c = 0;
        while (c < BC_COUNT && strcmp(colls[ci], bc_names[c]) &&
               !(bc_vnames[c] && !strcmp(colls[ci], bc_vnames[c])))
            c++;
        if (c >= BC_REDUCE_LOCAL) { /* MPI_Reduce_local: vred-bench local, or offsets */
            if (!rank) fprintf(stderr, "vred-bench coll: unknown collective '%s'\n", colls[ci]);
            continue;
        }
        bc_run r = {.coll = (bc_coll)c, .comm = comm, .dt = dt, .op = op, .esize = esize, .reps = reps,
                    .budget = budget, .sbuf = sbuf, .rbuf = rbuf, .nimpl = 1,
                    .barrier_each = mode.barrier_each};
        /* The columns: each algorithm this collective has (and vred accepts) x each copy mode. */
        char names[BC_MAX_IMPL][72];
        int first_nt[BC_MAX_IMPL] = {0}; /* the algorithm's first column: the model's prediction goes there */
        snprintf(names[0], sizeof names[0], "MPI");
        for (int a = 0; a < nalg && vred_mpi_force && bc_vnames[c]; a++) {
            if (!bc_in_list(bc_algs[c], algs[a]) || vred_mpi_force(bc_vnames[c], algs[a]) != 0) continue;
            for (int k = 0; k < (nnt ? nnt : 1) && r.nimpl < BC_MAX_IMPL; k++) {
                int i = r.nimpl++;
                r.alg[i] = algs[a];
                r.nt[i] = nnt ? nts[k] : NULL;
                first_nt[i] = k == 0;
                if (nnt) snprintf(names[i], sizeof names[i], "%.31s/%.31s", algs[a], nts[k]);
                else snprintf(names[i], sizeof names[i], "%.31s", algs[a]);
            }
        }
        unforce(&r);
        int w = 9; /* column width of the names */
        for (int i = 1; i < r.nimpl; i++)
            if ((int)strlen(names[i]) > w) w = (int)strlen(names[i]);
        const char *formula;
        int has_dav = dav_bytes((bc_coll)c, 1, p, &formula) > 0 && dav_ok;
        if (!rank) {
            printf("\n# %s%s\n", bc_names[c],
                   c == BC_REDUCE ? " (root 0)" : c == BC_RSB ? " (recvcount = size/esize/p)" :
                   c == BC_BCAST ? " (root 0)" : c == BC_ALLGATHER ? " (size = the whole result vector; each rank sends size/p)" : "");
            fputs(modeline, stdout);
            if (has_dav)
                printf("# DAV = %s bytes per node (p = %d) / memcpy rate %.2f GB/s; bound%% = DAV(us) / best vred time\n",
                       formula, p, rate * 1e-9);
            printf("# Size      Avg Latency(us): the MPI's, then each vred column's; x:ALG = MPI time / ALG time "
                   "(> 1: vred faster)\n");
            printf("# %-9s %11s", "(B)", "MPI(us)");
            for (int i = 1; i < r.nimpl; i++) printf(" %*s(us)", w, names[i]);
            for (int i = 1; i < r.nimpl; i++) printf(" %*s", w, "x:");
            if (r.nimpl > 1) printf("  %-8s", "auto->");
            printf(" %10s %7s", "DAV(us)", "bound%");
            for (int i = 1; i < r.nimpl; i++)
                if (strcmp(r.alg[i], "auto") && first_nt[i]) printf(" %11s", "model");
            if (validate) printf("  validation");
            printf("\n# %-9s %11s", "", "");
            for (int i = 1; i < r.nimpl; i++) printf(" %*s", w + 4, "");
            for (int i = 1; i < r.nimpl; i++) printf(" %*s", w, names[i]);
            if (r.nimpl > 1) printf("  %-8s", "");
            printf(" %10s %7s", "", "");
            for (int i = 1; i < r.nimpl; i++)
                if (strcmp(r.alg[i], "auto") && first_nt[i]) printf(" %7.7s(us)", r.alg[i]);
            printf("\n");
            fflush(stdout);
        }
        for (int si = 0; si < nsizes; si++) {
            size_t size = sizes[si];
            r.count = size / esize;
            if (c == BC_RSB || c == BC_ALLGATHER) r.count = r.count / (size_t)p * (size_t)p;
            if (r.count == 0) continue;
            size_t bytes = r.count * esize;
            /* Validation first: every column against the MPI, from a poisoned output buffer. */
            int bad[BC_MAX_IMPL] = {0}, gbad[BC_MAX_IMPL] = {0};
            if (validate) {
                size_t cmp = c == BC_RSB ? (size_t)bc_rcount(&r) : r.count;
                int check = !(c == BC_REDUCE && rank != 0);
                prepare(&r, ref, rank, 0xA5, bytes);
                r.rbuf = ref;
                do_call(&r, 0);
                r.rbuf = rbuf;
                for (int i = 1; i < r.nimpl; i++) {
                    prepare(&r, rbuf, rank, 0x5A, bytes);
                    force(&r, i);
                    do_call(&r, i);
                    if (check)
                        for (size_t e = 0; e < cmp; e++)
                            bad[i] += memcmp((char *)rbuf + e * esize, (char *)ref + e * esize, esize) != 0;
                }
                unforce(&r);
                PMPI_Allreduce(bad, gbad, BC_MAX_IMPL, MPI_INT, MPI_SUM, comm);
            }
            if (bc_measure(&r)) continue;
            double pred[BC_MAX_IMPL];
            for (int i = 1; i < r.nimpl; i++) {
                const char *alg = strcmp(r.alg[i], "auto") ? r.alg[i] : r.served[i];
                pred[i] = -1;
                if (!vred_mpi_predict || !strcmp(alg, "mpi") ||
                    vred_mpi_predict(bc_vnames[c], alg, comm, bytes, &pred[i]))
                    pred[i] = -1;
            }
            if (rank) continue;
            double dav = has_dav ? dav_bytes((bc_coll)c, (double)bytes, p, &formula) : 0;
            double dav_us = dav > 0 ? dav / rate * 1e6 : -1, best = 0;
            for (int i = 1; i < r.nimpl; i++)
                if (best == 0 || r.med[i] < best) best = r.med[i];
            printf("  %-9zu %11.2f", bytes, r.med[0] * 1e6);
            for (int i = 1; i < r.nimpl; i++) printf(" %*.2f", w + 4, r.med[i] * 1e6);
            for (int i = 1; i < r.nimpl; i++) printf(" %*.2f", w, r.med[0] / r.med[i]);
            const char *autopick = "";
            for (int i = 1; i < r.nimpl; i++)
                if (!strcmp(r.alg[i], "auto") && !*autopick) autopick = r.served[i];
            if (r.nimpl > 1) printf("  %-8s", autopick);
            if (dav_us >= 0 && best > 0) printf(" %10.2f %6.1f%%", dav_us, dav_us / (best * 1e6) * 100);
            else if (dav_us >= 0) printf(" %10.2f %7s", dav_us, "-");
            else printf(" %10s %7s", "-", "-");
            for (int i = 1; i < r.nimpl; i++)
                if (strcmp(r.alg[i], "auto") && first_nt[i]) {
                    if (pred[i] >= 0) printf(" %11.2f", pred[i] * 1e6);
                    else printf(" %11s", "-");
                }
            if (validate) {
                int any = 0;
                for (int i = 1; i < r.nimpl; i++) any += gbad[i];
                if (r.nimpl == 1) printf("  -");
                else if (!any) printf("  ok");
                else
                    for (int i = 1; i < r.nimpl; i++)
                        if (gbad[i]) printf("  FAIL %s: %d elements", names[i], gbad[i]);
                total_bad += any;
            }
            printf("\n");
            fflush(stdout);
            for (int i = 0; cf && i < r.nimpl; i++) {
                char pv[32] = "", dv[64] = "";
                if (i > 0 && pred[i] >= 0) snprintf(pv, sizeof pv, "%.3f", pred[i] * 1e6);
                if (dav_us >= 0)
                    snprintf(dv, sizeof dv, "%.0f,%.3f,%.3f,%.2f", dav, rate * 1e-9, dav_us,
                             dav_us / (r.med[i] * 1e6) * 100);
                else snprintf(dv, sizeof dv, ",%.3f,,", rate * 1e-9);
                fprintf(cf, "%s,%s,%d,%d,%s,%s,%s,%s,%.4g,%zu,%zu,%s,%s,%d,%d,%.3f,%.3f,%.4f,%s,%s,%s,%s,%s,%s,"
                            "%s,%s,%u,%u,%s\n",
                        lab, lib, p, nhosts, ns ? ns : "", bc_names[c], type, opname, sparsity, bytes, r.count,
                        i ? names[i] : "mpi", r.served[i], r.rounds, r.iters, r.med[i] * 1e6, r.min[i] * 1e6,
                        r.med[0] / r.med[i], pv, !validate || !i ? "" : gbad[i] ? "FAIL" : "ok",
                        i ? r.alg[i] : "mpi", i && r.nt[i] ? r.nt[i] : "", dav_us >= 0 ? formula : "", dv,
                        bench_sync_name(&mode), bufname, (unsigned)((uintptr_t)sbuf % 64),
                        (unsigned)((uintptr_t)rbuf % 64), cpu);
            }
            if (cf) fflush(cf);
        }
    }
    if (cf) fclose(cf);
    if (!rank && validate) printf("# validation: %s\n", total_bad ? "FAILED" : "all results bitwise equal to the MPI's");
    free(sbase), free(rbase), free(refbase);
    return total_bad ? 1 : 0;
}
