/*
 * --roots C N [invalid] [warm] vred|mpi (the words after N in any order): collective C (reduce or bcast) on N ints with
 * mismatched roots (rank 0 names itself, or with "invalid" the communicator's size; every other
 * rank names the last rank), under MPI_ERRORS_RETURN; with "warm", after one valid call of the
 * same size (vred's shared region is then made: a small bcast agrees in its one step through
 * it, shm/small.c, instead of by allreduce). Each rank
 * prints its error class and its first result element, then all meet in a barrier. Erroneous
 * (MPI-4.1 5.2.1: root must be the same on every rank); the MPIs do not check it, so
 * bad_input.sh runs each in its own job, with a time limit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bad_input.h"

int bi_roots(int argc, char **argv, const bi_api *vred, const bi_api *mpi)
{
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 5 || argc > 7) return 2;
    int bcast = !strcmp(argv[2], "bcast"), n = atoi(argv[3]), root = rank ? nprocs - 1 : 0;
    int invalid = 0, warm = 0;
    const bi_api *f = NULL;
    for (int i = 4; i < argc; i++) {
        if (!strcmp(argv[i], "invalid")) invalid = 1;
        else if (!strcmp(argv[i], "warm")) warm = 1;
        else if (!strcmp(argv[i], "vred")) f = vred;
        else if (!strcmp(argv[i], "mpi")) f = mpi;
        else return 2;
    }
    if (!f) return 2;
    if (invalid && rank == 0) root = nprocs;
    int *s = calloc((size_t)n + 1, sizeof *s), *r = calloc((size_t)n + 1, sizeof *r);
    for (int i = 0; i < n; i++) s[i] = i + rank + 1;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (warm && (bcast ? f->bcast(s, n, MPI_INT, 0, MPI_COMM_WORLD)
                       : f->reduce(s, r, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD)) != MPI_SUCCESS) {
        printf("rank %d: the valid call before failed\n", rank);
        return 1;
    }
    for (int i = 0; i < n; i++) s[i] = i + rank + 1;
    int rc = bcast ? f->bcast(s, n, MPI_INT, root, MPI_COMM_WORLD)
                   : f->reduce(s, r, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    int cls = rc;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    printf("rank %d: %s root %d: %s, first %d\n", rank, argv[2], root,
           cls == MPI_ERR_ROOT ? "MPI_ERR_ROOT" : cls ? "another error" : "MPI_SUCCESS",
           bcast ? s[0] : r[0]);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
