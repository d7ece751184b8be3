# tests: Criterion unit tests (tests/unit) and real-job integration tests
# (tests/integration, programs in tests/programs).
if ENABLE_TESTS
unit_ldadd = libenccore.la $(CRITERION_LIBS)
unit_cflags = $(AM_CFLAGS) $(CRITERION_CFLAGS)
endif
