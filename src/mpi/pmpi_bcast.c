/* MPI_Bcast (+ _c) through vred's algorithms; see coll_front.h for what passes through. */
#include "mpi/coll_front.h"

static int serve(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 int *rc)
{
    vred_coll_args a;
    size_t tbytes;
    int packed;
    if (count < 0) return vred_pass(VRED_WHY_INVALID_ARG);
    if (buffer == MPI_IN_PLACE) return vred_pass(VRED_WHY_IN_PLACE);
    if (!vred_front_begin_bytes(&a, comm, datatype, &tbytes, &packed)) return 0;
    /* An invalid root is the MPI's to report, but it goes into the agreement (as -1) like any
     * root: when only some ranks name one, every rank then gets MPI_ERR_ROOT, where passing
     * the call on at those ranks alone would leave the others waiting in the agreement. */
    int root_ok = root >= 0 && root < a.size;
    int ok = root_ok && packed && (count == 0 || buffer);
    if (!ok) { /* why, should the ranks agree to pass the call on */
        if (root_ok && !packed) vred_pass_type(datatype);
        else vred_pass(VRED_WHY_INVALID_ARG);
    }
    a.sbuf = a.rbuf = buffer; /* the root sends from it, the others receive into it */
    a.count = (size_t)count * tbytes; /* bytes: the same on every rank */
    a.root = root_ok ? root : -1;
    return vred_front_run_agreed(VRED_COLL_BCAST, &a, ok, rc, comm);
}

VRED_API int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
                              MPI_Comm comm)
{
    VRED_FRONT_BODY(VRED_SC_BCAST, serve(buffer, count, datatype, root, comm, &rc),
                    vred_next()->Bcast(buffer, count, datatype, root, comm),
                    vred_stats_bytes(count, datatype))
}
VRED_PMPI(Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm),
          (buffer, count, datatype, root, comm))

#if MPI_VERSION >= 4
VRED_API int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                                MPI_Comm comm)
{
    VRED_FRONT_BODY(VRED_SC_BCAST, serve(buffer, count, datatype, root, comm, &rc),
                    vred_next()->Bcast_c(buffer, count, datatype, root, comm),
                    vred_stats_bytes(count, datatype))
}
VRED_PMPI(Bcast_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm),
          (buffer, count, datatype, root, comm))
#endif
