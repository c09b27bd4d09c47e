/*
 * A communicator's node view, made by its first shared-memory collective (vred_node_get):
 * the ranks of this rank's node, the shared region they map, their socket groups, and the
 * communicator of node leaders for the hierarchical algorithms across nodes.
 */
#ifndef VRED_SHM_NODE_H
#define VRED_SHM_NODE_H

#include "coll/coll.h"
#include "coll/shm/region.h"

struct vred_node {
    MPI_Comm comm;        /* this node's ranks, in the order of the communicator (private; the
                             communicator's own private one when it spans one node) */
    int own_comm;         /* comm is a split of the node's own, freed with the view */
    int rank, size;       /* in comm */
    int *comm_rank;       /* comm_rank[i]: node rank i's rank in the parent communicator */
    int sockets;          /* socket groups among this node's ranks (>= 1) */
    int *socket;          /* socket[i]: node rank i's group, 0..sockets-1, groups contiguous */
    size_t *disp;         /* size + 1 entries for the MA engine's block boundaries */
    vred_shm *shm;
    /* Across nodes: node rank 0 of each node ("leader"), in node-key order. */
    int nodes;            /* nodes of the parent communicator */
    int node_index;       /* this node's position among them */
    int *leader;          /* leader[k]: parent rank of node k's leader */
    int *node_of;         /* node_of[r]: node index of parent rank r */
    vred_comm *cross;     /* the leaders' communicator for the point-to-point algorithms; NULL on
                             non-leaders and when nodes == 1 */
};

/* The node view of vc, made if needed (collective over vc->comm, like every vred collective).
 * NULL if vred cannot use shared memory on this communicator (then on every rank, and after
 * one warning on stderr if the reason is a failure rather than VRED_SHM=off). */
vred_node *vred_node_get(vred_comm *vc);
/* mpi_alive = 0 during MPI_Finalize: the communicators go with the MPI. */
void vred_node_free(vred_node *n, int mpi_alive);

#endif
