/*
 * MPI_Reduce_local served by vred's kernels. vred takes the call only when it can do it
 * exactly: a predefined op on a predefined datatype vred has a kernel for, valid arguments, and
 * VRED_DISABLE unset. Everything else, including every erroneous call, goes to the MPI library
 * with the same arguments, so the MPI reports errors through its own error handler.
 */
#include <stddef.h>
#include <string.h>
#include "kernels/dispatch.h"
#include "mpi/pmpi_define.h"
#include "mpi/stats.h"
#include "mpi/types.h"


/* A datatype with holes (types.h): the kernels read whole elements and write only the value
 * and the index (docs/semantics.md), so every element but the last is reduced in place, where
 * its trailing holes lie inside the buffers; the last one in copies of its significant span, so
 * that nothing past the buffers' ends (legal at the true extent) is read or written. */
static void reduce_with_holes(const vred_entry *e, vred_type vt, const void *in, void *inout,
                              size_t count)
{
    size_t es = vred_type_size(vt), span = vred_mpi_span[vt];
    if (count > 1) e->fn(in, inout, inout, (count - 1) * e->scale);
    _Alignas(64) unsigned char x[64], y[64];
    const unsigned char *last_in = (const unsigned char *)in + (count - 1) * es;
    unsigned char *last_out = (unsigned char *)inout + (count - 1) * es;
    memset(x, 0, sizeof x);
    memset(y, 0, sizeof y);
    memcpy(x, last_in, span);
    memcpy(y, last_out, span);
    e->fn(x, y, y, e->scale);
    memcpy(last_out, y, span);
}

static inline int serve(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op)
{
    vred_type vt;
    vred_op vo;
    if (vred_mpi_disabled) return vred_pass(VRED_WHY_DISABLED);
    if (count < 0) return vred_pass(VRED_WHY_INVALID_ARG);
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE) return vred_pass(VRED_WHY_IN_PLACE);
    if (count > 0 && (!inbuf || !inoutbuf)) return vred_pass(VRED_WHY_INVALID_ARG);
    /* Only valid (op, type) pairs are in the tables. */
    if (!vred_mpi_map(datatype, op, &vt, &vo)) return vred_pass_unmapped(datatype, op);
    /* The kernel straight from the dispatch table: at 1 KiB the whole reduction is ~10 ns, so
     * the front may not spend more than a few. */
    const vred_entry *e = &vred_entries[vo][vt];
    if (count && vred_mpi_holes[vt]) reduce_with_holes(e, vt, inbuf, inoutbuf, (size_t)count);
    else if (count) e->fn(inbuf, inoutbuf, inoutbuf, (size_t)count * e->scale);
    return 1;
}

/* The ISA of the kernel that serves (datatype, op): the scalar reference's where no better ISA
 * has one (long double SUM), not the active ISA. Only for VRED_STATS: a second lookup. */
static int kernel_isa(MPI_Datatype datatype, MPI_Op op)
{
    vred_type vt;
    vred_op vo;
    if (!vred_mpi_map(datatype, op, &vt, &vo)) return (int)VRED_ISA_SCALAR;
    return (int)__atomic_load_n(&vred_entries[vo][vt].isa, __ATOMIC_RELAXED); /* (vred_isa_cap) */
}

/* VRED_STATS: the same, timed and counted (served: under the kernel's ISA). */
#define VRED_LOCAL_COUNTED(PASS)                                                                \
    do {                                                                                        \
        uint64_t t0 = vred_stats_now();                                                         \
        if (serve(inbuf, inoutbuf, count, datatype, op)) {                                      \
            vred_stats_served(VRED_SC_REDUCE_LOCAL, kernel_isa(datatype, op),                   \
                              vred_stats_bytes(count, datatype), t0);                           \
            return MPI_SUCCESS;                                                                 \
        }                                                                                       \
        int rc = PASS;                                                                          \
        vred_stats_passed(VRED_SC_REDUCE_LOCAL,                                                 \
                          rc == MPI_SUCCESS ? vred_stats_bytes(count, datatype) : 0, t0);       \
        return rc;                                                                              \
    } while (0)

/* The C binding's two forms (int counts, and MPI-4's MPI_Count ones) differ only in the count
 * type: one front each, from this macro. */
#define VRED_REDUCE_LOCAL_FRONT(NAME, CT)                                                           \
    VRED_API int MPI_##NAME(const void *inbuf, void *inoutbuf, CT count, MPI_Datatype datatype,     \
                            MPI_Op op)                                                              \
    {                                                                                               \
        if (__builtin_expect(vred_stats_on != 0, 0))                                                \
            VRED_LOCAL_COUNTED(vred_next()->NAME(inbuf, inoutbuf, count, datatype, op));            \
        if (serve(inbuf, inoutbuf, count, datatype, op)) return MPI_SUCCESS;                        \
        return vred_next()->NAME(inbuf, inoutbuf, count, datatype, op);                             \
    }                                                                                               \
    VRED_PMPI(NAME,                                                                                 \
              (const void *inbuf, void *inoutbuf, CT count, MPI_Datatype datatype, MPI_Op op),      \
              (inbuf, inoutbuf, count, datatype, op))

VRED_REDUCE_LOCAL_FRONT(Reduce_local, int)
#if MPI_VERSION >= 4
VRED_REDUCE_LOCAL_FRONT(Reduce_local_c, MPI_Count)
#endif
