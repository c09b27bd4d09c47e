/* tests/mpi/bad_input*.c: the collectives vred intercepts, their arguments and the cases. */
#ifndef VRED_TESTS_BAD_INPUT_H
#define VRED_TESTS_BAD_INPUT_H

#include <stddef.h>
#include <mpi.h>

/* Each collective vred intercepts (MPI_Reduce_local: tests/mpi/errors.c), as a field of bi_api. */
#if MPI_VERSION >= 4
#define BI_FUNCTIONS_C                                                                          \
    BI_FN(Allreduce_c, allreduce_c) BI_FN(Reduce_c, reduce_c)                                   \
    BI_FN(Reduce_scatter_block_c, rsb_c) BI_FN(Reduce_scatter_c, rs_c) BI_FN(Scan_c, scan_c)    \
    BI_FN(Exscan_c, exscan_c) BI_FN(Bcast_c, bcast_c) BI_FN(Allgather_c, allgather_c)
#else
#define BI_FUNCTIONS_C
#endif
#define BI_FUNCTIONS                                                                            \
    BI_FN(Allreduce, allreduce) BI_FN(Reduce, reduce) BI_FN(Reduce_scatter_block, rsb)          \
    BI_FN(Reduce_scatter, rs) BI_FN(Scan, scan) BI_FN(Exscan, exscan) BI_FN(Bcast, bcast)       \
    BI_FN(Allgather, allgather) BI_FUNCTIONS_C

typedef struct {
#define BI_FN(name, field) __typeof__(&MPI_##name) field;
    BI_FUNCTIONS
#undef BI_FN
} bi_api;

/* Collective indices (bit i of bi_case.colls); the _c variants follow the int ones. */
enum { BI_ALLREDUCE, BI_REDUCE, BI_RSB, BI_RS, BI_SCAN, BI_EXSCAN, BI_BCAST, BI_ALLGATHER,
       BI_NBASE };
#if MPI_VERSION >= 4
#define BI_NCOLL (2 * BI_NBASE)
#else
#define BI_NCOLL BI_NBASE
#endif
extern const char *const bi_coll_name[2 * BI_NBASE];

#define BI_BIT(c) (1u << (c) | 1u << ((c) + BI_NBASE))
#define BI_REDUCTIONS                                                                           \
    (BI_BIT(BI_ALLREDUCE) | BI_BIT(BI_REDUCE) | BI_BIT(BI_RSB) | BI_BIT(BI_RS) |                \
     BI_BIT(BI_SCAN) | BI_BIT(BI_EXSCAN))
#define BI_ALL (BI_REDUCTIONS | BI_BIT(BI_BCAST) | BI_BIT(BI_ALLGATHER))

/* One call's arguments. count is the recvcount of the block forms and of allgather. */
typedef struct {
    void *sbuf, *rbuf;       /* as passed: may be NULL or MPI_IN_PLACE */
    void *smem, *rmem;       /* the allocations */
    size_t rbytes;           /* of rmem, compared after a successful call */
    MPI_Count count, scount; /* scount: allgather's sendcount */
    MPI_Datatype dt, sdt;    /* sdt: allgather's sendtype */
    MPI_Op op;
    int root;
    MPI_Comm comm;
    int *counts;       /* reduce_scatter's recvcounts as passed (may be NULL) */
    MPI_Count *ccounts; /* the same for the _c variant */
} bi_args;

/* A valid call vred serves (MPI_INT, MPI_SUM, a count large enough, root the last rank). */
void bi_args_valid(bi_args *a, int coll, MPI_Comm comm, int rank, int nprocs);
void bi_args_free(bi_args *a);
int bi_call(const bi_api *api, int coll, const bi_args *a);
unsigned long bi_sum(const bi_args *a);

typedef struct {
    const char *name;
    unsigned colls; /* the collectives it applies to (BI_BIT) */
    int must_fail;  /* erroneous by the standard (an MPI may still accept it) */
    int isolate;    /* an MPI may crash or hang on it: one launch each (bad_input.sh) */
    void (*edit)(bi_args *a, int coll, int rank, int nprocs);
    int contiguous; /* valid through a contiguous derived type: vred may serve it (bcast and
                       allgather move its bytes), with the MPI's result; the other valid cases are
                       the MPI's */
} bi_case;

extern const bi_case bi_cases[];
extern const int bi_ncases;
void bi_cases_init(void); /* the user ops and derived types */
void bi_cases_free(void);

/* --roots: mismatched roots (bad_input_roots.c). */
int bi_roots(int argc, char **argv, const bi_api *vred, const bi_api *mpi);

/* --counts vred: mismatched counts in bcasts, allgathers and allreduces between valid ones
 * (bad_input_counts.c). */
int bi_counts(const bi_api *vred);

/* --deadlock steps|mpi|slow|apart (bad_input_counts.c): ranks that end up waiting for each other
 * for ever, or that run different algorithms (apart): the job must end with vred's message;
 * slow: a slow rank, which must not end it. */
int bi_deadlock(const char *how, const bi_api *vred);

#endif
