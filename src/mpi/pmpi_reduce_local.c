/*
 * MPI_Reduce_local served by vred's kernels. vred takes the call only when it can do it
 * exactly: a predefined op on a predefined datatype vred has a kernel for, valid arguments, and
 * VRED_DISABLE unset. Everything else, including every erroneous call, goes to the MPI library
 * with the same arguments, so the MPI reports errors through its own error handler.
 */
#include <stddef.h>
#include "config.h"
#include "types.h"

#define VRED_MPI_EXPORT __attribute__((visibility("default")))

static inline int serve(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op)
{
    vred_type vt;
    vred_op vo;
    if (count < 0 || vred_config_get()->disable) return 0;
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE) return 0;
    if (count > 0 && (!inbuf || !inoutbuf)) return 0;
    if (!vred_mpi_map(datatype, op, &vt, &vo)) return 0;
    if (!vred_op_valid(vo, vt)) return 0; /* the table holds valid pairs only; kept as a guard */
    return vred_reduce(vo, vt, inbuf, inoutbuf, (size_t)count) == VRED_OK;
}

VRED_MPI_EXPORT int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
                                     MPI_Datatype datatype, MPI_Op op)
{
    if (serve(inbuf, inoutbuf, count, datatype, op)) return MPI_SUCCESS;
    return PMPI_Reduce_local(inbuf, inoutbuf, count, datatype, op);
}

#if MPI_VERSION >= 4
VRED_MPI_EXPORT int MPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count,
                                       MPI_Datatype datatype, MPI_Op op)
{
    if (serve(inbuf, inoutbuf, count, datatype, op)) return MPI_SUCCESS;
    return PMPI_Reduce_local_c(inbuf, inoutbuf, count, datatype, op);
}
#endif
