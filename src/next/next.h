/*
 * The MPI underneath: the module below coll/ and mpi/ through which vred's own calls of the
 * collectives it intercepts reach the MPI library (libvred-mpi.so only; built per MPI flavor).
 *
 * vred's own calls to the MPI functions it intercepts go to the NEXT library's PMPI_<X>, never
 * to a plain PMPI_<X>.
 *
 * Why: libvred-mpi.so defines PMPI_<X> as well as MPI_<X> for every function it intercepts, so
 * that a PMPI tool loaded before it (its MPI_<X> calling PMPI_<X>) reaches vred and not the MPI
 * library straight away (docs/reliability.md, "Coexistence with another PMPI tool"). A plain
 * call to PMPI_<X> from inside vred would then bind to vred's own PMPI_<X>, the first definer:
 * an agreement allreduce, a pass-through, PMPI_Init from MPI_Init would re-enter vred. So they go
 * through these pointers, resolved once with dlsym(RTLD_NEXT, "PMPI_<X>"): the first definer
 * after libvred-mpi.so, the MPI library. Functions vred does not intercept (PMPI_Isend,
 * PMPI_Comm_rank, ...) are called directly: vred does not define them.
 */
#ifndef VRED_NEXT_H
#define VRED_NEXT_H

#include <mpi.h>

/* Every function vred defines as MPI_<X> (and PMPI_<X>). */
#define VRED_NEXT_FUNCS(X)                                                                      \
    X(Init) X(Init_thread) X(Finalize) X(Reduce_local) X(Reduce) X(Allreduce)                  \
    X(Reduce_scatter_block) X(Reduce_scatter) X(Scan) X(Exscan) X(Bcast) X(Allgather)
#if MPI_VERSION >= 4
#define VRED_NEXT_FUNCS_C(X)                                                                    \
    X(Reduce_local_c) X(Reduce_c) X(Allreduce_c) X(Reduce_scatter_block_c) X(Reduce_scatter_c) \
    X(Scan_c) X(Exscan_c) X(Bcast_c) X(Allgather_c)
#else
#define VRED_NEXT_FUNCS_C(X)
#endif

enum {
#define VRED_NEXT_ID(name) VRED_NEXT_ID_##name,
    VRED_NEXT_FUNCS(VRED_NEXT_ID) VRED_NEXT_FUNCS_C(VRED_NEXT_ID)
#undef VRED_NEXT_ID
    VRED_NEXT_COUNT
};

/* One pointer per function, typed as the MPI's own PMPI_<X>: vred_next()->Allreduce(...). */
typedef struct {
#define VRED_NEXT_MEMBER(name) __typeof__(PMPI_##name) *name;
    VRED_NEXT_FUNCS(VRED_NEXT_MEMBER) VRED_NEXT_FUNCS_C(VRED_NEXT_MEMBER)
#undef VRED_NEXT_MEMBER
    /* 1 where another object's MPI_<X> comes before vred's in the lookup order (a PMPI tool
     * above vred): the application's MPI_<X> reaches vred only through PMPI_<X>. */
    unsigned char tool_above[VRED_NEXT_COUNT];
} vred_next_fns;

extern vred_next_fns vred_next_table;
extern int vred_next_ready;

/* Resolve every pointer once (thread-safe); on a name the next library lacks, print which and
 * abort: there is nothing correct vred could do instead. */
const vred_next_fns *vred_next_resolve(void);

/* 1 if the first definition of the function `name` in the global lookup order is another
 * object's than libvred-mpi.so (a PMPI tool above vred). The Fortran entry points
 * (fortran.c) ask it about their own names. */
__attribute__((visibility("hidden"))) int vred_next_other_first(const char *name);

/* The table; after the first call, one load and a branch. */
static inline const vred_next_fns *vred_next(void)
{
    return __atomic_load_n(&vred_next_ready, __ATOMIC_ACQUIRE) ? &vred_next_table
                                                               : vred_next_resolve();
}

#endif
