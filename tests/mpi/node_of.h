/*
 * The node of this world rank as vred sees nodes, for the MPI tests that must know which
 * algorithms can serve a communicator (coll.c, coll_move.c).
 */
#ifndef VRED_TEST_NODE_OF_H
#define VRED_TEST_NODE_OF_H

#include <stdlib.h>
#include <mpi.h>

/* This world rank's node as vred sees nodes: VRED_NODE_SIZE=k groups world ranks by k, else
 * MPI_COMM_TYPE_SHARED (its lowest world rank), as on a cluster (scripts/multihost.sh). The
 * first call must be made by every rank of MPI_COMM_WORLD. */
static int node_of_me(void)
{
    static int known = 0, mine;
    if (known) return mine; /* the first call is collective over MPI_COMM_WORLD */
    known = 1;
    const char *ns = getenv("VRED_NODE_SIZE");
    int k = ns ? atoi(ns) : 0, wr;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    if (k > 0) return mine = wr / k;
    MPI_Comm node;
    PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    PMPI_Allreduce(&wr, &mine, 1, MPI_INT, MPI_MIN, node);
    PMPI_Comm_free(&node);
    return mine;
}

#endif
