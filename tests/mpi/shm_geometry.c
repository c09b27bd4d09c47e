/*
 * Ranks whose own view of the node's region differs (VRED_SHM_SLICE set for one rank only, as
 * an MPMD launch or a per-rank wrapper script does; hwloc showing processes in different cgroups
 * different L2 caches): every rank must take the creator's geometry. Computed apart, the rank
 * with the smaller region placed its second bank elsewhere, the sums came out wrong and the
 * next call hung. Run by shm_geometry.sh: allreduce of COUNT floats (forced to the region's
 * algorithm through VRED_ALLREDUCE_ALG) a few times, each against the MPI's own result.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : (size_t)1 << 20;
    float *s = malloc(n * sizeof *s), *r = malloc(n * sizeof *r), *w = malloc(n * sizeof *w);
    /* Values whose sums round: an element summed from another bank's bytes shows. */
    for (size_t i = 0; i < n; i++) s[i] = (float)(i % 1000) * 1e-3f + (float)rank * 1.7f;
    for (int call = 0; call < 5; call++) {
        memset(r, 0, n * sizeof *r);
        MPI_Allreduce(s, r, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Allreduce(s, w, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        if (memcmp(r, w, n * sizeof *r)) bad++;
    }
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("shm_geometry: %d ranks, %zu floats: %d wrong results\n", size, n, all);
    free(s), free(r), free(w);
    MPI_Finalize();
    return all != 0;
}
