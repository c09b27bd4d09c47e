/*
 * Soak: N mixed collectives (soak_mix.h: allreduce, reduce, reduce_scatter_block, bcast,
 * allgather; random types, ops, roots and sizes, each call's algorithm forced at random among
 * vred's: MPI, point-to-point, DPML, MA, pipe, or vred's own choice), every result checked
 * exactly on every rank. Resident memory, live heap bytes, mappings and open descriptors are
 * sampled at 10 checkpoints; over the second half of the calls (after a warm-up: every collective,
 * algorithm and root once at the largest size) none may grow beyond a small slack.
 *   soak_mixed [--soak-mixed N] [--seed S] [--max-bytes B]
 * Exits 1 on a wrong result or growth (rank 0 prints the checkpoints and the summary).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mpi.h>
#include "proc_usage.h"
#include "soak_mix.h"

/* Allowed growth over the second half: the MPI's free lists (requests, fragments) grow to the
 * most ever outstanding and glibc's arenas fragment, both settling in the first 30,000 calls
 * (measured: < 10 KiB of heap after that). A leak of 8 bytes per call in 50,000 calls, the CI
 * run's second half, exceeds the heap slack. */
enum { HEAP_SLACK_KIB = 256, RSS_SLACK_KIB = 1024, CHECKPOINTS = 10 };

static long rss[CHECKPOINTS + 1], heap[CHECKPOINTS + 1], maps[CHECKPOINTS + 1],
    fds[CHECKPOINTS + 1];

static void sample(int k)
{
    rss[k] = usage_rss_kib(), heap[k] = usage_heap_kib(), maps[k] = usage_maps(), fds[k] = usage_fds();
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    long iters = 100000;
    unsigned long long seed = 1;
    size_t max_bytes = 1 << 20;
    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "--soak-mixed")) iters = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed")) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--max-bytes")) max_bytes = (size_t)atol(argv[++i]);
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Every rank must draw the same calls: rank 0's seed is the seed. */
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    mix_state m;
    if (mix_init(&m, MPI_COMM_WORLD, seed, max_bytes, 1)) {
        fprintf(stderr, "soak_mixed: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double t0 = now();
    mix_warm(&m);
    long step = iters / CHECKPOINTS ? iters / CHECKPOINTS : 1;
    int k = 0;
    for (long i = 0; i < iters; i++) {
        if (i % step == 0 && k < CHECKPOINTS) sample(k++);
        mix_one(&m);
    }
    sample(k);
    double took = now() - t0;
    int b = k / 2, grew = 0; /* the baseline: halfway */
    if (rss[k] - rss[b] > RSS_SLACK_KIB || heap[k] - heap[b] > HEAP_SLACK_KIB ||
        maps[k] > maps[b] || fds[k] != fds[b])
        grew = 1;
    long bad = m.mismatches, all_bad = 0;
    int any_grew = 0;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&grew, &any_grew, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (grew || getenv("SOAK_ALL_RANKS")) /* this rank's checkpoints, for finding the growth */
        for (int c = 0; c <= k; c++)
            fprintf(stderr, "soak_mixed: rank %d checkpoint %d: rss %ld KiB, heap %ld KiB, maps %ld, "
                            "fds %ld\n", rank, c, rss[c], heap[c], maps[c], fds[c]);
    if (rank == 0) {
        printf("soak_mixed: %d ranks, seed %llu, max %zu bytes per rank\n", size, seed, max_bytes);
        printf("checkpoint        calls   rss KiB  heap KiB   maps  fds   (rank 0)\n");
        for (int c = 0; c <= k; c++)
            printf("%10d %12ld %9ld %9ld %6ld %4ld\n", c, c < k ? c * step : iters, rss[c],
                   heap[c], maps[c], fds[c]);
        mix_print_algs(&m, "  served: ");
        printf("soak_mixed: %ld calls (+ warm-up) in %.1f s, %ld mismatches on all ranks; second "
               "half on rank 0: rss %+ld KiB, heap %+ld KiB, maps %+ld, fds %+ld: %s\n", iters,
               took, all_bad, rss[k] - rss[b], heap[k] - heap[b], maps[k] - maps[b],
               fds[k] - fds[b], all_bad || any_grew ? "FAILED" : "ok");
    }
    mix_free(&m);
    MPI_Finalize();
    return all_bad || any_grew;
}
