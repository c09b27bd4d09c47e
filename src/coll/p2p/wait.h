/*
 * The waits of the point-to-point algorithms: PMPI_Waitall / PMPI_Waitany, except that a wait
 * which has lasted a while gives the core away between tests.
 */
#ifndef VRED_P2P_WAIT_H
#define VRED_P2P_WAIT_H

#include <mpi.h>

/* As PMPI_Waitall (st may be MPI_STATUSES_IGNORE). */
int vred_wait_all(int n, MPI_Request *reqs, MPI_Status *st);

/* As PMPI_Waitany. */
int vred_wait_any(int n, MPI_Request *reqs, int *index, MPI_Status *st);

#endif
