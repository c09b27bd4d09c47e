/*
 * vred_mpi.h: the extension API of libvred-mpi.so, the PMPI library (README, "Using it").
 *
 * libvred-mpi.so serves MPI_Reduce_local, MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter(_block),
 * MPI_Scan, MPI_Exscan, MPI_Bcast and MPI_Allgather without any of this: a program needs this
 * header only to steer vred (force an algorithm, the copy mode), to ask it what it did (the
 * algorithm of the last call, the VRED_STATS counts) or what it predicts. It also exports the
 * MPI-free API of vred.h.
 *
 * Link with libvred-mpi.so (before the MPI library), or preload it. A program that should also
 * run without vred defines VRED_MPI_WEAK before including this header: every function below is
 * then declared weak, and is a null pointer when libvred-mpi.so is not there:
 *
 *     #define VRED_MPI_WEAK
 *     #include <vred_mpi.h>
 *     ...
 *     if (vred_mpi_force) vred_mpi_force("allreduce", "ring");
 *
 * Names: the collectives are "reduce", "allreduce", "reduce_scatter" (MPI_Reduce_scatter and
 * _block), "scan" (MPI_Scan and MPI_Exscan), "bcast", "allgather"; the algorithms "binomial",
 * "redscat", "ring", "recdbl", "ma", "dpml", "pipe", plus "mpi" (the MPI library's own) and
 * "auto" (vred's choice): the values of the VRED_<COLL>_ALG knobs, each collective accepting the
 * algorithms it has (README, "Settings").
 */
#ifndef VRED_MPI_H
#define VRED_MPI_H

#include <stddef.h>
#include <mpi.h>
#include "vred.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(VRED_MPI_WEAK) && defined(__GNUC__)
#define VRED_MPI_API VRED_API __attribute__((weak))
#else
#define VRED_MPI_API VRED_API
#endif

/* ---- steering ------------------------------------------------------------------------------ */

/* Serve `collective` with `algorithm` from now on, in this process (over VRED_<COLL>_ALG;
 * "auto" gives the choice back to the environment, then vred's rule table). Every rank of a
 * communicator must force alike before its next call of that collective. An algorithm that
 * cannot run on a communicator (a shared-memory one without a region) falls back to vred's best
 * other one, and the communicator's rank 0 says so on stderr, once per process and collective.
 * 0, or -1 for an unknown collective, an unknown algorithm or one the collective lacks. */
VRED_MPI_API int vred_mpi_force(const char *collective, const char *algorithm);

/* Copies out of shared memory: "auto" (streaming stores when the working set exceeds the cache,
 * the paper's rule), "on" (always streaming), "off" (ordinary stores), or "env" (back to
 * VRED_NT), from now on in this process; for the benchmarks' ablations. Ranks may choose
 * differently: it changes no result. 0, or -1 for an unknown mode. */
VRED_MPI_API int vred_mpi_nt(const char *mode);

/* ---- what vred did --------------------------------------------------------------------------- */

/* The algorithm that served this thread's last reduction collective, bcast or allgather: one of
 * the names above, or "mpi" when the MPI library did (vred passed the call on). Not changed by
 * MPI_Reduce_local. The string is static. */
VRED_MPI_API const char *vred_mpi_last_alg(void);

/* 1 if vred serves (datatype, op) with its own kernels (MPI_Reduce_local, and the reductions
 * when the rest of the call allows; a datatype with holes, such as MPI_DOUBLE_INT, in
 * MPI_Reduce_local only), and then the vred_type and vred_op of vred.h in *type and
 * *vop (either may be NULL); 0 if such calls go to the MPI library. Valid between MPI_Init and
 * MPI_Finalize. */
VRED_MPI_API int vred_mpi_lookup(MPI_Datatype datatype, MPI_Op op, int *type, int *vop);

/*
 * VRED_STATS counts (README, "What did vred do?"). With VRED_STATS set (1, on, gather or sum)
 * every call vred intercepts is counted once, in this process, by collective, size class and
 * what served it; MPI_Finalize prints the counts as `vred-stats` lines. One row:
 */
typedef struct {
    const char *coll;   /* "reduce", "allreduce", "reduce_scatter", "scan", "exscan", "bcast",
                           "allgather", "reduce_local" */
    const char *size;   /* the size class of the calls' bytes: "<4K", "4K-64K", "64K-1M",
                           "1M-16M", ">=16M" (powers of 16; K = 1024) */
    const char *alg;    /* the vred algorithm that served them (MPI_Reduce_local: the ISA of
                           its kernels, "avx512", ...), or "mpi": the MPI library served them */
    const char *reason; /* alg "mpi": why vred passed them on ("user-op", "derived-type",
                           "below-threshold", ...: the table in docs/collectives.md); else NULL */
    unsigned long long calls;
    unsigned long long bytes; /* sum over the calls of count x MPI_Type_size (reduce_scatter:
                                 the whole input; allgather: one rank's block); a call the MPI
                                 returned an error for adds none */
    double seconds;           /* wall time spent in these calls, vred's or the MPI's */
} vred_mpi_stat;

/* Calls fn(row, arg) for every row with calls, in a fixed order (collective, size class,
 * vred's algorithms, then the reasons); the strings live as long as the library. Returns the
 * number of rows, or -1 if VRED_STATS is off (nothing is counted). Thread-safe; a call still in
 * progress in another thread may be missing or partly counted. */
VRED_MPI_API int vred_mpi_stats(void (*fn)(const vred_mpi_stat *row, void *arg), void *arg);

/* Sets every count of this process to zero (to count only a part of a run). */
VRED_MPI_API void vred_mpi_stats_reset(void);

/* ---- the cost model ------------------------------------------------------------------------ */

/* The cost model's prediction, in *seconds, for `algorithm` of `collective` on `bytes` over
 * comm (vred's state for comm is made on first use: collective over comm, as any vred
 * collective). Point-to-point algorithms only. 0, or -1 for an unknown or unmodelled pair, or a
 * communicator vred does not serve. */
VRED_MPI_API int vred_mpi_predict(const char *collective, const char *algorithm, MPI_Comm comm,
                                  size_t bytes, double *seconds);

#ifdef __cplusplus
}
#endif

#endif
