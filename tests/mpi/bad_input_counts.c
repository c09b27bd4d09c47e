/*
 * --counts vred: a bcast whose ranks pass different counts (erroneous: MPI-4.1 6.2.2, the
 * signatures must match) between valid ones, under MPI_ERRORS_RETURN, bcast forced to vred's
 * pipeline. The root's 16 KiB take a rotating place in the bank, the others' 4 KiB would take
 * the bank's start (shm/small.c): the receivers must read at the root's place (their buffers
 * are short: MPI_ERR_TRUNCATE) and keep the places of every later call in step with the root's.
 * The erroneous call must return MPI_SUCCESS at the root and MPI_ERR_TRUNCATE elsewhere, and
 * every valid 16 KiB bcast after it must deliver the root's bytes on every rank.
 *
 * Then the same mismatch in the pipeline (root 64 KiB, the others 32 KiB, after valid 64 KiB
 * calls so that vred's region is made): its agreement carries the bytes (shm/bcast_pipe.c), so
 * the call goes to the MPI, whose answer it is (Open MPI and MPICH report an error on the short
 * receivers and return); before, the ranks ran different numbers of slices and waited forever.
 * The receivers must get an error, and the valid 64 KiB calls after it must be right on every
 * rank. Prints "counts: N bad" on rank 0; exit status 1 if any call went wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include "bad_input.h"

enum { BIG = 16 << 10, SMALL = 4 << 10, ROUNDS = 40, PIPE_BIG = 64 << 10, PIPE_SHORT = 32 << 10 };

/* `calls` valid bcasts of n bytes from rank 0 (call k's bytes i * 7 + tag + k): this rank's
 * failed calls and wrong results. */
static int valid_bcasts(const bi_api *vred, unsigned char *b, int n, int rank, int calls, int tag)
{
    int bad = 0;
    for (int k = 0; k < calls; k++) {
        for (int i = 0; i < n; i++) b[i] = rank == 0 ? (unsigned char)(i * 7 + tag + k) : 0;
        if (vred->bcast(b, n, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS) bad++;
        for (int i = 0; i < n; i++)
            if (b[i] != (unsigned char)(i * 7 + tag + k)) {
                bad++;
                break;
            }
    }
    return bad;
}

int bi_counts(const bi_api *vred)
{
    int rank, bad = 0, all = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unsigned char *b = malloc(BIG);
    if (!b) return 2;
    for (int it = 0; it < ROUNDS; it++) {
        /* Three valid calls: both banks, more than one place in each. */
        bad += valid_bcasts(vred, b, BIG, rank, 3, it);
        if (it % 5 == 2) {
            /* The root returns at once; a receiver's buffer is short: MPI_ERR_TRUNCATE. */
            int rc = vred->bcast(b, rank == 0 ? BIG : SMALL, MPI_BYTE, 0, MPI_COMM_WORLD), cls = rc;
            if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
            if (cls != (rank == 0 ? MPI_SUCCESS : MPI_ERR_TRUNCATE)) bad++;
        }
    }
    free(b);
    /* The pipeline's mismatch: the MPI's answer, an error on the short receivers. */
    unsigned char *l = malloc(PIPE_BIG);
    if (!l) return 2;
    bad += valid_bcasts(vred, l, PIPE_BIG, rank, 3, 1);
    int rc = vred->bcast(l, rank == 0 ? PIPE_BIG : PIPE_SHORT, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (rank != 0 && rc == MPI_SUCCESS) bad++;
    bad += valid_bcasts(vred, l, PIPE_BIG, rank, 3, 2);
    free(l);
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("counts: %d bad\n", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
