/* MPI_Allreduce (+ _c) through vred's algorithms; see coll_front.h for what passes through. */
#include "mpi/coll_front.h"

static int serve(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, int *rc)
{
    vred_coll_args a;
    /* The state first, as in every front (pmpi_scan.c says why), the arguments after. */
    if (!vred_front_begin(&a, comm, datatype, op)) return 0;
    if (count < 0) return vred_pass(VRED_WHY_INVALID_ARG);
    if (recvbuf == MPI_IN_PLACE) return vred_pass(VRED_WHY_IN_PLACE);
    if (count > 0 && (!recvbuf || !sendbuf)) return vred_pass(VRED_WHY_INVALID_ARG);
    a.rbuf = recvbuf;
    a.sbuf = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    a.count = (size_t)count;
    return vred_front_run(VRED_COLL_ALLREDUCE, &a, rc, comm);
}

/* The C binding's two forms (int counts, and MPI-4's MPI_Count ones) differ only in the count
 * type: one front each, from this macro. */
#define VRED_ALLREDUCE_FRONT(NAME, CT)                                                              \
    VRED_API int MPI_##NAME(const void *sendbuf, void *recvbuf, CT count, MPI_Datatype datatype,    \
                            MPI_Op op, MPI_Comm comm)                                               \
    {                                                                                               \
        /* The selection goes by the bytes alone (not the op): a call it passed before passes. */ \
        VRED_FRONT_BODY(VRED_SC_ALLREDUCE,                                                          \
                        vred_front_known_pass(VRED_COLL_ALLREDUCE, comm, datatype, count),          \
                        serve(sendbuf, recvbuf, count, datatype, op, comm, &rc),                    \
                        vred_next()->NAME(sendbuf, recvbuf, count, datatype, op, comm),             \
                        vred_stats_bytes(count, datatype))                                          \
    }                                                                                               \
    VRED_PMPI(NAME,                                                                                 \
              (const void *sendbuf, void *recvbuf, CT count, MPI_Datatype datatype, MPI_Op op,      \
               MPI_Comm comm),                                                                      \
              (sendbuf, recvbuf, count, datatype, op, comm))

VRED_ALLREDUCE_FRONT(Allreduce, int)
#if MPI_VERSION >= 4
VRED_ALLREDUCE_FRONT(Allreduce_c, MPI_Count)
#endif
