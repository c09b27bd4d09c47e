/*
 * VRED_STATS: what libvred-mpi did with each call. Every front counts a call once, under its
 * collective and size class, as served by one of vred's algorithms or passed to the MPI with
 * the reason why; with the bytes and the time it took. Printed at MPI_Finalize as `vred-stats`
 * lines (stats.c), readable through vred_mpi_stats() (include/vred_mpi.h).
 *
 * Off (the default), a front pays one predictable branch on vred_stats_on per call; the
 * pass-through paths pay one more before they note a reason (vred_pass). On, a call costs two
 * clock reads and three relaxed atomic adds (thread-safe under MPI_THREAD_MULTIPLE).
 */
#ifndef VRED_MPI_STATS_H
#define VRED_MPI_STATS_H

#include <stdint.h>
#include <time.h>
#include <mpi.h>
#include "config.h"

/* The collectives as counted: MPI_Exscan apart from MPI_Scan (one algorithm knob, two calls),
 * MPI_Reduce_scatter and _block together. */
typedef enum {
    VRED_SC_REDUCE, VRED_SC_ALLREDUCE, VRED_SC_REDUCE_SCATTER, VRED_SC_SCAN, VRED_SC_EXSCAN,
    VRED_SC_BCAST, VRED_SC_ALLGATHER, VRED_SC_REDUCE_LOCAL,
    VRED_SC_COUNT
} vred_stats_coll;

/*
 * Why a call went to the MPI: (enum suffix, printed name), in the order a front tests them
 * (docs/collectives.md has the table):
 *   unknown           a pass no front explained: a bug (the tests check that none appears)
 *   disabled          VRED_DISABLE=1 (whatever else holds)
 *   not-initialized   before MPI_Init or after MPI_Finalize
 *   invalid-arg       erroneous: count < 0, a null buffer, a bad root, MPI_COMM_NULL ...
 *   in-place          MPI_IN_PLACE where the call does not allow it
 *   user-op           not a predefined op vred has (MPI_Op_create; MPI_REPLACE, MPI_NO_OP)
 *   derived-type      a derived datatype, even a contiguous one
 *   unsupported-type  a predefined datatype vred has no kernel or layout for (MPI_PACKED;
 *                     bcast, allgather: one with holes, MPI_DOUBLE_INT)
 *   unsupported-pair  a predefined op and datatype vred does not serve together
 *   intercomm         an intercommunicator
 *   comm-unavailable  vred could not make its state for the communicator
 *   forced            VRED_<COLL>_ALG=mpi or vred_mpi_force(coll, "mpi")
 *   measured-faster   the automatic choice: the MPI measured faster at this size class on this
 *                     machine (VRED_LEARN)
 *   below-threshold   the automatic choice, below the model's mpi_min_bytes for the collective
 *   shm-off, one-per-node, multi-node, no-shm
 *                     the collective's algorithms (bcast, allgather) need shared memory, and
 *                     VRED_SHM=off / no node holds two of the communicator's ranks / the
 *                     communicator spans nodes (allgather) / the region could not be made
 *   other-rank        bcast, allgather: this rank could be served, another could not
 */
#define VRED_WHY_LIST(X)                                                                        \
    X(UNKNOWN, "unknown") X(DISABLED, "disabled") X(NOT_INITIALIZED, "not-initialized")         \
    X(INVALID_ARG, "invalid-arg") X(IN_PLACE, "in-place") X(USER_OP, "user-op")                 \
    X(DERIVED_TYPE, "derived-type") X(UNSUPPORTED_TYPE, "unsupported-type")                     \
    X(UNSUPPORTED_PAIR, "unsupported-pair") X(INTERCOMM, "intercomm")                           \
    X(COMM_UNAVAILABLE, "comm-unavailable") X(FORCED, "forced")                                 \
    X(MEASURED_FASTER, "measured-faster") X(BELOW_THRESHOLD, "below-threshold")                 \
    X(SHM_OFF, "shm-off") X(ONE_PER_NODE, "one-per-node")                                       \
    X(MULTI_NODE, "multi-node") X(NO_SHM, "no-shm") X(OTHER_RANK, "other-rank")

typedef enum {
#define VRED_WHY_ENUM(id, name) VRED_WHY_##id,
    VRED_WHY_LIST(VRED_WHY_ENUM)
#undef VRED_WHY_ENUM
    VRED_WHY_COUNT
} vred_why;

/* VRED_STATS, read at load: a vred_stats_mode (config.h), 0 = off. */
extern int vred_stats_on;

static inline uint64_t vred_stats_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* This thread's reason for the call in progress (counting only). */
void vred_stats_set_why(vred_why why);

/* `return vred_pass(why);` in a front's serve(): 0 (the MPI serves), the reason noted. */
static inline int vred_pass(vred_why why)
{
    if (__builtin_expect(vred_stats_on != 0, 0)) vred_stats_set_why(why);
    return 0;
}

/* The same, with the reason worked out (counting only): datatype not usable as bytes (derived,
 * unsupported, or invalid); (datatype, op) not in the handle tables; comm not served. */
int vred_pass_type(MPI_Datatype datatype);
int vred_pass_unmapped(MPI_Datatype datatype, MPI_Op op);
int vred_pass_comm(MPI_Comm comm);

/* count elements of datatype in bytes (MPI_Type_size_x); 0 if either is not valid. */
uint64_t vred_stats_bytes(MPI_Count count, MPI_Datatype datatype);

/* Count a call that started at t0: served by slot (a vred_alg; MPI_Reduce_local: the vred_isa
 * of its kernel), or passed to the MPI for this thread's noted reason. */
void vred_stats_served(vred_stats_coll coll, int slot, uint64_t bytes, uint64_t t0);
void vred_stats_passed(vred_stats_coll coll, uint64_t bytes, uint64_t t0);

/* From MPI_Finalize, before the MPI's: print the summary (collective over MPI_COMM_WORLD for
 * VRED_STATS=gather and sum). */
void vred_stats_finalize(void);

#endif
