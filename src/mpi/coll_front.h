/*
 * What every reduction collective's PMPI front does: decide whether vred serves the call, fill
 * the argument block, pick the algorithm, run it, report errors through the communicator's
 * error handler. A call vred does not serve goes to the MPI library untouched.
 */
#ifndef VRED_MPI_COLL_FRONT_H
#define VRED_MPI_COLL_FRONT_H

#include "coll/coll.h"

#define VRED_MPI_EXPORT __attribute__((visibility("default")))

/* Fill a for (comm, datatype, op) if vred may serve it: 1, else 0 (pass through). */
int vred_front_begin(vred_coll_args *a, MPI_Comm comm, MPI_Datatype datatype, MPI_Op op);

/* Fill a for moving bytes (bcast, allgather: no op, a->e NULL) of `datatype` on comm if vred
 * may serve it: a predefined datatype whose elements are packed (size == extent == true
 * extent, true lb 0), so that count elements are count * size contiguous bytes. 1, else 0. */
int vred_front_begin_bytes(vred_coll_args *a, MPI_Comm comm, MPI_Datatype datatype);

/* Select and run. 1 if vred served the call (*rc = its result), 0 if the MPI library must. */
int vred_front_run(vred_coll coll, vred_coll_args *a, int *rc, MPI_Comm user_comm);

/* For the fronts: note that the MPI library serves this call. */
void vred_front_passed(void);

#endif
