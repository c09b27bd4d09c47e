/*
 * MPI_Init / MPI_Init_thread: once the MPI runs, find how many cores this rank has to itself
 * (the VRED_THREADS default: cores in its affinity mask that no other rank of its node has) and
 * how many ranks share its node (the VRED_SHM_LIMIT default).
 * This is the one moment every rank of MPI_COMM_WORLD is sure to be making the same call.
 */
#include "mpi/affinity.h"
#include "config.h"
#include "coll/shm/budget.h"
#include "local/threads.h"
#include "mpi/pmpi_define.h"
#include "mpi/pmpi_hooks.h"
#include "mpi/types.h"

/* Once per process: with a PMPI tool above vred, Open MPI's Fortran MPI_INIT reaches both vred's
 * C front (through PMPI_Init) and its Fortran one (fortran.c). */
void vred_mpi_after_init(void)
{
    static int done;
    if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL)) return;
    if (vred_mpi_disabled) return;
    MPI_Comm node;
    int n = 0;
    if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) !=
        MPI_SUCCESS)
        return;
    /* The ranks that share this node's /dev/shm: the default VRED_SHM_LIMIT divides it. */
    if (PMPI_Comm_size(node, &n) == MPI_SUCCESS) vred_shm_budget_set_local_ranks(n);
    if (!vred_config_get()->threads) vred_threads_set_auto(vred_mpi_exclusive_cores(node));
    PMPI_Comm_free(&node);
}

VRED_API int MPI_Init(int *argc, char ***argv)
{
    int rc = vred_next()->Init(argc, argv);
    if (rc == MPI_SUCCESS) vred_mpi_after_init();
    return rc;
}
VRED_PMPI(Init, (int *argc, char ***argv), (argc, argv))

VRED_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = vred_next()->Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) vred_mpi_after_init();
    return rc;
}
VRED_PMPI(Init_thread, (int *argc, char ***argv, int required, int *provided),
          (argc, argv, required, provided))
