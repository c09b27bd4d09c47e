/*
 * Arguments that are legal on one rank and look odd to a naive check, where a rank that passed
 * the call to the MPI while the others ran vred's algorithm would hang them:
 *   - MPI_Exscan with a null receive buffer at rank 0 (not significant there);
 *   - MPI_Reduce_scatter with a zero count and a null receive buffer on one rank;
 *   - MPI_Reduce with a null receive buffer at every non-root;
 *   - MPI_Bcast received at MPI_BOTTOM with a struct datatype of absolute addresses (the root
 *     sends n MPI_INT from its buffer): a small one's root does not wait (shm/small.c), so such a
 *     receiver must be served by unpacking, not refused for its null buffer.
 * Each under every algorithm vred has, compared with the MPI's result. Run on 3+ ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libvred-mpi.so's extension API, weak: null when the MPI runs alone. */
#define VRED_MPI_WEAK
#include "vred_mpi.h"

static int failures;

static void check(const char *what, const char *alg, const int *got, const int *want, int n,
                  int rank)
{
    if (memcmp(got, want, (size_t)n * sizeof *got)) {
        printf("FAIL rank %d: %s alg=%s\n", rank, what, alg);
        failures++;
    }
}

static void force(const char *coll, const char *alg)
{
    if (vred_mpi_force && vred_mpi_force(coll, alg)) {
        printf("vred_mpi_force(%s, %s) refused\n", coll, alg);
        failures++;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    enum { N = 70000 }; /* several segments' worth at the largest counts below */
    int *in = malloc((size_t)N * p * sizeof *in), *got = malloc((size_t)N * p * sizeof *got);
    int *want = malloc((size_t)N * p * sizeof *want);
    for (int i = 0; i < N * p; i++) in[i] = i * 7 + rank * 13;

    const char *scan_algs[] = {"auto", "recdbl"};
    for (int k = 0; k < 2; k++) {
        force("scan", scan_algs[k]);
        memset(got, 0, (size_t)N * sizeof *got);
        MPI_Exscan(in, rank ? got : NULL, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Exscan(in, want, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank) check("exscan, null recvbuf at rank 0", scan_algs[k], got, want, N, rank);
    }

    const char *algs[] = {"auto", "binomial", "redscat", "ring"};
    int *counts = malloc((size_t)p * sizeof *counts);
    for (int i = 0; i < p; i++) counts[i] = i == 1 ? 0 : N;
    for (int k = 0; k < 4; k++) {
        force("reduce_scatter", algs[k]);
        memset(got, 0, (size_t)N * sizeof *got);
        MPI_Reduce_scatter(in, rank == 1 ? NULL : got, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        PMPI_Reduce_scatter(in, want, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check("reduce_scatter, zero count and null recvbuf on rank 1", algs[k], got, want,
              counts[rank], rank);

        force("reduce", algs[k]);
        int root = p - 1;
        memset(got, 0, (size_t)N * sizeof *got);
        MPI_Reduce(in, rank == root ? got : NULL, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        PMPI_Reduce(in, want, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        if (rank == root) check("reduce, null recvbuf at non-roots", algs[k], got, want, N, rank);
    }
    const char *bcast_algs[] = {"auto", "pipe", "cma", "mpi"};
    enum { NB = 64 }; /* a one-step bcast: a few hundred bytes */
    for (int k = 0; k < 4; k++) {
        force("bcast", bcast_algs[k]);
        int root = p - 1;
        for (int i = 0; i < NB; i++) got[i] = rank == root ? i * 3 + 1 : -1;
        MPI_Bcast(got, NB, MPI_INT, root, MPI_COMM_WORLD); /* the node's region made */
        for (int i = 0; i < NB; i++) got[i] = rank == root ? i * 5 + 2 : -1;
        int rc;
        if (rank == root) {
            rc = MPI_Bcast(got, NB, MPI_INT, root, MPI_COMM_WORLD);
        } else {
            MPI_Aint at;
            MPI_Get_address(got, &at);
            int len = NB;
            MPI_Datatype abs_type, ints = MPI_INT;
            MPI_Type_create_struct(1, &len, &at, &ints, &abs_type);
            MPI_Type_commit(&abs_type);
            rc = MPI_Bcast(MPI_BOTTOM, 1, abs_type, root, MPI_COMM_WORLD);
            MPI_Type_free(&abs_type);
        }
        for (int i = 0; i < NB; i++) want[i] = i * 5 + 2;
        if (rc != MPI_SUCCESS) {
            printf("FAIL rank %d: bcast to MPI_BOTTOM alg=%s returned %d\n", rank,
                   bcast_algs[k], rc);
            failures++;
        } else {
            check("bcast to MPI_BOTTOM with absolute addresses", bcast_algs[k], got, want, NB,
                  rank);
        }
    }
    force("scan", "auto");
    force("reduce_scatter", "auto");
    force("reduce", "auto");
    force("bcast", "auto");

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("coll_edge: %d ranks, %d failures\n", p, all);
    free(in), free(got), free(want), free(counts);
    MPI_Finalize();
    return all != 0;
}
