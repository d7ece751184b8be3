# fortran/configure.m4 - optional Fortran support (included by configure.ac).
#
# Needs Open MPI's Fortran wrapper (mpifort or mpif90) able to build
# mpif.h, `use mpi` and `use mpi_f08` programs.  Without it the Fortran
# parts are skipped with a message; configure never fails over Fortran.
# Sets: AM_CONDITIONAL ENABLE_FORTRAN, enable_fortran_summary, MPIFC,
# FC_MODOUT (the compiler's "put .mod files in DIR" flag) and fmoddir
# (where the `encore` module is installed; --with-fortran-moddir).

AC_ARG_ENABLE([fortran],
  [AS_HELP_STRING([--disable-fortran],
     [do not build the Fortran entry points and the encore module (default: build them when Open MPI's Fortran bindings work)])],
  [], [enable_fortran=auto])
AC_ARG_WITH([fortran-moddir],
  [AS_HELP_STRING([--with-fortran-moddir=DIR],
     [install the encore Fortran module (encore.mod) in DIR (default: INCLUDEDIR, next to encore.h)])],
  [fmoddir=$withval], [fmoddir='${includedir}'])
AC_SUBST([fmoddir])
AC_ARG_VAR([MPIFC], [Open MPI Fortran compiler wrapper (mpifort or mpif90)])

enc_fortran_why=""
AS_IF([test "x$enable_fortran" = xno],
  [enc_fortran_why="disabled by --disable-fortran"],
  [AC_PATH_PROGS([MPIFC], [mpifort mpif90])
   AS_IF([test -z "$MPIFC"],
     [enc_fortran_why="no mpifort/mpif90 (install the Debian packages gfortran and libopenmpi-dev)"])])

# Open MPI's wrapper answers --showme; another MPI's would not interpose.
AS_IF([test -z "$enc_fortran_why"],
  [AC_MSG_CHECKING([that $MPIFC is Open MPI's Fortran wrapper])
   AS_IF([enc_fc_cmd=`$MPIFC --showme:command 2>/dev/null` && test -n "$enc_fc_cmd"],
     [AC_MSG_RESULT([yes ($enc_fc_cmd)])],
     [AC_MSG_RESULT([no])
      enc_fortran_why="$MPIFC is not Open MPI's wrapper (--showme failed)"])])

# Each binding style must compile and link: mpif.h, use mpi, use mpi_f08.
m4_define([ENC_FORTRAN_TRY],
[AS_IF([test -z "$enc_fortran_why"],
  [AC_MSG_CHECKING([whether $MPIFC builds a '$1' program])
   cat > conftest_f.f90 <<_ENCEOF
program conftest
$2
integer :: x
x = 0
call MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD$3)
end program conftest
_ENCEOF
   AS_IF([$MPIFC -o conftest_f$EXEEXT conftest_f.f90 >&AS_MESSAGE_LOG_FD 2>&1],
     [AC_MSG_RESULT([yes])],
     [AC_MSG_RESULT([no])
      enc_fortran_why="$MPIFC cannot build '$1' programs (Open MPI Fortran bindings missing: install libopenmpi-dev with gfortran)"])
   rm -f conftest_f.f90 conftest_f$EXEEXT *.mod])])
ENC_FORTRAN_TRY([include 'mpif.h'], [implicit none
include 'mpif.h'
integer :: ierr], [, ierr])
ENC_FORTRAN_TRY([use mpi], [use mpi
implicit none
integer :: ierr], [, ierr])
ENC_FORTRAN_TRY([use mpi_f08], [use mpi_f08
implicit none], [])

# Where the compiler writes .mod files (gfortran -J, Intel -module, ...).
AS_IF([test -z "$enc_fortran_why"],
  [AC_MSG_CHECKING([for the Fortran module output flag])
   mkdir -p conftest_mods
   printf 'module conftest_m\ninteger, parameter :: k = 1\nend module conftest_m\n' > conftest_m.f90
   FC_MODOUT=""
   for enc_flag in "-J" "-module " "-qmoddir=" "-mdir "; do
     rm -f conftest_mods/*
     AS_IF([$MPIFC -c ${enc_flag}conftest_mods conftest_m.f90 -o conftest_m.$OBJEXT >&AS_MESSAGE_LOG_FD 2>&1 &&
            ls conftest_mods/* >/dev/null 2>&1],
       [FC_MODOUT=$enc_flag; break])
   done
   rm -rf conftest_mods conftest_m.f90 conftest_m.$OBJEXT conftest_m.mod
   AS_IF([test -n "$FC_MODOUT"],
     [AC_MSG_RESULT([$FC_MODOUT])],
     [AC_MSG_RESULT([unknown])
      enc_fortran_why="cannot tell where $MPIFC writes .mod files"])])
AC_SUBST([FC_MODOUT])

# Soname of Open MPI's mpif.h / use mpi library: a program relinked with
# -lencore first may not need it at all (--as-needed drops it), yet a call
# libencore passes through must reach it; libencore then dlopen()s it.
enc_mpifh_soname=libmpi_mpifh.so
AS_IF([test -z "$enc_fortran_why"],
  [AC_MSG_CHECKING([for the soname of Open MPI's Fortran library])
   printf "program c\ninclude 'mpif.h'\ninteger :: e\ncall MPI_Init(e)\nend program c\n" > conftest_f.f90
   AS_IF([$MPIFC -Wl,--no-as-needed -o conftest_f$EXEEXT conftest_f.f90 >&AS_MESSAGE_LOG_FD 2>&1],
     [enc_so=`(readelf -d conftest_f$EXEEXT || objdump -p conftest_f$EXEEXT) 2>/dev/null |
              sed -n 's/.*\(libmpi_mpifh\.so@<:@.0-9@:>@*\).*/\1/p' | head -n 1`
      AS_IF([test -n "$enc_so"], [enc_mpifh_soname=$enc_so])])
   rm -f conftest_f.f90 conftest_f$EXEEXT
   AC_MSG_RESULT([$enc_mpifh_soname])])
AC_DEFINE_UNQUOTED([ENC_MPIFH_SONAME], ["$enc_mpifh_soname"],
  [Open MPI's mpif.h / use mpi Fortran library, dlopen()ed when needed])

AS_IF([test -z "$enc_fortran_why"],
  [enable_fortran=yes
   enable_fortran_summary="yes ($MPIFC: mpif.h, use mpi, use mpi_f08; encore.mod in $fmoddir)"],
  [AS_IF([test "x$enable_fortran" = xyes],
     [AC_MSG_WARN([--enable-fortran was given but $enc_fortran_why; building without Fortran])])
   enable_fortran=no
   enable_fortran_summary="no ($enc_fortran_why)"
   AC_MSG_NOTICE([Fortran support skipped: $enc_fortran_why])])
AM_CONDITIONAL([ENABLE_FORTRAN], [test "x$enable_fortran" = xyes])
