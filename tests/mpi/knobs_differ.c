/*
 * Ranks run with different VRED_* settings (one set on rank 0 only, as an MPMD launch, a per-rank
 * wrapper script or an environment not exported to a remote host gives): vred must say so and
 * pass every call to the MPI (pmpi_init.c, settings_agree), where each rank deciding from its own
 * settings hung MPI_Init (VRED_THREADS, VRED_DISABLE), the first collective (VRED_SOCKETS,
 * VRED_SHM) or gave wrong bytes (VRED_SHM_CELL, VRED_SHM_SLICE: the ranks' banks cut apart).
 * Run by knobs_differ.sh: an allreduce of COUNT floats, a bcast of COUNT bytes from the last
 * rank and an allgather of COUNT / size bytes per rank, a few times each, every result against
 * the MPI's own; prints which algorithm served the allreduce (the script expects "mpi" where the
 * settings differ and vred's where they do not).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VRED_MPI_WEAK
#include "vred_mpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : (size_t)1 << 20, blk = n / (size_t)size;
    float *s = malloc(n * sizeof *s), *r = malloc(n * sizeof *r), *w = malloc(n * sizeof *w);
    unsigned char *b = malloc(n), *g = malloc(blk * (size_t)size), *h = malloc(blk * (size_t)size);
    /* Values whose sums round: an element summed from another bank's bytes shows. */
    for (size_t i = 0; i < n; i++) s[i] = (float)(i % 1000) * 1e-3f + (float)rank * 1.7f;
    const char *served = "?";
    for (int call = 0; call < 5; call++) {
        memset(r, 0, n * sizeof *r);
        MPI_Allreduce(s, r, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        if (vred_mpi_last_alg) served = vred_mpi_last_alg();
        PMPI_Allreduce(s, w, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        bad += memcmp(r, w, n * sizeof *r) != 0;
        for (size_t i = 0; i < n; i++)
            b[i] = rank == size - 1 ? (unsigned char)(i * 7 + (size_t)call) : 0;
        MPI_Bcast(b, (int)n, MPI_BYTE, size - 1, MPI_COMM_WORLD);
        for (size_t i = 0; i < n; i++) bad += b[i] != (unsigned char)(i * 7 + (size_t)call);
        for (size_t i = 0; i < blk; i++) b[i] = (unsigned char)(i * 3 + (size_t)rank + (size_t)call);
        MPI_Allgather(b, (int)blk, MPI_BYTE, g, (int)blk, MPI_BYTE, MPI_COMM_WORLD);
        PMPI_Allgather(b, (int)blk, MPI_BYTE, h, (int)blk, MPI_BYTE, MPI_COMM_WORLD);
        bad += memcmp(g, h, blk * (size_t)size) != 0;
    }
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("knobs_differ: %d ranks, %zu floats: %d wrong results; allreduce served by %s\n",
               size, n, all, served);
    free(s), free(r), free(w), free(b), free(g), free(h);
    MPI_Finalize();
    return all != 0;
}
