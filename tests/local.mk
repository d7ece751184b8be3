# tests: Criterion unit tests (tests/unit) and real-job integration tests
# (tests/integration, programs in tests/programs).  Every integration script
# sources tests/integration/lib.sh, the one helper library, and finds the
# build through this environment.
AM_TESTS_ENVIRONMENT = $(san_tests_env) top_builddir=$(top_builddir) top_srcdir=$(top_srcdir) \
	MPI4PY_PYTHON=$(MPI4PY_PYTHON); export top_builddir top_srcdir MPI4PY_PYTHON;
EXTRA_DIST += tests/integration/lib.sh
if ENABLE_TESTS
unit_ldadd = libenccore.la $(CRITERION_LIBS)
unit_cflags = $(AM_CFLAGS) $(CRITERION_CFLAGS)
check_PROGRAMS += tests/unit/test_topo
TESTS += tests/unit/test_topo
tests_unit_test_topo_SOURCES = tests/unit/test_topo.c
tests_unit_test_topo_CFLAGS = $(unit_cflags)
tests_unit_test_topo_LDADD = $(unit_ldadd)

check_PROGRAMS += tests/unit/test_tmpdir
TESTS += tests/unit/test_tmpdir
tests_unit_test_tmpdir_SOURCES = tests/unit/test_tmpdir.c
tests_unit_test_tmpdir_CFLAGS = $(unit_cflags)
tests_unit_test_tmpdir_LDADD = $(unit_ldadd)

check_PROGRAMS += tests/unit/test_vec
TESTS += tests/unit/test_vec
tests_unit_test_vec_SOURCES = tests/unit/test_vec.c
tests_unit_test_vec_CFLAGS = $(unit_cflags)
tests_unit_test_vec_LDADD = $(unit_ldadd)

check_PROGRAMS += tests/unit/test_tunables
TESTS += tests/unit/test_tunables
tests_unit_test_tunables_SOURCES = tests/unit/test_tunables.c
tests_unit_test_tunables_CFLAGS = $(unit_cflags)
tests_unit_test_tunables_LDADD = $(unit_ldadd)

check_PROGRAMS += tests/unit/test_reduce
TESTS += tests/unit/test_reduce
tests_unit_test_reduce_SOURCES = tests/unit/test_reduce.c
tests_unit_test_reduce_CFLAGS = $(unit_cflags)
tests_unit_test_reduce_LDADD = $(unit_ldadd)

check_PROGRAMS += tests/unit/test_wire
TESTS += tests/unit/test_wire
tests_unit_test_wire_SOURCES = tests/unit/test_wire.c
tests_unit_test_wire_CFLAGS = $(unit_cflags)
tests_unit_test_wire_LDADD = $(unit_ldadd)

check_PROGRAMS += tests/unit/test_frame
TESTS += tests/unit/test_frame
tests_unit_test_frame_SOURCES = tests/unit/test_frame.c
tests_unit_test_frame_CFLAGS = $(unit_cflags)
tests_unit_test_frame_LDADD = $(unit_ldadd)
# the MPI-free parts of shim/recovery (the rest needs libencore and runs
# in the recovery integration tests)
check_PROGRAMS += tests/unit/test_recovery_parts
TESTS += tests/unit/test_recovery_parts
tests_unit_test_recovery_parts_SOURCES = tests/unit/test_recovery_parts.c \
	shim/recovery/logreq.c shim/recovery/bootstrap.c shim/recovery/bufpool.c
tests_unit_test_recovery_parts_CFLAGS = $(unit_cflags)
tests_unit_test_recovery_parts_LDADD = $(unit_ldadd)

check_PROGRAMS += tests/unit/test_auth
TESTS += tests/unit/test_auth
tests_unit_test_auth_SOURCES = tests/unit/test_auth.c
tests_unit_test_auth_CFLAGS = $(unit_cflags)
tests_unit_test_auth_LDADD = $(unit_ldadd)

check_PROGRAMS += tests/unit/test_msgs
TESTS += tests/unit/test_msgs
tests_unit_test_msgs_SOURCES = tests/unit/test_msgs.c
tests_unit_test_msgs_CFLAGS = $(unit_cflags)
tests_unit_test_msgs_LDADD = $(unit_ldadd)

check_PROGRAMS += tests/unit/test_snapmsg
TESTS += tests/unit/test_snapmsg
tests_unit_test_snapmsg_SOURCES = tests/unit/test_snapmsg.c
tests_unit_test_snapmsg_CFLAGS = $(unit_cflags)
tests_unit_test_snapmsg_LDADD = $(unit_ldadd)

check_PROGRAMS += tests/unit/test_sock
TESTS += tests/unit/test_sock
tests_unit_test_sock_SOURCES = tests/unit/test_sock.c
tests_unit_test_sock_CFLAGS = $(unit_cflags)
tests_unit_test_sock_LDADD = $(unit_ldadd)
# tracker / launcher (control plane)
check_PROGRAMS += tests/unit/test_tracker
TESTS += tests/unit/test_tracker
tests_unit_test_tracker_SOURCES = tests/unit/test_tracker.c shim/tracker_client/tclient.c
tests_unit_test_tracker_CPPFLAGS = $(RUN_CPPFLAGS)
tests_unit_test_tracker_CFLAGS = $(unit_cflags)
tests_unit_test_tracker_LDADD = libenctracker.la $(unit_ldadd)

check_PROGRAMS += tests/programs/fake_rank
tests_programs_fake_rank_SOURCES = tests/programs/fake_rank.c shim/tracker_client/tclient.c
tests_programs_fake_rank_LDADD = libenccore.la
TESTS += tests/integration/launcher_basic.sh
EXTRA_DIST += tests/integration/launcher_basic.sh
endif

# MPI layer (shim/mpi): passthrough under plain mpirun, refusals in encore mode.
check_PROGRAMS += tests/programs/passthrough_prog tests/programs/send_on_world
tests_programs_passthrough_prog_SOURCES = tests/programs/passthrough_prog.c
tests_programs_passthrough_prog_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
tests_programs_passthrough_prog_LDADD = $(MPI_LIBS) $(DL_LIBS)
tests_programs_send_on_world_SOURCES = tests/programs/send_on_world.c
tests_programs_send_on_world_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
tests_programs_send_on_world_LDADD = $(MPI_LIBS)
TESTS += tests/integration/passthrough.sh tests/integration/unsupported_call.sh
EXTRA_DIST += tests/integration/passthrough.sh tests/integration/unsupported_call.sh

# Retry-one recovery: unmodified MPI programs killed under encore-run.
if ENABLE_TESTS
check_PROGRAMS += tests/programs/snap_iter
tests_programs_snap_iter_SOURCES = tests/programs/snap_iter.c
tests_programs_snap_iter_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
tests_programs_snap_iter_LDADD = $(MPI_LIBS)
TESTS += tests/integration/snapshot_kill.sh tests/integration/snapshot_programs.sh
EXTRA_DIST += tests/integration/snapshot_kill.sh tests/integration/snapshot_programs.sh
check_PROGRAMS += tests/programs/recov_iter tests/programs/recov_ckpt
tests_programs_recov_iter_SOURCES = tests/programs/recov_iter.c
tests_programs_recov_iter_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
tests_programs_recov_iter_LDADD = $(MPI_LIBS)
# uses the checkpoint API, so it links libencore (-no-install: no wrapper script)
tests_programs_recov_ckpt_SOURCES = tests/programs/recov_ckpt.c
tests_programs_recov_ckpt_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
tests_programs_recov_ckpt_LDADD = libencore.la $(MPI_LIBS)
tests_programs_recov_ckpt_LDFLAGS = -no-install
TESTS += tests/integration/recovery_kill.sh tests/integration/recovery_stop.sh \
	tests/integration/recovery_fail.sh tests/integration/recovery_overlap.sh \
	tests/integration/recovery_random.sh tests/integration/recovery_ckpt.sh \
	tests/integration/recovery_log.sh tests/integration/recovery_spill.sh
EXTRA_DIST += tests/integration/recovery_kill.sh \
	tests/integration/recovery_stop.sh tests/integration/recovery_fail.sh \
	tests/integration/recovery_overlap.sh tests/integration/recovery_random.sh \
	tests/integration/recovery_ckpt.sh tests/integration/recovery_log.sh \
	tests/integration/recovery_spill.sh
endif

# A standalone tracker joined by ranks another launcher started.
if ENABLE_TESTS
TESTS += tests/integration/tracker_standalone.sh
EXTRA_DIST += tests/integration/tracker_standalone.sh
endif

# Start-up checks (every option, every ENCORE_* variable) and scale (many
# ranks on one host, file limits, peak memory in the summary).
if ENABLE_TESTS
check_PROGRAMS += tests/programs/scale_loop
tests_programs_scale_loop_SOURCES = tests/programs/scale_loop.c
tests_programs_scale_loop_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
tests_programs_scale_loop_LDADD = $(MPI_LIBS)
TESTS += tests/integration/config_check.sh tests/integration/scale_ranks.sh
EXTRA_DIST += tests/integration/config_check.sh tests/integration/scale_ranks.sh
endif

# Integration: coll_check / mpi4py / junk peers against native Open MPI.
# The programs are plain MPI programs (not linked with libencore: encore-run
# preloads it).
if ENABLE_TESTS
check_PROGRAMS += tests/programs/coll_check
tests_programs_coll_check_SOURCES = tests/programs/coll_check.c
tests_programs_coll_check_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
tests_programs_coll_check_LDADD = $(MPI_LIBS)
TESTS += tests/integration/coll_matrix.sh
EXTRA_DIST += tests/integration/coll_matrix.sh
# Communicators derived from the world (issue 10).
check_PROGRAMS += tests/programs/comm_check
tests_programs_comm_check_SOURCES = tests/programs/comm_check.c
tests_programs_comm_check_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
tests_programs_comm_check_LDADD = $(MPI_LIBS)
check_PROGRAMS += tests/programs/recov_comm
tests_programs_recov_comm_SOURCES = tests/programs/recov_comm.c
tests_programs_recov_comm_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
tests_programs_recov_comm_LDADD = $(MPI_LIBS)
check_PROGRAMS += tests/programs/icoll_overlap
tests_programs_icoll_overlap_SOURCES = tests/programs/icoll_overlap.c
tests_programs_icoll_overlap_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
tests_programs_icoll_overlap_LDADD = $(MPI_LIBS)
check_PROGRAMS += tests/programs/icoll_cross
tests_programs_icoll_cross_SOURCES = tests/programs/icoll_cross.c
tests_programs_icoll_cross_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
tests_programs_icoll_cross_LDADD = $(MPI_LIBS)
TESTS += tests/integration/comm_matrix.sh tests/integration/recovery_comm.sh
check_PROGRAMS += tests/programs/op_table
tests_programs_op_table_SOURCES = tests/programs/op_table.c
tests_programs_op_table_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
tests_programs_op_table_LDADD = $(MPI_LIBS)
TESTS += tests/integration/icoll_overlap.sh tests/integration/icoll_cross.sh tests/integration/op_table.sh
# checkpoints with derived communicators: links libencore for the API
check_PROGRAMS += tests/programs/comm_ckpt
tests_programs_comm_ckpt_SOURCES = tests/programs/comm_ckpt.c
tests_programs_comm_ckpt_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
tests_programs_comm_ckpt_LDADD = libencore.la $(MPI_LIBS)
tests_programs_comm_ckpt_LDFLAGS = -no-install
TESTS += tests/integration/comm_ckpt.sh
EXTRA_DIST += tests/integration/comm_ckpt.sh
EXTRA_DIST += tests/integration/comm_matrix.sh tests/integration/recovery_comm.sh
EXTRA_DIST += tests/integration/icoll_overlap.sh tests/integration/icoll_cross.sh tests/integration/op_table.sh
endif
if ENABLE_TESTS
TESTS += tests/integration/mpi4py.sh
EXTRA_DIST += tests/integration/mpi4py.sh tests/programs/mpi4py_coll.py
endif
if ENABLE_TESTS
check_PROGRAMS += tests/programs/junk_target
tests_programs_junk_target_SOURCES = tests/programs/junk_target.c
tests_programs_junk_target_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
tests_programs_junk_target_LDADD = $(MPI_LIBS)
TESTS += tests/integration/junk_peers.sh
EXTRA_DIST += tests/integration/junk_peers.sh tests/integration/junk_client.py
endif

# Fortran: mpif.h, use mpi and use mpi_f08 programs under encore-run;
# built by the scripts with configure's MPIFC, skipped (77) without Fortran.
TESTS += tests/integration/fortran_collectives.sh tests/integration/fortran_recovery.sh \
	tests/integration/fortran_checkpoint.sh
EXTRA_DIST += tests/integration/fortran_collectives.sh \
	tests/integration/fortran_recovery.sh tests/integration/fortran_checkpoint.sh \
	tests/programs/fortran_coll.F90 tests/programs/fortran_ckpt.f90

# Multi-host test infrastructure (issue 9): network-namespace hosts on a
# private bridge, and a real Slurm cluster (slurmctld + slurmd in namespaces)
# started and stopped by the test; both skip (77) when not root.
TESTS += tests/integration/netns_selftest.sh
EXTRA_DIST += tests/integration/netns_lib.sh tests/integration/netns_selftest.sh
TESTS += tests/integration/slurm_selftest.sh
EXTRA_DIST += tests/integration/slurm_lib.sh tests/integration/slurm_selftest.sh

# encore-run's host list and mapping (run/launcher/placement.c)
if ENABLE_TESTS
check_PROGRAMS += tests/unit/test_placement
TESTS += tests/unit/test_placement
tests_unit_test_placement_SOURCES = tests/unit/test_placement.c run/launcher/placement.c \
	run/launcher/slurm.c
tests_unit_test_placement_CPPFLAGS = $(RUN_CPPFLAGS)
tests_unit_test_placement_CFLAGS = $(unit_cflags) $(HWLOC_CFLAGS)
tests_unit_test_placement_LDADD = $(unit_ldadd) $(HWLOC_LIBS)
endif

# encore-agent's --shm argument (run/agent/agent_proto.c)
if ENABLE_TESTS
check_PROGRAMS += tests/unit/test_agent_shm
TESTS += tests/unit/test_agent_shm
tests_unit_test_agent_shm_SOURCES = tests/unit/test_agent_shm.c run/agent/agent_proto.c
tests_unit_test_agent_shm_CPPFLAGS = $(RUN_CPPFLAGS)
tests_unit_test_agent_shm_CFLAGS = $(unit_cflags)
tests_unit_test_agent_shm_LDADD = $(unit_ldadd)
endif

# several hosts (network namespaces, --rsh "ip netns exec"; skipped unless root)
TESTS += tests/integration/hosts_run.sh
EXTRA_DIST += tests/integration/hosts_run.sh
TESTS += tests/integration/hosts_loss.sh
EXTRA_DIST += tests/integration/hosts_loss.sh
TESTS += tests/integration/hosts_agent.sh
EXTRA_DIST += tests/integration/hosts_agent.sh
TESTS += tests/integration/hosts_shm.sh
EXTRA_DIST += tests/integration/hosts_shm.sh
TESTS += tests/integration/hosts_slurm.sh
EXTRA_DIST += tests/integration/hosts_slurm.sh

# Shared memory on one host (shim/shm, shim/engine/coll_shm.c): a peer dying
# in the middle of a collective, and the segment reclaimed however a job ends
# (spawn_child: ranks leaving a background process behind).
if ENABLE_TESTS
check_PROGRAMS += tests/programs/spawn_child
tests_programs_spawn_child_SOURCES = tests/programs/spawn_child.c
tests_programs_spawn_child_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
tests_programs_spawn_child_LDADD = $(MPI_LIBS)
TESTS += tests/integration/shm_peer_death.sh
EXTRA_DIST += tests/integration/shm_peer_death.sh
TESTS += tests/integration/shm_reclaim.sh
EXTRA_DIST += tests/integration/shm_reclaim.sh
endif

# Hardening (issue 12): the kill soak (bench/soak.sh, short version in the
# suite), the ends of the launcher and the tracker, fd/memory flatness.
if ENABLE_TESTS
check_PROGRAMS += tests/programs/soak_mix
tests_programs_soak_mix_SOURCES = tests/programs/soak_mix.c
tests_programs_soak_mix_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
tests_programs_soak_mix_LDADD = libencore.la $(MPI_LIBS)
tests_programs_soak_mix_LDFLAGS = -no-install
TESTS += tests/integration/soak_short.sh tests/integration/launcher_ends.sh \
	tests/integration/leaks_short.sh
EXTRA_DIST += tests/integration/soak_short.sh tests/integration/launcher_ends.sh \
	tests/integration/leaks_short.sh
endif
