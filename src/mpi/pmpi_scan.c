/* MPI_Scan and MPI_Exscan (+ _c) through vred's recursive doubling; see coll_front.h. */
#include "coll_front.h"

static int serve(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, int exclusive, int *rc)
{
    vred_coll_args a;
    if (count < 0 || recvbuf == MPI_IN_PLACE) return 0;
    if (count > 0 && !sendbuf) return 0;
    if (!vred_front_begin(&a, comm, datatype, op)) return 0;
    /* Exscan's receive buffer is not significant at rank 0 (and may be null there). */
    if (count > 0 && !recvbuf && !(exclusive && a.rank == 0)) return 0;
    a.rbuf = recvbuf;
    a.sbuf = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    a.count = (size_t)count;
    a.exclusive = exclusive;
    return vred_front_run(VRED_COLL_SCAN, &a, rc, comm);
}

#define VRED_SCAN_FRONT(NAME, CT, EXCL)                                                         \
    VRED_MPI_EXPORT int MPI_##NAME(const void *sendbuf, void *recvbuf, CT count,                \
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)             \
    {                                                                                           \
        int rc;                                                                                 \
        if (serve(sendbuf, recvbuf, count, datatype, op, comm, EXCL, &rc)) return rc;           \
        vred_front_passed();                                                                    \
        return vred_next()->NAME(sendbuf, recvbuf, count, datatype, op, comm);                  \
    }                                                                                           \
    VRED_PMPI(NAME,                                                                             \
              (const void *sendbuf, void *recvbuf, CT count, MPI_Datatype datatype, MPI_Op op,  \
               MPI_Comm comm),                                                                  \
              (sendbuf, recvbuf, count, datatype, op, comm))

VRED_SCAN_FRONT(Scan, int, 0)
VRED_SCAN_FRONT(Exscan, int, 1)
#if MPI_VERSION >= 4
VRED_SCAN_FRONT(Scan_c, MPI_Count, 0)
VRED_SCAN_FRONT(Exscan_c, MPI_Count, 1)
#endif
