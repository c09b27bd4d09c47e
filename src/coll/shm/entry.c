/*
 * The shared-memory algorithms as the collectives layer sees them (coll.h): on a one-node
 * communicator the node algorithm serves the call directly (node ranks are the communicator's
 * ranks, in order); across nodes the hierarchical composition in hier.c does.
 */
#include "shm.h"
#include "hier.h"

static vred_shm_args node_args(const vred_coll_args *a)
{
    vred_shm_args s = {a->vc->node, a->e,     a->esize, a->sbuf,
                       a->rbuf,      a->count, a->counts, a->root};
    return s;
}

/* DPML holds every rank's whole message in one bank; larger ones go movement-avoiding. */
static int dpml_fits(const vred_coll_args *a)
{
    return a->count * a->esize <= vred_shm_dpml_max(a->vc->node->shm);
}

int vred_reduce_ma(const vred_coll_args *a)
{
    if (a->vc->node->nodes > 1) return vred_hier_reduce(a, vred_shm_reduce_ma);
    vred_shm_args s = node_args(a);
    return vred_shm_reduce_ma(&s);
}

int vred_reduce_dpml(const vred_coll_args *a)
{
    if (!dpml_fits(a)) return vred_reduce_ma(a);
    if (a->vc->node->nodes > 1) return vred_hier_reduce(a, vred_shm_reduce_dpml);
    vred_shm_args s = node_args(a);
    return vred_shm_reduce_dpml(&s);
}

int vred_allreduce_ma(const vred_coll_args *a)
{
    if (a->vc->node->nodes > 1) return vred_hier_allreduce(a, vred_shm_reduce_ma);
    vred_shm_args s = node_args(a);
    return vred_shm_allreduce_ma(&s);
}

int vred_allreduce_dpml(const vred_coll_args *a)
{
    if (!dpml_fits(a)) return vred_allreduce_ma(a);
    if (a->vc->node->nodes > 1) return vred_hier_allreduce(a, vred_shm_reduce_dpml);
    vred_shm_args s = node_args(a);
    return vred_shm_allreduce_dpml(&s);
}

int vred_reduce_scatter_ma(const vred_coll_args *a)
{
    if (a->vc->node->nodes > 1) return vred_hier_reduce_scatter(a, vred_shm_reduce_ma);
    vred_shm_args s = node_args(a);
    return vred_shm_reduce_scatter_ma(&s);
}

int vred_reduce_scatter_dpml(const vred_coll_args *a)
{
    if (!dpml_fits(a)) return vred_reduce_scatter_ma(a);
    if (a->vc->node->nodes > 1) return vred_hier_reduce_scatter(a, vred_shm_reduce_dpml);
    vred_shm_args s = node_args(a);
    return vred_shm_reduce_scatter_dpml(&s);
}

int vred_bcast_pipe(const vred_coll_args *a)
{
    if (a->vc->node->nodes > 1) return vred_hier_bcast(a);
    vred_shm_args s = node_args(a);
    return vred_shm_bcast_pipe(&s);
}

/* One node only (select.c never picks it across nodes: ranks of several nodes interleave in
 * the result, which the MPI's own allgather handles). */
int vred_allgather_pipe(const vred_coll_args *a)
{
    vred_shm_args s = node_args(a);
    return vred_shm_allgather_pipe(&s);
}
