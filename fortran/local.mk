# fortran: Fortran entry points of libencore and the `encore` module.
#
# The entry points (mpif.h / use mpi manglings and use mpi_f08 symbols of
# every owned function) are C, generated from shim/mpi/mpi.spec by
# fortran/gen_fortran.py into $(srcdir)/fortran/gen/ (shipped in the
# tarball, like shim/mpi/gen).  The `encore` module is interfaces only
# (bind(C) to encore.h), so libencore.so needs no Fortran runtime; only
# encore.mod is installed, in $(fmoddir) (default $(includedir), which
# `pkg-config --cflags encore` already names).
EXTRA_DIST += fortran/gen_fortran.py fortran/encore.f90 fortran/README.md
if ENABLE_FORTRAN
libencore_la_SOURCES += \
	fortran/sentinel.c \
	fortran/resolve.c \
	fortran/op_create.c \
	fortran/gen/fwrappers.c
noinst_HEADERS += fortran/fortran.h fortran/gen/fentries.h
BUILT_SOURCES += $(srcdir)/fortran/gen/fwrappers.c $(srcdir)/fortran/gen/fentries.h

# One generator run writes both files (as in shim/mpi/local.mk).
$(srcdir)/fortran/gen/fwrappers.c: $(srcdir)/shim/mpi/mpi.spec $(srcdir)/fortran/gen_fortran.py \
		$(srcdir)/shim/mpi/gen_entries.py
	$(AM_V_GEN)$(PYTHON3) $(srcdir)/fortran/gen_fortran.py \
	    $(srcdir)/shim/mpi/mpi.spec $(srcdir)/fortran/gen && touch $@
$(srcdir)/fortran/gen/fentries.h: $(srcdir)/fortran/gen/fwrappers.c
	@test -f $@ || rm -f $(srcdir)/fortran/gen/fwrappers.c
	@test -f $@ || $(MAKE) $(AM_MAKEFLAGS) $(srcdir)/fortran/gen/fwrappers.c

# The encore module, compiled with the same wrapper users build with.
fmod_DATA = fortran/encore.mod
fortran/encore.mod: $(srcdir)/fortran/encore.f90
	$(AM_V_GEN)$(MKDIR_P) fortran && \
	    $(MPIFC) -c $(FC_MODOUT)fortran -o fortran/encore-mod.$(OBJEXT) $(srcdir)/fortran/encore.f90
CLEANFILES += fortran/encore.mod fortran/encore-mod.$(OBJEXT) fortran/test.env

# What the Fortran integration tests need to build their programs.
check_SCRIPTS += fortran/test.env
fortran/test.env: Makefile
	$(AM_V_GEN)$(MKDIR_P) fortran && \
	    { echo "MPIFC='$(MPIFC)'"; echo "ENC_FMODDIR='$(abs_builddir)/fortran'"; \
	      echo "MPIRUN='$(MPIRUN)'"; \
	      echo "FC_MODOUT='$(FC_MODOUT)'"; } > $@
endif
