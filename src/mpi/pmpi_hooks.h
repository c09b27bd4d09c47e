/*
 * What vred does around the MPI's own MPI_Init and MPI_Finalize, for the C fronts
 * (pmpi_init.c, pmpi_finalize.c) and for the Fortran ones (fortran.c): Open MPI's Fortran
 * MPI_INIT and MPI_FINALIZE, and MPICH's mpi_f08 ones, call PMPI_Init/PMPI_Finalize and never
 * reach vred's C fronts. Each runs once per process, whichever front gets there first.
 */
#ifndef VRED_MPI_PMPI_HOOKS_H
#define VRED_MPI_PMPI_HOOKS_H

/* After a successful MPI_Init(_thread): the VRED_THREADS default from the cores this rank has
 * to itself (collective over MPI_COMM_WORLD). */
__attribute__((visibility("hidden"))) void vred_mpi_after_init(void);

/* Before the MPI's MPI_Finalize: print VRED_STATS, free what vred keeps on communicators while
 * the MPI still runs, and pass every later call to the MPI. */
__attribute__((visibility("hidden"))) void vred_mpi_before_finalize(void);

#endif
