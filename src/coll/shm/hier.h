/*
 * Hierarchical composition for communicators that span several nodes: the shared-memory
 * algorithm inside each node, the point-to-point algorithm the model predicts cheapest for the
 * leaders' communicator between node leaders, shared memory again to hand the result back.
 */
#ifndef VRED_SHM_HIER_H
#define VRED_SHM_HIER_H

#include "coll/shm/shm.h"

typedef int (*vred_shm_fn)(const vred_shm_args *a);

/* `node_reduce` is the intra-node reduce (MA or DPML) to node rank 0. */
int vred_hier_reduce(const vred_coll_args *a, vred_shm_fn node_reduce);
int vred_hier_allreduce(const vred_coll_args *a, vred_shm_fn node_reduce);
int vred_hier_reduce_scatter(const vred_coll_args *a, vred_shm_fn node_reduce);
/* `node_bcast` is the intra-node bcast (the pipeline, or single copy by cross-memory attach). */
int vred_hier_bcast(const vred_coll_args *a, vred_shm_fn node_bcast);

#endif
