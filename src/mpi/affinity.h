/* The MPI side of the thread pool's default size: the cores a rank has to itself on its node. */
#ifndef VRED_MPI_AFFINITY_H
#define VRED_MPI_AFFINITY_H

#include <mpi.h>

/* The number of CPUs in this process's sched_getaffinity mask that no other rank of node_comm
 * has in its mask; at least 1 (also when the ranks are not bound: they then share every CPU, or
 * when the mask cannot be read). Collective over node_comm (one PMPI_Allreduce and one
 * PMPI_Allgather of the masks); MPI_COMM_NULL gives 1. */
int vred_mpi_exclusive_cores(MPI_Comm node_comm);

#endif
