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

#include <stdio.h>

/*
 * Every rank must run with the same VRED_* settings: the ranks of a collective each decide from
 * their own (an algorithm forced, shared memory off, the pipeline's cells, the node's socket
 * groups, the threads' probe at start-up, vred disabled), and ranks that decide differently
 * wait for each other in different calls. Set on one rank only (an MPMD launch, a per-rank
 * wrapper script, an environment not exported to remote hosts), VRED_THREADS or VRED_DISABLE
 * hung MPI_Init, VRED_SOCKETS the first collective, VRED_SHM_CELL gave a bcast wrong bytes and
 * then hung. So the ranks compare every knob's value in effect here, in one allreduce of two
 * digests per knob (the largest of d and of ~d: equal on every rank only if d is), and where
 * any differs, vred passes every call to the MPI in this job, and world rank 0 names the knobs.
 * VRED_DISABLE=1 ranks take part too: the check is the one call vred makes then.
 * 1 if they all agree (or the check itself could not be made: then nothing is known to differ).
 */
static int settings_agree(void)
{
    size_t n = vred_config_knobs();
    uint64_t d[2 * VRED_CONFIG_KNOBS_MAX];
    for (size_t k = 0; k < n; k++) {
        d[2 * k] = vred_config_knob_digest(k);
        d[2 * k + 1] = ~d[2 * k];
    }
    if (vred_next()->Allreduce(MPI_IN_PLACE, d, (int)(2 * n), MPI_UINT64_T, MPI_MAX,
                               MPI_COMM_WORLD) != MPI_SUCCESS)
        return 1;
    int rank = 0, all = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (size_t k = 0; k < n; k++)
        if (d[2 * k] != ~d[2 * k + 1]) {
            if (all && rank == 0)
                fprintf(stderr, "vred: the ranks of MPI_COMM_WORLD run with different VRED_* "
                                "settings; vred passes every call of this job to the MPI. Set "
                                "each the same on every rank (mpirun -x NAME, -genv NAME "
                                "VALUE). Differing:");
            if (rank == 0) fprintf(stderr, " %s", vred_config_knob_name(k));
            all = 0;
        }
    if (!all && rank == 0) fprintf(stderr, "\n");
    return all;
}

/* Once per process: with a PMPI tool above vred, Open MPI's Fortran MPI_INIT reaches both vred's
 * C front (through PMPI_Init) and its Fortran one (fortran.c). */
void vred_mpi_after_init(void)
{
    static int done;
    if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL)) return;
    if (!settings_agree()) vred_mpi_disabled = 1;
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
