/*
 * vred's state for a communicator (coll/coll.h: vred_comm), created on its first reduction
 * collective and cached on it as an attribute; freed with it (the attribute's delete callback
 * runs at MPI_Comm_free, and for MPI_COMM_WORLD/SELF at MPI_Finalize).
 */
#ifndef VRED_MPI_COMM_H
#define VRED_MPI_COMM_H

#include "coll/coll.h"

/* The state of comm, created if needed (collective over comm: every rank calls it on the same
 * collective); NULL if vred does not serve collectives on comm (an intercommunicator, the state
 * could not be made, or VRED_COMM_LIMIT communicators had one when comm asked first). */
vred_comm *vred_comm_get(MPI_Comm comm);

/* The link between nodes this process's cost model took (measured on the first communicator
 * spanning nodes): 1 and *alpha (s per message), *beta (s per byte) if known, else 0. */
int vred_mpi_link(double *alpha, double *beta);

/* Free the states of MPI_COMM_WORLD and MPI_COMM_SELF (from MPI_Finalize, before PMPI_Finalize). */
void vred_comm_finalize(void);

#endif
