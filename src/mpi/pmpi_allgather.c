/* MPI_Allgather (+ _c) through vred's algorithms; see coll_front.h for what passes through.
 * vred serves only the symmetric form: the same (predefined, packed) type and count on both
 * sides, or MPI_IN_PLACE, where the send block is already in the receive buffer. */
#include "coll_front.h"

static int serve(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, int *rc)
{
    vred_coll_args a;
    int inplace = sendbuf == MPI_IN_PLACE;
    if (recvcount < 0 || recvbuf == MPI_IN_PLACE) return 0;
    if (!inplace && (sendtype != recvtype || sendcount != recvcount)) return 0;
    if (recvcount > 0 && (!recvbuf || (!inplace && !sendbuf))) return 0;
    if (!vred_front_begin_bytes(&a, comm, recvtype)) return 0;
    a.rbuf = recvbuf;
    a.count = (size_t)recvcount; /* per rank */
    a.sbuf = inplace ? vred_at(recvbuf, (size_t)a.rank * a.count, a.esize) : sendbuf;
    return vred_front_run(VRED_COLL_ALLGATHER, &a, rc, comm);
}

VRED_MPI_EXPORT int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm)
{
    int rc;
    if (serve(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &rc)) return rc;
    vred_front_passed();
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

#if MPI_VERSION >= 4
VRED_MPI_EXPORT int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount,
                                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc;
    if (serve(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &rc)) return rc;
    vred_front_passed();
    return PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
#endif
