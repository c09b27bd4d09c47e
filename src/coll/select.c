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
#include "coll.h"

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

typedef struct {
    vred_coll coll;
    vred_alg alg;
    vred_coll_fn fn;
    cost_fn cost;
} rule;

static const rule rules[] = {
    {VRED_COLL_REDUCE, VRED_ALG_BINOMIAL, vred_reduce_binomial, c_reduce_binomial},
    {VRED_COLL_REDUCE, VRED_ALG_REDSCAT, vred_reduce_redscat, c_reduce_redscat},
    {VRED_COLL_REDUCE, VRED_ALG_RING, vred_reduce_ring, c_reduce_ring},
    {VRED_COLL_ALLREDUCE, VRED_ALG_RECDBL, vred_allreduce_recdbl, c_allreduce_recdbl},
    {VRED_COLL_ALLREDUCE, VRED_ALG_BINOMIAL, vred_allreduce_binomial, c_allreduce_binomial},
    {VRED_COLL_ALLREDUCE, VRED_ALG_REDSCAT, vred_allreduce_redscat, c_allreduce_redscat},
    {VRED_COLL_ALLREDUCE, VRED_ALG_RING, vred_allreduce_ring, c_allreduce_ring},
    {VRED_COLL_REDUCE_SCATTER, VRED_ALG_BINOMIAL, vred_reduce_scatter_binomial, c_rs_binomial},
    {VRED_COLL_REDUCE_SCATTER, VRED_ALG_REDSCAT, vred_reduce_scatter_redscat, c_rs_redscat},
    {VRED_COLL_REDUCE_SCATTER, VRED_ALG_RING, vred_reduce_scatter_ring, c_rs_ring},
    {VRED_COLL_SCAN, VRED_ALG_RECDBL, vred_scan_recdbl, c_scan_recdbl},
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

vred_coll_fn vred_select(vred_coll coll, const vred_comm *vc, size_t bytes, vred_alg *chosen)
{
    vred_alg want = env_choice(coll);
    if (want == VRED_ALG_AUTO && (double)bytes < vc->model.mpi_min_bytes[coll])
        want = VRED_ALG_MPI;
    if (want == VRED_ALG_MPI) {
        *chosen = VRED_ALG_MPI;
        return NULL;
    }
    const rule *best = NULL;
    if (want != VRED_ALG_AUTO) best = find(coll, want);
    else {
        double best_cost = 0;
        for (int i = 0; i < NRULES; i++) {
            if (rules[i].coll != coll) continue;
            double c = vred_predict(coll, rules[i].alg, vc, bytes);
            if (!best || c < best_cost) best = &rules[i], best_cost = c;
        }
    }
    *chosen = best->alg;
    return best->fn;
}
