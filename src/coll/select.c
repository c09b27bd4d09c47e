/*
 * Which algorithm serves a call: VRED_<COLL>_ALG (or vred_select_force) if set, else the rule
 * table below. The table lists, per collective, the algorithms vred has with the alpha-beta-
 * gamma cost of each (the third paper's model, sec. III); the cheapest predicted one is chosen,
 * except that below the measured size mpi_min_bytes the MPI library's own algorithm (tuned,
 * closer to the transport than PMPI_Isend) serves the call. Every input is equal on all ranks
 * (bytes, communicator shape, model broadcast from rank 0), so all ranks choose alike.
 */
#include <math.h>
#include <stdio.h>
#include "coll.h"

typedef double (*cost_fn)(double n, double p, double alpha, double beta, double gamma);

/* Extra cost of the non-power-of-two step: pair swap (2 alpha + N beta + N/2 gamma). */
static double pow2_extra(double n, double p, double alpha, double beta, double gamma)
{
    double p2 = pow(2, floor(log2(p)));
    return p2 == p ? 0 : 2 * alpha + n * beta + n / 2 * gamma;
}

static double lg(double p) { return ceil(log2(p)); }

static double c_reduce_binomial(double n, double p, double al, double be, double ga)
{
    return lg(p) * (al + n * be + n * ga);
}
static double c_reduce_redscat(double n, double p, double al, double be, double ga)
{
    return 2 * al * lg(p) + 2 * (p - 1) / p * n * be + (p - 1) / p * n * ga +
           pow2_extra(n, p, al, be, ga);
}
static double c_reduce_ring(double n, double p, double al, double be, double ga)
{
    /* p-1 ring steps, then p-1 blocks gathered by the root one after the other. */
    return 2 * (p - 1) * al + 2 * (p - 1) / p * n * be + (p - 1) / p * n * ga;
}
static double c_bcast_binomial(double n, double p, double al, double be)
{
    return lg(p) * (al + n * be);
}
static double c_allreduce_binomial(double n, double p, double al, double be, double ga)
{
    return c_reduce_binomial(n, p, al, be, ga) + c_bcast_binomial(n, p, al, be);
}
static double c_allreduce_redscat(double n, double p, double al, double be, double ga)
{
    double p2 = pow(2, floor(log2(p)));
    return 2 * al * lg(p2) + 2 * (p2 - 1) / p2 * n * be + (p2 - 1) / p2 * n * ga +
           pow2_extra(n, p, al, be, ga) + (p2 == p ? 0 : al + n * be);
}
static double c_allreduce_ring(double n, double p, double al, double be, double ga)
{
    return 2 * (p - 1) * al + 2 * (p - 1) / p * n * be + (p - 1) / p * n * ga;
}
static double c_allreduce_recdbl(double n, double p, double al, double be, double ga)
{
    double p2 = pow(2, floor(log2(p)));
    return lg(p2) * (al + n * be + n * ga) + (p2 == p ? 0 : 2 * (al + n * be) + n * ga);
}
static double c_rs_binomial(double n, double p, double al, double be, double ga)
{
    return c_reduce_binomial(n, p, al, be, ga) + (p - 1) * al + (p - 1) / p * n * be;
}
static double c_rs_redscat(double n, double p, double al, double be, double ga)
{
    double p2 = pow(2, floor(log2(p)));
    return al * lg(p2) + (p2 - 1) / p2 * n * (be + ga) + pow2_extra(n, p, al, be, ga) +
           (p2 == p ? 0 : al + n / p * be);
}
static double c_rs_ring(double n, double p, double al, double be, double ga)
{
    return (p - 1) * al + (p - 1) / p * n * (be + ga);
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
