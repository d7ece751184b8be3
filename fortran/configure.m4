# fortran/configure.m4 - optional Fortran bindings (issue: Fortran support).
# Sets ENABLE_FORTRAN and enable_fortran_summary.
enable_fortran_summary="no (not built yet)"
AM_CONDITIONAL([ENABLE_FORTRAN], [false])
