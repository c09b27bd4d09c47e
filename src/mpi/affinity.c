/*
 * VRED_THREADS=0 (auto): a rank splits its large local reductions over the cores it may use that
 * no other rank of its node may use. Ranks bound one per core get 1 (the pool is never created);
 * a rank bound to a whole socket alone gets the socket's cores; unbound ranks (every mask is the
 * whole node) get 1, since the cores belong to all of them.
 *
 * Masks are read with sched_getaffinity into a CPU_ALLOC set large enough for the kernel's CPU
 * count (CPU_SETSIZE = 1024 bits first, doubled until the kernel accepts it), and compared as
 * bytes: every rank uses the largest size any rank of the node needed (PMPI_Allreduce MAX), then
 * PMPI_Allgather of the masks, the next library's (next/next.h): vred itself wraps the MPI_ collectives.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "mpi/affinity.h"
#include "next/next.h"

enum { MAX_CPUS = 1 << 16 };

/* This process's mask as bytes (bit i of byte i/8 = CPU i, the kernel's order), in *mask of
 * *bytes bytes; 0 bytes if it cannot be read. */
static unsigned char *read_mask(size_t *bytes)
{
    for (int ncpu = CPU_SETSIZE; ncpu <= MAX_CPUS; ncpu *= 2) {
        cpu_set_t *set = CPU_ALLOC((size_t)ncpu);
        if (!set) break;
        size_t size = CPU_ALLOC_SIZE((size_t)ncpu);
        CPU_ZERO_S(size, set);
        if (sched_getaffinity(0, size, set) == 0) {
            unsigned char *m = calloc(size, 1);
            if (m)
                for (int c = 0; c < ncpu; c++)
                    if (CPU_ISSET_S((size_t)c, size, set)) m[c / 8] |= (unsigned char)(1u << (c % 8));
            CPU_FREE(set);
            *bytes = m ? size : 0;
            return m;
        }
        CPU_FREE(set); /* EINVAL: the kernel has more CPUs than this set holds */
    }
    *bytes = 0;
    return NULL;
}

int vred_mpi_exclusive_cores(MPI_Comm node_comm)
{
    if (node_comm == MPI_COMM_NULL) return 1;
    int nranks = 1, me = 0;
    if (PMPI_Comm_size(node_comm, &nranks) != MPI_SUCCESS ||
        PMPI_Comm_rank(node_comm, &me) != MPI_SUCCESS)
        return 1;
    size_t mine_bytes = 0;
    unsigned char *mine = read_mask(&mine_bytes);
    /* Every rank reaches both collectives, whatever its own mask gave. */
    unsigned long long want = mine_bytes, size = 0;
    int ok = vred_next()->Allreduce(&want, &size, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX,
                                    node_comm) == MPI_SUCCESS;
    unsigned char *all = NULL, *padded = NULL;
    if (ok && size > 0 && size <= MAX_CPUS / 8) {
        padded = calloc(size, 1);
        all = calloc((size_t)nranks, size);
        if (padded && mine) memcpy(padded, mine, mine_bytes);
    }
    /* Every rank takes part in the second reduction whatever happened: if any rank could not
     * allocate (or read the size), all of them skip the gather together. */
    int have = ok && all && padded, all_have = 0;
    ok = vred_next()->Allreduce(&have, &all_have, 1, MPI_INT, MPI_LAND, node_comm) == MPI_SUCCESS;
    int n = 0;
    if (ok && all_have &&
        vred_next()->Allgather(padded, (int)size, MPI_BYTE, all, (int)size, MPI_BYTE,
                               node_comm) == MPI_SUCCESS) {
        for (size_t i = 0; i < size; i++) {
            unsigned others = 0;
            for (int r = 0; r < nranks; r++)
                if (r != me) others |= all[(size_t)r * size + i];
            unsigned excl = padded[i] & ~others & 0xffu;
            n += __builtin_popcount(excl);
        }
    }
    free(all);
    free(padded);
    free(mine);
    return n > 0 ? n : 1;
}
