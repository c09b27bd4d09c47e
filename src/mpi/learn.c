/*
 * Calibration: the first call of a collective in a size class (on a communicator whose cache
 * holds nothing for it) times the MPI's own collective against each of vred's algorithms the
 * automatic choice could pick there, and the class keeps the fastest: vred's only if it beats
 * the MPI by MARGIN, so that the automatic choice is never slower than the MPI alone.
 *
 * Measured the way applications call: float SUM (bytes for bcast/allgather) on buffers from
 * malloc, calls back to back in batches of about BATCH_S seconds, the slowest rank's batch time
 * per call, candidates alternating over ROUNDS rounds, the median per candidate. Every rank
 * gets the same times (one MPI_MAX allreduce per round) and so makes the same pick; rank 0
 * keeps it in the cache file, and the next run (and every communicator of the same shape)
 * starts from there, so the pick for a machine, MPI, shape and size repeats from run to run.
 *
 * But not a pick made in one of the host's slow spells (docs/peers.md): there the cores' shared
 * lines cross several times more slowly for seconds to minutes, and the MPI's collective and
 * vred's slow down by different factors (Open MPI's reduce kept its speed, vred's MA lost 5x),
 * so a class learned in a spell can keep a pick that is wrong outside it (Open MPI 4.1's reduce
 * went to the MPI from 16 KiB, where MA runs 1.4-2.3x faster). So the node's ranks also time a
 * probe before and after the candidates (vred_shm_spell_ratio): ordinary against streaming
 * stores between the cores, a ratio no CPU model has to be known for. Above VRED_LEARN_SPELL
 * percent the run keeps its pick but marks the cell (spell=1, counting the measurements in a
 * row that fell in a spell); the next run measures it again. Spells can last minutes, so the
 * runs after that do so too until one measures the class outside a spell, but only once some
 * class was measured outside one on this machine (learn_cache.c): on a machine where ordinary
 * stores between cores are always the slower kind, a class costs one more measurement, not one
 * per run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mpi/coll_front.h"
#include "mpi/learn.h"
#include "coll/shm/shm.h"

enum { ROUNDS = 5, MAX_BATCH = 64, NCAND = VRED_SELECT_CANDIDATES, WARM_CALLS = 1000 };
/* MARGIN: vred's pick must beat the MPI by this much, more than the spread of one batch's
 * median between two runs (3-5% measured), or a tie is kept as vred's and benchmarks then find
 * it 0.9x the MPI. WARM_S: see warm_mpi. */
static const double BATCH_S = 1e-3, MARGIN = 0.06, WARM_S = 10e-3;

int vred_learn_load(vred_comm *vc)
{
    /* Rank 0's setting with its cells, so that ranks started with different VRED_LEARN values
     * still measure together (or not at all) instead of waiting for each other. */
    if (vc->rank == 0) {
        vred_learn_mode m = vred_config_get()->learn;
        vc->learned.mode = (signed char)m;
        vc->learned.spell_pct = vred_config_get()->learn_spell;
        if (m == VRED_LEARN_ON || m == VRED_LEARN_READ) {
            vred_learn_file f;
            vred_learn_file_for(vc, &f);
            vred_learn_file_read(&f, &vc->learned);
        }
    }
    return vred_next()->Bcast(&vc->learned, sizeof vc->learned, MPI_BYTE, 0, vc->comm);
}

/* One class's representative call: 2^k bytes of input (allgather: of each rank's block). */
typedef struct {
    vred_comm *vc;
    vred_coll coll;
    size_t n;          /* floats (reductions) or bytes (bcast, allgather) */
    size_t block;      /* reduce_scatter: floats per rank */
    size_t *counts;    /* reduce_scatter: block on every rank */
    void *s, *r;
} probe;

static int run_mpi(const probe *p)
{
    const vred_next_fns *x = vred_next();
    MPI_Comm c = p->vc->comm;
    int n = (int)p->n;
    switch (p->coll) {
    case VRED_COLL_REDUCE: return x->Reduce(p->s, p->r, n, MPI_FLOAT, MPI_SUM, 0, c);
    case VRED_COLL_ALLREDUCE: return x->Allreduce(p->s, p->r, n, MPI_FLOAT, MPI_SUM, c);
    case VRED_COLL_REDUCE_SCATTER:
        return x->Reduce_scatter_block(p->s, p->r, (int)p->block, MPI_FLOAT, MPI_SUM, c);
    case VRED_COLL_SCAN: return x->Scan(p->s, p->r, n, MPI_FLOAT, MPI_SUM, c);
    case VRED_COLL_BCAST: return x->Bcast(p->r, n, MPI_BYTE, 0, c);
    case VRED_COLL_ALLGATHER: return x->Allgather(p->s, n, MPI_BYTE, p->r, n, MPI_BYTE, c);
    default: return MPI_ERR_INTERN;
    }
}

static int run_vred(const probe *p, vred_alg alg, vred_coll_fn fn)
{
    int moves = p->coll == VRED_COLL_BCAST || p->coll == VRED_COLL_ALLGATHER;
    vred_coll_args a = {
        .vc = p->vc, .comm = p->vc->comm, .rank = p->vc->rank, .size = p->vc->size,
        .scratch = &p->vc->scratch,
        .e = moves ? NULL : &vred_entries[VRED_OP_SUM][VRED_FLOAT],
        .esize = moves ? 1 : sizeof(float), .op = VRED_OP_SUM, .type = VRED_FLOAT,
        .sbuf = p->coll == VRED_COLL_BCAST ? p->r : p->s, .rbuf = p->r,
        .count = p->coll == VRED_COLL_REDUCE_SCATTER ? p->block * (size_t)p->vc->size : p->n,
        .counts = p->coll == VRED_COLL_REDUCE_SCATTER ? p->counts : NULL,
    };
    /* bcast and allgather: what a served call costs includes the front's agreement (the
     * ranks' layouts and roots, vred_front_run_agreed): through the node's control lines, by
     * allreduce across nodes, or carried in the one step of a small call. */
    return moves ? vred_front_move(p->coll, &a, alg, fn) : fn(&a);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Seconds per call of `reps` calls back to back on this rank (after a barrier); HUGE_VAL if a
 * call failed (the candidate is then never picked: the MPI_MAX carries it to every rank). */
static double batch(const probe *p, vred_alg alg, int reps)
{
    vred_coll_fn fn = alg == VRED_ALG_MPI ? NULL : vred_select_fn(p->coll, alg);
    int rc = PMPI_Barrier(p->vc->comm);
    double t0 = now();
    for (int i = 0; i < reps && rc == MPI_SUCCESS; i++)
        rc = fn ? run_vred(p, alg, fn) : run_mpi(p);
    return rc == MPI_SUCCESS ? (now() - t0) / reps : HUGE_VAL;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Buffers for p, on every rank or on none (1 = made). */
static int make_probe(probe *p, vred_comm *vc, vred_coll coll, int k)
{
    size_t bytes = (size_t)1 << k, ranks = (size_t)vc->size;
    int moves = coll == VRED_COLL_BCAST || coll == VRED_COLL_ALLGATHER;
    memset(p, 0, sizeof *p);
    p->vc = vc;
    p->coll = coll;
    p->n = moves ? bytes : bytes / sizeof(float);
    p->block = p->n / ranks ? p->n / ranks : 1;
    size_t sbytes = coll == VRED_COLL_REDUCE_SCATTER ? p->block * ranks * sizeof(float)
                    : moves                          ? bytes
                                                     : p->n * sizeof(float);
    size_t rbytes = coll == VRED_COLL_ALLGATHER ? bytes * ranks : sbytes;
    p->s = malloc(sbytes);
    p->r = malloc(rbytes);
    p->counts = malloc(ranks * sizeof *p->counts);
    int ok = p->s && p->r && p->counts;
    if (ok) {
        /* Values whose sums stay small and exact: nothing here is about rounding. */
        float *f = p->s;
        for (size_t i = 0; !moves && i < sbytes / sizeof(float); i++) f[i] = (float)(i % 7) * 0.25f;
        if (moves) memset(p->s, vc->rank + 1, sbytes);
        memset(p->r, 0, rbytes);
        for (size_t i = 0; i < ranks; i++) p->counts[i] = p->block;
    }
    if (vred_next()->Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, vc->comm) != MPI_SUCCESS)
        ok = 0;
    if (!ok) free(p->s), free(p->r), free(p->counts);
    return ok;
}

/* Calls of the MPI's collective before it is timed. Some MPIs run their first calls of a size
 * much slower than the rest: Intel MPI 2021's allreduce of 4 KiB took 3.2 us per call for its
 * first 400 calls and 0.8 us after (16 KiB: 5.8 us, then 2.1); timed cold it looked slower
 * than vred's algorithms where it is not. Up to WARM_CALLS calls or WARM_S seconds, counted
 * from the slowest rank's first call (t_mpi) so that every rank makes as many calls. */
static void warm_mpi(const probe *p, double t_mpi)
{
    int calls = t_mpi * WARM_CALLS <= WARM_S ? WARM_CALLS : (int)(WARM_S / t_mpi);
    if (calls > 0) (void)batch(p, VRED_ALG_MPI, calls); /* a failure shows in the rounds */
}

/* The candidates' median seconds per call into med[]; 0, or -1 if the ranks could not time
 * them together. cand[0] is the MPI. */
static int measure(const probe *p, const vred_alg *cand, int nc, double *med)
{
    const vred_next_fns *x = vred_next();
    MPI_Comm c = p->vc->comm;
    double t[NCAND], all[ROUNDS][NCAND];
    int reps[NCAND];
    /* One call each to warm up (first touch, the MPI's own setup) and size the batches. */
    for (int i = 0; i < nc; i++) t[i] = batch(p, cand[i], 1);
    if (x->Allreduce(MPI_IN_PLACE, t, nc, MPI_DOUBLE, MPI_MAX, c) != MPI_SUCCESS) return -1;
    warm_mpi(p, t[0]);
    for (int i = 0; i < nc; i++)
        reps[i] = t[i] >= BATCH_S ? 1 : t[i] * MAX_BATCH <= BATCH_S ? MAX_BATCH
                                                                   : (int)ceil(BATCH_S / t[i]);
    for (int r = 0; r < ROUNDS; r++) {
        /* Alternating: each round starts with another candidate. */
        for (int j = 0; j < nc; j++) {
            int i = (r + j) % nc;
            t[i] = batch(p, cand[i], reps[i]);
        }
        if (x->Allreduce(MPI_IN_PLACE, t, nc, MPI_DOUBLE, MPI_MAX, c) != MPI_SUCCESS) return -1;
        memcpy(all[r], t, sizeof t);
    }
    for (int i = 0; i < nc; i++) {
        double v[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) v[r] = all[r][i];
        qsort(v, ROUNDS, sizeof *v, cmp_double);
        med[i] = v[ROUNDS / 2];
    }
    return 0;
}

/* The spell probe on every node of vc (nodes with one rank measure nothing, 0), the largest
 * ratio over vc. node: this rank's, or NULL where vc has no shared memory (then on every rank). */
static double spell_ratio(const vred_comm *vc, vred_node *node)
{
    double r = 0;
    if (!node || vc->learned.spell_pct <= 0) return 0;
    if (node->size > 1) r = vred_shm_spell_ratio(node->shm);
    if (vred_next()->Allreduce(MPI_IN_PLACE, &r, 1, MPI_DOUBLE, MPI_MAX, vc->comm) != MPI_SUCCESS)
        r = 0;
    return r;
}

void vred_learn(vred_comm *vc, vred_coll coll, int k)
{
    vred_alg cand[NCAND];
    double med[NCAND];
    int spell_before = vc->learned.spell[coll][k]; /* 1: measured again (select.c) */
    vred_front_invalidate(); /* the class's selection changes */
    /* A cell that cannot be measured (no buffers, a failed timing) follows the model for the
     * rest of this run, marked with a value no algorithm has, or keeps what the cache held for
     * it; either way it is not tried again. */
    vc->learned.spell[coll][k] = 0;
    if (spell_before != 1) vc->learned.alg[coll][k] = VRED_ALG_COUNT;
    probe p;
    if (!make_probe(&p, vc, coll, k)) return;
    size_t bytes = coll == VRED_COLL_REDUCE_SCATTER ? p.block * (size_t)vc->size * sizeof(float)
                   : coll == VRED_COLL_BCAST || coll == VRED_COLL_ALLGATHER ? p.n
                                                                            : p.n * sizeof(float);
    int nc = vred_select_candidates(coll, vc, bytes, cand);
    /* The shared-memory candidates need the node's region (collective; NULL on every rank or
     * none): without it they drop out. */
    int shm = 0;
    for (int i = 1; i < nc; i++) shm |= vred_alg_is_shm(coll, cand[i]);
    vred_node *node = shm ? vred_node_get(vc) : NULL;
    /* Measured without a region, or with one shrunk to fit VRED_SHM_LIMIT: right for this
     * communicator, not for the machine's cache (every rank knows alike). */
    int local_only = shm && (!node || node->shm->reduced);
    if (shm && !node) {
        int m = 0;
        for (int i = 0; i < nc; i++)
            if (!vred_alg_is_shm(coll, cand[i])) cand[m++] = cand[i];
        nc = m;
    } else if (shm) {
        /* The region is there, and cross-memory attach known: cma stays only if it works. */
        nc = vred_select_candidates(coll, vc, bytes, cand);
    }
    double ratio = spell_ratio(vc, node);
    if (measure(&p, cand, nc, med) == 0) {
        double after = spell_ratio(vc, node);
        if (after > ratio) ratio = after;
        int spell = vc->learned.spell_pct > 0 && ratio * 100 > vc->learned.spell_pct;
        vc->learned.spell[coll][k] = (signed char)(spell ? 2 : 0); /* nothing more this run */
        int runs = spell ? vc->learned.spell_runs[coll][k] + 1 : 0;
        vc->learned.spell_runs[coll][k] = (unsigned char)(runs > 99 ? 99 : runs);
        int best = 0;
        for (int i = 1; i < nc; i++)
            if (med[i] < med[best]) best = i;
        if (best && !(med[best] < (1 - MARGIN) * med[0])) best = 0;
        vc->learned.alg[coll][k] = (signed char)cand[best];
        if (vc->rank == 0 && !local_only) {
            char line[512];
            int n = snprintf(line, sizeof line, "%s %d %s", vred_coll_name(coll), k,
                             vred_alg_name(cand[best]));
            if (spell && n > 0 && (size_t)n < sizeof line)
                n += snprintf(line + n, sizeof line - (size_t)n, " spell=%d",
                              vc->learned.spell_runs[coll][k]);
            for (int i = 0; i < nc && n > 0 && (size_t)n < sizeof line; i++)
                n += snprintf(line + n, sizeof line - (size_t)n, " %s=%.3e",
                              vred_alg_name(cand[i]), med[i]);
            if (ratio > 0 && n > 0 && (size_t)n < sizeof line)
                n += snprintf(line + n, sizeof line - (size_t)n, " ordinary/streaming=%.2f", ratio);
            vred_learn_file f;
            vred_learn_file_for(vc, &f);
            static int warned;
            if (vred_learn_file_put(&f, coll, k, line) &&
                !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
                fprintf(stderr, "vred: cannot keep the learned selection in %s; this run "
                                "measures it for itself (VRED_LEARN)\n",
                        f.path[0] ? f.path : "(no HOME or XDG_CACHE_HOME)");
        }
    }
    free(p.s), free(p.r), free(p.counts);
}
