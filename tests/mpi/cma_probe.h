/*
 * Whether cross-memory attach works between the ranks of every node, found out by the test
 * itself as vred's probe does (src/coll/shm/cma.c), for the MPI tests that must know which
 * algorithm serves a forced "cma" (coll.c, coll_move.c). Include it after defining _GNU_SOURCE.
 */
#ifndef VRED_TEST_CMA_PROBE_H
#define VRED_TEST_CMA_PROBE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <mpi.h>
#include "node_of.h"

/* Collective over the world: each rank publishes its pid and a token's address to its node,
 * reads every peer's token with process_vm_readv and writes it back into the next rank's word
 * with process_vm_writev; all agree (MIN). 0 also where VRED_CMA=off. */
static int cma_probe(void)
{
    int wrank, nr, np;
    MPI_Comm node;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    PMPI_Comm_split(MPI_COMM_WORLD, node_of_me(), wrank, &node);
    PMPI_Comm_rank(node, &nr);
    PMPI_Comm_size(node, &np);
    static volatile uint64_t token, word;
    token = 0x5eed0000u + (uint64_t)wrank * 7919u + 1;
    word = 0;
    uint64_t mine[4] = {(uint64_t)getpid(), (uint64_t)(uintptr_t)&token, token,
                        (uint64_t)(uintptr_t)&word};
    uint64_t *all = malloc(4 * sizeof(uint64_t) * (size_t)np);
    PMPI_Allgather(mine, 4, MPI_UINT64_T, all, 4, MPI_UINT64_T, node);
    int ok = 1;
    for (int q = 0; q < np; q++) {
        if (q == nr) continue;
        uint64_t got = 0;
        struct iovec to = {&got, sizeof got}, from = {(void *)(uintptr_t)all[4 * q + 1], sizeof got};
        if (process_vm_readv((pid_t)all[4 * q], &to, 1, &from, 1, 0) != (ssize_t)sizeof got ||
            got != all[4 * q + 2])
            ok = 0;
    }
    int next = (nr + 1) % np, prev = (nr + np - 1) % np;
    if (next != nr) {
        uint64_t t = token;
        struct iovec from = {&t, sizeof t}, to = {(void *)(uintptr_t)all[4 * next + 3], sizeof t};
        if (process_vm_writev((pid_t)all[4 * next], &from, 1, &to, 1, 0) != (ssize_t)sizeof t)
            ok = 0;
    }
    PMPI_Barrier(node);
    if (prev != nr && word != all[4 * prev + 2]) ok = 0;
    free(all);
    PMPI_Comm_free(&node);
    int agreed;
    PMPI_Allreduce(&ok, &agreed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    const char *env = getenv("VRED_CMA");
    return agreed && !(env && !strcmp(env, "off"));
}

#endif
