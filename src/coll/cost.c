/*
 * The cost hooks of the registry's point-to-point rows (coll/algs.def): the third paper's
 * alpha-beta-gamma model (sec. III) with the overlap vred's pipelining adds. select.c takes the
 * cheapest; vred_mpi_predict reports them. Parameters: n bytes, p ranks, alpha seconds per
 * message, beta seconds per byte on the wire, gamma seconds per byte of reduction.
 */
#include <math.h>
#include "coll/coll.h"

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

double vred_cost_reduce_binomial(double n, double p, double al, double be, double ga)
{
    return lg(p) * fold(n, al, be, ga);
}
double vred_cost_reduce_redscat(double n, double p, double al, double be, double ga)
{
    double p2 = pow2_below(p);
    return pairing(n, p, al, be, ga) + halving(n, p2, al, be, ga) + doubling(n, p2, al, be);
}
double vred_cost_reduce_ring(double n, double p, double al, double be, double ga)
{
    /* p-1 ring steps, then p-1 blocks gathered by the root one after the other. */
    return (p - 1) * (fold(n / p, al, be, ga) + move(n / p, al, be));
}
double vred_cost_allreduce_binomial(double n, double p, double al, double be, double ga)
{
    return lg(p) * (fold(n, al, be, ga) + move(n, al, be));
}
double vred_cost_allreduce_redscat(double n, double p, double al, double be, double ga)
{
    double p2 = pow2_below(p);
    return pairing(n, p, al, be, ga) + halving(n, p2, al, be, ga) + doubling(n, p2, al, be) +
           (p2 == p ? 0 : move(n, al, be));
}
double vred_cost_allreduce_ring(double n, double p, double al, double be, double ga)
{
    return (p - 1) * (fold(n / p, al, be, ga) + move(n / p, al, be));
}
double vred_cost_allreduce_recdbl(double n, double p, double al, double be, double ga)
{
    /* Each exchange sends the buffer being folded: received whole, then folded (no overlap). */
    double p2 = pow2_below(p);
    return lg(p2) * (al + n * be + n * ga) +
           (p2 == p ? 0 : fold(n, al, be, ga) + move(n, al, be));
}
double vred_cost_reduce_scatter_binomial(double n, double p, double al, double be, double ga)
{
    return vred_cost_reduce_binomial(n, p, al, be, ga) + (p - 1) * move(n / p, al, be);
}
double vred_cost_reduce_scatter_redscat(double n, double p, double al, double be, double ga)
{
    double p2 = pow2_below(p);
    return pairing(n, p, al, be, ga) + halving(n, p2, al, be, ga) +
           (p2 == p ? 0 : move(n / p, al, be));
}
double vred_cost_reduce_scatter_ring(double n, double p, double al, double be, double ga)
{
    return (p - 1) * fold(n / p, al, be, ga);
}
double vred_cost_scan_recdbl(double n, double p, double al, double be, double ga)
{
    return lg(p) * (al + n * be + 2 * n * ga);
}

/* The shared-memory rows: they send no messages, so the model has nothing to say about them. */
double vred_cost_unmodelled(double n, double p, double alpha, double beta, double gamma)
{
    (void)n, (void)p, (void)alpha, (void)beta, (void)gamma;
    return -1;
}
