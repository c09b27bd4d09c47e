/*
 * Which algorithm serves a call: VRED_<COLL>_ALG (or vred_select_force) if set, else the rows of
 * the registry (coll/algs.def): where a shared region is usable, the shared-memory row of the
 * call's size band (DPML-like up to the model's measured shm_dpml_max, movement-avoiding above);
 * else the point-to-point row the cost model (cost.c) predicts cheapest. Below the measured size
 * mpi_min_bytes the MPI library's own algorithm (tuned, closer to the transport than
 * PMPI_Isend) serves the call. Every input is equal on all ranks (bytes, communicator shape,
 * model broadcast from rank 0), so all ranks choose alike.
 */
#include <stdio.h>
#include "coll/coll.h"

typedef struct {
    vred_coll coll;
    vred_alg alg;
    vred_family fam;
    vred_band band;
    vred_coll_fn fn;
    vred_cost_fn cost;
} rule;

static const rule rules[] = {
#define VRED_ALG(C, A, family, band, fn, cost)                                                  \
    {VRED_COLL_##C, VRED_ALG_##A, VRED_FAMILY_##family, VRED_BAND_##band, fn, cost},
#include "coll/algs.def"
#undef VRED_ALG
};
enum { NRULES = sizeof rules / sizeof rules[0] };

static const rule *find(vred_coll coll, vred_alg alg)
{
    for (int i = 0; i < NRULES; i++)
        if (rules[i].coll == coll && rules[i].alg == alg) return &rules[i];
    return NULL;
}

/* Run-time forcing (tests, benchmarks); VRED_ALG_AUTO = the environment's choice. */
static vred_alg forced[VRED_COLL_COUNT];

int vred_select_force(vred_coll coll, vred_alg alg)
{
    if ((unsigned)coll >= VRED_COLL_COUNT || (unsigned)alg >= VRED_ALG_COUNT) return -1;
    if (alg != VRED_ALG_AUTO && alg != VRED_ALG_MPI && !find(coll, alg)) return -1;
    __atomic_store_n(&forced[coll], alg, __ATOMIC_RELAXED);
    return 0;
}

/* Why rule r cannot serve on vc, or NULL if it can; in the order of the front's reasons
 * (coll_front.c, select_why), so that the notice and VRED_STATS say the same. Shared memory: a
 * region is, or may yet be, available (the front makes it, and selects again after the first
 * time), and some node has more than one rank; cross-memory attach: likewise known to work, or
 * not known yet. */
static const char *unusable_why(const rule *r, const vred_comm *vc)
{
    if (r->fam == VRED_FAMILY_P2P) return NULL;
    if (vc->p2p_only) return "a view between nodes";
    if (!vred_config_get()->shm) return "VRED_SHM=off";
    if (vc->ppn < 2) return "one rank per node";
    if (r->fam != VRED_FAMILY_HIER && r->fam != VRED_FAMILY_HIER_CMA && vc->nodes > 1)
        return "it runs inside one node, and the communicator spans several";
    if (vc->shm_state < 0) return "no shared-memory region on this communicator";
    int cma = r->fam == VRED_FAMILY_HIER_CMA || r->fam == VRED_FAMILY_SHM_CMA;
    if (cma && !vred_config_get()->cma) return "VRED_CMA=off";
    if (cma && vc->cma_state < 0) return "the kernel refuses cross-memory attach here";
    return NULL;
}

static int usable(const rule *r, const vred_comm *vc) { return !unusable_why(r, vc); }

/* A forced algorithm that cannot run, served by another: said once per process and
 * collective, by the communicator's rank 0 (the choice is the same on every rank). Not for a
 * communicator of one rank (MPI_COMM_SELF: every process its rank 0), which no algorithm runs
 * on (the front copies the input), nor for the view between nodes of a hierarchical one. */
static void notice_fallback(vred_coll coll, const rule *want, const rule *got, const vred_comm *vc)
{
    static int told[VRED_COLL_COUNT];
    if (vc->rank != 0 || vc->size < 2 || vc->p2p_only ||
        __atomic_exchange_n(&told[coll], 1, __ATOMIC_RELAXED))
        return;
    fprintf(stderr, "vred: %s forced to '%s', which cannot run on this communicator (%s): "
                    "served by '%s' instead (said once)\n",
            vred_coll_name(coll), vred_alg_name(want->alg), unusable_why(want, vc),
            got ? vred_alg_name(got->alg) : "mpi");
}

vred_coll_fn vred_select_fn(vred_coll coll, vred_alg alg)
{
    const rule *r = find(coll, alg);
    return r ? r->fn : NULL;
}

int vred_alg_is_shm(vred_coll coll, vred_alg alg)
{
    const rule *r = find(coll, alg);
    return r && r->fam != VRED_FAMILY_P2P;
}

double vred_predict(vred_coll coll, vred_alg alg, const vred_comm *vc, size_t bytes)
{
    const rule *r = find(coll, alg);
    if (!r) return -1;
    const vred_model *m = &vc->model;
    int net = vc->nodes > 1;
    return r->cost((double)bytes, vc->size, net ? m->alpha_net : m->alpha_node,
                   net ? m->beta_net : m->beta_node, m->gamma);
}

static vred_alg env_choice(vred_coll coll)
{
    static int warned[VRED_COLL_COUNT];
    vred_alg f = __atomic_load_n(&forced[coll], __ATOMIC_RELAXED);
    if (f != VRED_ALG_AUTO) return f;
    vred_alg e = vred_config_get()->alg[coll];
    if (e != VRED_ALG_AUTO && e != VRED_ALG_MPI && !find(coll, e)) {
        if (!__atomic_exchange_n(&warned[coll], 1, __ATOMIC_RELAXED))
            fprintf(stderr, "vred: %s has no algorithm '%s'; choosing automatically\n",
                    vred_coll_name(coll), vred_alg_name(e));
        return VRED_ALG_AUTO;
    }
    return e;
}

/* The shared-memory rule for this size, if any is usable. On one node of two ranks, the
 * measured window where the MPI's single-copy point-to-point path wins leaves the call to the
 * point-to-point rules (more ranks: MA's smaller data volume is the paper's case, kept). */
static const rule *shm_choice(vred_coll coll, const vred_comm *vc, size_t bytes)
{
    const vred_model *m = &vc->model;
    if (vc->nodes == 1 && vc->ppn <= 2 && (double)bytes >= m->p2p_node_min[coll] &&
        (double)bytes < m->p2p_node_max[coll])
        return NULL;
    vred_band want = (double)bytes <= vc->model.shm_dpml_max ? VRED_BAND_SMALL : VRED_BAND_LARGE;
    const rule *any = NULL;
    for (int i = 0; i < NRULES; i++) {
        const rule *r = &rules[i];
        if (r->coll != coll || r->fam == VRED_FAMILY_P2P || !usable(r, vc)) continue;
        if (r->band == want || r->band == VRED_BAND_ANY) return r;
        any = r;
    }
    return any;
}

/* The cheapest point-to-point rule by the model; NULL if the collective has none. */
static const rule *p2p_choice(vred_coll coll, const vred_comm *vc, size_t bytes)
{
    const rule *best = NULL;
    double best_cost = 0;
    for (int i = 0; i < NRULES; i++) {
        if (rules[i].coll != coll || rules[i].fam != VRED_FAMILY_P2P) continue;
        double c = vred_predict(coll, rules[i].alg, vc, bytes);
        if (!best || c < best_cost) best = &rules[i], best_cost = c;
    }
    return best;
}

/* The size class of a call of coll with `bytes` on vc in the learned table, or -1 where nothing
 * is learned (below a float for the reductions, one rank: config.h). Sizes past what calibration
 * allocates (VRED_LEARN_MAX_BYTES of input, or of allgather's whole result) share the largest
 * class that fits. */
static int learn_class(vred_coll coll, const vred_comm *vc, size_t bytes)
{
    int moves = coll == VRED_COLL_BCAST || coll == VRED_COLL_ALLGATHER;
    int least = moves ? VRED_LEARN_MIN_CLASS : VRED_LEARN_MIN_CLASS_SUM;
    if (vc->size < 2 || bytes < ((size_t)1 << least)) return -1;
    /* allgather's calibration holds every rank's block */
    size_t cap = VRED_LEARN_MAX_BYTES / (coll == VRED_COLL_ALLGATHER ? (size_t)vc->size : 1);
    int k = 63 - __builtin_clzll((unsigned long long)bytes), top = 63 - __builtin_clzll(cap | 1);
    if (top < least) return -1;
    if (k > top) k = top;
    return k < VRED_LEARN_CLASSES ? k : VRED_LEARN_CLASSES - 1;
}

int vred_select_to_learn(vred_coll coll, const vred_comm *vc, size_t bytes)
{
    vred_learn_mode m = (vred_learn_mode)vc->learned.mode;
    if ((m != VRED_LEARN_ON && m != VRED_LEARN_REDO) || vc->p2p_only ||
        env_choice(coll) != VRED_ALG_AUTO)
        return -1;
    int k = learn_class(coll, vc, bytes);
    /* Unknown, or kept from a measurement in a slow spell and due again (learn.c). */
    return k >= 0 && (vc->learned.alg[coll][k] == VRED_ALG_AUTO ||
                      (m == VRED_LEARN_ON && vc->learned.spell[coll][k] == 1))
               ? k
               : -1;
}

int vred_select_candidates(vred_coll coll, const vred_comm *vc, size_t bytes,
                           vred_alg out[VRED_SELECT_CANDIDATES])
{
    int n = 0;
    out[n++] = VRED_ALG_MPI;
    /* Both shared-memory sizes around their switch point (dpml_max moves with the CPU), each
     * where it can be the faster: dpml's one synchronization at small sizes, ma's lesser data
     * movement at large ones. */
    double dmax = vc->model.shm_dpml_max;
    for (int i = 0; i < NRULES && n < VRED_SELECT_SHM_CANDIDATES + 1; i++) {
        const rule *r = &rules[i];
        if (r->coll != coll || r->fam == VRED_FAMILY_P2P || !usable(r, vc)) continue;
        if ((r->band == VRED_BAND_SMALL && (double)bytes > 16 * dmax) ||
            (r->band == VRED_BAND_LARGE && (double)bytes < dmax / 4))
            continue;
        out[n++] = r->alg;
    }
    /* Then the point-to-point rules, cheapest by the model first: on one node the model's
     * choice, across nodes its two cheapest (three where no shared-memory row serves). There
     * the model's ranking can be
     * wrong where its alpha is not what a step costs (more busy ranks than cores: a step waits
     * for a rank the scheduler took off its core, and ring's 2(p-1) steps lose to binomial's
     * log p; 3 namespaced hosts on 2 CPUs, docs/multihost.md). */
    const rule *p2p[VRED_ALG_COUNT];
    int np = 0;
    for (int i = 0; i < NRULES; i++)
        if (rules[i].coll == coll && rules[i].fam == VRED_FAMILY_P2P) p2p[np++] = &rules[i];
    for (int i = 1; i < np; i++) /* insertion sort by predicted cost: a handful of rows */
        for (int j = i; j > 0 && vred_predict(coll, p2p[j]->alg, vc, bytes) <
                                     vred_predict(coll, p2p[j - 1]->alg, vc, bytes); j--) {
            const rule *t = p2p[j];
            p2p[j] = p2p[j - 1], p2p[j - 1] = t;
        }
    int room = n + (vc->nodes == 1 ? 1 : n > 1 ? 2 : 3); /* 3: no node has two ranks */
    if (room > VRED_SELECT_CANDIDATES) room = VRED_SELECT_CANDIDATES;
    for (int i = 0; i < np && n < room; i++) out[n++] = p2p[i]->alg;
    return n;
}

/* What was learned for (coll, bytes) on vc: VRED_ALG_AUTO (nothing: the model decides),
 * VRED_ALG_MPI, or a vred algorithm that can run on vc. */
static vred_alg learned(vred_coll coll, const vred_comm *vc, size_t bytes)
{
    if (vc->learned.mode == VRED_LEARN_OFF) return VRED_ALG_AUTO;
    int k = learn_class(coll, vc, bytes);
    vred_alg a = k < 0 ? VRED_ALG_AUTO : (vred_alg)vc->learned.alg[coll][k];
    const rule *r = a == VRED_ALG_AUTO || a == VRED_ALG_MPI ? NULL : find(coll, a);
    return a == VRED_ALG_MPI || (r && usable(r, vc)) ? a : VRED_ALG_AUTO;
}

vred_alg vred_select_learned(vred_coll coll, const vred_comm *vc, size_t bytes)
{
    return env_choice(coll) == VRED_ALG_AUTO ? learned(coll, vc, bytes) : VRED_ALG_AUTO;
}

int vred_select_learned_nt(vred_coll coll, const vred_comm *vc, size_t bytes, vred_alg alg)
{
    if (vc->p2p_only || alg == VRED_ALG_MPI || vred_select_learned(coll, vc, bytes) != alg)
        return 0;
    int k = learn_class(coll, vc, bytes);
    return k >= 0 && vc->learned.nt[coll][k];
}

int vred_select_learned_skew_cma(vred_coll coll, const vred_comm *vc, size_t bytes)
{
    if (vc->p2p_only || vred_select_learned(coll, vc, bytes) != VRED_ALG_CMA) return 0;
    int k = learn_class(coll, vc, bytes);
    return k >= 0 && vc->learned.skew_cma[coll][k];
}

vred_coll_fn vred_select(vred_coll coll, const vred_comm *vc, size_t bytes, vred_alg *chosen)
{
    vred_alg want = env_choice(coll);
    const rule *best = want == VRED_ALG_AUTO || want == VRED_ALG_MPI ? NULL : find(coll, want);
    /* A forced algorithm that cannot run here (no region, no node with two ranks, no
     * cross-memory attach): vred's best other one, still vred's (the user asked for vred, not
     * for the MPI): another shared-memory one if any can run (cma -> pipe), else point to
     * point. */
    if (best && !usable(best, vc)) {
        const rule *asked = best;
        best = shm_choice(coll, vc, bytes);
        if (!best) best = p2p_choice(coll, vc, bytes);
        notice_fallback(coll, asked, best, vc);
    }
    /* Automatic: what this machine measured, where it measured something; else the model. */
    if (want == VRED_ALG_AUTO && !vc->p2p_only) {
        want = learned(coll, vc, bytes);
        if (want != VRED_ALG_AUTO && want != VRED_ALG_MPI) best = find(coll, want);
    }
    if (want == VRED_ALG_AUTO && (double)bytes < vc->model.mpi_min_bytes[coll])
        want = VRED_ALG_MPI;
    if (want == VRED_ALG_AUTO) {
        best = shm_choice(coll, vc, bytes);
        if (!best) best = p2p_choice(coll, vc, bytes);
    }
    if (!best) {
        *chosen = VRED_ALG_MPI;
        return NULL;
    }
    *chosen = best->alg;
    return best->fn;
}

vred_coll_fn vred_select_between_nodes(vred_coll coll, const vred_comm *vc, size_t bytes)
{
    return p2p_choice(coll, vc, bytes)->fn;
}
