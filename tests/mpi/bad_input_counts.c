/*
 * --counts vred: a bcast whose ranks pass different counts (erroneous: MPI-4.1 6.2.2, the
 * signatures must match) between valid ones, under MPI_ERRORS_RETURN, bcast forced to vred's
 * pipeline. The root's 16 KiB take a rotating place in the bank, the others' 4 KiB would take
 * the bank's start (shm/small.c): the receivers must read at the root's place (their buffers
 * are short: MPI_ERR_TRUNCATE) and keep the places of every later call in step with the root's.
 * The erroneous call must return MPI_SUCCESS at the root and MPI_ERR_TRUNCATE elsewhere, and
 * every valid 16 KiB bcast after it must deliver the root's bytes on every rank. Prints
 * "counts: N bad" on rank 0; exit status 1 if any call went wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include "bad_input.h"

enum { BIG = 16 << 10, SMALL = 4 << 10, ROUNDS = 40 };

int bi_counts(const bi_api *vred)
{
    int rank, bad = 0, all = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unsigned char *b = malloc(BIG);
    if (!b) return 2;
    for (int it = 0; it < ROUNDS; it++) {
        /* Three valid calls: both banks, more than one place in each. */
        for (int k = 0; k < 3; k++) {
            for (int i = 0; i < BIG; i++) b[i] = rank == 0 ? (unsigned char)(i * 7 + it + k) : 0;
            if (vred->bcast(b, BIG, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS) bad++;
            for (int i = 0; i < BIG; i++)
                if (b[i] != (unsigned char)(i * 7 + it + k)) {
                    bad++;
                    break;
                }
        }
        if (it % 5 == 2) {
            /* The root returns at once; a receiver's buffer is short: MPI_ERR_TRUNCATE. */
            int rc = vred->bcast(b, rank == 0 ? BIG : SMALL, MPI_BYTE, 0, MPI_COMM_WORLD), cls = rc;
            if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
            if (cls != (rank == 0 ? MPI_SUCCESS : MPI_ERR_TRUNCATE)) bad++;
        }
    }
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("counts: %d bad\n", all);
    free(b);
    MPI_Finalize();
    return all ? 1 : 0;
}
