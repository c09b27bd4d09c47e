/*
 * Bounded resources (issue 15, item 4; docs/shm.md, "Bounded resources"): many live
 * communicators, each used once, must exhaust nothing and give the MPI's results.
 *
 * N communicators (--comms N, default 1000; dups and splits of MPI_COMM_WORLD, every third one
 * in reversed order) are made and kept. Each is used once by an allreduce (forced dpml or ma:
 * shared memory where its region can be had), a reduce (forced ma, the root rotating), a
 * reduce_scatter_block (forced dpml) and a bcast (forced pipe), every result compared bit for
 * bit with the MPI's own (PMPI_*) on identical inputs. Then one more MPI_Comm_dup must succeed
 * (vred must not have used up the MPI's communicators: MPICH has about 2,000 a process), all are
 * freed, and a fresh communicator must get shared memory again (the regions' bytes were given
 * back to VRED_SHM_LIMIT).
 *   --expect-fallback  some allreduces must have gone point-to-point (the bound was reached)
 *   --comm-limit K     run with VRED_COMM_LIMIT=K: communicators from the K-th on must be served
 *                      by the MPI (vred keeps no state for them), the ones before by vred
 *   --min-shm-free M   with every communicator live, /dev/shm must still have M MiB free (vred
 *                      must stop at its bound, not at a full /dev/shm)
 *   --scratch          also: a one-off 96 MiB reduce_scatter_block by recursive halving (its
 *                      accumulator is scratch of the whole input) must not keep its scratch (run
 *                      with VRED_SCRATCH_LIMIT=67108864: the heap must fall back within 8 MiB of
 *                      where it was), a 16 MiB one's is kept (under the bound), and released
 *                      after four small calls that need little of it
 * Rank 0 prints one summary line: allreduces by shared memory, by point to point, by the MPI.
 * Exits 1 if any check failed on any rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include "proc_usage.h"

#define VRED_MPI_WEAK
#include "vred_mpi.h"

enum { COUNT = 4096 }; /* doubles: 32 KiB a rank, served by vred under every forced algorithm */

static int wrank, wsize, failed;
static long comm_limit = -1; /* --comm-limit */
static int want_mpi;         /* the communicator in use is past VRED_COMM_LIMIT */

static void fail(const char *what, long i)
{
    if (failed < 10) fprintf(stderr, "many_comms: rank %d: communicator %ld: %s\n", wrank, i, what);
    failed++;
}

/* Integers as doubles: every sum exact in any order, so vred and the MPI agree bit for bit. */
static void fill(double *x, size_t n, long seed, int rank)
{
    for (size_t j = 0; j < n; j++)
        x[j] = (double)((long)((j * 2654435761u + (size_t)seed * 40503u + (size_t)rank * 977u) %
                               2001u) - 1000);
}

static void force(const char *coll, const char *alg)
{
    if (vred_mpi_force) vred_mpi_force(coll, alg);
}

/* Who served the last call: 's' shared memory, 'p' vred point to point, 'm' the MPI. */
static char served_by(void)
{
    const char *a = vred_mpi_last_alg ? vred_mpi_last_alg() : "mpi";
    if (!strcmp(a, "mpi")) return 'm';
    return !strcmp(a, "dpml") || !strcmp(a, "ma") || !strcmp(a, "pipe") ? 's' : 'p';
}

static double *sbuf, *rbuf, *ref;

static void check(int ok, const char *what, long i)
{
    if (!ok) fail(what, i);
}

/* The collectives of one communicator; returns who served its allreduce. */
static char use(MPI_Comm c, long i)
{
    int r, p;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &p);
    size_t bytes = COUNT * sizeof(double);
    fill(sbuf, COUNT, i, r);

    force("allreduce", i % 2 ? "ma" : "dpml");
    check(MPI_Allreduce(sbuf, rbuf, COUNT, MPI_DOUBLE, MPI_SUM, c) == MPI_SUCCESS, "allreduce", i);
    char by = served_by();
    PMPI_Allreduce(sbuf, ref, COUNT, MPI_DOUBLE, MPI_SUM, c);
    check(!memcmp(rbuf, ref, bytes), "allreduce differs from the MPI's", i);
    if (!want_mpi) check(by != 'm', "allreduce not served by vred", i);
    else check(by == 'm', "allreduce served by vred past VRED_COMM_LIMIT", i);

    int root = (int)(i % p);
    force("reduce", "ma");
    memset(rbuf, 0, bytes);
    check(MPI_Reduce(sbuf, rbuf, COUNT, MPI_DOUBLE, MPI_MAX, root, c) == MPI_SUCCESS, "reduce", i);
    PMPI_Reduce(sbuf, ref, COUNT, MPI_DOUBLE, MPI_MAX, root, c);
    check(r != root || !memcmp(rbuf, ref, bytes), "reduce differs from the MPI's", i);

    int block = COUNT / p;
    force("reduce_scatter", "dpml");
    check(MPI_Reduce_scatter_block(sbuf, rbuf, block, MPI_DOUBLE, MPI_SUM, c) == MPI_SUCCESS,
          "reduce_scatter_block", i);
    PMPI_Reduce_scatter_block(sbuf, ref, block, MPI_DOUBLE, MPI_SUM, c);
    check(!memcmp(rbuf, ref, (size_t)block * sizeof(double)), "reduce_scatter_block differs", i);

    force("bcast", "pipe");
    if (r == root) memcpy(rbuf, sbuf, bytes);
    else memset(rbuf, 0, bytes);
    check(MPI_Bcast(rbuf, COUNT, MPI_DOUBLE, root, c) == MPI_SUCCESS, "bcast", i);
    fill(ref, COUNT, i, root);
    check(!memcmp(rbuf, ref, bytes), "bcast differs from the root's data", i);
    return by;
}

static void release_all(void)
{
    force("allreduce", "auto");
    force("reduce", "auto");
    force("reduce_scatter", "auto");
    force("bcast", "auto");
}

/* One reduce_scatter_block of n doubles in all on c by recursive halving (its accumulator is
 * scratch of the whole input on every rank), checked. */
static void halving(MPI_Comm c, size_t n, double *s, double *o, double *x, long tag)
{
    int block = (int)(n / (size_t)wsize);
    fill(s, n, tag, wrank);
    force("reduce_scatter", "redscat");
    check(MPI_Reduce_scatter_block(s, o, block, MPI_DOUBLE, MPI_SUM, c) == MPI_SUCCESS,
          "reduce_scatter_block (redscat)", tag);
    check(served_by() == 'p', "reduce_scatter_block not served by vred's redscat", tag);
    PMPI_Reduce_scatter_block(s, x, block, MPI_DOUBLE, MPI_SUM, c);
    check(!memcmp(o, x, (size_t)block * sizeof(double)), "redscat differs from the MPI's", tag);
}

/* Scratch: released after a one-off call above VRED_SCRATCH_LIMIT, kept under it, released
 * when four calls in a row need at most a quarter of it. Heap: KiB malloc'ed and not freed. */
static void scratch_check(void)
{
    enum { BIG = 12 << 20, MEDIUM = 2 << 20, SMALL = 8192 }; /* doubles: 96, 16 MiB, 64 KiB */
    double *s = malloc(BIG * sizeof(double)), *o = malloc(BIG * sizeof(double)),
           *x = malloc(BIG * sizeof(double));
    if (!s || !o || !x) {
        fail("out of memory for the scratch check", -1);
        return;
    }
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    halving(c, SMALL, s, o, x, -1); /* the communicator's state and first scratch */
    long h0 = usage_heap_kib();
    halving(c, BIG, s, o, x, -2);
    long h1 = usage_heap_kib();
    halving(c, MEDIUM, s, o, x, -3);
    long h2 = usage_heap_kib();
    for (int k = 0; k < 4; k++) halving(c, SMALL, s, o, x, -4 - k);
    long h3 = usage_heap_kib();
    if (h1 - h0 > 8192) fail("a one-off 96 MiB call kept its scratch", -2);
    if (h2 - h1 < 4096) fail("a 16 MiB call's scratch was not kept (under the bound)", -3);
    if (h3 - h1 > 2048) fail("scratch not released after four small calls", -4);
    if (wrank == 0)
        printf("many_comms: heap +%ld KiB after a 96 MiB call, +%ld after 16 MiB, +%ld after "
               "4 small\n", h1 - h0, h2 - h0, h3 - h0);
    MPI_Comm_free(&c);
    force("reduce_scatter", "auto");
    free(s), free(o), free(x);
}

int main(int argc, char **argv)
{
    long n = 1000, min_free = -1;
    int expect_fallback = 0, scratch = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--comms") && i + 1 < argc) n = atol(argv[++i]);
        else if (!strcmp(argv[i], "--expect-fallback")) expect_fallback = 1;
        else if (!strcmp(argv[i], "--scratch")) scratch = 1;
        else if (!strcmp(argv[i], "--min-shm-free") && i + 1 < argc) min_free = atol(argv[++i]);
        else if (!strcmp(argv[i], "--comm-limit") && i + 1 < argc) comm_limit = atol(argv[++i]);
    }
    sbuf = malloc(COUNT * sizeof(double));
    rbuf = malloc(COUNT * sizeof(double));
    ref = malloc(COUNT * sizeof(double));
    MPI_Comm *comms = calloc((size_t)n, sizeof *comms);
    if (!sbuf || !rbuf || !ref || !comms) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    long by_shm = 0, by_p2p = 0, by_mpi = 0;
    for (long i = 0; i < n; i++) {
        int rc = i % 3 == 2 ? MPI_Comm_split(MPI_COMM_WORLD, 0, -wrank, &comms[i])
                 : i % 3   ? MPI_Comm_split(MPI_COMM_WORLD, 0, wrank, &comms[i])
                           : MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
        if (rc != MPI_SUCCESS) {
            fail("could not be made: the MPI's communicators are used up", i);
            n = i;
            break;
        }
        MPI_Comm_set_errhandler(comms[i], MPI_ERRORS_RETURN);
        want_mpi = comm_limit >= 0 && i >= comm_limit;
        char by = use(comms[i], i);
        by_shm += by == 's', by_p2p += by == 'p', by_mpi += by == 'm';
    }
    struct statvfs st;
    if (min_free >= 0 && wrank == 0) {
        long mib = statvfs("/dev/shm", &st) ? -1 : (long)(st.f_bavail * st.f_frsize >> 20);
        printf("many_comms: /dev/shm free with every communicator live: %ld MiB\n", mib);
        if (mib < min_free) fail("/dev/shm nearly full with every communicator live", n);
    }
    MPI_Comm extra;
    if (MPI_Comm_dup(MPI_COMM_WORLD, &extra) != MPI_SUCCESS)
        fail("one more MPI_Comm_dup failed: the MPI's communicators are used up", n);
    else
        MPI_Comm_free(&extra);
    for (long i = 0; i < n; i++) MPI_Comm_free(&comms[i]);
    /* Everything given back: a new communicator gets a region again. */
    MPI_Comm again;
    MPI_Comm_dup(MPI_COMM_WORLD, &again);
    want_mpi = 0;
    if (vred_mpi_force && wsize > 1 && use(again, n) != 's')
        fail("no shared memory after every communicator was freed", n);
    MPI_Comm_free(&again);
    release_all();
    if (scratch && vred_mpi_force) scratch_check();
    if (vred_mpi_force && !by_shm) fail("no allreduce used shared memory", -1);
    if (vred_mpi_force && expect_fallback && !by_p2p)
        fail("no allreduce went point-to-point: the bound was never reached", -1);
    int any = failed;
    MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (wrank == 0)
        printf("many_comms: %ld communicators on %d ranks: allreduce by shared memory %ld, "
               "point to point %ld, the MPI %ld: %s\n",
               n, wsize, by_shm, by_p2p, by_mpi, any ? "FAILED" : "ok");
    free(comms);
    free(sbuf), free(rbuf), free(ref);
    MPI_Finalize();
    return any ? 1 : 0;
}
