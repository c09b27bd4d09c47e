/*
 * Counts past 2^31 (issue 15, item 3): MPI_Allreduce_c, MPI_Reduce_c and
 * MPI_Reduce_scatter_block_c beyond 2^31 elements (MPI_UINT8_T, about 2 GiB a buffer) and beyond
 * 2^32 bytes (MPI_FLOAT, about 4 GiB), each vred algorithm family forced in turn (point-to-point
 * and shared memory) and the automatic choice, every rank checking every element of its result
 * against the exact answer (the inputs are chosen so that every sum is exact: u8 sums wrap mod
 * 256 by definition, f32 ones stay small integers).
 *
 * Run by `make test-large` (not in `make test`: ~10 GiB of memory and a few minutes), 2 ranks.
 * The _c forms are MPI-4: an MPI without them (Open MPI 4.1) has no way to pass such a count to
 * a predefined op (both Debian MPIs refuse a predefined op on a derived datatype, MPI_ERR_OP),
 * so the test skips there (exit 77) and says so.
 *
 * Memory: each case runs on its own duplicate of MPI_COMM_WORLD, freed after it, so vred's
 * per-communicator scratch and shared region go with it; in place where the collective allows
 * it (one buffer a rank instead of two).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VRED_MPI_WEAK
#include "vred_mpi.h"

#if MPI_VERSION >= 4

static int rank, size;
static long checks, failures;

enum { U8, F32 };
enum { ALLREDUCE, REDUCE, RSB };
static const char *const coll_names[] = {"allreduce", "reduce", "reduce_scatter"};

/* The input of `r` at element i, and the exact result at i (the sum over every rank). */
static unsigned char u8_in(size_t i, int r) { return (unsigned char)(i * 131u + (size_t)r * 7u); }
static float f32_in(size_t i, int r) { return (float)((i + (size_t)r) & 15u); }

static void fill(void *buf, int type, size_t n, int r)
{
    if (type == U8)
        for (size_t i = 0; i < n; i++) ((unsigned char *)buf)[i] = u8_in(i, r);
    else
        for (size_t i = 0; i < n; i++) ((float *)buf)[i] = f32_in(i, r);
}

/* Elements [from, from + n) of the result, checked against the exact sums; the first wrong one
 * is reported. */
static void check(const void *buf, int type, size_t from, size_t n, const char *what)
{
    size_t bad = SIZE_MAX;
    for (size_t k = 0; k < n && bad == SIZE_MAX; k++) {
        size_t i = from + k;
        if (type == U8) {
            unsigned want = 0;
            for (int r = 0; r < size; r++) want += u8_in(i, r);
            if (((const unsigned char *)buf)[k] != (unsigned char)want) bad = i;
        } else {
            float want = 0;
            for (int r = 0; r < size; r++) want += f32_in(i, r);
            if (((const float *)buf)[k] != want) bad = i;
        }
    }
    checks++;
    if (bad != SIZE_MAX) {
        failures++;
        printf("FAIL rank %d: %s: element %zu wrong\n", rank, what, bad);
    }
}

static void run(int coll, int type, const char *alg)
{
    /* Past 2^31 elements for u8 (2 GiB + 3 per rank); past 2^32 bytes for f32 (4 GiB + 20). */
    MPI_Count n = type == U8 ? ((MPI_Count)1 << 31) + 3 : ((MPI_Count)1 << 30) + 5;
    MPI_Datatype dt = type == U8 ? MPI_UINT8_T : MPI_FLOAT;
    size_t es = type == U8 ? 1 : 4;
    if (coll == RSB) n += size - n % size; /* whole blocks */
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    if (vred_mpi_force) vred_mpi_force(coll_names[coll], alg);
    char what[128];
    snprintf(what, sizeof what, "%s %s count=%lld alg=%s", coll_names[coll],
             type == U8 ? "u8" : "f32", (long long)n, alg);
    void *buf = malloc((size_t)n * es);
    void *in = coll == REDUCE && rank != 0 ? buf : NULL;
    int ok = buf != NULL, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (rank == 0) printf("FAIL %s: cannot allocate %lld bytes a rank\n", what, (long long)n * (long long)es);
        failures++;
        free(buf);
        MPI_Comm_free(&c);
        return;
    }
    fill(buf, type, (size_t)n, rank);
    double t = MPI_Wtime();
    int rc;
    if (coll == ALLREDUCE) rc = MPI_Allreduce_c(MPI_IN_PLACE, buf, n, dt, MPI_SUM, c);
    else if (coll == REDUCE)
        rc = MPI_Reduce_c(rank == 0 ? MPI_IN_PLACE : in, rank == 0 ? buf : NULL, n, dt, MPI_SUM, 0, c);
    else rc = MPI_Reduce_scatter_block_c(MPI_IN_PLACE, buf, n / size, dt, MPI_SUM, c);
    t = MPI_Wtime() - t;
    const char *by = vred_mpi_last_alg ? vred_mpi_last_alg() : "(no vred)";
    if (rc != MPI_SUCCESS) {
        failures++;
        printf("FAIL rank %d: %s: rc %d\n", rank, what, rc);
    } else if (coll == ALLREDUCE) {
        check(buf, type, 0, (size_t)n, what);
    } else if (coll == REDUCE) {
        if (rank == 0) check(buf, type, 0, (size_t)n, what);
    } else {
        size_t b = (size_t)(n / size);
        check(buf, type, (size_t)rank * b, b, what);
    }
    /* Forced, vred must have served it (auto may hand it to the MPI). */
    if (vred_mpi_last_alg && strcmp(alg, "auto") && strcmp(by, alg)) {
        failures++;
        printf("FAIL rank %d: %s: served by %s\n", rank, what, by);
    }
    if (rank == 0) printf("%-58s %7.2f s, served by %s\n", what, t, by);
    fflush(stdout);
    free(buf);
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Each collective with its point-to-point algorithms, the shared-memory one and auto. */
    static const char *const algs[3][4] = {{"ring", "redscat", "ma", "auto"},
                                           {"binomial", "redscat", "ma", "auto"},
                                           {"ring", "redscat", "ma", "auto"}};
    const char *only = argc > 1 ? argv[1] : NULL; /* e.g. "allreduce": one collective */
    for (int coll = 0; coll < 3; coll++) {
        if (only && strcmp(only, coll_names[coll])) continue;
        for (int type = 0; type < 2; type++)
            for (int a = 0; a < 4; a++) run(coll, type, algs[coll][a]);
    }
    if (vred_mpi_force)
        for (int coll = 0; coll < 3; coll++) vred_mpi_force(coll_names[coll], "auto");
    long tot[2] = {checks, failures}, sum[2];
    MPI_Reduce(tot, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("large: %d ranks, %ld checks, %ld failed\n", size, sum[0], sum[1]);
    MPI_Finalize();
    return rank == 0 && sum[1] ? 1 : 0;
}

#else

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("large: skipped: this MPI has no _c forms (MPI-4), and a predefined op on a derived "
               "datatype is refused (MPI_ERR_OP), so no reduction can take a count past 2^31\n");
    MPI_Finalize();
    return 77;
}

#endif
