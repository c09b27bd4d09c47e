! Every collective vred serves, called from Fortran through one of the three bindings (built
! three times: -DVRED_F08 for `use mpi_f08`, -DVRED_USE_MPI for `use mpi`, neither for mpif.h),
! linked with libvred-mpi.so before the MPI (tests/fortran/CMakeLists.txt).
!
! Each call runs twice on identical inputs: once with vred forced off for that collective
! (vred_mpi_force(coll, "mpi"): the MPI computes it, through the MPI's own path) and once with
! a vred algorithm forced; the results must be equal bit for bit (compared as 32-bit words),
! and vred_mpi_last_alg() must name the vred algorithm (vred served the Fortran call, not the
! MPI). MPI_Reduce_local is compared with the op applied in Fortran (one IEEE operation per
! element, which is what every MPI's operator does); tests/fortran/run.sh checks from
! VRED_STATS that vred served it.
!
! Types x ops: REAL SUM/PROD/MAX, DOUBLE PRECISION SUM, REAL8 SUM, INTEGER SUM, INTEGER4 BXOR,
! LOGICAL LOR, COMPLEX SUM, 2REAL MAXLOC. The floating-point inputs round: mixed magnitudes
! (1e-4 .. 1e4, irrational mantissas), and the program checks that the sums round. Each
! element has at most two ranks with a value other than the op's identity (0 for SUM, 1 for
! PROD), so that the result is the same in any reduction order: vred's algorithms fold in
! their own order (docs/collectives.md), and a float sum of three values depends on it.
! In place and not. No IEEE invalid flag may be left raised (the inputs hold no NaN or
! infinity). Exits 1 (after MPI_Finalize) on any mismatch, on any rank.
! VRED_FTEST_INJECT=1 flips one bit of rank 0's vred results before they are compared: the test
! must then fail (tests/fortran/run.sh inject).
#ifdef VRED_F08
#define HANDLE(t) type(t)
#else
#define HANDLE(t) integer
#endif
module fcoll_vred
  use iso_c_binding
  implicit none
  interface
    integer(c_int) function vred_mpi_force(coll, alg) bind(C, name='vred_mpi_force')
      import :: c_int, c_char
      character(kind=c_char), dimension(*), intent(in) :: coll, alg
    end function
    type(c_ptr) function vred_mpi_last_alg() bind(C, name='vred_mpi_last_alg')
      import :: c_ptr
    end function
  end interface
contains
  subroutine force(coll, alg)
    character(*), intent(in) :: coll, alg
    if (vred_mpi_force(coll // c_null_char, alg // c_null_char) /= 0) then
      print *, 'vred_mpi_force failed: ', coll, ' ', alg
      stop 2
    end if
  end subroutine
  function last_alg() result(s)
    character(len=16) :: s
    character(kind=c_char), pointer :: p(:)
    integer :: i
    call c_f_pointer(vred_mpi_last_alg(), p, [16])
    s = ''
    do i = 1, 16
      if (p(i) == c_null_char) exit
      s(i:i) = p(i)
    end do
  end function
end module

program fcoll
#if defined(VRED_F08)
  use mpi_f08
#elif defined(VRED_USE_MPI)
  use mpi
#endif
  use iso_fortran_env, only: int32, int64, real32, real64
  use, intrinsic :: ieee_exceptions, only: ieee_invalid, ieee_get_flag, ieee_set_flag
  use fcoll_vred
  implicit none
#if !defined(VRED_F08) && !defined(VRED_USE_MPI)
  include 'mpif.h'
#endif
  integer, parameter :: ncase = 10, m = 1031  ! m: elements per rank's block
  integer :: rank, np, ierr, c, n, w, i, fails, allfails, rounded, k, inpl, root
  integer :: kind_of(ncase), wpe(ncase)
  HANDLE(MPI_Datatype) :: types(ncase)
  HANDLE(MPI_Op) :: ops(ncase)
  character(len=24) :: names(ncase)
  integer(int32), allocatable :: sb(:), rb(:), ref(:), inp(:), rcounts(:)
  logical :: everyone = .false.   ! every rank's element differs from the identity
  logical :: is_mpich
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: libver
  integer :: ip   ! in place, for the call being made
  logical :: inject   ! VRED_FTEST_INJECT set: corrupt one result bit (the test must fail)
  logical :: invalid

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  fails = 0
  rounded = 0
  root = np - 1
  call MPI_Get_library_version(libver, i, ierr)
  is_mpich = index(libver, 'MPICH') > 0
  call ieee_set_flag(ieee_invalid, .false.)
  call get_environment_variable('VRED_FTEST_INJECT', status=i)
  inject = i == 0

  ! kind: 1 real32, 2 real64, 3 int32, 4 logical, 5 complex (real32 pairs), 6 2REAL
  types = [MPI_REAL, MPI_REAL, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_REAL8, MPI_INTEGER, &
           MPI_INTEGER4, MPI_LOGICAL, MPI_COMPLEX, MPI_2REAL]
  ops = [MPI_SUM, MPI_PROD, MPI_MAX, MPI_SUM, MPI_SUM, MPI_SUM, MPI_BXOR, MPI_LOR, MPI_SUM, &
         MPI_MAXLOC]
  kind_of = [1, 1, 1, 2, 2, 3, 3, 4, 5, 6]
  wpe = [1, 1, 1, 2, 2, 1, 1, 1, 2, 2]
  names = [character(len=24) :: 'REAL SUM', 'REAL PROD', 'REAL MAX', 'DOUBLE PRECISION SUM', &
           'REAL8 SUM', 'INTEGER SUM', 'INTEGER4 BXOR', 'LOGICAL LOR', 'COMPLEX SUM', &
           '2REAL MAXLOC']

  n = m * np                        ! elements of a full vector
  allocate(rcounts(np))
  do i = 1, np
    rcounts(i) = m + 3 * (i - 1) - 3 * (np - 1) / 2   ! uneven, summing to about n
  end do
  rcounts(np) = n - sum(rcounts(1:np - 1))

  do c = 1, ncase
    w = wpe(c)
    allocate(sb(n * w), rb(n * w), ref(n * w), inp(n * w))
    call fill(sb, c, rank)
    do inpl = 0, 1
      ! ---- allreduce
      call run_pair('allreduce', pick(c, inpl, [character(8) :: 'recdbl', 'redscat', 'ring', 'ma']))
      ! ---- reduce (root np-1: in place there)
      call run_pair('reduce', pick(c, inpl, [character(8) :: 'binomial', 'redscat', 'ring', 'ma']))
      ! ---- reduce_scatter_block, reduce_scatter
      call run_pair('reduce_scatter_block', pick(c, inpl, [character(8) :: 'ring', 'redscat', &
                    'binomial', 'ma']))
      call run_pair('reduce_scatter', pick(c, inpl + 1, [character(8) :: 'ring', 'redscat', &
                    'binomial', 'ma']))
      ! ---- scan, exscan
      call run_pair('scan', 'recdbl')
      call run_pair('exscan', 'recdbl')
      if (c == 1) then
        call run_pair('bcast', 'pipe')
        call run_pair('allgather', 'pipe')
      end if
    end do
    call check_reduce_local(c)
    deallocate(sb, rb, ref, inp)
  end do

  ! No input is NaN or infinite: IEEE invalid raised here is vred's own (its first call's type
  ! probes once left it set: gfortran then notes it at STOP, and a program trapping it died).
  call ieee_get_flag(ieee_invalid, invalid)
  if (invalid) then
    print '(a,i0,a)', 'FAIL rank ', rank, ': the IEEE invalid flag was raised'
    fails = fails + 1
  end if
  call MPI_Allreduce(MPI_IN_PLACE, rounded, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rounded == 0) then
    if (rank == 0) print *, 'FAIL: no floating-point sum rounded: the data prove nothing'
    fails = fails + 1
  end if
  call MPI_Allreduce(fails, allfails, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a,i0,a)', 'fortran collectives: ', np, ' ranks, ', allfails, &
       ' failures'
  deallocate(rcounts)   ! (the ASan run's leak check)
  call MPI_Finalize(ierr)
  if (allfails /= 0) stop 1

contains

  ! A vred algorithm for this case: rotate through the collective's point-to-point and
  ! shared-memory ones.
  function pick(c, k, algs) result(a)
    integer, intent(in) :: c, k
    character(8), intent(in) :: algs(:)
    character(8) :: a
    a = algs(mod(c + k, size(algs)) + 1)
  end function

  ! The value of element i of rank r for case c, as 32-bit words into x(...).
  subroutine fill(x, c, r)
    integer(int32), intent(out) :: x(:)
    integer, intent(in) :: c, r
    integer :: i, ne, k
    real(real64) :: v
    ne = size(x) / wpe(c)
    do i = 1, ne
      select case (kind_of(c))
      case (1)
        x(i) = transfer(real(value(i, r, c), real32), 0_int32)
      case (2)
        x(2 * i - 1:2 * i) = transfer(value(i, r, c), [0_int32], 2)
      case (3)
        x(i) = int(mod(int(i, int64) * 2654435761_int64 + int(r, int64) * 40503_int64, &
                       4294967296_int64) - 2147483648_int64, int32)
      case (4)
        x(i) = merge(1, 0, mod(i * 7 + r * 3, 5) == 0)
      case (5)
        do k = 0, 1
          x(2 * i - 1 + k) = transfer(real(value(2 * i + k, r, c), real32), 0_int32)
        end do
      case (6)
        v = value(i, r, c)
        if (mod(i, 7) == 0) v = 1.5d0   ! ties: MAXLOC keeps the lowest index
        x(2 * i - 1) = transfer(real(v, real32), 0_int32)
        x(2 * i) = transfer(real(r, real32), 0_int32)
      end select
    end do
  end subroutine

  ! Mixed magnitudes; at most two ranks per element differ from the op's identity (SUM, PROD),
  ! except for MAX and MAXLOC, which are exact in any order.
  function value(i, r, c) result(v)
    integer, intent(in) :: i, r, c
    real(real64) :: v
    logical :: contributes
    contributes = r == mod(i, np) .or. r == mod(i + 1, np) .or. ops_exact(c) .or. everyone
    if (contributes) then
      v = sin(1.7d0 * i + 0.37d0 * r + c) * 10d0**(mod(i * 3 + r * 5, 9) - 4)
      if (c == 2) v = 1d0 + v * 1d-3   ! PROD: near 1, rounds
    else if (c == 2) then
      v = 1d0
    else
      v = 0d0
    end if
  end function

  logical function ops_exact(c)
    integer, intent(in) :: c
    ops_exact = c == 3 .or. c == 10
  end function

  ! Call collective `coll` on fresh copies of the inputs, with vred forced off ("mpi"), then
  ! with algorithm alg; compare.
  subroutine run_pair(coll, alg)
    character(*), intent(in) :: coll
    character(*), intent(in) :: alg
    character(len=24) :: fc
    character(len=16) :: got
    integer :: lo, hi
    fc = coll
    if (coll == 'reduce_scatter_block') fc = 'reduce_scatter'
    if (coll == 'exscan') fc = 'scan'
    call force(trim(fc), 'mpi')
    ! MPICH 4.0.2 itself crashes on in-place reduce at a root other than 0 and on in-place
    ! reduce_scatter with uneven counts (tests/mpi/coll.c, mpi_inplace_bug): its reference
    ! is computed out of place there (the same result).
    ip = inpl
    if (is_mpich .and. (coll == 'reduce' .or. coll == 'reduce_scatter')) ip = 0
    call call_coll(coll, ref)
    ip = inpl
    if (last_alg() /= 'mpi') call fail(coll, 'forced "mpi" but last_alg is ' // last_alg())
    call force(trim(fc), trim(alg))
    call call_coll(coll, rb)
    got = last_alg()
    call force(trim(fc), 'auto')
    ! On one rank vred leaves bcast and allgather to the MPI (nothing to move: reason
    ! one-per-node); everything else it serves.
    if (got == 'mpi' .and. .not. (np == 1 .and. (coll == 'bcast' .or. coll == 'allgather'))) &
      call fail(coll, 'vred did not serve the Fortran call (last_alg "mpi")')
    call result_range(coll, lo, hi)
    if (inject .and. rank == 0 .and. hi >= lo) rb(hi) = ieor(rb(hi), 1_int32)
    if (hi >= lo) then
      if (any(rb(lo:hi) /= ref(lo:hi))) then
        call fail(coll, 'result differs from the MPI''s, bitwise')
      end if
    end if
    if (coll == 'allreduce' .and. inpl == 0) call count_rounded()
  end subroutine

  ! The words of the result to compare on this rank.
  subroutine result_range(coll, lo, hi)
    character(*), intent(in) :: coll
    integer, intent(out) :: lo, hi
    integer :: w
    w = wpe(c)
    lo = 1
    select case (coll)
    case ('reduce')
      hi = merge(n * w, 0, rank == root)
    case ('reduce_scatter_block')
      hi = m * w
    case ('reduce_scatter')
      hi = rcounts(rank + 1) * w
    case ('exscan')
      hi = merge(0, n * w, rank == 0)   ! undefined on rank 0
    case default
      hi = n * w
    end select
  end subroutine

  ! The sums must round: some element of rank 0's allreduce result is not the exact sum.
  subroutine count_rounded()
    integer :: i
    real(real64) :: exact
    if (kind_of(c) /= 1 .or. c /= 1) return
    do i = 1, n
      exact = real(transfer(sb(i), 1.0_real32), real64)
      if (np > 1) exact = sum([(real(real(value(i, k, c), real32), real64), k = 0, np - 1)])
      if (real(transfer(rb(i), 1.0_real32), real64) /= exact) rounded = rounded + 1
    end do
  end subroutine

  subroutine fail(coll, why)
    character(*), intent(in) :: coll, why
    print '(a,i0,7a,i0)', 'FAIL rank ', rank, ': ', trim(coll), ' ', trim(names(c)), ': ', &
         trim(why), ' in place=', inpl
    fails = fails + 1
  end subroutine

  ! One call of coll on this case's inputs into out (in place: the inputs copied there first).
  subroutine call_coll(coll, out)
    character(*), intent(in) :: coll
    integer(int32), intent(inout) :: out(:)
    integer :: w, cnt, ierr
    w = wpe(c)
    cnt = n
    out = -1
    select case (coll)
    case ('allreduce')
      if (ip == 1) then
        out = sb
        call MPI_Allreduce(MPI_IN_PLACE, out, cnt, types(c), ops(c), MPI_COMM_WORLD, ierr)
      else
        call MPI_Allreduce(sb, out, cnt, types(c), ops(c), MPI_COMM_WORLD, ierr)
      end if
    case ('reduce')
      if (ip == 1 .and. rank == root) then
        out = sb
        call MPI_Reduce(MPI_IN_PLACE, out, cnt, types(c), ops(c), root, MPI_COMM_WORLD, ierr)
      else
        call MPI_Reduce(sb, out, cnt, types(c), ops(c), root, MPI_COMM_WORLD, ierr)
      end if
    case ('reduce_scatter_block')
      if (ip == 1) then
        out = sb
        call MPI_Reduce_scatter_block(MPI_IN_PLACE, out, m, types(c), ops(c), MPI_COMM_WORLD, &
                                      ierr)
      else
        call MPI_Reduce_scatter_block(sb, out, m, types(c), ops(c), MPI_COMM_WORLD, ierr)
      end if
    case ('reduce_scatter')
      if (ip == 1) then
        out = sb
        call MPI_Reduce_scatter(MPI_IN_PLACE, out, rcounts, types(c), ops(c), MPI_COMM_WORLD, &
                                ierr)
      else
        call MPI_Reduce_scatter(sb, out, rcounts, types(c), ops(c), MPI_COMM_WORLD, ierr)
      end if
    case ('scan')
      if (ip == 1) then
        out = sb
        call MPI_Scan(MPI_IN_PLACE, out, cnt, types(c), ops(c), MPI_COMM_WORLD, ierr)
      else
        call MPI_Scan(sb, out, cnt, types(c), ops(c), MPI_COMM_WORLD, ierr)
      end if
    case ('exscan')
      if (ip == 1) then
        out = sb
        call MPI_Exscan(MPI_IN_PLACE, out, cnt, types(c), ops(c), MPI_COMM_WORLD, ierr)
      else
        call MPI_Exscan(sb, out, cnt, types(c), ops(c), MPI_COMM_WORLD, ierr)
      end if
    case ('bcast')
      ! the root's data in out at the root, -1 elsewhere
      if (rank == root) out = sb
      call MPI_Bcast(out, cnt * w, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    case ('allgather')
      ! each rank's block: its first m elements
      if (ip == 1) then
        out(rank * m * w + 1:(rank + 1) * m * w) = sb(1:m * w)
        call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, m, types(c), &
                           MPI_COMM_WORLD, ierr)
      else
        call MPI_Allgather(sb, m, types(c), out, m, types(c), MPI_COMM_WORLD, ierr)
      end if
    end select
    if (ierr /= MPI_SUCCESS) call fail(coll, 'ierror is not MPI_SUCCESS')
  end subroutine

  ! MPI_Reduce_local (inoutbuf = inbuf op inoutbuf) against the op applied here, element by
  ! element, in the same order; rank r reduces its inputs into rank r+1's.
  subroutine check_reduce_local(c)
    integer, intent(in) :: c
    integer :: i, ierr, ne
    real(real32) :: a, b, ra, ia, rb2, ib
    real(real64) :: d1, d2
    everyone = .true.   ! a second input unlike any rank's, every element a value
    call fill(inp, c, rank + 17)
    everyone = .false.
    ref = inp
    ne = n
    do i = 1, ne
      select case (c)
      case (1)
        ref(i) = transfer(transfer(sb(i), a) + transfer(inp(i), a), 0_int32)
        if (real(transfer(sb(i), a), real64) + real(transfer(inp(i), a), real64) /= &
            real(transfer(ref(i), a), real64)) rounded = rounded + 1
      case (2)
        ref(i) = transfer(transfer(sb(i), a) * transfer(inp(i), a), 0_int32)
      case (3)
        a = transfer(sb(i), a); b = transfer(inp(i), b)
        ref(i) = transfer(max(a, b), 0_int32)
      case (4, 5)
        d1 = transfer(sb(2 * i - 1:2 * i), d1); d2 = transfer(inp(2 * i - 1:2 * i), d2)
        ref(2 * i - 1:2 * i) = transfer(d1 + d2, [0_int32], 2)
      case (6)
        ! wraps, as in C: the low 32 bits of the 64-bit sum (little-endian), no overflow
        ref(i) = transfer(int(sb(i), int64) + int(inp(i), int64), 0_int32)
      case (7)
        ref(i) = ieor(sb(i), inp(i))
      case (8)
        ref(i) = merge(1, 0, sb(i) /= 0 .or. inp(i) /= 0)
      case (9)
        ra = transfer(sb(2 * i - 1), ra); ia = transfer(sb(2 * i), ia)
        rb2 = transfer(inp(2 * i - 1), rb2); ib = transfer(inp(2 * i), ib)
        ref(2 * i - 1) = transfer(ra + rb2, 0_int32)
        ref(2 * i) = transfer(ia + ib, 0_int32)
      case (10)
        ra = transfer(sb(2 * i - 1), ra); rb2 = transfer(inp(2 * i - 1), rb2)
        ia = transfer(sb(2 * i), ia); ib = transfer(inp(2 * i), ib)
        if (ra > rb2 .or. (ra == rb2 .and. ia < ib)) then
          ref(2 * i - 1:2 * i) = sb(2 * i - 1:2 * i)
        end if
      end select
    end do
    rb = inp
    call MPI_Reduce_local(sb, rb, ne, types(c), ops(c), ierr)
    if (ierr /= MPI_SUCCESS) call fail('reduce_local', 'ierror is not MPI_SUCCESS')
    if (any(rb /= ref)) call fail('reduce_local', 'result differs from the op applied in Fortran')
  end subroutine
end program
