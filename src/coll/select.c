/*
 * Which algorithm serves a call: VRED_<COLL>_ALG (or vred_select_force) if set, else the rule
 * table below. The table lists, per collective, the algorithms vred has with the alpha-beta-
 * gamma cost of each (the third paper's model, sec. III, with the overlap vred's pipelining
 * adds); the cheapest predicted one is chosen,
 * except that below the measured size mpi_min_bytes the MPI library's own algorithm (tuned,
 * closer to the transport than PMPI_Isend) serves the call. Every input is equal on all ranks
 * (bytes, communicator shape, model broadcast from rank 0), so all ranks choose alike.
 */
#include <math.h>
#include <stdio.h>
#include "coll/coll.h"

typedef double (*cost_fn)(double n, double p, double alpha, double beta, double gamma);

/*
 * The paper's model assumes no overlap of reduction and transfer: a step that receives and
 * folds n bytes costs alpha + n beta + n gamma. vred's receiver folds each 256 KiB segment while
 * the next ones are on the wire (p2p/msg.c), so such a step costs alpha + max(n beta, n gamma)
 * plus the fold of the last segment; a step that only moves data costs alpha + n beta.
 */
enum { SEG = 256 << 10 };

static double fold(double n, double al, double be, double ga)
{
    return al + fmax(n * be, n * ga) + fmin(n, SEG) * ga;
}
static double move(double n, double al, double be) { return al + n * be; }
static double lg(double p) { return ceil(log2(p)); }
static double pow2_below(double p) { return pow(2, floor(log2(p))); }

/* The non-power-of-two pairing: swap halves and fold one (2 alpha + N beta + N/2 gamma in the
 * paper), then the odd member's half goes to the even one. */
static double pairing(double n, double p, double al, double be, double ga)
{
    return pow2_below(p) == p ? 0 : fold(n / 2, al, be, ga) + move(n / 2, al, be);
}

/* Recursive halving over p2 ranks: log p2 folds of n/2, n/4, ... */
static double halving(double n, double p2, double al, double be, double ga)
{
    double t = 0;
    for (double m = n / 2; p2 > 1; p2 /= 2, m /= 2) t += fold(m, al, be, ga);
    return t;
}
/* Its mirror: the binomial gather or the recursive-doubling allgather (n/p2, 2n/p2, ... n/2). */
static double doubling(double n, double p2, double al, double be)
{
    double t = 0;
    for (double m = n / 2; p2 > 1; p2 /= 2, m /= 2) t += move(m, al, be);
    return t;
}

static double c_reduce_binomial(double n, double p, double al, double be, double ga)
{
    return lg(p) * fold(n, al, be, ga);
}
static double c_reduce_redscat(double n, double p, double al, double be, double ga)
{
    double p2 = pow2_below(p);
    return pairing(n, p, al, be, ga) + halving(n, p2, al, be, ga) + doubling(n, p2, al, be);
}
static double c_reduce_ring(double n, double p, double al, double be, double ga)
{
    /* p-1 ring steps, then p-1 blocks gathered by the root one after the other. */
    return (p - 1) * (fold(n / p, al, be, ga) + move(n / p, al, be));
}
static double c_allreduce_binomial(double n, double p, double al, double be, double ga)
{
    return lg(p) * (fold(n, al, be, ga) + move(n, al, be));
}
static double c_allreduce_redscat(double n, double p, double al, double be, double ga)
{
    double p2 = pow2_below(p);
    return pairing(n, p, al, be, ga) + halving(n, p2, al, be, ga) + doubling(n, p2, al, be) +
           (p2 == p ? 0 : move(n, al, be));
}
static double c_allreduce_ring(double n, double p, double al, double be, double ga)
{
    return (p - 1) * (fold(n / p, al, be, ga) + move(n / p, al, be));
}
static double c_allreduce_recdbl(double n, double p, double al, double be, double ga)
{
    /* Each exchange sends the buffer being folded: received whole, then folded (no overlap). */
    double p2 = pow2_below(p);
    return lg(p2) * (al + n * be + n * ga) +
           (p2 == p ? 0 : fold(n, al, be, ga) + move(n, al, be));
}
static double c_rs_binomial(double n, double p, double al, double be, double ga)
{
    return c_reduce_binomial(n, p, al, be, ga) + (p - 1) * move(n / p, al, be);
}
static double c_rs_redscat(double n, double p, double al, double be, double ga)
{
    double p2 = pow2_below(p);
    return pairing(n, p, al, be, ga) + halving(n, p2, al, be, ga) +
           (p2 == p ? 0 : move(n / p, al, be));
}
static double c_rs_ring(double n, double p, double al, double be, double ga)
{
    return (p - 1) * fold(n / p, al, be, ga);
}
static double c_scan_recdbl(double n, double p, double al, double be, double ga)
{
    return lg(p) * (al + n * be + 2 * n * ga);
}

/*
 * The shared-memory algorithms are not costed by the alpha-beta-gamma model (they send no
 * messages): where a region is available they serve every size above the MPI's threshold,
 * DPML-like up to shm_dpml_max bytes (one synchronization), movement-avoiding above (the
 * measured switch point, docs/collectives.md).
 */
typedef enum { P2P, SHM_SMALL, SHM_LARGE, SHM_ANY } family;

typedef struct {
    vred_coll coll;
    vred_alg alg;
    vred_coll_fn fn;
    cost_fn cost;  /* P2P only */
    family fam;
    int one_node;  /* shared memory only: no hierarchical form across nodes */
} rule;

static const rule rules[] = {
    {VRED_COLL_REDUCE, VRED_ALG_BINOMIAL, vred_reduce_binomial, c_reduce_binomial, P2P, 0},
    {VRED_COLL_REDUCE, VRED_ALG_REDSCAT, vred_reduce_redscat, c_reduce_redscat, P2P, 0},
    {VRED_COLL_REDUCE, VRED_ALG_RING, vred_reduce_ring, c_reduce_ring, P2P, 0},
    {VRED_COLL_REDUCE, VRED_ALG_DPML, vred_reduce_dpml, NULL, SHM_SMALL, 0},
    {VRED_COLL_REDUCE, VRED_ALG_MA, vred_reduce_ma, NULL, SHM_LARGE, 0},
    {VRED_COLL_ALLREDUCE, VRED_ALG_RECDBL, vred_allreduce_recdbl, c_allreduce_recdbl, P2P, 0},
    {VRED_COLL_ALLREDUCE, VRED_ALG_BINOMIAL, vred_allreduce_binomial, c_allreduce_binomial, P2P, 0},
    {VRED_COLL_ALLREDUCE, VRED_ALG_REDSCAT, vred_allreduce_redscat, c_allreduce_redscat, P2P, 0},
    {VRED_COLL_ALLREDUCE, VRED_ALG_RING, vred_allreduce_ring, c_allreduce_ring, P2P, 0},
    {VRED_COLL_ALLREDUCE, VRED_ALG_DPML, vred_allreduce_dpml, NULL, SHM_SMALL, 0},
    {VRED_COLL_ALLREDUCE, VRED_ALG_MA, vred_allreduce_ma, NULL, SHM_LARGE, 0},
    {VRED_COLL_REDUCE_SCATTER, VRED_ALG_BINOMIAL, vred_reduce_scatter_binomial, c_rs_binomial, P2P, 0},
    /* ring first: at 2 ranks the model ties it with redscat, and it measures 1.3-1.6x faster
     * there (one exchange of the peer's block instead of a halving step, docs/shm.md) */
    {VRED_COLL_REDUCE_SCATTER, VRED_ALG_RING, vred_reduce_scatter_ring, c_rs_ring, P2P, 0},
    {VRED_COLL_REDUCE_SCATTER, VRED_ALG_REDSCAT, vred_reduce_scatter_redscat, c_rs_redscat, P2P, 0},
    {VRED_COLL_REDUCE_SCATTER, VRED_ALG_DPML, vred_reduce_scatter_dpml, NULL, SHM_SMALL, 0},
    {VRED_COLL_REDUCE_SCATTER, VRED_ALG_MA, vred_reduce_scatter_ma, NULL, SHM_LARGE, 0},
    {VRED_COLL_SCAN, VRED_ALG_RECDBL, vred_scan_recdbl, c_scan_recdbl, P2P, 0},
    {VRED_COLL_BCAST, VRED_ALG_PIPE, vred_bcast_pipe, NULL, SHM_ANY, 0},
    {VRED_COLL_ALLGATHER, VRED_ALG_PIPE, vred_allgather_pipe, NULL, SHM_ANY, 1},
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

/* Can this rule serve on vc? Shared memory: a region is, or may yet be, available (the front
 * makes it, and selects again if it cannot), and some node has more than one rank. */
static int usable(const rule *r, const vred_comm *vc)
{
    if (r->fam == P2P) return 1;
    if (vc->p2p_only || vc->shm_state < 0 || !vred_config_get()->shm || vc->ppn < 2) return 0;
    return !r->one_node || vc->nodes == 1;
}

vred_coll_fn vred_select_fn(vred_coll coll, vred_alg alg)
{
    const rule *r = find(coll, alg);
    return r ? r->fn : NULL;
}

int vred_alg_is_shm(vred_coll coll, vred_alg alg)
{
    const rule *r = find(coll, alg);
    return r && r->fam != P2P;
}

double vred_predict(vred_coll coll, vred_alg alg, const vred_comm *vc, size_t bytes)
{
    const rule *r = find(coll, alg);
    if (!r || !r->cost) return -1;
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
    family want = (double)bytes <= vc->model.shm_dpml_max ? SHM_SMALL : SHM_LARGE;
    const rule *any = NULL;
    for (int i = 0; i < NRULES; i++) {
        const rule *r = &rules[i];
        if (r->coll != coll || r->fam == P2P || !usable(r, vc)) continue;
        if (r->fam == want || r->fam == SHM_ANY) return r;
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
        if (rules[i].coll != coll || rules[i].fam != P2P) continue;
        double c = vred_predict(coll, rules[i].alg, vc, bytes);
        if (!best || c < best_cost) best = &rules[i], best_cost = c;
    }
    return best;
}

int vred_learn_class(vred_coll coll, const vred_comm *vc, size_t bytes)
{
    if (vc->size < 2 || bytes < ((size_t)1 << VRED_LEARN_MIN_CLASS)) return -1;
    /* allgather's calibration holds every rank's block */
    size_t cap = VRED_LEARN_MAX_BYTES / (coll == VRED_COLL_ALLGATHER ? (size_t)vc->size : 1);
    int k = 63 - __builtin_clzll((unsigned long long)bytes), top = 63 - __builtin_clzll(cap | 1);
    if (top < VRED_LEARN_MIN_CLASS) return -1;
    if (k > top) k = top;
    return k < VRED_LEARN_CLASSES ? k : VRED_LEARN_CLASSES - 1;
}

int vred_select_to_learn(vred_coll coll, const vred_comm *vc, size_t bytes)
{
    vred_learn_mode m = (vred_learn_mode)vc->learned.mode;
    if ((m != VRED_LEARN_ON && m != VRED_LEARN_REDO) || vc->p2p_only ||
        env_choice(coll) != VRED_ALG_AUTO)
        return -1;
    int k = vred_learn_class(coll, vc, bytes);
    return k >= 0 && vc->learned.alg[coll][k] == VRED_ALG_AUTO ? k : -1;
}

int vred_select_candidates(vred_coll coll, const vred_comm *vc, size_t bytes, vred_alg out[4])
{
    int n = 0;
    out[n++] = VRED_ALG_MPI;
    /* Both shared-memory sizes around their switch point (dpml_max moves with the CPU), each
     * where it can be the faster: dpml's one synchronization at small sizes, ma's lesser data
     * movement at large ones. */
    double dmax = vc->model.shm_dpml_max;
    for (int i = 0; i < NRULES && n < 3; i++) {
        const rule *r = &rules[i];
        if (r->coll != coll || r->fam == P2P || !usable(r, vc)) continue;
        if ((r->fam == SHM_SMALL && (double)bytes > 16 * dmax) ||
            (r->fam == SHM_LARGE && (double)bytes < dmax / 4))
            continue;
        out[n++] = r->alg;
    }
    const rule *p = p2p_choice(coll, vc, bytes);
    if (p) out[n++] = p->alg;
    return n;
}

/* What was learned for (coll, bytes) on vc: VRED_ALG_AUTO (nothing: the model decides),
 * VRED_ALG_MPI, or a vred algorithm that can run on vc. */
static vred_alg learned(vred_coll coll, const vred_comm *vc, size_t bytes)
{
    if (vc->learned.mode == VRED_LEARN_OFF) return VRED_ALG_AUTO;
    int k = vred_learn_class(coll, vc, bytes);
    vred_alg a = k < 0 ? VRED_ALG_AUTO : (vred_alg)vc->learned.alg[coll][k];
    const rule *r = a == VRED_ALG_AUTO || a == VRED_ALG_MPI ? NULL : find(coll, a);
    return a == VRED_ALG_MPI || (r && usable(r, vc)) ? a : VRED_ALG_AUTO;
}

vred_alg vred_select_learned(vred_coll coll, const vred_comm *vc, size_t bytes)
{
    return env_choice(coll) == VRED_ALG_AUTO ? learned(coll, vc, bytes) : VRED_ALG_AUTO;
}

vred_coll_fn vred_select(vred_coll coll, const vred_comm *vc, size_t bytes, vred_alg *chosen)
{
    vred_alg want = env_choice(coll);
    const rule *best = want == VRED_ALG_AUTO || want == VRED_ALG_MPI ? NULL : find(coll, want);
    /* A forced algorithm that cannot run here (no region, no node with two ranks): vred's best
     * other one, still vred's (the user asked for vred, not for the MPI). */
    if (best && !usable(best, vc)) best = p2p_choice(coll, vc, bytes);
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
