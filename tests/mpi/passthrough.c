/*
 * Through libvred-mpi:
 *  - the first MPI_Reduce_local calls, made by several threads at once under MPI_THREAD_MULTIPLE
 *    (the handle tables are built lazily, once), all give the exact answer;
 *  - a user-defined op (MPI_Op_create) and a derived datatype (MPI_Type_contiguous) reach the MPI
 *    library and end as PMPI_Reduce_local does (vred serves only predefined handles).
 * Prints "N passed, M failed"; exit 77 (skipped) if the MPI does not grant MPI_THREAD_MULTIPLE.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <mpi.h>
#include "vred.h"

enum { THREADS = 6, N = 1000, ROUNDS = 200 };
static int failures[THREADS];

/* Each thread its own type: every first lookup races with the others. Exact integer answers. */
static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    static const MPI_Datatype types[THREADS] = {MPI_INT, MPI_LONG, MPI_SHORT, MPI_UNSIGNED,
                                                MPI_INT64_T, MPI_UINT8_T};
    static const size_t sizes[THREADS] = {sizeof(int), sizeof(long), sizeof(short),
                                          sizeof(unsigned), 8, 1};
    unsigned char in[N * 8], io[N * 8];
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < N; i++) {
            uint64_t a = (uint64_t)(i % 50), b = (uint64_t)(r % 50);
            memcpy(in + i * sizes[id], &a, sizes[id]); /* little-endian: low bytes */
            memcpy(io + i * sizes[id], &b, sizes[id]);
        }
        if (MPI_Reduce_local(in, io, N, types[id], MPI_SUM) != MPI_SUCCESS) failures[id]++;
        for (int i = 0; i < N; i++) {
            uint64_t got = 0, want = (uint64_t)(i % 50 + r % 50);
            memcpy(&got, io + i * sizes[id], sizes[id]);
            if (got != want) {
                failures[id]++;
                break;
            }
        }
    }
    return NULL;
}

/* A user op: inout = 2 * in + inout, which no predefined op computes. */
static void twice_plus(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += 2 * ((int *)in)[i];
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("MPI_THREAD_MULTIPLE not provided: skipped\n");
        MPI_Finalize();
        return 77;
    }
    int passed = 0, failed = 0;

    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++) {
        printf("%-4s thread %d: %d rounds of first-use MPI_Reduce_local\n",
               failures[t] ? "FAIL" : "ok", t, ROUNDS);
        failures[t] ? failed++ : passed++;
    }

    /* User-defined op: must be the MPI's (vred has no kernel for it). */
    MPI_Op op;
    MPI_Op_create(twice_plus, 1, &op);
    int a[5] = {1, 2, 3, 4, 5}, b[5] = {10, 10, 10, 10, 10};
    MPI_Reduce_local(a, b, 5, MPI_INT, op);
    int ok = b[0] == 12 && b[4] == 20;
    printf("%-4s user-defined op (2*in + inout): %d %d\n", ok ? "ok" : "FAIL", b[0], b[4]);
    ok ? passed++ : failed++;
    MPI_Op_free(&op);

    /* Derived datatype (2 contiguous ints per element, 3 elements, SUM): whatever the MPI makes of
     * it (Open MPI sums, MPICH 4.0 reports MPI_ERR_OP), vred's MPI_Reduce_local must end the same. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int c[6] = {1, 2, 3, 4, 5, 6}, dv[6] = {10, 20, 30, 40, 50, 60}, dp[6];
    memcpy(dp, dv, sizeof dv);
    int rv = MPI_Reduce_local(c, dv, 3, pair, MPI_SUM), rp = PMPI_Reduce_local(c, dp, 3, pair, MPI_SUM);
    int cv = rv, cp = rp;
    if (rv != MPI_SUCCESS) MPI_Error_class(rv, &cv);
    if (rp != MPI_SUCCESS) MPI_Error_class(rp, &cp);
    ok = cv == cp && memcmp(dv, dp, sizeof dv) == 0;
    printf("%-4s derived datatype SUM: error class %d through vred, %d through PMPI; %d %d vs %d %d\n",
           ok ? "ok" : "FAIL", cv, cp, dv[0], dv[5], dp[0], dp[5]);
    ok ? passed++ : failed++;
    MPI_Type_free(&pair);

    printf("%d passed, %d failed\n", passed, failed);
    MPI_Finalize();
    return failed != 0;
}
