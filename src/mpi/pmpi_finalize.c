/*
 * MPI_Finalize: vred prints its VRED_STATS summary (collective over MPI_COMM_WORLD when
 * gathered on rank 0), frees what it keeps on MPI_COMM_WORLD/SELF while the MPI still runs, and
 * from here on every call goes to the MPI library untouched. Without this, tables built while
 * MPI ran would keep serving MPI_Reduce_local after MPI_Finalize, where the MPI itself reports an
 * error (the standard makes such a call erroneous).
 */
#include "mpi/coll_front.h"
#include "mpi/comm.h"
#include "mpi/pmpi_define.h"
#include "mpi/pmpi_hooks.h"
#include "mpi/stats.h"
#include "mpi/types.h"

/* Once per process (see vred_mpi_after_init). */
void vred_mpi_before_finalize(void)
{
    static int done;
    if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL)) return;
    vred_stats_finalize();
    vred_comm_finalize();
    vred_front_finalize();
    __atomic_store_n(&vred_mpi_state, VRED_MPI_FINALIZED, __ATOMIC_RELEASE);
}

VRED_API int MPI_Finalize(void)
{
    vred_mpi_before_finalize();
    return vred_next()->Finalize();
}
VRED_PMPI(Finalize, (void), ())
