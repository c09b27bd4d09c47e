/*
 * MPI_Reduce_scatter_block and MPI_Reduce_scatter (+ _c) through vred's algorithms; see
 * coll_front.h for what passes through. In place, the whole input is in recvbuf and the result
 * goes to its start.
 */
#include <stdlib.h>
#include "mpi/coll_front.h"

/* counts: recvcounts (int or MPI_Count, per `wide`), or NULL with `block` for the block form. */
static int serve(const void *sendbuf, void *recvbuf, const void *counts, int wide,
                 MPI_Count block, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int *rc)
{
    vred_coll_args a;
    /* The state first, as in every front (pmpi_scan.c says why), the arguments after. */
    if (!counts && block < 0) return vred_pass(VRED_WHY_INVALID_ARG);
    /* The counts of the other form are no key (the block form's: VRED_FRONT_BODY's). */
    if (counts) vred_front_no_pass_key();
    if (!vred_front_begin(&a, comm, datatype, op)) return 0;
    if (recvbuf == MPI_IN_PLACE) return vred_pass(VRED_WHY_IN_PLACE);
    size_t *c = a.vc->counts, total = 0; /* the communicator's: no allocation per call */
    for (int i = 0; i < a.size; i++) {
        MPI_Count k = !counts ? block : wide ? ((const MPI_Count *)counts)[i]
                                              : ((const int *)counts)[i];
        if (k < 0) return vred_pass(VRED_WHY_INVALID_ARG);
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
    } else {
        vred_pass(VRED_WHY_INVALID_ARG);
    }
    return served;
}

/* A call with a null recvcounts (erroneous) goes to the MPI. */
static int serve_v(const void *sendbuf, void *recvbuf, const void *counts, int wide,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int *rc)
{
    if (!counts) return vred_pass(VRED_WHY_INVALID_ARG);
    return serve(sendbuf, recvbuf, counts, wide, 0, datatype, op, comm, rc);
}

/* VRED_STATS: the bytes of the whole input (the size vred selects by), recvcounts summed over
 * the communicator's ranks; the block form has comm size blocks. */
static uint64_t input_bytes(const void *counts, int wide, MPI_Count block, MPI_Datatype datatype,
                            MPI_Comm comm)
{
    int p = 0;
    MPI_Count total = 0;
    if (PMPI_Comm_size(comm, &p) != MPI_SUCCESS) return 0;
    for (int i = 0; i < p; i++)
        total += !counts ? block : wide ? ((const MPI_Count *)counts)[i] : ((const int *)counts)[i];
    return vred_stats_bytes(total, datatype);
}

/* The C binding's two forms (int counts, and MPI-4's MPI_Count ones) differ only in the count
 * type: one front each, from this macro. */
#define VRED_REDUCE_SCATTER_BLOCK_FRONT(NAME, CT)                                                   \
    VRED_API int MPI_##NAME(const void *sendbuf, void *recvbuf, CT recvcount,                       \
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)                        \
    {                                                                                               \
        /* The selection goes by the bytes alone, recvcount times the communicator's size. */     \
        VRED_FRONT_BODY(VRED_SC_REDUCE_SCATTER,                                                     \
                        vred_front_known_pass(VRED_COLL_REDUCE_SCATTER, comm, datatype, recvcount), \
                        serve(sendbuf, recvbuf, NULL, 0, recvcount, datatype, op, comm, &rc),       \
                        vred_next()->NAME(sendbuf, recvbuf, recvcount, datatype, op, comm),         \
                        input_bytes(NULL, 0, recvcount, datatype, comm))                            \
    }                                                                                               \
    VRED_PMPI(NAME,                                                                                 \
              (const void *sendbuf, void *recvbuf, CT recvcount, MPI_Datatype datatype,             \
               MPI_Op op, MPI_Comm comm),                                                           \
              (sendbuf, recvbuf, recvcount, datatype, op, comm))

/* WIDE: 1 where the counts are MPI_Count (serve_v and input_bytes read the array by it). */
#define VRED_REDUCE_SCATTER_FRONT(NAME, CT, WIDE)                                                   \
    VRED_API int MPI_##NAME(const void *sendbuf, void *recvbuf, const CT recvcounts[],              \
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)                        \
    {                                                                                               \
        VRED_FRONT_BODY(VRED_SC_REDUCE_SCATTER, 0,                                                  \
                        serve_v(sendbuf, recvbuf, recvcounts, WIDE, datatype, op, comm, &rc),       \
                        vred_next()->NAME(sendbuf, recvbuf, recvcounts, datatype, op, comm),        \
                        input_bytes(recvcounts, WIDE, 0, datatype, comm))                           \
    }                                                                                               \
    VRED_PMPI(NAME,                                                                                 \
              (const void *sendbuf, void *recvbuf, const CT recvcounts[], MPI_Datatype datatype,    \
               MPI_Op op, MPI_Comm comm),                                                           \
              (sendbuf, recvbuf, recvcounts, datatype, op, comm))

VRED_REDUCE_SCATTER_BLOCK_FRONT(Reduce_scatter_block, int)
VRED_REDUCE_SCATTER_FRONT(Reduce_scatter, int, 0)
#if MPI_VERSION >= 4
VRED_REDUCE_SCATTER_BLOCK_FRONT(Reduce_scatter_block_c, MPI_Count)
VRED_REDUCE_SCATTER_FRONT(Reduce_scatter_c, MPI_Count, 1)
#endif
