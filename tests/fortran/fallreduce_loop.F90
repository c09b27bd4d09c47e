! A Fortran program as a user writes it (`use mpi`, nothing of vred): `iters` MPI_Allreduce of
! `n` MPI_REAL (MPI_SUM) in a loop, after `warm` untimed ones; rank 0 prints the median time of
! one call and a checksum of the result (identical with and without vred: the data round, and
! with 2 ranks the sum is the same in any order).
!   fallreduce_loop [n [iters [warm]]]     defaults: 16777216 (64 MiB) 20 3
! Used by tests/fortran/run.sh preload (vred preloaded must serve every large call) and by
! bench/run_fortran.sh (the 64 MiB loop, with and without vred).
program fallreduce_loop
  use mpi
  use iso_fortran_env, only: real32, real64, int64
  implicit none
  integer :: rank, np, ierr, n, iters, warm, i, k
  real(real32), allocatable :: a(:), b(:)
  real(real64), allocatable :: t(:)
  real(real64) :: t0, med, chk
  character(len=32) :: arg
  n = 16777216
  iters = 20
  warm = 3
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) iters
  end if
  if (command_argument_count() >= 3) then
    call get_command_argument(3, arg)
    read (arg, *) warm
  end if
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  allocate(a(n), b(n), t(iters))
  do i = 1, n
    a(i) = real(sin(1.3d0 * i + rank) * 10d0**(mod(i + 2 * rank, 7) - 3), real32)
  end do
  do k = 1, warm + iters
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    t0 = MPI_Wtime()
    call MPI_Allreduce(a, b, n, MPI_REAL, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (k > warm) t(k - warm) = MPI_Wtime() - t0
    if (ierr /= MPI_SUCCESS) stop 2
  end do
  call MPI_Allreduce(MPI_IN_PLACE, t, iters, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  call sort(t)
  med = t((iters + 1) / 2)
  chk = 0
  do i = 1, n
    chk = chk + real(b(i), real64) * mod(i, 97)
  end do
  if (rank == 0) print '(a,i0,a,i0,a,f10.3,a,es24.16)', 'allreduce n=', n, ' ranks=', np, &
       ' median_ms=', med * 1d3, ' checksum=', chk
  call MPI_Finalize(ierr)
contains
  subroutine sort(x)
    real(real64), intent(inout) :: x(:)
    integer :: i, j
    real(real64) :: v
    do i = 2, size(x)
      v = x(i)
      j = i - 1
      do while (j >= 1)
        if (x(j) <= v) exit
        x(j + 1) = x(j)
        j = j - 1
      end do
      x(j + 1) = v
    end do
  end subroutine
end program
