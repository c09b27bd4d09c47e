/* The MPI side of the thread pool's default size: the cores a rank has to itself on its node. */
#ifndef VRED_MPI_AFFINITY_H
#define VRED_MPI_AFFINITY_H

#include <mpi.h>

/* The number of CPUs in this process's sched_getaffinity mask that no other rank of node_comm
 * has in its mask; at least 1 (also when the ranks are not bound: they then share every CPU, or
 * when the mask cannot be read). Collective over node_comm (one PMPI_Allreduce and one
 * PMPI_Allgather of the masks); MPI_COMM_NULL gives 1. */
int vred_mpi_exclusive_cores(MPI_Comm node_comm);

/* If VRED_THREADS is 0 (auto): vred_threads_set_auto(vred_mpi_exclusive_cores(node_comm)).
 * Collective over node_comm when VRED_THREADS is 0 on every rank (it is an environment variable,
 * the same on every rank of a job); otherwise it does nothing. Returns the auto value set (or 0). */
int vred_mpi_threads_auto(MPI_Comm node_comm);

#endif
