/* MPI_Allgather (+ _c) through vred's algorithms; see coll_front.h for what passes through.
 * vred moves bytes: each rank's block is recvcount * size(recvtype) bytes on every rank (the
 * MPI's type-signature rule), and a rank can be served when its send and receive layouts are
 * packed (or the send is MPI_IN_PLACE, the block already in the receive buffer). VRED_STATS
 * counts one block's bytes, the size vred selects by. */
#include "mpi/coll_front.h"

static int serve(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, int *rc)
{
    vred_coll_args a;
    size_t rbytes;
    int rpacked, inplace = sendbuf == MPI_IN_PLACE;
    if (recvcount < 0) return vred_pass(VRED_WHY_INVALID_ARG);
    if (recvbuf == MPI_IN_PLACE) return vred_pass(VRED_WHY_IN_PLACE);
    if (!vred_front_begin_bytes(&a, comm, recvtype, &rbytes, &rpacked)) return 0;
    a.count = (size_t)recvcount * rbytes; /* bytes of one block: the same on every rank */
    int ok = rpacked && (a.count == 0 || recvbuf);
    if (!ok) { /* why, should the ranks agree to pass the call on (and below) */
        if (rpacked) vred_pass(VRED_WHY_INVALID_ARG);
        else vred_pass_type(recvtype);
    }
    if (!inplace && ok) {
        /* The send side must be packed too and hold exactly one block. */
        size_t ssize = sendcount >= 0 ? vred_front_packed_size(sendtype, a.comm) : 0;
        ok = ssize && (size_t)sendcount * ssize == a.count && (a.count == 0 || sendbuf);
        if (!ok && sendcount >= 0 && !ssize) vred_pass_type(sendtype);
        else if (!ok) vred_pass(VRED_WHY_INVALID_ARG);
    }
    a.rbuf = recvbuf;
    a.sbuf = inplace ? vred_at(recvbuf, (size_t)a.rank * a.count, 1) : sendbuf;
    return vred_front_run_agreed(VRED_COLL_ALLGATHER, &a, ok, rc, comm);
}

/* The C binding's two forms (int counts, and MPI-4's MPI_Count ones) differ only in the count
 * type: one front each, from this macro. */
#define VRED_ALLGATHER_FRONT(NAME, CT)                                                              \
    VRED_API int MPI_##NAME(const void *sendbuf, CT sendcount, MPI_Datatype sendtype,               \
                            void *recvbuf, CT recvcount, MPI_Datatype recvtype, MPI_Comm comm)      \
    {                                                                                               \
        VRED_FRONT_BODY(                                                                            \
            VRED_SC_ALLGATHER,                                                                      \
            /* the selection goes by the block's bytes, the receive side's */                       \
            vred_front_known_pass(VRED_COLL_ALLGATHER, comm, recvtype, recvcount),                  \
            serve(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &rc),           \
            vred_next()->NAME(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),    \
            vred_stats_bytes(recvcount, recvtype))                                                  \
    }                                                                                               \
    VRED_PMPI(NAME,                                                                                 \
              (const void *sendbuf, CT sendcount, MPI_Datatype sendtype, void *recvbuf,             \
               CT recvcount, MPI_Datatype recvtype, MPI_Comm comm),                                 \
              (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))

VRED_ALLGATHER_FRONT(Allgather, int)
#if MPI_VERSION >= 4
VRED_ALLGATHER_FRONT(Allgather_c, MPI_Count)
#endif
