/*
 * The learned selection (VRED_LEARN), driven by learn.sh: each argument COLL:BYTES is one call
 * of that collective (allreduce, reduce, reduce_scatter, bcast, allgather; float SUM data that
 * rounds, or bytes) on 64-byte aligned buffers under the automatic choice. Checked on every
 * rank: the result equals the MPI's own (the same call forced to the MPI, bitwise), and every rank
 * names the same algorithm (vred_mpi_last_alg). Rank 0 prints `pick COLL BYTES ALG` per call,
 * which learn.sh compares between runs and against the cache file. COLL:BYTES:skew makes the
 * same call with rank 1's buffers 16 bytes further (printed as COLL-skew): bcast and allgather
 * then leave single copy (cma) for the pipeline, which keeps its speed at any offset.
 *
 * With LEARN_DUP=1 a duplicate of MPI_COMM_WORLD is made and used once before world's calls
 * (both communicators have read the cache by then), and the calls are made again on it after
 * world's, printed as `dup-pick ...`: a class world measured must be taken from the file, not
 * measured again (learn.sh compares the two picks). With LEARN_DUP=late the duplicate is made
 * after world's calls: a close call that world measured again in this run must not be measured
 * a second time by it (learn.sh counts the runs in the cell).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "vred_mpi.h"

static int rank, size, failed;
static MPI_Comm comm; /* MPI_COMM_WORLD, or its duplicate (LEARN_DUP) */

static void fail(const char *what, const char *coll, size_t bytes)
{
    printf("FAIL rank %d: %s: %s of %zu bytes\n", rank, what, coll, bytes);
    failed = 1;
}

/* One call of coll on (s, r); n floats or bytes (allgather: per rank). */
static void call(const char *coll, void *s, void *r, size_t n)
{
    int c = (int)n;
    if (!strcmp(coll, "allreduce")) MPI_Allreduce(s, r, c, MPI_FLOAT, MPI_SUM, comm);
    else if (!strcmp(coll, "reduce"))
        MPI_Reduce(s, r, c, MPI_FLOAT, MPI_SUM, size - 1, comm);
    else if (!strcmp(coll, "reduce_scatter"))
        MPI_Reduce_scatter_block(s, r, c / size, MPI_FLOAT, MPI_SUM, comm);
    else if (!strcmp(coll, "bcast")) MPI_Bcast(r, c, MPI_BYTE, 0, comm);
    else MPI_Allgather(s, c, MPI_BYTE, r, c, MPI_BYTE, comm);
}

static void one(const char *coll, size_t bytes, int skew)
{
    int moves = !strcmp(coll, "bcast") || !strcmp(coll, "allgather");
    size_t n = moves ? bytes : bytes / sizeof(float);
    size_t rbytes = !strcmp(coll, "allgather") ? bytes * (size_t)size : bytes;
    /* 64-byte aligned, so that the unskewed call has its buffers alike on every rank. From
     * malloc a large block comes at 16 mod 64 where glibc maps it and elsewhere where it
     * serves it from the heap, which it does once the process has freed a larger mapped block
     * (its threshold follows), so the ranks' layouts depended on what each had freed: under
     * load (np 3, MPICH 4.0, next to other tests) the front found the unskewed 4 MiB
     * allgather's ranks skewed and left the learned cma for the pipeline, which this test
     * took for a pick that did not follow the file. */
    /* aligned_alloc takes whole multiples of the alignment; one line more for the +16 skew */
    size_t spad = (bytes / 64 + 2) * 64, rpad = (rbytes / 64 + 2) * 64;
    char *s0 = aligned_alloc(64, spad), *r0 = aligned_alloc(64, rpad);
    char *want = malloc(rbytes);
    size_t shift = skew && rank == 1 ? 16 : 0;
    char *s = s0 ? s0 + shift : NULL, *r = r0 ? r0 + shift : NULL;
    if (!s0 || !r0 || !want) {
        fail("out of memory", coll, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Mixed magnitudes: sums round, so an algorithm that adds in another order, or a rank that
     * got another rank's bytes, shows. */
    for (size_t i = 0; i < n; i++) {
        if (moves) s[i] = (char)(i * 31 + (size_t)rank * 7);
        else ((float *)s)[i] = (float)((i % 13) + 1) * (rank % 2 ? 1e-3f : 1.7f) + 1e5f * (float)(i % 3);
    }
    const char *c = !strcmp(coll, "reduce_scatter") ? "reduce_scatter" : coll;
    if (!strcmp(coll, "bcast")) memcpy(r, s, bytes);
    memset(want, 0, rbytes);
    if (!strcmp(coll, "bcast")) memcpy(want, s, bytes);
    vred_mpi_force(c, "mpi");
    call(coll, s, want, n);
    vred_mpi_force(c, "auto");
    memset(r, 0, rbytes);
    if (!strcmp(coll, "bcast")) memcpy(r, s, bytes);
    call(coll, s, r, n);
    const char *alg = vred_mpi_last_alg();
    size_t check = !strcmp(coll, "reduce_scatter") ? n / (size_t)size * sizeof(float)
                   : !strcmp(coll, "reduce") && rank != size - 1 ? 0 : rbytes;
    /* Two ranks: a + b in any order, so bitwise. More: the MPI may add in another order, so
     * within a few units in the last place. */
    int differs = 0;
    if (moves || size == 2) differs = memcmp(r, want, check) != 0;
    else
        for (size_t i = 0; i < check / sizeof(float); i++) {
            float x = ((float *)r)[i], y = ((float *)want)[i];
            differs |= !(x - y <= 4e-7f * y && y - x <= 4e-7f * y);
        }
    if (differs) fail("result differs from the MPI's", coll, bytes);
    /* Every rank the same algorithm. */
    char mine[16] = {0}, *all = malloc(16 * (size_t)size);
    snprintf(mine, sizeof mine, "%s", alg);
    MPI_Allgather(mine, 16, MPI_CHAR, all, 16, MPI_CHAR, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        if (strcmp(all + 16 * i, mine)) fail("ranks chose different algorithms", coll, bytes);
    if (rank == 0)
        printf("%spick %s%s %zu %s\n", comm == MPI_COMM_WORLD ? "" : "dup-", coll,
               skew ? "-skew" : "", bytes, alg);
    free(all), free(s0), free(r0), free(want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *dup_env = getenv("LEARN_DUP");
    int dup = dup_env && !strcmp(dup_env, "1");
    /* LEARN_DUP=late: the duplicate made after world's calls (its state, the cache read, then) */
    int late = dup_env && !strcmp(dup_env, "late");
    MPI_Comm twin = MPI_COMM_NULL;
    if (dup) { /* both communicators' state made (the cache read) before any class is learned */
        float x = 1, y = 0;
        MPI_Comm_dup(MPI_COMM_WORLD, &twin);
        MPI_Allreduce(&x, &y, 1, MPI_FLOAT, MPI_SUM, twin);
        MPI_Allreduce(&x, &y, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
    for (int pass = 0; pass < 1 + (dup || late); pass++) {
        if (pass && late) MPI_Comm_dup(MPI_COMM_WORLD, &twin);
        comm = pass ? twin : MPI_COMM_WORLD;
        for (int i = 1; i < argc; i++) {
            char coll[32], what[8] = "";
            size_t bytes;
            if (sscanf(argv[i], "%31[a-z_]:%zu:%7s", coll, &bytes, what) < 2 ||
                (what[0] && strcmp(what, "skew"))) {
                if (!rank) printf("usage: learn COLL:BYTES[:skew]...\n");
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            one(coll, bytes, what[0] != 0);
        }
    }
    if (dup || late) MPI_Comm_free(&twin);
    int any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any;
}
