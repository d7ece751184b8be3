! fortran_coll.F90 - the owned MPI collectives from Fortran, in the binding
! style chosen at compile time: -DSTYLE=1 include 'mpif.h', -DSTYLE=2
! use mpi, -DSTYLE=3 use mpi_f08 (which also leaves ierror out, so
! libencore sees it absent).  An iterative loop of NITER x 9 collectives
! (integer, real*8, logical, 2INTEGER, a Fortran user op, MPI_IN_PLACE)
! folds every result into per-rank values printed only at the end, so a
! rank killed and restarted mid-run prints exactly what a fault-free run
! does.  All reals are multiples of 1/4: sums are exact in any order.
! Used by tests/integration/fortran_*.sh.
#if STYLE == 3
#define E
#define OPTYPE type(MPI_Op)
#else
#define E , ierr
#define OPTYPE integer
#endif

module fcoll_ops
#if STYLE == 3
  use mpi_f08
#elif STYLE == 2
  use mpi
#endif
  implicit none
#if STYLE == 1
  include 'mpif.h'
#endif
contains
  ! Associative and commutative: a (+) b = a + b + 1.  A wrong datatype
  ! handle (not Fortran MPI_INTEGER) poisons the result.
#if STYLE == 3
  subroutine plus_one(invec, inoutvec, len, dtype)
    use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: dtype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    if (dtype /= MPI_INTEGER) then
      b = -1000000
    else
      b = a + b + 1
    end if
  end subroutine plus_one
#else
  subroutine plus_one(a, b, len, dtype)
    integer :: len, dtype
    integer :: a(len), b(len)
    if (dtype /= MPI_INTEGER) then
      b = -1000000
    else
      b = a + b + 1
    end if
  end subroutine plus_one
#endif
end module fcoll_ops

program fortran_coll
  use fcoll_ops
  implicit none
  integer, parameter :: NITER = 6, N = 5
  integer :: ierr, rank, nprocs, it, i, root, prov
  logical :: flag, land, lor, inited
  integer :: ia(N), ib(N), imax(N), pair(2, 2), self(1)
  integer, allocatable :: gath(:), gathv(:), counts(:), displs(:)
  real(8) :: da(N), bc(N), dsum
  integer :: isum, usum, maxlocsum
  OPTYPE :: uop

  ierr = -1
  call MPI_Init(ierr)
#if STYLE != 3
  if (ierr /= MPI_SUCCESS) stop 2
#endif
  call MPI_Initialized(inited E)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank E)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs E)
  call MPI_Query_thread(prov E)
  call MPI_Op_create(plus_one, .true., uop E)
  allocate(gath(N * nprocs), gathv(nprocs * (nprocs + 1) / 2), counts(nprocs), displs(nprocs))

  isum = 0; usum = 0; maxlocsum = 0; dsum = 0d0
  land = .true.; lor = .false.; imax = 0
  do it = 1, NITER
    root = mod(it, nprocs)
    ! 1: integer sum into another buffer
    do i = 1, N
      ia(i) = rank * 10 + i + it
    end do
    call MPI_Allreduce(ia, ib, N, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD E)
    isum = isum + sum(ib)
    ! 2: real*8 sum in place
    do i = 1, N
      da(i) = 0.25d0 * (rank + 1) * (i + it)
    end do
    call MPI_Allreduce(MPI_IN_PLACE, da, N, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD E)
    dsum = dsum + sum(da)
    ! 3: logical and / or
    flag = mod(rank + it, 3) /= 0
    call MPI_Allreduce(flag, land, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD E)
    flag = rank == mod(it, nprocs + 1)
    call MPI_Allreduce(MPI_IN_PLACE, flag, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD E)
    lor = lor .neqv. flag
    ! 4: broadcast real*8 from a rotating root
    bc = -1d0
    if (rank == root) bc = [(0.5d0 * (i + it * root), i = 1, N)]
    call MPI_Bcast(bc, N, MPI_REAL8, root, MPI_COMM_WORLD E)
    dsum = dsum + sum(bc)
    ! 5: integer max to a rotating root, in place at the root
    ia = [(mod(rank * 7 + i * it, 11), i = 1, N)]
    if (rank == root) then
      call MPI_Reduce(MPI_IN_PLACE, ia, N, MPI_INTEGER, MPI_MAX, root, MPI_COMM_WORLD E)
      imax = imax + ia
    else
      call MPI_Reduce(ia, ib, N, MPI_INTEGER, MPI_MAX, root, MPI_COMM_WORLD E)
    end if
    ! 6: allgather
    ia = [(rank * 100 + i + it, i = 1, N)]
    call MPI_Allgather(ia, N, MPI_INTEGER, gath, N, MPI_INTEGER, MPI_COMM_WORLD E)
    isum = isum + sum(gath * [(i, i = 1, N * nprocs)])
    ! 7: barrier
    call MPI_Barrier(MPI_COMM_WORLD E)
    ! 8: the Fortran user op
    ia = [(rank + i * it, i = 1, N)]
    call MPI_Allreduce(ia, ib, N, MPI_INTEGER, uop, MPI_COMM_WORLD E)
    usum = usum + sum(ib)
    ! 9: MAXLOC on 2INTEGER pairs (value, rank)
    pair(1, :) = [mod(rank * 5 + it, 7), mod(rank * 3 + it, 4)]
    pair(2, :) = rank
    call MPI_Allreduce(MPI_IN_PLACE, pair, 2, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD E)
    maxlocsum = maxlocsum + pair(1, 1) * 3 + pair(2, 1) + pair(1, 2) * 5 + pair(2, 2)
  end do

  ! Reduce in place at a fixed root.
  ia = [(mod(rank * 5 + i, 9), i = 1, N)]
  if (rank == nprocs - 1) then
    call MPI_Reduce(MPI_IN_PLACE, ia, N, MPI_INTEGER, MPI_MAX, nprocs - 1, MPI_COMM_WORLD E)
    imax = imax + 100 * ia
  else
    call MPI_Reduce(ia, ib, N, MPI_INTEGER, MPI_MAX, nprocs - 1, MPI_COMM_WORLD E)
  end if
  ! Allgatherv: rank r contributes r+1 values.
  counts = [(i, i = 1, nprocs)]
  displs = [(i * (i - 1) / 2, i = 1, nprocs)]
  ia(1:rank + 1) = [(rank * 10 + i, i = 1, rank + 1)]
  call MPI_Allgatherv(ia, rank + 1, MPI_INTEGER, gathv, counts, displs, MPI_INTEGER, &
                      MPI_COMM_WORLD E)
  ! MPI_COMM_SELF goes to the real Open MPI even in encore mode.
  self = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, self, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_SELF E)
  call MPI_Op_free(uop E)

  write (*, '(A,I0,A,L1,A,I0,A,I0)') 'rank ', rank, ': initialized ', inited, &
      ' size ', nprocs, ' self ', self(1)
  write (*, '(A,I0,A,I0,A,I0,A,I0)') 'rank ', rank, ': isum ', isum, ' usum ', usum, &
      ' maxloc ', maxlocsum
  write (*, '(A,I0,A,F0.4,A,L1,A,L1)') 'rank ', rank, ': dsum ', dsum, ' land ', land, &
      ' lor ', lor
  write (*, '(A,I0,A,5(1X,I0))') 'rank ', rank, ': imax', imax
  write (*, '(A,I0,A,*(1X,I0))') 'rank ', rank, ': gathv', gathv
  call MPI_Finalize(ierr)
  call MPI_Finalized(flag E)
  write (*, '(A,I0,A,L1)') 'rank ', rank, ': finalized ', flag
end program fortran_coll
