/*
 * A small run of vred's MPI paths for valgrind's memcheck (tests/sanitize/valgrind.cmake), on
 * 2 ranks: MPI_Reduce_local; MPI_Allreduce forced to the shared-memory movement-avoiding (ma)
 * and one-synchronization (dpml) algorithms and left to vred's choice, in place and not;
 * MPI_Reduce through ma to a non-zero root; MPI_Bcast and MPI_Allgather through the pipelined
 * shared-memory algorithm (pipe) and by single copy (cma: process_vm_readv into the buffers,
 * which memcheck marks as written); MPI_Bcast of a contiguous datatype, committed and not.
 * Every result is checked against the exact answer (inputs are small integers, so every order
 * of summation gives the same float), and every forced call must
 * have been served by the algorithm forced (vred_mpi_last_alg), so the shared-memory code is what
 * ran under valgrind. Prints "N passed, M failed" on rank 0; exits 1 on any failure.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vred_mpi.h"

static int rank, size;
static long passed, failed;

static void check(int ok, const char *what, const char *alg)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("rank %d: FAIL %s (%s)\n", rank, what, alg);
}

/* A forced algorithm must be the one that ran ("auto" may hand small calls to the MPI; "cma"
 * gives way to "pipe" where the kernel denies cross-memory attach). */
static void served_by(const char *alg, const char *what)
{
    const char *got = vred_mpi_last_alg();
    int cma_denied = !strcmp(alg, "cma") && !strcmp(got, "pipe");
    if (strcmp(alg, "auto") != 0) check(strcmp(got, alg) == 0 || cma_denied, what, got);
}

static void reduce_local(void)
{
    enum { N = 1000 };
    float *in = malloc(N * sizeof *in), *io = malloc(N * sizeof *io);
    int ok = 1;
    for (int i = 0; i < N; i++) {
        in[i] = (float)(i % 17);
        io[i] = (float)(i % 5);
    }
    MPI_Reduce_local(in, io, N, MPI_FLOAT, MPI_SUM);
    for (int i = 0; i < N; i++) ok &= io[i] == (float)(i % 17 + i % 5);
    check(ok, "MPI_Reduce_local f32 SUM", "local");
    free(in);
    free(io);
}

/* Allreduce of n doubles (rank r contributes r + i % 7) through alg, in place or not. */
static void allreduce(const char *alg, int n, int in_place)
{
    double *s = malloc((size_t)n * sizeof *s), *r = malloc((size_t)n * sizeof *r);
    for (int i = 0; i < n; i++) s[i] = r[i] = rank + i % 7;
    vred_mpi_force("allreduce", alg);
    MPI_Allreduce(in_place ? MPI_IN_PLACE : s, r, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    char what[96];
    snprintf(what, sizeof what, "allreduce %s n=%d%s", alg, n, in_place ? " in place" : "");
    served_by(alg, what);
    int ok = 1;
    for (int i = 0; i < n; i++) ok &= r[i] == size * (size - 1) / 2.0 + size * (i % 7);
    check(ok, what, alg);
    free(s);
    free(r);
}

static void reduce_ma(int n, int root)
{
    int *s = malloc((size_t)n * sizeof *s), *r = malloc((size_t)n * sizeof *r);
    for (int i = 0; i < n; i++) s[i] = (rank + 1) * (i % 11);
    vred_mpi_force("reduce", "ma");
    MPI_Reduce(s, rank == root ? r : NULL, n, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD);
    served_by("ma", "reduce ma");
    if (rank == root) {
        int ok = 1;
        for (int i = 0; i < n; i++) ok &= r[i] == size * (i % 11);
        check(ok, "reduce ma MAX", "ma");
    }
    free(s);
    free(r);
}

static void bcast_allgather(const char *alg, int bytes)
{
    unsigned char *b = malloc((size_t)bytes), *g = malloc((size_t)bytes * (size_t)size);
    for (int i = 0; i < bytes; i++) b[i] = rank == 1 ? (unsigned char)(i * 7 + 3) : 0;
    vred_mpi_force("bcast", alg);
    MPI_Bcast(b, bytes, MPI_BYTE, 1, MPI_COMM_WORLD);
    served_by(alg, "bcast");
    int ok = 1;
    for (int i = 0; i < bytes; i++) ok &= b[i] == (unsigned char)(i * 7 + 3);
    check(ok, "bcast from rank 1", alg);
    for (int i = 0; i < bytes; i++) b[i] = (unsigned char)(rank * 31 + i);
    vred_mpi_force("allgather", alg);
    MPI_Allgather(b, bytes, MPI_BYTE, g, bytes, MPI_BYTE, MPI_COMM_WORLD);
    served_by(alg, "allgather");
    ok = 1;
    for (int r = 0; r < size; r++)
        for (int i = 0; i < bytes; i++) ok &= g[(size_t)r * bytes + i] == (unsigned char)(r * 31 + i);
    check(ok, "allgather", alg);
    free(b);
    free(g);
}

/* A bcast through a contiguous datatype: committed, vred's (the front asks the MPI whether it is
 * committed and marks it with an attribute of its own); never committed, the MPI's, which
 * refuses it (MPI_ERR_TYPE, returned: the world's handler is MPI_ERRORS_RETURN for the call). */
static void bcast_contiguous(int bytes)
{
    MPI_Datatype pairs, loose;
    MPI_Type_contiguous(2, MPI_INT, &pairs);
    MPI_Type_commit(&pairs);
    MPI_Type_contiguous(2, MPI_INT, &loose);
    int n = bytes / 8, *b = malloc((size_t)n * 8);
    for (int i = 0; i < 2 * n; i++) b[i] = rank == 1 ? i * 5 + 1 : 0;
    vred_mpi_force("bcast", "pipe");
    MPI_Bcast(b, n, pairs, 1, MPI_COMM_WORLD);
    served_by("pipe", "bcast of a contiguous type");
    int ok = 1;
    for (int i = 0; i < 2 * n; i++) ok &= b[i] == i * 5 + 1;
    check(ok, "bcast of a contiguous type", "pipe");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Bcast(b, n, loose, 1, MPI_COMM_WORLD), cls = rc;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    check(cls == MPI_ERR_TYPE, "bcast of an uncommitted type: MPI_ERR_TYPE", "mpi");
    MPI_Type_free(&pairs);
    MPI_Type_free(&loose);
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    reduce_local();
    static const int counts[] = {1, 7, 1000, 100003};
    for (int c = 0; c < 4; c++) {
        allreduce("ma", counts[c], c % 2);
        allreduce("dpml", counts[c] > 1000 ? 1000 : counts[c], c % 2 == 0);
        allreduce("auto", counts[c], 0);
    }
    reduce_ma(4099, size - 1);
    bcast_allgather("pipe", 100);
    bcast_allgather("pipe", 300000);
    bcast_allgather("cma", 100);
    bcast_allgather("cma", 300000);
    bcast_contiguous(65536);
    long f = failed;
    MPI_Allreduce(MPI_IN_PLACE, &f, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    long p = passed;
    MPI_Allreduce(MPI_IN_PLACE, &p, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("vg_smoke: %ld passed, %ld failed\n", p, f);
    MPI_Finalize();
    return f ? 1 : 0;
}
