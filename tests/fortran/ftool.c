/*
 * A minimal PMPI tool for Fortran programs (tests/fortran/run.sh tool): its mpi_allreduce_ and
 * mpi_finalize_ (gfortran's names for MPI_ALLREDUCE and MPI_FINALIZE through mpif.h and
 * `use mpi`) count the call and hand it to pmpi_allreduce_ / pmpi_finalize_, as Fortran-aware
 * profilers do. Preloaded before libvred-mpi.so, the tool must see every call and vred must
 * still serve it (src/mpi/fortran.c: vred's pmpi_ names); after it, vred serves and the tool
 * sees nothing. At exit it prints "ftool: allreduce=N finalize=M".
 */
#include <stdio.h>
#include <mpi.h>

#define EXPORT __attribute__((visibility("default")))

static long n_allreduce, n_finalize;

void pmpi_allreduce_(const void *s, void *r, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op,
                     MPI_Fint *comm, MPI_Fint *ierr);
void pmpi_finalize_(MPI_Fint *ierr);

EXPORT void mpi_allreduce_(const void *s, void *r, MPI_Fint *n, MPI_Fint *t, MPI_Fint *op,
                           MPI_Fint *comm, MPI_Fint *ierr)
{
    __atomic_fetch_add(&n_allreduce, 1, __ATOMIC_RELAXED);
    pmpi_allreduce_(s, r, n, t, op, comm, ierr);
}

EXPORT void mpi_finalize_(MPI_Fint *ierr)
{
    __atomic_fetch_add(&n_finalize, 1, __ATOMIC_RELAXED);
    pmpi_finalize_(ierr);
}

__attribute__((destructor)) static void report(void)
{
    printf("ftool: allreduce=%ld finalize=%ld\n", n_allreduce, n_finalize);
    fflush(stdout);
}
