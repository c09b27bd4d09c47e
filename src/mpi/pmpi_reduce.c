/* MPI_Reduce (+ _c) through vred's algorithms; see coll_front.h for what passes through. */
#include "mpi/coll_front.h"

static int serve(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm, int *rc)
{
    vred_coll_args a;
    if (count < 0) return vred_pass(VRED_WHY_INVALID_ARG);
    if (!vred_front_begin(&a, comm, datatype, op)) return 0;
    if (root < 0 || root >= a.size) return vred_pass(VRED_WHY_INVALID_ARG);
    int at_root = a.rank == root;
    /* MPI_IN_PLACE is the root's send buffer only; the receive buffer matters at the root only. */
    if ((at_root && recvbuf == MPI_IN_PLACE) || (!at_root && sendbuf == MPI_IN_PLACE))
        return vred_pass(VRED_WHY_IN_PLACE);
    if (count > 0 && (!sendbuf || (at_root && !recvbuf))) return vred_pass(VRED_WHY_INVALID_ARG);
    a.rbuf = at_root ? recvbuf : NULL;
    a.sbuf = at_root && sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    a.count = (size_t)count;
    a.root = root;
    return vred_front_run(VRED_COLL_REDUCE, &a, rc, comm);
}

/* The C binding's two forms (int counts, and MPI-4's MPI_Count ones) differ only in the count
 * type: one front each, from this macro. */
#define VRED_REDUCE_FRONT(NAME, CT)                                                                 \
    VRED_API int MPI_##NAME(const void *sendbuf, void *recvbuf, CT count, MPI_Datatype datatype,    \
                            MPI_Op op, int root, MPI_Comm comm)                                     \
    {                                                                                               \
        /* The selection goes by the bytes alone (not the op nor the root). */                      \
        VRED_FRONT_BODY(VRED_SC_REDUCE,                                                             \
                        vred_front_known_pass(VRED_COLL_REDUCE, comm, datatype, count),             \
                        serve(sendbuf, recvbuf, count, datatype, op, root, comm, &rc),              \
                        vred_next()->NAME(sendbuf, recvbuf, count, datatype, op, root, comm),       \
                        vred_stats_bytes(count, datatype))                                          \
    }                                                                                               \
    VRED_PMPI(NAME,                                                                                 \
              (const void *sendbuf, void *recvbuf, CT count, MPI_Datatype datatype, MPI_Op op,      \
               int root, MPI_Comm comm),                                                            \
              (sendbuf, recvbuf, count, datatype, op, root, comm))

VRED_REDUCE_FRONT(Reduce, int)
#if MPI_VERSION >= 4
VRED_REDUCE_FRONT(Reduce_c, MPI_Count)
#endif
