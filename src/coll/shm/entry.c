/*
 * The shared-memory algorithms as the collectives layer sees them (coll.h): on a one-node
 * communicator the node algorithm serves the call directly (node ranks are the communicator's
 * ranks, in order); across nodes the hierarchical composition in hier.c does, with the node
 * algorithm's reduce as its intra-node stage.
 */
#include "coll/shm/shm.h"
#include "coll/shm/hier.h"

/* node_stage: the node algorithm the hierarchical form runs inside each node (a reduce to node
 * rank 0 for the reductions, the bcast itself for bcast). */
typedef int (*across_fn)(const vred_coll_args *a, vred_shm_fn node_stage);

static int run(const vred_coll_args *a, vred_shm_fn on_node, across_fn across,
               vred_shm_fn node_stage)
{
    if (a->vc->node->nodes > 1) return across(a, node_stage);
    vred_shm_args s = {a->vc->node, a->e,     a->esize, a->sbuf,
                       a->rbuf,      a->count, a->counts, a->root};
    return on_node(&s);
}

/* DPML holds every rank's whole message in one bank; larger ones go movement-avoiding. */
static int dpml_fits(const vred_coll_args *a)
{
    return vred_shm_dpml_fits(a->vc->node->shm, a->count * a->esize);
}

int vred_reduce_ma(const vred_coll_args *a)
{
    return run(a, vred_shm_reduce_ma, vred_hier_reduce, vred_shm_reduce_ma);
}

int vred_reduce_dpml(const vred_coll_args *a)
{
    if (!dpml_fits(a)) return vred_reduce_ma(a);
    return run(a, vred_shm_reduce_dpml, vred_hier_reduce, vred_shm_reduce_dpml);
}

int vred_allreduce_ma(const vred_coll_args *a)
{
    return run(a, vred_shm_allreduce_ma, vred_hier_allreduce, vred_shm_reduce_ma);
}

int vred_allreduce_dpml(const vred_coll_args *a)
{
    if (!dpml_fits(a)) return vred_allreduce_ma(a);
    return run(a, vred_shm_allreduce_dpml, vred_hier_allreduce, vred_shm_reduce_dpml);
}

int vred_reduce_scatter_ma(const vred_coll_args *a)
{
    return run(a, vred_shm_reduce_scatter_ma, vred_hier_reduce_scatter, vred_shm_reduce_ma);
}

int vred_reduce_scatter_dpml(const vred_coll_args *a)
{
    if (!dpml_fits(a)) return vred_reduce_scatter_ma(a);
    return run(a, vred_shm_reduce_scatter_dpml, vred_hier_reduce_scatter, vred_shm_reduce_dpml);
}

/* After a single-copy call: if a transfer failed on this node (the node now moves data through
 * its segment, cma.h) and the node is the whole communicator, the selection learns it too, so
 * that later calls name the algorithm that serves them. Every rank of the node saw the same
 * failure, so all change alike; across nodes the others cannot know, and the row stays selected
 * (each node runs what it can: docs/shm.md). */
static int after_cma(const vred_coll_args *a, int rc)
{
    if (!a->vc->node->shm->cma && a->vc->node->nodes == 1)
        ((vred_comm *)a->vc)->cma_state = -1; /* the front's state, changed alike on all ranks */
    return rc;
}

int vred_reduce_cma(const vred_coll_args *a)
{
    return after_cma(a, run(a, vred_shm_reduce_cma, vred_hier_reduce, vred_shm_reduce_cma));
}

int vred_allreduce_cma(const vred_coll_args *a)
{
    return after_cma(a, run(a, vred_shm_allreduce_cma, vred_hier_allreduce, vred_shm_reduce_cma));
}

int vred_reduce_scatter_cma(const vred_coll_args *a)
{
    return after_cma(a, run(a, vred_shm_reduce_scatter_cma, vred_hier_reduce_scatter,
                            vred_shm_reduce_cma));
}

/* Across nodes: the root's node, then the leaders, then the other nodes (hier.c), each node
 * with the same node algorithm (node_bcast). */
static int bcast_across(const vred_coll_args *a, vred_shm_fn node_bcast)
{
    return vred_hier_bcast(a, node_bcast);
}

int vred_bcast_pipe(const vred_coll_args *a)
{
    return run(a, vred_shm_bcast_pipe, bcast_across, vred_shm_bcast_pipe);
}

int vred_bcast_cma(const vred_coll_args *a)
{
    return after_cma(a, run(a, vred_shm_bcast_cma, bcast_across, vred_shm_bcast_cma));
}

/* One node only (select.c never picks these across nodes: ranks of several nodes interleave in
 * the result, which the MPI's own allgather handles). */
static int one_node(const vred_coll_args *a, vred_shm_fn fn)
{
    vred_shm_args s = {a->vc->node, a->e,     a->esize, a->sbuf,
                       a->rbuf,      a->count, a->counts, a->root};
    return fn(&s);
}

int vred_allgather_pipe(const vred_coll_args *a) { return one_node(a, vred_shm_allgather_pipe); }

int vred_allgather_cma(const vred_coll_args *a)
{
    return after_cma(a, one_node(a, vred_shm_allgather_cma));
}
