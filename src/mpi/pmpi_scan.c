/* MPI_Scan and MPI_Exscan (+ _c) through vred's recursive doubling; see coll_front.h. */
#include "mpi/coll_front.h"

static int serve(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, int exclusive, int *rc)
{
    vred_coll_args a;
    /* The communicator's state first (its setup is collective on first use), the arguments
     * after: a check that one rank failed before the setup left the others waiting in it. */
    if (!vred_front_begin(&a, comm, datatype, op)) return 0;
    if (count < 0) return vred_pass(VRED_WHY_INVALID_ARG);
    if (recvbuf == MPI_IN_PLACE) return vred_pass(VRED_WHY_IN_PLACE);
    if (count > 0 && !sendbuf) return vred_pass(VRED_WHY_INVALID_ARG);
    /* Exscan's receive buffer is not significant at rank 0 (and may be null there). */
    if (count > 0 && !recvbuf && !(exclusive && a.rank == 0))
        return vred_pass(VRED_WHY_INVALID_ARG);
    a.rbuf = recvbuf;
    a.sbuf = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    a.count = (size_t)count;
    a.exclusive = exclusive;
    return vred_front_run(VRED_COLL_SCAN, &a, rc, comm);
}

#define VRED_SCAN_FRONT(NAME, CT, EXCL, SC)                                                     \
    VRED_API int MPI_##NAME(const void *sendbuf, void *recvbuf, CT count,                       \
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)                    \
    {                                                                                           \
        /* The selection goes by the bytes alone (not the op, nor inclusive or exclusive). */  \
        VRED_FRONT_BODY(SC, count >= 0 && vred_front_known_pass(VRED_COLL_SCAN, comm, datatype, count), \
                        serve(sendbuf, recvbuf, count, datatype, op, comm, EXCL, &rc),          \
                        vred_next()->NAME(sendbuf, recvbuf, count, datatype, op, comm),         \
                        vred_stats_bytes(count, datatype))                                      \
    }                                                                                           \
    VRED_PMPI(NAME,                                                                             \
              (const void *sendbuf, void *recvbuf, CT count, MPI_Datatype datatype, MPI_Op op,  \
               MPI_Comm comm),                                                                  \
              (sendbuf, recvbuf, count, datatype, op, comm))

VRED_SCAN_FRONT(Scan, int, 0, VRED_SC_SCAN)
VRED_SCAN_FRONT(Exscan, int, 1, VRED_SC_EXSCAN)
#if MPI_VERSION >= 4
VRED_SCAN_FRONT(Scan_c, MPI_Count, 0, VRED_SC_SCAN)
VRED_SCAN_FRONT(Exscan_c, MPI_Count, 1, VRED_SC_EXSCAN)
#endif
