/* MPI_Allgather (+ _c) through vred's algorithms; see coll_front.h for what passes through.
 * vred moves bytes: each rank's block is recvcount * size(recvtype) bytes on every rank (the
 * MPI's type-signature rule), and a rank can be served when its send and receive layouts are
 * packed (or the send is MPI_IN_PLACE, the block already in the receive buffer). */
#include "coll_front.h"

static int serve(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, int *rc)
{
    vred_coll_args a;
    size_t rbytes;
    int rpacked, inplace = sendbuf == MPI_IN_PLACE;
    if (recvcount < 0 || recvbuf == MPI_IN_PLACE) return 0;
    if (!vred_front_begin_bytes(&a, comm, recvtype, &rbytes, &rpacked)) return 0;
    a.count = (size_t)recvcount * rbytes; /* bytes of one block: the same on every rank */
    int ok = rpacked && (a.count == 0 || recvbuf);
    if (!inplace) {
        /* The send side must be packed too and hold exactly one block. */
        size_t ssize = sendcount >= 0 ? vred_front_packed_size(sendtype) : 0;
        ok = ok && ssize && (size_t)sendcount * ssize == a.count && (a.count == 0 || sendbuf);
    }
    a.rbuf = recvbuf;
    a.sbuf = inplace ? vred_at(recvbuf, (size_t)a.rank * a.count, 1) : sendbuf;
    return vred_front_run_agreed(VRED_COLL_ALLGATHER, &a, ok, rc, comm);
}

VRED_MPI_EXPORT int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm)
{
    int rc;
    if (serve(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &rc)) return rc;
    vred_front_passed();
    return vred_next()->Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
VRED_PMPI(Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm),
          (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))

#if MPI_VERSION >= 4
VRED_MPI_EXPORT int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount,
                                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc;
    if (serve(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &rc)) return rc;
    vred_front_passed();
    return vred_next()->Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    comm);
}
VRED_PMPI(Allgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm),
          (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
#endif
