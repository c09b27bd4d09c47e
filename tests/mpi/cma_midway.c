/*
 * Cross-memory attach denied in the middle of a job: the probe at the communicator's first
 * collective succeeded, then one rank (world rank 1) installs a seccomp filter that makes
 * process_vm_readv fail with EPERM, as a sandbox applied late would. The next single-copy call
 * must still give every rank the right bytes (all ranks see the failed read and run the
 * pipeline through the segment for that call), and later calls must keep being right: on a
 * one-node communicator they are then served by "pipe"; across nodes the selection still
 * names "cma" and the failed node moves data through its segment.
 *
 * bcast (root the last rank, then 0, then 1) of 1 MiB + 3 bytes and allgather (one node: in
 * place and not) of 256 KiB + 1 per rank, forced "cma", on the world (a bcast meets the
 * denial first) and on a dup (an allgather meets it first, the bcast across nodes); and the
 * reductions by cross-memory attach (cma_reduce.c: reads and writes) on a second dup, where an
 * allreduce in place meets the denial first, then reduce, reduce_scatter_block and allreduce;
 * at odd offsets, checked against the exact answer computed on each rank (no large message of
 * the MPI's own once the filter is in: an MPI's own single-copy path would be refused too). On
 * one node the reductions after the failed one are served by anything but "cma" (the rule
 * table's shared-memory or point-to-point choice). Exits 77 if cross-memory attach does not
 * work here to begin with, or the kernel has no seccomp filters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#define VRED_MPI_WEAK
#include "vred_mpi.h"
#include "deny_cma.h"
#include "node_of.h"

static int wrank, wsize, failures;

static void fail(const char *what)
{
    failures++;
    printf("FAIL rank %d: %s\n", wrank, what);
    fflush(stdout);
}

static unsigned char byte_of(int rank, size_t i, int round)
{
    return (unsigned char)((i * 131u + (size_t)rank * 17u + (size_t)round * 7u) >> 1 ^ i >> 9);
}

static void check_alg(const char *call, const char *want)
{
    const char *got = vred_mpi_last_alg();
    if (strcmp(got, want)) {
        char w[128];
        snprintf(w, sizeof w, "%s served by \"%s\", expected \"%s\"", call, got, want);
        fail(w);
    }
}

static void bcast(MPI_Comm c, int root, int round, const char *want)
{
    size_t n = (1u << 20) + 3;
    unsigned char *base = malloc(n + 16), *b = base + 5;
    for (size_t i = 0; i < n; i++) b[i] = wrank == root ? byte_of(root, i, round) : 0xEE;
    char call[64];
    snprintf(call, sizeof call, "bcast round %d root %d", round, root);
    if (MPI_Bcast(b, (int)n, MPI_BYTE, root, c) != MPI_SUCCESS) fail(call);
    check_alg(call, want);
    for (size_t i = 0; i < n; i++)
        if (b[i] != byte_of(root, i, round)) {
            fail(call);
            break;
        }
    free(base);
}

static void allgather(MPI_Comm c, int inplace, int round, const char *want)
{
    size_t n = (256u << 10) + 1;
    unsigned char *rb = malloc(n * (size_t)wsize + 16), *r = rb + 3;
    unsigned char *sb = malloc(n + 16), *s = sb + 11;
    memset(r, 0xEE, n * (size_t)wsize);
    unsigned char *mine = inplace ? r + (size_t)wrank * n : s;
    for (size_t i = 0; i < n; i++) mine[i] = byte_of(wrank, i, round);
    char call[64];
    snprintf(call, sizeof call, "allgather round %d inplace %d", round, inplace);
    if (MPI_Allgather(inplace ? MPI_IN_PLACE : s, (int)n, MPI_BYTE, r, (int)n, MPI_BYTE, c) != MPI_SUCCESS)
        fail(call);
    check_alg(call, want);
    for (int q = 0; q < wsize; q++)
        for (size_t i = 0; i < n; i++)
            if (r[(size_t)q * n + i] != byte_of(q, i, round)) {
                fail(call);
                q = wsize;
                break;
            }
    free(rb), free(sb);
}

/* Exact int sums: every rank's values are small (no overflow), computed anywhere. */
static int value_of(int rank, size_t i, int round)
{
    return (int)(((i * 2654435761u) ^ ((size_t)rank * 40503u + (size_t)round * 977u)) & 0xffff);
}

static int sum_of(size_t i, int round)
{
    int t = 0;
    for (int q = 0; q < wsize; q++) t += value_of(q, i, round);
    return t;
}

/* "any": any vred algorithm but "cma" and the MPI's; else exactly `want`. */
static void check_reduction_alg(const char *call, const char *want)
{
    const char *got = vred_mpi_last_alg();
    if (strcmp(want, "any")) check_alg(call, want);
    else if (!strcmp(got, "cma") || !strcmp(got, "mpi")) {
        char w[256];
        snprintf(w, sizeof w, "%s served by \"%s\" after the failed transfer", call, got);
        fail(w);
    }
}

/* kind 0 allreduce, 1 reduce (root: the last rank), 2 reduce_scatter_block; about 48 KiB of
 * ints in all (reduce_scatter_block: a whole block per rank): below the sizes where the rule
 * table gives a one-node call of two ranks to vred's point-to-point algorithms, whose large
 * messages would take the MPI's own single-copy path (refused by the filter). */
static void reduction(MPI_Comm c, int kind, int inplace, int round, const char *want)
{
    size_t block = ((12u << 10) + 3) / (size_t)wsize + 1, n = block * (size_t)wsize;
    int root = wsize - 1;
    int *sb = malloc(n * sizeof(int) + 64), *s = (int *)((char *)sb + 4);
    int *rb = malloc(n * sizeof(int) + 64), *r = (int *)((char *)rb + 12);
    int *in = inplace && (kind != 1 || wrank == root) ? r : s; /* reduce: in place at the root */
    for (size_t i = 0; i < n; i++) in[i] = value_of(wrank, i, round), r[i] = inplace ? r[i] : -1;
    const void *send = inplace ? MPI_IN_PLACE : s;
    char call[96];
    snprintf(call, sizeof call, "%s round %d inplace %d",
             kind == 0 ? "allreduce" : kind == 1 ? "reduce" : "reduce_scatter_block", round,
             inplace);
    int rc = kind == 0 ? MPI_Allreduce(send, r, (int)n, MPI_INT, MPI_SUM, c)
             : kind == 1 ? MPI_Reduce(wrank == root ? send : s, r, (int)n, MPI_INT, MPI_SUM, root, c)
                         : MPI_Reduce_scatter_block(send, r, (int)block, MPI_INT, MPI_SUM, c);
    if (rc != MPI_SUCCESS) fail(call);
    check_reduction_alg(call, want);
    size_t lo = kind == 2 ? block * (size_t)wrank : 0, len = kind == 2 ? block : n;
    if (kind != 1 || wrank == root)
        for (size_t i = 0; i < len; i++)
            if (r[i] != sum_of(lo + i, round)) {
                fail(call);
                break;
            }
    free(sb), free(rb);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (!vred_mpi_force || !vred_mpi_last_alg || wsize < 2) {
        if (!wrank) printf("FAIL: needs libvred-mpi's extension API and 2+ ranks\n");
        MPI_Finalize();
        return 1;
    }
    int node = node_of_me(), lo, hi;
    MPI_Allreduce(&node, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&node, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int one_node = lo == hi;
    vred_mpi_force("bcast", "cma");
    vred_mpi_force("allgather", "cma");
    vred_mpi_force("allreduce", "cma");
    vred_mpi_force("reduce", "cma");
    vred_mpi_force("reduce_scatter", "cma");
    /* Before: single copy serves (or cross-memory attach does not work here: skipped), on two
     * communicators: the first call after the denial is a bcast on one, an allgather on the
     * other (one node; else a bcast too). */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    bcast(dup, 0, 9, "cma");
    bcast(MPI_COMM_WORLD, wsize - 1, 0, "cma");
    if (strcmp(vred_mpi_last_alg(), "cma")) {
        if (!wrank) printf("cma_midway: cross-memory attach does not work here; skipped\n");
        MPI_Finalize();
        return 77;
    }
    if (one_node) allgather(MPI_COMM_WORLD, 0, 0, "cma");
    MPI_Comm red;
    MPI_Comm_dup(MPI_COMM_WORLD, &red);
    MPI_Comm_set_errhandler(red, MPI_ERRORS_RETURN);
    reduction(red, 0, 0, 10, "cma");
    /* This thread's process_vm_readv/writev fail with EPERM from now on (vred reads on the
     * thread that calls the collective). */
    int denied = wrank == 1 ? deny_cma() : 0, all;
    PMPI_Allreduce(&denied, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD); /* not vred's (forced) */
    if (all) {
        if (!wrank) printf("cma_midway: no seccomp filter could be installed; skipped\n");
        MPI_Finalize();
        return 77;
    }
    /* The call whose read fails on rank 1 (selected as cma before it ran), then the rest. */
    const char *after = one_node ? "pipe" : "cma";
    bcast(MPI_COMM_WORLD, 0, 1, "cma");
    bcast(MPI_COMM_WORLD, 1, 2, after);
    bcast(MPI_COMM_WORLD, wsize - 1, 3, after);
    if (one_node) allgather(MPI_COMM_WORLD, 0, 4, after), allgather(MPI_COMM_WORLD, 1, 5, after);
    if (one_node) allgather(dup, 1, 6, "cma"), allgather(dup, 0, 7, after);
    else bcast(dup, 1, 6, "cma"), bcast(dup, 0, 7, after);
    bcast(dup, wsize - 1, 8, after);
    const char *red_after = one_node ? "any" : "cma";
    reduction(red, 0, 1, 11, "cma");
    reduction(red, 1, 0, 12, red_after);
    reduction(red, 2, 0, 13, red_after);
    reduction(red, 0, 0, 14, red_after);
    reduction(red, 1, 1, 15, red_after);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&red);
    int tot;
    PMPI_Allreduce(&failures, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!wrank)
        printf("cma_midway: %d ranks, %s, %d failures\n", wsize,
               one_node ? "one node" : "several nodes", tot);
    MPI_Finalize();
    return tot ? 1 : 0;
}
