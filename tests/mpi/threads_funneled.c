/*
 * Under MPI_THREAD_FUNNELED only the main thread may call MPI; vred's thread pool (VRED_THREADS,
 * src/local/threads.c) must never. Run on 2 ranks with VRED_THREADS=2 and VRED_SHM_SLICE=64 MiB
 * (and a VRED_SHM_LIMIT that lets the region have it),
 * so that the movement-avoiding allreduce folds 16 MiB parts, large enough for the pool.
 *
 * This executable defines the point-to-point and communicator PMPI_ functions vred calls
 * directly (and Iprobe, with which a shared-memory wait drives the MPI's progress): the dynamic
 * linker binds libvred-mpi.so's references to these definitions first, each records whether it
 * runs on the main thread, then calls the MPI's (dlsym RTLD_NEXT). The test fails if any call
 * came from another thread, if none came from the main thread (the wrappers were not reached:
 * the check could not have failed), or if the pool never started (no new thread in
 * /proc/self/task after the large reductions).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <mpi.h>

/* libvred-mpi.so's extension API, weak: null when the MPI runs alone. */
#define VRED_MPI_WEAK
#include "vred_mpi.h"

static long on_main, elsewhere;

static void note(void)
{
    if (syscall(SYS_gettid) == getpid()) __atomic_add_fetch(&on_main, 1, __ATOMIC_RELAXED);
    else __atomic_add_fetch(&elsewhere, 1, __ATOMIC_RELAXED);
}

#define WRAP(name, params, args)                                                                \
    __attribute__((visibility("default"))) int name params                                      \
    {                                                                                           \
        static int(*next) params;                                                               \
        if (!next) next = (int(*) params)dlsym(RTLD_NEXT, #name);                               \
        note();                                                                                 \
        return next args;                                                                       \
    }

WRAP(PMPI_Isend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),
     (b, n, t, d, g, c, r))
WRAP(PMPI_Irecv, (void *b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Request *r),
     (b, n, t, s, g, c, r))
WRAP(PMPI_Send, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c),
     (b, n, t, d, g, c))
WRAP(PMPI_Recv, (void *b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Status *st),
     (b, n, t, s, g, c, st))
WRAP(PMPI_Iprobe, (int s, int g, MPI_Comm c, int *f, MPI_Status *st), (s, g, c, f, st))
WRAP(PMPI_Waitall, (int n, MPI_Request *r, MPI_Status *st), (n, r, st))
WRAP(PMPI_Waitany, (int n, MPI_Request *r, int *i, MPI_Status *st), (n, r, i, st))
WRAP(PMPI_Barrier, (MPI_Comm c), (c))
WRAP(PMPI_Comm_split, (MPI_Comm c, int color, int key, MPI_Comm *out), (c, color, key, out))
WRAP(PMPI_Comm_rank, (MPI_Comm c, int *r), (c, r))
WRAP(PMPI_Comm_size, (MPI_Comm c, int *s), (c, s))

static int tasks(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    while (d && readdir(d)) n++;
    if (d) closedir(d);
    return n - 2; /* . and .. */
}

int main(int argc, char **argv)
{
    int provided = 0, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    __atomic_store_n(&on_main, 0, __ATOMIC_RELAXED); /* from here on: vred's calls only */
    int before = tasks(), bad = 0;
    size_t n = (size_t)32 << 20; /* floats: 128 MiB, parts of 16 MiB at 2 ranks */
    float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    for (size_t i = 0; i < n; i++) in[i] = (float)((i + (size_t)rank) % 1000);
    static const char *const algs[] = {"ma", "ring", "dpml"};
    /* Twice round: a shared-memory wait right after a large point-to-point transfer is also
     * where a rank once waited without driving the MPI's progress (sync.c), hanging 3 runs in 4. */
    for (int k = 0; k < 6; k++) {
        if (vred_mpi_force) vred_mpi_force("allreduce", algs[k % 3]);
        MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        for (size_t i = 0; i < n; i += 4093) {
            float want = 0;
            for (int r = 0; r < size; r++) want += (float)((i + (size_t)r) % 1000);
            if (out[i] != want) bad = 1;
        }
    }
    int after = tasks();
    long main_calls = __atomic_load_n(&on_main, __ATOMIC_RELAXED);
    long other_calls = __atomic_load_n(&elsewhere, __ATOMIC_RELAXED);
    int fail = bad || other_calls || !main_calls || after <= before;
    printf("threads_funneled: rank %d: provided %d, VRED_THREADS=%s, threads %d -> %d, MPI calls "
           "from vred: %ld on the main thread, %ld on others%s: %s\n", rank, provided,
           getenv("VRED_THREADS") ? getenv("VRED_THREADS") : "(unset)", before, after,
           main_calls, other_calls, bad ? ", WRONG RESULT" : "", fail ? "FAILED" : "ok");
    int any = 0;
    MPI_Allreduce(&fail, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    free(in);
    free(out);
    MPI_Finalize();
    return any;
}
