# bench: benchmarks against native Open MPI (not run by make check).
# `make bench` builds them and runs bench/compare.sh (results in
# bench/results/ of the build directory).  kmeans is also a check program:
# tests/integration/kmeans_native_vs_encore.sh and the recovery tests use it.
EXTRA_PROGRAMS = bench/allreduce_bench bench/replay_bench bench/cold_ring bench/p2p_transport \
	bench/neighbor_bench
# p2p_transport: same-host transports for point-to-point (docs/p2p.md)
bench_p2p_transport_SOURCES = bench/p2p_transport.c
bench_p2p_transport_LDADD =
bench_cold_ring_SOURCES = bench/cold_ring.c
bench_cold_ring_LDADD =
bench_replay_bench_SOURCES = bench/replay_bench.c
bench_replay_bench_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
bench_replay_bench_LDADD = $(MPI_LIBS)
bench_neighbor_bench_SOURCES = bench/neighbor_bench.c
bench_neighbor_bench_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
bench_neighbor_bench_LDADD = $(MPI_LIBS)
bench_allreduce_bench_SOURCES = bench/allreduce_bench.c
bench_allreduce_bench_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
bench_allreduce_bench_LDADD = $(MPI_LIBS)

check_PROGRAMS += bench/kmeans
bench_kmeans_SOURCES = bench/kmeans.c
bench_kmeans_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
bench_kmeans_LDADD = $(MPI_LIBS)

CLEANFILES += bench/allreduce_bench bench/replay_bench bench/cold_ring bench/p2p_transport \
	bench/neighbor_bench
EXTRA_DIST += bench/det_cost.sh bench/det_poll.c bench/p2p.sh bench/p2p_bench.c bench/netns_rsh.sh bench/netns_pair.sh bench/coll_bench.c bench/coll_attrib.sh bench/fork_pools.c bench/compare.sh bench/profile.sh bench/recovery.sh bench/snapshot_headline.sh bench/scale.sh bench/soak.sh bench/soak_lib.sh bench/p2p_soak.sh bench/p2p_apps.sh bench/leaks.sh bench/comm_rss.sh bench/mpich.sh bench/imb.sh bench/lammps.sh bench/README.md

.PHONY: bench-recovery
if HAVE_OPENMP
bench_pool_programs = tests/programs/omp_iter
endif
bench-recovery: bench/replay_bench bench/kmeans tests/programs/snap_iter $(bench_pool_programs) \
		encore-run libencore.la
	top_builddir=$(top_builddir) MPI4PY_PYTHON=$(MPI4PY_PYTHON) $(SHELL) $(srcdir)/bench/recovery.sh

# the kill soak (SOAK_TRIALS, default 1000; see the script's head)
.PHONY: bench-soak
bench-soak: bench/kmeans tests/programs/soak_mix encore-run libencore.la
	top_builddir=$(top_builddir) top_srcdir=$(top_srcdir) $(SHELL) $(srcdir)/bench/soak.sh

# where the time of one size goes (PROFILE_ARGS="ranks bytes mode")
.PHONY: bench-profile
bench-profile: bench/allreduce_bench encore-run libencore.la
	top_builddir=$(top_builddir) $(SHELL) $(srcdir)/bench/profile.sh $(PROFILE_ARGS)

.PHONY: bench
bench: bench/allreduce_bench bench/kmeans encore-run libencore.la
	top_builddir=$(top_builddir) $(SHELL) $(srcdir)/bench/compare.sh
