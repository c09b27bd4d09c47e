/*
 * --roots C N vred|mpi [invalid]: collective C (reduce or bcast) on N ints with mismatched
 * roots (rank 0 names itself, or with "invalid" the communicator's size; every other rank names
 * the last rank), under MPI_ERRORS_RETURN. Each rank
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
    if (argc != 5 && argc != 6) return 2;
    int bcast = !strcmp(argv[2], "bcast"), n = atoi(argv[3]), root = rank ? nprocs - 1 : 0;
    if (argc == 6 && !strcmp(argv[5], "invalid") && rank == 0) root = nprocs;
    const bi_api *f = strcmp(argv[4], "mpi") ? vred : mpi;
    int *s = calloc((size_t)n + 1, sizeof *s), *r = calloc((size_t)n + 1, sizeof *r);
    for (int i = 0; i < n; i++) s[i] = i + rank + 1;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
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
