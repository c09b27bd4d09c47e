/*
 * vred-bench coll / tune: the reduction collectives, bcast and allgather, vred's algorithms (MPI_X
 * after vred_mpi_force, optionally under a forced copy mode, vred_mpi_nt) against the MPI
 * library's own (PMPI_X), timed OSU style on every rank: by default calls back to back (a barrier
 * per batch of calls), with barrier_each a barrier before every call.
 */
#ifndef VRED_BENCH_COLL_H
#define VRED_BENCH_COLL_H

#include <mpi.h>
#include <stddef.h>

/* libvred-mpi.so's extension API (vred_mpi_force, vred_mpi_last_alg, vred_mpi_predict,
 * vred_mpi_nt), weak: without it (vred-bench built against the plain libvred) they are NULL and
 * only the MPI library's column is measured. */
#define VRED_MPI_WEAK
#include "vred_mpi.h"

/* The collectives the benchmark knows. */
typedef enum { BC_ALLREDUCE, BC_REDUCE, BC_RSB, BC_SCAN, BC_BCAST, BC_ALLGATHER, BC_REDUCE_LOCAL, BC_COUNT } bc_coll;

extern const char *const bc_names[BC_COUNT];    /* allreduce, reduce, reduce_scatter_block, ... */
extern const char *const bc_vnames[BC_COUNT];   /* vred's name for vred_mpi_force, or NULL */
extern const char *const bc_algs[BC_COUNT];     /* the algorithms each has, "auto" first */

/* 1 (the MPI) + up to 7 algorithms x 3 copy modes (--nt off,on,auto), with room to spare. */
#define BC_MAX_IMPL 32

/* One (collective, size) measurement: impl 0 is the MPI library (PMPI_X), impls 1.. are vred
 * algorithms forced by name ("auto" included; "mpi" is the MPI library too). Every rank calls
 * with the same arguments. Each impl may have buffers of its own (sbufs/rbufs: vred-bench
 * offsets runs one algorithm at several buffer offsets as its impls). */
typedef struct bc_run {
    bc_coll coll;
    MPI_Comm comm;
    MPI_Datatype dt;
    MPI_Op op;
    size_t esize;
    size_t count;              /* elements of the whole vector per rank (allgather: of the result;
                                  each rank contributes count / p) */
    int nimpl;                 /* 1 + number of algorithms */
    const char *alg[BC_MAX_IMPL]; /* NULL or "mpi": the MPI library (PMPI_X); alg[0] NULL by default */
    const char *nt[BC_MAX_IMPL];  /* vred_mpi_nt mode for the impl's calls; NULL: leave it alone */
    int barrier_each;          /* 1: a barrier before every timed call (--sync barrier); 0 (the
                                  default): one barrier per batch, then its calls back to back */
    int reps;                  /* rounds wanted (fewer for long calls, at least 5) */
    int min_rounds;            /* at least this many rounds however long the calls (0: 5) */
    double budget;             /* seconds for the whole measurement (roughly) */
    const void *sbuf;          /* count elements */
    void *rbuf;                /* count elements */
    const void *sbufs[BC_MAX_IMPL]; /* an impl's own buffers, where set; else sbuf and rbuf */
    void *rbufs[BC_MAX_IMPL];
    void (*before)(const struct bc_run *r, int impl); /* where set, called before each batch of
                                                         impl's calls, untimed (restores inputs) */
    void *ctx;                 /* for before */
    /* results (the same on every rank) */
    double med[BC_MAX_IMPL], min[BC_MAX_IMPL]; /* seconds per call */
    double paired[BC_MAX_IMPL]; /* median over the rounds of impl 0's time / this impl's, each
                                   round's pair measured seconds apart: slow spells of the
                                   machine that last a round cancel out */
    int rounds, iters;          /* rounds, calls of each implementation in all */
    char served[BC_MAX_IMPL][16];             /* vred_mpi_last_alg after the impl's calls */
} bc_run;

/* Elements of the receive block of rsb, of the send block of allgather: count / p. */
int bc_rcount(const bc_run *r);
/* Runs the measurement; 0, or -1 if the collective cannot run at this size. */
int bc_measure(bc_run *r);
/* Integer-valued test data: rank's input, with that fraction of elements zero. */
void bc_fill(void *buf, MPI_Datatype dt, MPI_Op op, size_t count, unsigned seed, double sparsity);

double bc_now(void);

/* Option parsing shared by the subcommands: a type name (f32, f64, i32, i64, u8) and an op name
 * (sum, max, min, prod), 1 if known; whether name is in the comma-separated list; a list split
 * into at most max names. */
int bc_type_of(const char *name, MPI_Datatype *dt, size_t *esize);
int bc_op_of(const char *name, MPI_Op *op);
int bc_in_list(const char *list, const char *name);
int bc_split(const char *spec, char out[][32], int max);

/* Whether impl i is one of vred's (MPI_X) rather than the MPI library's (PMPI_X). */
int bc_is_vred(const bc_run *r, int i);

int cmd_coll(int argc, char **argv);
int cmd_offsets(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_scalar(int argc, char **argv);

#endif
