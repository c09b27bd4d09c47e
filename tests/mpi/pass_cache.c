/*
 * The front's memory of calls it passed to the MPI (coll_front.c, vred_front_known_pass): a
 * call the selection passed goes straight to the MPI the next time, until something that can
 * change the selection happens. Here the selection changes between identical calls
 * (vred_mpi_force: the MPI, then a vred algorithm, then the MPI again), each call made twice,
 * and every call must run where the selection says (vred_mpi_last_alg) with the MPI's result.
 * Rank 1 uses another datatype of the same bytes for bcast and allgather (legal: the type
 * signatures match), so the ranks' remembered calls differ while their selections must not.
 * Run on 2 to 64 ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VRED_MPI_WEAK
#include "vred_mpi.h"

enum { N = 4096, ROUNDS = 3 }; /* ints: 16 KiB */

static int rank, size, failures;

static void expect(const char *coll, const char *alg, int call, int same)
{
    const char *got = vred_mpi_last_alg ? vred_mpi_last_alg() : alg;
    if (strcmp(got, alg) != 0) {
        printf("FAIL rank %d: %s call %d forced %s ran %s\n", rank, coll, call, alg, got);
        failures++;
    }
    if (!same) {
        printf("FAIL rank %d: %s call %d (%s): result differs from the MPI's\n", rank, coll,
               call, alg);
        failures++;
    }
}

/* One call of coll through the front (MPI_X) and through the MPI (PMPI_X); 1 if they agree
 * (reduce_scatter: both forms, the block form checked here as call call_no forced to alg). */
static int call(const char *coll, const char *alg, int call_no, int *in, int *out, int *want)
{
    MPI_Comm w = MPI_COMM_WORLD;
    /* Rank 1 sends and receives the same bytes as MPI_BYTE. */
    MPI_Datatype t = rank == 1 ? MPI_BYTE : MPI_INT;
    int k = rank == 1 ? (int)sizeof(int) : 1;
    if (!strcmp(coll, "bcast")) {
        memcpy(out, in, N * sizeof *in);
        memcpy(want, in, N * sizeof *in);
        MPI_Bcast(out, N * k, t, 0, w);
        PMPI_Bcast(want, N * k, t, 0, w);
        return !memcmp(out, want, N * sizeof *out);
    }
    if (!strcmp(coll, "allgather")) {
        MPI_Allgather(in, N / size * k, t, out, N / size * k, t, w);
        PMPI_Allgather(in, N / size * k, t, want, N / size * k, t, w);
        return !memcmp(out, want, (size_t)(N / size * size) * sizeof *out);
    }
    if (!strcmp(coll, "allreduce")) {
        MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, w);
        PMPI_Allreduce(in, want, N, MPI_INT, MPI_SUM, w);
        return !memcmp(out, want, N * sizeof *out);
    }
    if (!strcmp(coll, "reduce_scatter")) {
        /* The block form (remembered), then the same bytes through the counts form (never
         * remembered: its counts are no key), which must not leave the block form's arguments
         * to be remembered in its place. */
        int counts[64], same = 1;
        for (int q = 0; q < size && q < 64; q++) counts[q] = N / size;
        MPI_Reduce_scatter_block(in, out, N / size, MPI_INT, MPI_SUM, w);
        PMPI_Reduce_scatter_block(in, want, N / size, MPI_INT, MPI_SUM, w);
        same &= !memcmp(out, want, (size_t)(N / size) * sizeof *out);
        expect("reduce_scatter_block", alg, call_no, same);
        MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, w);
        PMPI_Reduce_scatter(in, want, counts, MPI_INT, MPI_SUM, w);
        return !memcmp(out, want, (size_t)(N / size) * sizeof *out);
    }
    if (!strcmp(coll, "scan")) {
        MPI_Scan(in, out, N, MPI_INT, MPI_SUM, w);
        PMPI_Scan(in, want, N, MPI_INT, MPI_SUM, w);
        return !memcmp(out, want, N * sizeof *out);
    }
    MPI_Reduce(in, out, N, MPI_INT, MPI_SUM, 0, w);
    PMPI_Reduce(in, want, N, MPI_INT, MPI_SUM, 0, w);
    return rank != 0 || !memcmp(out, want, N * sizeof *out);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
    int *want = malloc(N * sizeof *want);
    for (int i = 0; i < N; i++) in[i] = i * 31 + rank * 7;
    static const char *const colls[][2] = {
        {"bcast", "pipe"}, {"allgather", "pipe"}, {"allreduce", "ma"}, {"reduce", "ma"},
        {"reduce_scatter", "ma"}, {"scan", "recdbl"}};
    for (int c = 0; c < 6 && vred_mpi_force; c++) {
        const char *coll = colls[c][0];
        for (int r = 0; r < ROUNDS; r++) {
            const char *alg = r % 2 ? colls[c][1] : "mpi";
            if (vred_mpi_force(coll, alg) != 0) {
                printf("FAIL: vred_mpi_force(%s, %s) refused\n", coll, alg);
                failures++;
                continue;
            }
            for (int twice = 0; twice < 2; twice++)
                expect(coll, alg, 2 * r + twice, call(coll, alg, 2 * r + twice, in, out, want));
        }
        vred_mpi_force(coll, "auto");
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("pass_cache: %d ranks, %d failures%s\n", size, all,
               vred_mpi_force ? "" : " (vred not linked: nothing checked)");
    free(in), free(out), free(want);
    MPI_Finalize();
    return all != 0;
}
