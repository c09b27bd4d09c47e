/* A rank failing inside a collective, and the test-only injection (fail.h). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "config.h"
#include "coll/fail.h"

static long hits[VRED_FAIL_MEMFD + 1]; /* by vred_fail_point */

int vred_fail_inject(vred_fail_point point)
{
    const vred_config *c = vred_config_get();
    if (__builtin_expect(c->test_fail_point != (int)point, 1)) return 0;
    int wrank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (wrank != c->test_fail_rank) return 0;
    return __atomic_add_fetch(&hits[point], 1, __ATOMIC_RELAXED) == c->test_fail_nth;
}

void vred_fail(const char *what, int rc)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0, wrank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (PMPI_Error_string(rc, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "%d", rc);
    fprintf(stderr, "vred: rank %d (pid %d): %s failed on this rank (%s) after its peers may have "
                    "started; aborting the job rather than leave them waiting\n",
            wrank, (int)getpid(), what, text);
    vred_abort_job();
}

void vred_abort_job(void)
{
    fflush(stderr);
    /* MPICH's launcher tears the job down at once on an abort and could drop the message before
     * forwarding it (seen once in 18 failures at 0 s, and once in a loaded CI run for a
     * deadlock's); a moment to forward it costs nothing on a path that ends the job. */
    nanosleep(&(struct timespec){0, 200 * 1000 * 1000}, NULL);
    PMPI_Abort(MPI_COMM_WORLD, 1);
    abort(); /* PMPI_Abort does not return; if it did, end here all the same */
}
