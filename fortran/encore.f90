! encore.f90 - the `encore` Fortran module: the public API of libencore
! (include/encore.h) as bind(C) interfaces.
!
! An unmodified MPI program needs none of this.  Programs that want bounded
! recovery time checkpoint their state:
!
!   use encore
!   integer(c_size_t) :: glen, llen
!   glen = c_sizeof(state); llen = 0
!   version = encore_load_checkpoint(state, glen, nothing, llen)  ! 0: fresh start
!   ...
!   rc = encore_checkpoint(state, c_sizeof(state), nothing, 0_c_size_t)
!
! Buffers are contiguous arrays (or array elements), passed by address (TYPE(*),
! DIMENSION(*)); lengths are in bytes (c_sizeof).  A state may be empty:
! pass any array with length 0.  Functions return ENCORE_OK (0) or a
! negative ENCORE_ERR_* code, except encore_load_checkpoint, which returns
! the version loaded (0 on a fresh start, buffers untouched) and stores the
! true lengths in its length arguments.
!
! Interfaces only: no object code, so linking needs just libencore
! (-lencore, or LD_PRELOAD / encore-run), and only encore.mod is installed.
module encore
  use, intrinsic :: iso_c_binding, only : c_int, c_size_t, c_sizeof
  implicit none
  private

  public :: c_int, c_size_t, c_sizeof
  public :: encore_checkpoint, encore_load_checkpoint, encore_version
  public :: encore_is_replaying, encore_active

  ! Status codes (enum encore_status in encore.h).
  integer(c_int), parameter, public :: ENCORE_OK = 0
  integer(c_int), parameter, public :: ENCORE_ERR_INVAL = -1
  integer(c_int), parameter, public :: ENCORE_ERR_NOMEM = -2
  integer(c_int), parameter, public :: ENCORE_ERR_PROTO = -3
  integer(c_int), parameter, public :: ENCORE_ERR_AUTH = -4
  integer(c_int), parameter, public :: ENCORE_ERR_TIMEOUT = -5
  integer(c_int), parameter, public :: ENCORE_ERR_UNSUPPORTED = -6
  integer(c_int), parameter, public :: ENCORE_ERR_MISMATCH = -7
  integer(c_int), parameter, public :: ENCORE_ERR_SYS = -8
  integer(c_int), parameter, public :: ENCORE_ERR_DIVERGED = -9
  integer(c_int), parameter, public :: ENCORE_ERR_LOST = -10
  integer(c_int), parameter, public :: ENCORE_ERR_ABORTED = -11
  integer(c_int), parameter, public :: ENCORE_ERR_STATE = -12

  interface
    ! Records a new version of the program state: global (identical on
    ! every rank) and this rank's local state (replicated to neighbours).
    function encore_checkpoint(global, global_len, local, local_len) &
        bind(C, name="encore_checkpoint")
      import :: c_int, c_size_t
      type(*), dimension(*), intent(in) :: global
      integer(c_size_t), value, intent(in) :: global_len
      type(*), dimension(*), intent(in) :: local
      integer(c_size_t), value, intent(in) :: local_len
      integer(c_int) :: encore_checkpoint
    end function encore_checkpoint

    ! Version loaded (0 on a fresh start); copies at most *_len bytes of
    ! each state into the buffers and stores the true lengths in *_len.
    function encore_load_checkpoint(global, global_len, local, local_len) &
        bind(C, name="encore_load_checkpoint")
      import :: c_int, c_size_t
      type(*), dimension(*), intent(inout) :: global
      integer(c_size_t), intent(inout) :: global_len
      type(*), dimension(*), intent(inout) :: local
      integer(c_size_t), intent(inout) :: local_len
      integer(c_int) :: encore_load_checkpoint
    end function encore_load_checkpoint

    ! Number of checkpoints taken so far (the current version).
    function encore_version() bind(C, name="encore_version")
      import :: c_int
      integer(c_int) :: encore_version
    end function encore_version

    ! 1 while this (restarted) rank is answered from the result log.
    function encore_is_replaying() bind(C, name="encore_is_replaying")
      import :: c_int
      integer(c_int) :: encore_is_replaying
    end function encore_is_replaying

    ! 1 under an encore tracker (encore-run), 0 in passthrough mode.
    function encore_active() bind(C, name="encore_active")
      import :: c_int
      integer(c_int) :: encore_active
    end function encore_active
  end interface
end module encore
