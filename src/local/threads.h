/*
 * Split large local reductions across a small persistent thread pool (MPI-free).
 *
 * The pool is created lazily by the first call that will use more than one thread (never at load,
 * never while the thread count is 1) and grows if a later call wants more threads. The calling
 * thread always does a share of the work. Idle workers spin briefly (VRED_THREADS_SPIN_NS) and then
 * block on a condition variable. Workers only run kernels: they never call MPI.
 *
 * One caller at a time owns the pool; a call that finds it busy (another thread is reducing) runs
 * on its own thread instead of waiting, so concurrent callers never deadlock. After fork() the
 * child starts without a pool (pthread_atfork); at exit (or dlclose) a destructor stops and joins
 * the workers, unless the pool is in use at that moment (exit then ends them).
 *
 * The split is element-wise: every part is one call of e->fn on whole elements, with part
 * boundaries on 64-byte boundaries of `out` where the alignment of `out` allows it, so the result
 * is byte-for-byte that of one call of e->fn over the whole range.
 */
#ifndef VRED_THREADS_H
#define VRED_THREADS_H

#include <stddef.h>
#include "kernels/dispatch.h"

enum { VRED_THREADS_MAX = 256 }; /* as VRED_THREADS accepts */

/* out = a op b over count elements of the public type (esize bytes each; e->fn works on
 * count * e->scale canonical elements). out may be a or b. Uses vred_threads_for(count * esize)
 * threads. */
void vred_par_reduce3(const vred_entry *e, size_t esize, const void *a, const void *b, void *out,
                      size_t count);

/* The same with up to nthreads threads and no size threshold (fewer if the pool is busy or a
 * thread cannot be created, or count < nthreads). For tests and benchmarks. */
void vred_par_reduce3_n(const vred_entry *e, size_t esize, const void *a, const void *b, void *out,
                        size_t count, int nthreads);

/* Threads used for a large reduction (>= 1): the test/benchmark override if set, else VRED_THREADS
 * if > 0, else the MPI layer's default (vred_threads_set_auto) if set, else the CPUs of this
 * process's affinity mask; at most VRED_THREADS_MAX. */
int vred_threads_count(void);

/* The MPI layer's measured default (vred_mpi_exclusive_cores), used when VRED_THREADS = 0.
 * n <= 0 clears it. */
void vred_threads_set_auto(int n);

/* Output bytes (count * esize) below which one thread is used: measured, see threads.c. Each
 * thread gets at least half of it, so a reduction of B >= min bytes uses
 * min(vred_threads_count(), B / (min / 2)) threads. */
size_t vred_threads_min_bytes(void);

/* The threads vred_par_reduce3 uses for an output of `bytes` bytes. */
int vred_threads_for(size_t bytes);

/* Tests and benchmarks: n > 0 overrides vred_threads_count(), 0 removes the override. */
void vred_threads_set_override(int n);
/* Tests and benchmarks: replace the threshold; (size_t)-1 restores the measured one. */
void vred_threads_set_min_bytes(size_t bytes);
/* Tests: threads of the pool including the caller (1 when there is no pool). */
int vred_threads_pool_size(void);

#endif
