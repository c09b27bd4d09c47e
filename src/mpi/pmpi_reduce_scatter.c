/*
 * MPI_Reduce_scatter_block and MPI_Reduce_scatter (+ _c) through vred's algorithms; see
 * coll_front.h for what passes through. In place, the whole input is in recvbuf and the result
 * goes to its start.
 */
#include <stdlib.h>
#include "coll_front.h"

/* counts: recvcounts (int or MPI_Count, per `wide`), or NULL with `block` for the block form. */
static int serve(const void *sendbuf, void *recvbuf, const void *counts, int wide,
                 MPI_Count block, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int *rc)
{
    vred_coll_args a;
    if (recvbuf == MPI_IN_PLACE || (!counts && block < 0)) return 0;
    if (!vred_front_begin(&a, comm, datatype, op)) return 0;
    size_t *c = a.vc->counts, total = 0; /* the communicator's: no allocation per call */
    for (int i = 0; i < a.size; i++) {
        MPI_Count k = !counts ? block : wide ? ((const MPI_Count *)counts)[i]
                                              : ((const int *)counts)[i];
        if (k < 0) return 0;
        c[i] = (size_t)k;
        total += c[i];
    }
    int served = 0;
    if (!total || ((sendbuf || sendbuf == MPI_IN_PLACE) && (recvbuf || !c[a.rank]))) {
        a.rbuf = recvbuf;
        a.sbuf = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
        a.count = total;
        a.counts = c;
        served = vred_front_run(VRED_COLL_REDUCE_SCATTER, &a, rc, comm);
    }
    return served;
}

VRED_MPI_EXPORT int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int rc;
    if (serve(sendbuf, recvbuf, NULL, 0, recvcount, datatype, op, comm, &rc)) return rc;
    vred_front_passed();
    return vred_next()->Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
}
VRED_PMPI(Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
          (sendbuf, recvbuf, recvcount, datatype, op, comm))

VRED_MPI_EXPORT int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    int rc;
    if (recvcounts && serve(sendbuf, recvbuf, recvcounts, 0, 0, datatype, op, comm, &rc))
        return rc;
    vred_front_passed();
    return vred_next()->Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
}
VRED_PMPI(Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
          (sendbuf, recvbuf, recvcounts, datatype, op, comm))

#if MPI_VERSION >= 4
VRED_MPI_EXPORT int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf,
                                               MPI_Count recvcount, MPI_Datatype datatype,
                                               MPI_Op op, MPI_Comm comm)
{
    int rc;
    if (serve(sendbuf, recvbuf, NULL, 0, recvcount, datatype, op, comm, &rc)) return rc;
    vred_front_passed();
    return vred_next()->Reduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype, op, comm);
}
VRED_PMPI(Reduce_scatter_block_c, (const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
          (sendbuf, recvbuf, recvcount, datatype, op, comm))

VRED_MPI_EXPORT int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf,
                                         const MPI_Count recvcounts[], MPI_Datatype datatype,
                                         MPI_Op op, MPI_Comm comm)
{
    int rc;
    if (recvcounts && serve(sendbuf, recvbuf, recvcounts, 1, 0, datatype, op, comm, &rc))
        return rc;
    vred_front_passed();
    return vred_next()->Reduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op, comm);
}
VRED_PMPI(Reduce_scatter_c, (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
          (sendbuf, recvbuf, recvcounts, datatype, op, comm))
#endif
