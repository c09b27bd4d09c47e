/*
 * The per-process bound on vred's shared memory (VRED_SHM_LIMIT): every region a rank maps is
 * charged to it at region bytes / ranks mapping it (its share), so that the charges of all the
 * processes of a node add up to the shared memory vred holds on that node (memfds, or segments
 * in /dev/shm; region.c). A region that does not fit the least budget left on its node is made
 * smaller (region.c); one that cannot be made at the least size is not made, and the
 * communicator's collectives go point-to-point.
 */
#ifndef VRED_SHM_BUDGET_H
#define VRED_SHM_BUDGET_H

#include <stddef.h>

/* The bound in bytes (VRED_SHM_LIMIT, or the automatic default; see config.c). */
size_t vred_shm_budget_limit(void);
/* Bytes this process may still take (0 when used up). */
size_t vred_shm_budget_left(void);
/* Takes `share` bytes: 1, or 0 (nothing taken) if they do not fit (another thread may have
 * taken them since vred_shm_budget_left). */
int vred_shm_budget_take(size_t share);
void vred_shm_budget_give(size_t share);
/* Ranks of MPI_COMM_WORLD on this process's node (from MPI_Init), for the default bound. */
void vred_shm_budget_set_local_ranks(int n);

#endif
