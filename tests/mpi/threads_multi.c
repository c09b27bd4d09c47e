/*
 * MPI_THREAD_MULTIPLE: T threads per rank, each with its own communicator, run mixed collectives
 * at the same time (soak_mix.h: allreduce, reduce, reduce_scatter_block, bcast, allgather;
 * random types, ops, roots and sizes from below the MPI's threshold to MiBs), every result
 * checked exactly. Even threads use a duplicate of MPI_COMM_WORLD, odd ones a split in reversed
 * rank order (on 3+ ranks: the first size-1 ranks, the last alone), so that vred's state, node
 * views and shared regions are made lazily by several threads at once, on communicators of
 * different shapes (2 ranks on one node: point-to-point for 1-16 MiB allreduces). Every K calls
 * a thread also splits its communicator, runs 3 calls on the new one and frees it: states and
 * regions are created and destroyed while the other threads' calls run. Bcast and allgather are
 * forced to vred's pipelined shared-memory algorithms (process-wide, before the threads start).
 *   threads_multi [--threads T] [--iters N] [--cycle K] [--max-bytes B]
 * Exit 77 (skipped) if the MPI does not grant MPI_THREAD_MULTIPLE; 1 on a wrong result.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "soak_mix.h"

/* libvred-mpi.so's extension API, weak: null when the MPI runs alone. */
#define VRED_MPI_WEAK
#include "vred_mpi.h"

enum { MAX_THREADS = 16 };

static int nthreads = 4, cycle = 50;
static long iters = 300;
static size_t max_bytes = 2 << 20;
static MPI_Comm comms[MAX_THREADS];
static mix_state states[MAX_THREADS];
static long cycles_done[MAX_THREADS], cycle_bad[MAX_THREADS];
static pthread_barrier_t start;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    mix_state *m = &states[t];
    pthread_barrier_wait(&start); /* every thread's first call (vred's state) at once */
    for (long i = 0; i < iters; i++) {
        mix_one(m);
        if (cycle > 0 && i % cycle == cycle - 1) {
            MPI_Comm sub;
            MPI_Comm_split(m->comm, 0, m->rank, &sub);
            mix_state s;
            /* the sub-communicator's calls follow the same sequence on every rank */
            if (mix_init(&s, sub, m->rng ^ 0x5a5a5a5a, max_bytes, 0) == 0) {
                s.large = m->large;
                for (int j = 0; j < 3; j++) mix_one(&s);
                cycle_bad[t] += s.mismatches;
                cycles_done[t]++;
            } else {
                cycle_bad[t]++;
            }
            mix_free(&s);
            MPI_Comm_free(&sub);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = 0, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0) printf("threads_multi: MPI_THREAD_MULTIPLE not provided: skipped\n");
        MPI_Finalize();
        return 77;
    }
    for (int i = 1; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "--threads")) nthreads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--iters")) iters = atol(argv[++i]);
        else if (!strcmp(argv[i], "--cycle")) cycle = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--max-bytes")) max_bytes = (size_t)atol(argv[++i]);
    }
    if (nthreads < 1 || nthreads > MAX_THREADS) nthreads = 4;
    if (vred_mpi_force) vred_mpi_force("bcast", "pipe"), vred_mpi_force("allgather", "pipe");
    /* Communicators are made here, in one order on every rank (collective on MPI_COMM_WORLD). */
    for (int t = 0; t < nthreads; t++) {
        if (t % 2 == 0) MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
        else MPI_Comm_split(MPI_COMM_WORLD, size > 2 && rank == size - 1, -rank, &comms[t]);
        if (mix_init(&states[t], comms[t], 1000 + (uint64_t)t, max_bytes, 0)) {
            fprintf(stderr, "threads_multi: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        states[t].large = 100; /* 10%: the large paths (MA, point-to-point) run often */
    }
    pthread_t th[MAX_THREADS];
    pthread_barrier_init(&start, NULL, (unsigned)nthreads);
    for (int t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    long bad = 0, calls = 0, cyc = 0;
    mix_state total;
    memset(&total, 0, sizeof total);
    for (int t = 0; t < nthreads; t++) {
        pthread_join(th[t], NULL);
        bad += states[t].mismatches + cycle_bad[t];
        calls += states[t].calls;
        cyc += cycles_done[t];
        for (int c = 0; c < MIX_COLLS; c++)
            for (int g = 0; g < MIX_ALGS; g++) total.by_alg[c][g] += states[t].by_alg[c][g];
        mix_free(&states[t]);
        MPI_Comm_free(&comms[t]);
    }
    long all_bad = 0;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        mix_print_algs(&total, "  served (rank 0): ");
        printf("threads_multi: %d ranks x %d threads, %ld calls + %ld communicator cycles per rank, "
               "%ld mismatches on all ranks: %s\n", size, nthreads, calls, cyc, all_bad,
               all_bad ? "FAILED" : "ok");
    }
    pthread_barrier_destroy(&start);
    MPI_Finalize();
    return all_bad != 0;
}
