/*
 * MPI_Reduce_local served by vred's kernels. vred takes the call only when it can do it
 * exactly: a predefined op on a predefined datatype vred has a kernel for, valid arguments, and
 * VRED_DISABLE unset. Everything else, including every erroneous call, goes to the MPI library
 * with the same arguments, so the MPI reports errors through its own error handler.
 */
#include <stddef.h>
#include "kernels/dispatch.h"
#include "next.h"
#include "types.h"

#define VRED_MPI_EXPORT __attribute__((visibility("default")))

static inline int serve(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op)
{
    vred_type vt;
    vred_op vo;
    if (vred_mpi_disabled || count < 0 || inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
        return 0;
    if (count > 0 && (!inbuf || !inoutbuf)) return 0;
    /* Only valid (op, type) pairs are in the tables. */
    if (!vred_mpi_map(datatype, op, &vt, &vo)) return 0;
    /* The kernel straight from the dispatch table: at 1 KiB the whole reduction is ~10 ns, so
     * the front may not spend more than a few. */
    const vred_entry *e = &vred_entries[vo][vt];
    if (count) e->fn(inbuf, inoutbuf, inoutbuf, (size_t)count * e->scale);
    return 1;
}

VRED_MPI_EXPORT int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
                                     MPI_Datatype datatype, MPI_Op op)
{
    if (serve(inbuf, inoutbuf, count, datatype, op)) return MPI_SUCCESS;
    return vred_next()->Reduce_local(inbuf, inoutbuf, count, datatype, op);
}
VRED_PMPI(Reduce_local, (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                         MPI_Op op),
          (inbuf, inoutbuf, count, datatype, op))

#if MPI_VERSION >= 4
VRED_MPI_EXPORT int MPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count,
                                       MPI_Datatype datatype, MPI_Op op)
{
    if (serve(inbuf, inoutbuf, count, datatype, op)) return MPI_SUCCESS;
    return vred_next()->Reduce_local_c(inbuf, inoutbuf, count, datatype, op);
}
VRED_PMPI(Reduce_local_c, (const void *inbuf, void *inoutbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op),
          (inbuf, inoutbuf, count, datatype, op))
#endif
