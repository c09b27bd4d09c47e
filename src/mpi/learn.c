/*
 * Calibration: the first call of a collective in a size class (on a communicator whose cache
 * holds nothing for it) times the MPI's own collective against each of vred's algorithms the
 * automatic choice could pick there, and the class keeps the fastest: vred's only if it beats
 * the MPI by VRED_LEARN_MARGIN (learn_pick.h), so that the automatic choice is never slower
 * than the MPI alone.
 *
 * Measured the way applications call: float SUM (bytes for bcast/allgather) on buffers where a
 * fresh malloc puts them (probe_alloc), the MPI warmed up first (warm_mpi), calls back to back
 * in batches of about BATCH_S seconds, the slowest rank's batch time per call, candidates
 * alternating over ROUNDS rounds, the median per candidate. Every rank
 * gets the same times (one MPI_MAX allreduce per round) and so makes the same pick; rank 0
 * keeps it in the cache file, and the next run (and every communicator of the same shape)
 * starts from there, so the pick for a machine, MPI, shape and size repeats from run to run;
 * a close call's once five runs have measured it and picked on the median over them
 * (learn_runs.c: the MPI alone can change speed from one launch to the next).
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
#include <sys/mman.h>
#include "mpi/coll_front.h"
#include "mpi/learn.h"
#include "mpi/learn_pick.h"
#include "coll/fail.h"
#include "coll/shm/shm.h"
#include "local/copy.h"

/* NCAND: the selection's candidates, and one of them again with streaming stores. MAX_BATCH:
 * calls per batch at most, so that a batch of the smallest calls still lasts about BATCH_S: a
 * short batch after a barrier times the ranks starting together, where a long one times the
 * steady state of calls back to back (the MPI's eager root running ahead). Batches of 64 calls
 * made vred's bcast of 4 KiB look 0.89-1.16x as fast as MPICH 4.0's, where the benchmark's long
 * batches, minutes later, found it 1.27-1.46x slower (Xeon guest, 2 ranks; 1000 calls: 0.89-1.21x,
 * and the MPI picked in 2 runs of 3). */
enum { ROUNDS = 5, MAX_BATCH = 1000, NCAND = VRED_SELECT_CANDIDATES + 1 };
_Static_assert(NCAND <= VRED_LEARN_MAX_CAND, "learn_pick.h's history holds every candidate");
/* A close call (learn_pick.h) is measured again, over CLOSE_ROUNDS rounds: where the MPI wins
 * but one of vred's candidates came within the close band of it (learn_pick.h: 15%, 50% for
 * calls under 5 us), or vred's pick ahead by less. Five rounds' medians move by more than that
 * from run to run on a noisy host: Open MPI 4.1's reduce of 1 MiB on the Xeon
 * guest (2 ranks) kept the MPI at 121 us against cma's 124 in one calibration, where five others
 * timed cma at 89-118 and the MPI at 130-160, and the benchmark cma at 103-105 against the MPI's
 * 126-150 in every run (2026-12-06). A wrong pick of the MPI stays in the cache, run after run;
 * a longer measurement of the cells where it can happen costs a few milliseconds once. */
enum { CLOSE_ROUNDS = 15 };
/* From this size the shared-memory candidate that copies is measured a second time with
 * streaming stores (VRED_NT=on for its calls), where VRED_NT is automatic. The copy rule streams
 * when the working set exceeds the cache hwloc reports (local/copy.h), and that is not the cache
 * a process has where the report is not the guest's: a 2-vCPU VM on a Xeon reports the host's
 * 300 MiB L3, yet streaming made its bcast of 16 MiB 1.3x and of 64 MiB 1.4x faster, and its MA
 * allreduce of 64 MiB 1.2x (2 ranks, docs/shm.md). Below 1 MiB the copies fit a core's private
 * cache. */
static const size_t NT_MIN = (size_t)1 << 20;
/* MIN_CALLS: calls per batch at least (reps_for). Batches of at most that many calls (calls of a
 * quarter millisecond and more) begin with one call not timed: the first call after another
 * candidate's pays for what that one left behind (a receive buffer streamed out of the cache,
 * its lines of the banks in the other core's cache), which an application's loop of the same
 * call does not. */
enum { MIN_CALLS = 4, LEAD_BELOW = MIN_CALLS + 1 };

/* One candidate: the MPI's collective or one of vred's algorithms, vred's with or without
 * streaming stores forced for its calls. */
typedef struct {
    vred_alg alg;
    int nt;
} candidate;
/* VRED_LEARN_MARGIN (learn_pick.h): vred's pick must beat the MPI by that much. WARM_S,
 * WARM_FIRST, WARM_BATCHES: see warm_mpi.
 * MIN_CALLS, BATCH_LONG_S: calls of a millisecond and more were timed one per batch (after one
 * not timed), which is the call's latency on idle links, not its rate back to back: across
 * hosts whose link lets a burst through faster than its rate (tc tbf, as a switch's buffers and
 * a NIC's queue do in part), vred's binomial reduce of 1 MiB on 3 hosts at 10 Gbit/s timed 1.20
 * ms per call that way and 1.63-1.70 in a loop, where its root receives 2 MiB per call
 * (docs/multihost.md; picked over the MPI and ring, it then ran at 0.74x the MPI's speed: Zen 5
 * and the Xeon guest alike). In batches of 4 such calls it timed 1.30-1.59 ms (10 runs) and
 * the class went to ring (1.16-1.42) or the MPI. */
static const double BATCH_S = 1e-3, BATCH_LONG_S = 20e-3, WARM_S = 10e-3;
enum { WARM_FIRST = 4, WARM_BATCHES = 64 };

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
            vred_learn_runs_settle(&f, &vc->learned);
        }
    }
    return vred_next()->Bcast(&vc->learned, sizeof vc->learned, MPI_BYTE, 0, vc->comm);
}

/* One class's representative call: 2^k bytes of input (allgather: of each rank's block). */
typedef struct {
    vred_comm *vc;
    MPI_Comm user;     /* the application's communicator of vc (vred's candidates run on it) */
    vred_coll coll;
    size_t n;          /* floats (reductions) or bytes (bcast, allgather) */
    size_t block;      /* reduce_scatter: floats per rank */
    size_t *counts;    /* reduce_scatter: block on every rank */
    void *s, *r;
    size_t sbytes, rbytes;
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

/* One of vred's candidates, called as an application calls it (the front's lookups, selection
 * and, for bcast and allgather, the ranks' agreement are part of what a served call costs: at
 * 8 bytes they are a fifth of it), with the selection pinned to it (batch). */
static int run_vred(const probe *p)
{
    MPI_Comm c = p->user;
    int n = (int)p->n;
    switch (p->coll) {
    case VRED_COLL_REDUCE: return vred_own_Reduce(p->s, p->r, n, MPI_FLOAT, MPI_SUM, 0, c);
    case VRED_COLL_ALLREDUCE: return vred_own_Allreduce(p->s, p->r, n, MPI_FLOAT, MPI_SUM, c);
    case VRED_COLL_REDUCE_SCATTER:
        return vred_own_Reduce_scatter_block(p->s, p->r, (int)p->block, MPI_FLOAT, MPI_SUM, c);
    case VRED_COLL_SCAN: return vred_own_Scan(p->s, p->r, n, MPI_FLOAT, MPI_SUM, c);
    case VRED_COLL_BCAST: return vred_own_Bcast(p->r, n, MPI_BYTE, 0, c);
    case VRED_COLL_ALLGATHER: return vred_own_Allgather(p->s, n, MPI_BYTE, p->r, n, MPI_BYTE, c);
    default: return MPI_ERR_INTERN;
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A calibration call failed on this rank: its peers may be waiting for it inside the same
 * collective (a message, a step in the shared region), where they would wait for ever. As a
 * failing application call does (fail.h), the job ends, naming the collective. */
static _Noreturn void call_failed(const probe *p, candidate c, int rc)
{
    char what[96];
    snprintf(what, sizeof what, "measuring %s by %s (VRED_LEARN)", vred_coll_name(p->coll),
             c.alg == VRED_ALG_MPI ? "the MPI" : vred_alg_name(c.alg));
    vred_fail(what, rc);
}

/* Seconds per call of `reps` calls back to back on this rank, after a barrier and `lead` calls
 * not timed. A call that fails ends the job (call_failed); a barrier that fails, HUGE_VAL (the
 * candidate is then never picked: the MPI_MAX carries it to every rank). */
static double batch(const probe *p, candidate c, int lead, int reps)
{
    int vred = c.alg != VRED_ALG_MPI;
    if (PMPI_Barrier(p->vc->comm) != MPI_SUCCESS) return HUGE_VAL;
    if (c.nt) vred_copy_set_call_mode(VRED_NT_ON);
    if (vred) vred_front_pin(p->coll, c.alg);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < lead && rc == MPI_SUCCESS; i++) rc = vred ? run_vred(p) : run_mpi(p);
    double t0 = now();
    for (int i = 0; i < reps && rc == MPI_SUCCESS; i++) rc = vred ? run_vred(p) : run_mpi(p);
    double t = now() - t0;
    if (vred) vred_front_unpin();
    vred_copy_set_call_mode(-1);
    if (rc != MPI_SUCCESS) call_failed(p, c, rc);
    return t / reps;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* A probe buffer of n bytes where a large malloc puts one in a fresh process: from MAP_MIN bytes
 * (glibc's default mmap threshold) in pages of its own, 16 bytes past the first page's start
 * (glibc's chunk header), below that from malloc. Not from malloc itself: once a process has
 * freed a block that malloc had mapped, glibc raises its threshold and serves later blocks of
 * that size from the heap, at other offsets, and some MPIs run much slower there: Intel MPI
 * 2021's allgather of 512 KiB per rank took 53-57 us on heap blocks against 25 on mapped ones
 * (Zen 5, 2 ranks), so calibration's own malloc/free of each class's buffers made the MPI look
 * 1.5x slower than an application with its buffers from startup finds it, and the pick
 * depended on what the process had freed before. */
enum { MAP_MIN = 128 << 10, MAP_SKEW = 16 };

static void *probe_alloc(size_t n)
{
    if (n < MAP_MIN) return malloc(n);
    void *m = mmap(NULL, n + MAP_SKEW, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? NULL : (char *)m + MAP_SKEW;
}

static void probe_free(void *b, size_t n)
{
    if (!b) return;
    if (n < MAP_MIN) free(b);
    else munmap((char *)b - MAP_SKEW, n + MAP_SKEW);
}

static void free_probe(probe *p)
{
    probe_free(p->s, p->sbytes), probe_free(p->r, p->rbytes), free(p->counts);
}

/* Buffers for p, on every rank or on none (1 = made). */
static int make_probe(probe *p, vred_comm *vc, MPI_Comm user, vred_coll coll, int k)
{
    size_t bytes = (size_t)1 << k, ranks = (size_t)vc->size;
    int moves = coll == VRED_COLL_BCAST || coll == VRED_COLL_ALLGATHER;
    memset(p, 0, sizeof *p);
    p->vc = vc;
    p->user = user;
    p->coll = coll;
    p->n = moves ? bytes : bytes / sizeof(float);
    p->block = p->n / ranks ? p->n / ranks : 1;
    size_t sbytes = coll == VRED_COLL_REDUCE_SCATTER ? p->block * ranks * sizeof(float)
                    : moves                          ? bytes
                                                     : p->n * sizeof(float);
    size_t rbytes = coll == VRED_COLL_ALLGATHER ? bytes * ranks : sbytes;
    p->sbytes = sbytes, p->rbytes = rbytes;
    p->s = probe_alloc(sbytes);
    p->r = probe_alloc(rbytes);
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
    if (!ok) free_probe(p);
    return ok;
}

/* Calls in a batch for a candidate that takes t per call: about BATCH_S seconds of them, and at
 * least MIN_CALLS as long as those fit in BATCH_LONG_S (else as many as fit, at least one). */
static int reps_for(double t)
{
    if (t * MAX_BATCH <= BATCH_S) return MAX_BATCH;
    int n = t >= BATCH_S ? 1 : (int)ceil(BATCH_S / t);
    if (n >= MIN_CALLS) return n;
    double fit = floor(BATCH_LONG_S / t); /* below MIN_CALLS only for calls over 5 ms */
    return fit >= MIN_CALLS ? MIN_CALLS : fit >= 1 ? (int)fit : 1;
}

/* Seconds per call of candidate c in a batch of `calls`, the slowest rank's (every rank gets the
 * same value); -1 if the ranks could not agree on it. */
static double timed_batch(const probe *p, candidate c, int calls)
{
    double t = batch(p, c, 0, calls);
    if (vred_next()->Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, p->vc->comm) !=
        MPI_SUCCESS)
        return -1;
    return t;
}

/* The MPI's collective run until it is warm, and its time per call then (into *t). Some MPIs
 * run their first calls of a size much slower than the rest: Intel MPI 2021's allreduce of 4 KiB
 * took 3.2 us per call for its first 400 calls and 0.8 us after (16 KiB: 5.8 us, then 2.1), and
 * its bcast of 256 KiB needed more than a thousand calls (Zen 5: calibration timed it at 5-9 us
 * after 40-1000 calls, 4.1-4.6 after 3000, where a benchmark's loop runs it at 4.0). So by time,
 * not by calls: batches back to back, each sized from the one before to last about BATCH_S
 * (the first of WARM_FIRST calls), until WARM_S seconds have gone by on the slowest rank (every
 * rank then makes as many calls), at most WARM_BATCHES. 0, or -1 if the ranks could not agree. */
static int warm_mpi(const probe *p, double *t)
{
    double spent = 0;
    int calls = WARM_FIRST;
    for (int b = 0; b < WARM_BATCHES && spent < WARM_S; b++) {
        if ((*t = timed_batch(p, (candidate){VRED_ALG_MPI, 0}, calls)) < 0) return -1;
        spent += *t * calls;
        calls = reps_for(*t);
    }
    return 0;
}

/* The candidates' median seconds per call into med[]; 0, or -1 if the ranks could not time
 * them together. cand[0] is the MPI, or one of vred's (skewed_pick). Each candidate's batches
 * are sized from its warm time: the MPI's after warm_mpi, each of vred's from a batch of
 * WARM_FIRST calls after its first. Sized
 * from the first call alone, which pays for first touch and the MPI's own setup, the MPI's
 * batches of a 1 MiB allgather over Intel MPI were 3 calls long and timed it at 37 us per call,
 * where its calls back to back take 25. */
static int measure(const probe *p, const candidate *cand, int nc, int rounds, double *med)
{
    const vred_next_fns *x = vred_next();
    MPI_Comm c = p->vc->comm;
    double t[NCAND], all[CLOSE_ROUNDS][NCAND];
    if (rounds > CLOSE_ROUNDS) rounds = CLOSE_ROUNDS;
    int reps[NCAND];
    /* One call each to warm up (first touch, the MPI's own setup). */
    for (int i = 0; i < nc; i++) (void)batch(p, cand[i], 0, 1);
    int mpi = cand[0].alg == VRED_ALG_MPI;
    if (mpi && warm_mpi(p, &t[0]) != 0) return -1;
    for (int i = mpi; i < nc; i++)
        if ((t[i] = timed_batch(p, cand[i], WARM_FIRST)) < 0) return -1;
    for (int i = 0; i < nc; i++) reps[i] = reps_for(t[i]);
    for (int r = 0; r < rounds; r++) {
        /* Alternating: each round starts with another candidate. */
        for (int j = 0; j < nc; j++) {
            int i = (r + j) % nc;
            t[i] = batch(p, cand[i], reps[i] < LEAD_BELOW ? 1 : 0, reps[i]);
        }
        if (x->Allreduce(MPI_IN_PLACE, t, nc, MPI_DOUBLE, MPI_MAX, c) != MPI_SUCCESS) return -1;
        memcpy(all[r], t, sizeof t);
    }
    for (int i = 0; i < nc; i++) {
        double v[CLOSE_ROUNDS];
        for (int r = 0; r < rounds; r++) v[r] = all[r][i];
        qsort(v, (size_t)rounds, sizeof *v, cmp_double);
        med[i] = v[rounds / 2];
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

/* The candidates for (coll, bytes) on vc into c[] (at most NCAND; c[0] is the MPI), as
 * vred_select_candidates gives them, without the shared-memory ones where the node has no
 * region (node NULL), and with the first shared-memory one that copies measured a second time
 * with streaming stores from NT_MIN bytes (where the copy mode is automatic). */
static int candidates(vred_coll coll, const vred_comm *vc, size_t bytes, int have_region,
                      candidate *c)
{
    vred_alg algs[VRED_SELECT_CANDIDATES];
    int n = vred_select_candidates(coll, vc, bytes, algs), m = 0, copying = -1;
    for (int i = 0; i < n; i++) {
        int shm = i > 0 && vred_alg_is_shm(coll, algs[i]);
        if (shm && !have_region) continue;
        if (shm && copying < 0 && algs[i] != VRED_ALG_CMA) copying = m;
        c[m++] = (candidate){algs[i], 0};
    }
    if (copying >= 0 && bytes >= NT_MIN && vred_copy_mode() == VRED_NT_AUTO)
        c[m++] = (candidate){c[copying].alg, 1};
    return m;
}

/* bcast and allgather that pick cma from VRED_FRONT_SKEW_MIN bytes: does cma keep its lead
 * over the pipeline where the ranks' buffers are skewed (coll_front.c, unskew)? The kernel's
 * copy between addresses that differ mod 64 loses 24% at 16 MiB on Zen 4 and 3% on the Xeon
 * guest, so the answer is the machine's: both timed on p's buffers with the receive buffers
 * moved SKEW_BY bytes on (allgather: every rank's, away from its send buffer; bcast: the odd
 * ranks', away from the root's), alternating as measure() does. Into *keep: 1 if cma is
 * faster there, 0 if not (or the pipeline is not a candidate); times into t[2] (cma, pipe), 0
 * where not measured. -1 if the ranks could not agree on buffers or times. */
enum { SKEW_BY = 16 };

static int skewed_pick(const probe *p, const candidate *cand, int nc, double t[2], int *keep)
{
    *keep = 0, t[0] = t[1] = 0;
    int pipe = -1;
    for (int i = 1; i < nc; i++)
        if (cand[i].alg == VRED_ALG_PIPE && !cand[i].nt) pipe = i;
    if (pipe < 0) return 0;
    size_t rbytes = p->rbytes + 64;
    char *r = probe_alloc(rbytes);
    int ok = r != NULL;
    if (vred_next()->Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, p->vc->comm) != MPI_SUCCESS)
        ok = 0;
    if (!ok) {
        probe_free(r, rbytes);
        return -1;
    }
    probe q = *p;
    int moved = p->coll == VRED_COLL_ALLGATHER || p->vc->rank % 2;
    q.r = r + (moved ? SKEW_BY : 0);
    memcpy(q.r, p->r, p->rbytes); /* the root's message, where a bcast's root is here */
    candidate two[2] = {{VRED_ALG_CMA, 0}, cand[pipe]};
    int rc = measure(&q, two, 2, ROUNDS, t);
    probe_free(r, rbytes);
    *keep = rc == 0 && t[0] < t[1];
    return rc;
}

/* A candidate's name in the cache file: "ALG", or "ALG/nt" measured with streaming stores. */
static void candidate_name(const candidate *c, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s", vred_alg_name(c->alg), c->nt ? "/nt" : "");
}

/* The cache file's line for a measured cell: "COLL CLASS PICK [nt=on] [spell=N]", then each
 * candidate's median ("ALG=..." or "ALG/nt=..."), for a cma pick timed on skewed buffers
 * (skewed_pick) those times and the verdict ("skewed=cma|pipe"), the spell probe's ratio, and
 * for a close call followed over runs its history (learn_runs.c). */
static void cell_line(char *line, size_t size, vred_coll coll, int k, const candidate *c, int nc,
                      const double *med, int best, int spell_runs, double ratio,
                      const double skew_t[2], int skew_keep, const char *runs)
{
    int n = snprintf(line, size, "%s %d %s%s", vred_coll_name(coll), k, vred_alg_name(c[best].alg),
                     c[best].nt ? " nt=on" : "");
    if (spell_runs && n > 0 && (size_t)n < size)
        n += snprintf(line + n, size - (size_t)n, " spell=%d", spell_runs);
    for (int i = 0; i < nc && n > 0 && (size_t)n < size; i++) {
        char name[32];
        candidate_name(&c[i], name, sizeof name);
        n += snprintf(line + n, size - (size_t)n, " %s=%.3e", name, med[i]);
    }
    if (skew_t[0] > 0 && n > 0 && (size_t)n < size)
        n += snprintf(line + n, size - (size_t)n, " cma/skewed=%.3e pipe/skewed=%.3e skewed=%s",
                      skew_t[0], skew_t[1], skew_keep ? "cma" : "pipe");
    if (ratio > 0 && n > 0 && (size_t)n < size)
        n += snprintf(line + n, size - (size_t)n, " ordinary/streaming=%.2f", ratio);
    if (runs[0] && n > 0 && (size_t)n < size) snprintf(line + n, size - (size_t)n, "%s", runs);
}

/* Another communicator of this shape (the same cache file) may have measured the class since
 * this one read the file at its creation: MPI_COMM_WORLD and a duplicate made before world's
 * first calls. Rank 0 reads the file again, and takes the cell found there where this
 * communicator had none, or where it had one kept from a slow spell (due again) and the file's
 * has been measured since (its alg or its run of spells differs): so communicators of one
 * shape pick alike in a run and the file keeps the answer the next run reads. A cell measured
 * in a spell, or a close call followed over runs, is taken as it is, marks and all: measuring
 * again is the next run's business, as for the communicator that measured it (vred_learn); a
 * followed cell that another communicator measured in this run has one more run in its count.
 * 1 if taken (on every rank). */
static int measured_meanwhile(vred_comm *vc, vred_coll coll, int k)
{
    signed char cell[5] = {VRED_ALG_AUTO, 0, 0, 0, 0}; /* alg, nt, skew_cma, spell_runs,
                                                            close_runs */
    if (vc->rank == 0) {
        vred_learned fresh;
        vred_learn_file f;
        memset(&fresh, 0, sizeof fresh); /* every cell VRED_ALG_AUTO (0): nothing known */
        vred_learn_file_for(vc, &f);
        vred_learn_file_read(&f, &fresh);
        int had = vc->learned.spell[coll][k] == 1; /* a kept cell, due again */
        int since = fresh.alg[coll][k] != vc->learned.alg[coll][k] ||
                    fresh.spell_runs[coll][k] != vc->learned.spell_runs[coll][k] ||
                    fresh.close_runs[coll][k] != vc->learned.close_runs[coll][k];
        if (fresh.alg[coll][k] != VRED_ALG_AUTO && (!had || since)) {
            cell[0] = fresh.alg[coll][k], cell[1] = fresh.nt[coll][k],
            cell[2] = fresh.skew_cma[coll][k], cell[3] = (signed char)fresh.spell_runs[coll][k],
            cell[4] = (signed char)fresh.close_runs[coll][k];
            vred_learn_runs_mark(&f, coll, k);
        }
    }
    if (vred_next()->Bcast(cell, 5, MPI_SIGNED_CHAR, 0, vc->comm) != MPI_SUCCESS ||
        cell[0] == VRED_ALG_AUTO)
        return 0;
    vc->learned.alg[coll][k] = cell[0];
    vc->learned.nt[coll][k] = cell[1];
    vc->learned.skew_cma[coll][k] = cell[2];
    vc->learned.spell_runs[coll][k] = (unsigned char)cell[3];
    vc->learned.close_runs[coll][k] = (unsigned char)cell[4];
    vc->learned.spell[coll][k] = (signed char)(cell[3] ? 2 : 0); /* nothing more this run */
    return 1;
}

void vred_learn(vred_comm *vc, MPI_Comm user, vred_coll coll, int k)
{
    candidate cand[NCAND];
    double med[NCAND];
    int spell_before = vc->learned.spell[coll][k]; /* 1: measured again (select.c) */
    vred_front_invalidate(); /* the class's selection changes */
    if (vc->learned.mode == VRED_LEARN_ON && measured_meanwhile(vc, coll, k)) return;
    /* A cell that cannot be measured (no buffers, a failed timing) follows the model for the
     * rest of this run, marked with a value no algorithm has, or keeps what the cache held for
     * it; either way it is not tried again. */
    vc->learned.spell[coll][k] = 0;
    if (spell_before != 1) vc->learned.alg[coll][k] = VRED_ALG_COUNT, vc->learned.nt[coll][k] = 0;
    vc->learned.skew_cma[coll][k] = 0;
    probe p;
    if (!make_probe(&p, vc, user, coll, k)) return;
    /* The front of the application's call has put its recvcounts in vc->counts (an
     * MPI_Reduce_scatter's); the calibrating calls' fronts write theirs into the probe's. */
    size_t *app_counts = vc->counts;
    vc->counts = p.counts;
    size_t bytes = coll == VRED_COLL_REDUCE_SCATTER ? p.block * (size_t)vc->size * sizeof(float)
                   : coll == VRED_COLL_BCAST || coll == VRED_COLL_ALLGATHER ? p.n
                                                                            : p.n * sizeof(float);
    vred_alg algs[VRED_SELECT_CANDIDATES];
    int nc = vred_select_candidates(coll, vc, bytes, algs);
    /* The shared-memory candidates need the node's region (collective; NULL on every rank or
     * none): without it they drop out. */
    int shm = 0;
    for (int i = 1; i < nc; i++) shm |= vred_alg_is_shm(coll, algs[i]);
    vred_node *node = shm ? vred_node_get(vc) : NULL;
    /* Measured without a region, or with one shrunk to fit VRED_SHM_LIMIT: right for this
     * communicator, not for the machine's cache (every rank knows alike). */
    int local_only = shm && (!node || node->shm->reduced);
    /* With the region there, cross-memory attach is known: cma stays only if it works. */
    nc = candidates(coll, vc, bytes, node != NULL, cand);
    double ratio = spell_ratio(vc, node);
    int measured = measure(&p, cand, nc, ROUNDS, med) == 0;
    if (measured && vred_learn_close_call(med, nc))
        measured = measure(&p, cand, nc, CLOSE_ROUNDS, med) == 0;
    if (measured) {
        double after = spell_ratio(vc, node);
        if (after > ratio) ratio = after;
        int spell = vc->learned.spell_pct > 0 && ratio * 100 > vc->learned.spell_pct;
        vc->learned.spell[coll][k] = (signed char)(spell ? 2 : 0); /* nothing more this run */
        int runs = spell ? vc->learned.spell_runs[coll][k] + 1 : 0;
        vc->learned.spell_runs[coll][k] = (unsigned char)(runs > 99 ? 99 : runs);
        int best = vred_learn_pick(med, nc);
        /* A close call, or one earlier runs began to follow: picked over the runs (learn_runs.c);
         * a run in a spell adds nothing to them (its times are not the machine's). */
        const char *names[NCAND];
        char name_buf[NCAND][32];
        for (int i = 0; i < nc; i++) {
            candidate_name(&cand[i], name_buf[i], sizeof name_buf[i]);
            names[i] = name_buf[i];
        }
        char runs_txt[400];
        int followed = vred_learn_runs_follow(vc, coll, k, names, nc, med, !spell, &best,
                                              runs_txt, sizeof runs_txt);
        vc->learned.close_runs[coll][k] = (unsigned char)followed;
        double skew_t[2] = {0, 0};
        int keep = 0;
        if (cand[best].alg == VRED_ALG_CMA && !cand[best].nt && bytes >= VRED_FRONT_SKEW_MIN &&
            (coll == VRED_COLL_BCAST || coll == VRED_COLL_ALLGATHER) &&
            skewed_pick(&p, cand, nc, skew_t, &keep) != 0)
            skew_t[0] = 0, keep = 0;
        vc->learned.alg[coll][k] = (signed char)cand[best].alg;
        vc->learned.nt[coll][k] = (signed char)cand[best].nt;
        vc->learned.skew_cma[coll][k] = (signed char)keep;
        if (vc->rank == 0 && !local_only) {
            char line[1000]; /* the reader takes lines up to 1023 bytes (learn_cache.c) */
            cell_line(line, sizeof line, coll, k, cand, nc, med, best, spell ? runs : 0, ratio,
                      skew_t, keep, runs_txt);
            vred_learn_file f;
            vred_learn_file_for(vc, &f);
            vred_learn_runs_mark(&f, coll, k);
            static int warned;
            if (vred_learn_file_put(&f, coll, k, line) &&
                !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
                fprintf(stderr, "vred: cannot keep the learned selection in %s; this run "
                                "measures it for itself (VRED_LEARN)\n",
                        f.path[0] ? f.path : "(no HOME or XDG_CACHE_HOME)");
        }
    }
    vc->counts = app_counts;
    free_probe(&p);
}
