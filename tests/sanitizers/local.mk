# tests/sanitizers: make check in a configure --enable-sanitizers build.
# Every process the tests start (encore-run, ranks, trackers) writes its
# sanitizer reports to tests/sanitizer-reports/ (ASan, UBSan, TSan
# log_path), whatever happens to its stderr or exit status (a rank with a
# report could be restarted and the job still end exact); check-local then
# fails if any report exists.
# LeakSanitizer is off: Open MPI leaks at exit by design, from components
# it has already dlclose'd, so the stacks end in "<unknown module>" after
# one frame and cannot be told from ours or suppressed by library.
# ENC_TIME_SCALE=3: the tests' bounds on jobs and waits (lib.sh), as
# instrumented ranks start and run several times slower.
# verify_asan_link_order=0: tests that set LD_PRELOAD=libencore.so
# themselves (passthrough under mpirun) also preload it into mpirun, which
# is not instrumented; encore-run does it properly (runtime first).
EXTRA_DIST += tests/sanitizers/tsan.supp
san_reports = $(abs_top_builddir)/tests/sanitizer-reports
if ENABLE_SANITIZERS
san_tests_env = ENC_TIME_SCALE=3 ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0:log_path=$(san_reports)/asan \
	UBSAN_OPTIONS=print_stacktrace=1:log_path=$(san_reports)/ubsan \
	TSAN_OPTIONS=suppressions=$(abs_top_srcdir)/tests/sanitizers/tsan.supp:log_path=$(san_reports)/tsan; \
	export ENC_TIME_SCALE ASAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS; mkdir -p $(san_reports);
# On failure the reports move to sanitizer-reports.last/, so the next run
# starts clean.  GCC's UBSan ignores log_path when ASan is linked too: its
# reports go to stderr, so the test logs are searched for them as well
# (-fno-sanitize-recover makes the process exit, which most tests notice).
check-local: check-TESTS
	@if ls $(san_reports)/* >/dev/null 2>&1; then \
	  echo "sanitizer reports in $(san_reports):"; \
	  for f in $(san_reports)/*; do echo "== $$f"; head -30 "$$f"; done; \
	  rm -rf $(san_reports).last; mv $(san_reports) $(san_reports).last; exit 1; \
	elif grep -l 'runtime error:' $(TEST_LOGS) 2>/dev/null; then \
	  echo "UBSan reports in the test logs above"; exit 1; \
	else echo "no sanitizer reports"; fi
else
san_tests_env =
endif
