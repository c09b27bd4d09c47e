/*
 * Mixed collectives for the soak (soak_mixed.c) and the threads test (threads_multi.c): one call
 * of allreduce, reduce, reduce_scatter_block, bcast or allgather, its kind, operation, type,
 * root and size drawn from a seeded generator that every rank of the communicator advances
 * alike, its result checked exactly (integer types, or doubles holding small integers: sums that
 * are exact in any order).
 */
#ifndef SOAK_MIX_H
#define SOAK_MIX_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>

enum { MIX_COLLS = 5, MIX_ALGS = 10 /* vred's algorithm names, config.c order */ };

typedef struct {
    uint64_t rng;           /* the same sequence on every rank of comm */
    MPI_Comm comm;
    int rank, size;
    size_t max_bytes;       /* largest message of one rank (allgather: of one block) */
    unsigned char *in, *out, *want; /* size * max_bytes each */
    int large;              /* calls in 1000 of the largest sizes (256 KiB to max_bytes) */
    int force;              /* pick an algorithm per call (vred_mpi_force: process-wide, so
                               single-threaded callers only) */
    long calls, mismatches;
    long by_alg[MIX_COLLS][MIX_ALGS]; /* the algorithm that served each call (vred_mpi_last_alg) */
} mix_state;

/* 0, or -1 if the buffers cannot be allocated. */
int mix_init(mix_state *m, MPI_Comm comm, uint64_t seed, size_t max_bytes, int force);
void mix_free(mix_state *m);
/* One random collective on m->comm (collective: every rank calls it), checked; 0 if right. */
int mix_one(mix_state *m);
/* Every collective and every algorithm once at max_bytes: buffers, scratch and the region grow
 * to their final size before a measurement starts. */
void mix_warm(mix_state *m);
/* "collective: alg=n alg=n ..." lines of the algorithms seen. */
void mix_print_algs(const mix_state *m, const char *prefix);

#endif
