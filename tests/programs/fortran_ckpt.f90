! fortran_ckpt.f90 - the `encore` module's checkpoint API from use mpi_f08.
! An iterative loop (an allreduce and a bcast per iteration) checkpoints
! its global state (iteration done + a vector) and each rank's local state
! every CKPT iterations; at start encore_load_checkpoint returns the version
! to resume from (0: fresh start).  A rank killed and restarted resumes from
! the last checkpoint and the job prints exactly the fault-free result.
! Under plain mpirun (passthrough) the checkpoint calls do nothing.
! Used by tests/integration/fortran_checkpoint.sh.
program fortran_ckpt
  use mpi_f08
  use encore
  implicit none
  integer, parameter :: NITER = 30, CKPT = 4, N = 4
  real(8) :: st(0:N), v(N)            ! st(0): iterations done
  integer :: loc(2), rank, nprocs, it, i, version, rc
  integer(c_size_t) :: glen, llen

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)

  st = 0d0
  loc = [rank, 0]
  glen = c_sizeof(st)
  llen = c_sizeof(loc)
  version = encore_load_checkpoint(st, glen, loc, llen)
  if (version < 0) call fail('encore_load_checkpoint', version)
  if (version > 0 .and. (glen /= c_sizeof(st) .or. llen /= c_sizeof(loc))) &
    call fail('encore_load_checkpoint lengths', -1)

  do it = nint(st(0)) + 1, NITER
    v = [(0.25d0 * (rank + 1) * (i + it), i = 1, N)]
    call MPI_Allreduce(MPI_IN_PLACE, v, N, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
    if (rank /= mod(it, nprocs)) v = -1d0
    call MPI_Bcast(v, N, MPI_DOUBLE_PRECISION, mod(it, nprocs), MPI_COMM_WORLD)
    st(1:N) = st(1:N) + v
    st(0) = it
    loc(2) = loc(2) + rank * it
    if (mod(it, CKPT) == 0) then
      rc = encore_checkpoint(st, c_sizeof(st), loc, c_sizeof(loc))
      if (rc /= ENCORE_OK .and. encore_active() == 1) call fail('encore_checkpoint', rc)
    end if
  end do

  write (*, '(A,I0,A,4(1X,F0.2),A,I0,A,I0)') 'rank ', rank, ': state', st(1:N), &
      ' local ', loc(2), ' iterations ', nint(st(0))
  call MPI_Finalize()
contains
  subroutine fail(what, code)
    character(*), intent(in) :: what
    integer, intent(in) :: code
    write (0, '(A,I0,A,A,A,I0)') 'rank ', rank, ': ', what, ' failed: ', code
    call MPI_Abort(MPI_COMM_WORLD, 3)
  end subroutine fail
end program fortran_ckpt
