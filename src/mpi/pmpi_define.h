/*
 * VRED_PMPI: how a front (pmpi_*.c) defines vred's PMPI_<name> beside its MPI_<name>. Here, in
 * the PMPI front, rather than in next/next.h: only the front defines MPI entry points; the layers
 * below only call the MPI underneath.
 */
#ifndef VRED_MPI_PMPI_DEFINE_H
#define VRED_MPI_PMPI_DEFINE_H

#include "next/next.h"
#include "vred.h"

/*
 * vred's PMPI_<name>, after its MPI_<name> in the same file. With a PMPI tool above vred (the
 * tool's MPI_<name> calls PMPI_<name> to reach "the MPI"), it is vred's MPI_<name>: vred serves
 * or passes the call on, and the tool keeps working. Otherwise it is the next library's
 * PMPI_<name>, untouched: then PMPI_<name> stays the MPI library's own, which the tests and
 * benchmarks compare vred against and Open MPI's Fortran bindings call. vred's MPI_<name> is
 * reached through a hidden alias: a call by name would bind to the tool's MPI_<name> and loop.
 */
#define VRED_PMPI(name, params, args)                                                           \
    extern __typeof__(MPI_##name) vred_own_##name                                               \
        __attribute__((alias("MPI_" #name), visibility("hidden")));                             \
    VRED_API int PMPI_##name params                                                             \
    {                                                                                           \
        const vred_next_fns *n = vred_next();                                                   \
        return n->tool_above[VRED_NEXT_ID_##name] ? vred_own_##name args : n->name args;        \
    }

#endif
