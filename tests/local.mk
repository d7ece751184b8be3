# tests: Criterion unit tests (tests/unit, one file per module) and
# real-job integration tests (tests/integration, programs in
# tests/programs).  Every integration script sources
# tests/integration/lib.sh, the one helper library, and finds the build
# through this environment.  configure --disable-tests leaves them all out.
AM_TESTS_ENVIRONMENT = $(san_tests_env) top_builddir=$(top_builddir) top_srcdir=$(top_srcdir) \
	MPI4PY_PYTHON=$(MPI4PY_PYTHON); export top_builddir top_srcdir MPI4PY_PYTHON;

# ---- integration tests: real jobs, each bounded in time ----
# Several hosts are network-namespace hosts on a private bridge (--rsh
# "ip netns exec") or a real Slurm cluster in namespaces, started and
# stopped by the test; they skip (77) when not root.  The Fortran tests
# build their programs with configure's MPIFC and skip (77) without it.
integration_tests = \
	tests/integration/launcher_basic.sh \
	tests/integration/launcher_ends.sh \
	tests/integration/passthrough.sh \
	tests/integration/unsupported_call.sh \
	tests/integration/tracker_standalone.sh \
	tests/integration/config_check.sh \
	tests/integration/scale_ranks.sh \
	tests/integration/kmeans_native_vs_encore.sh \
	tests/integration/coll_matrix.sh \
	tests/integration/op_table.sh \
	tests/integration/comm_matrix.sh \
	tests/integration/icoll_overlap.sh \
	tests/integration/icoll_cross.sh \
	tests/integration/p2p_basic.sh \
	tests/integration/p2p_shm.sh \
	tests/integration/p2p_recovery.sh \
	tests/integration/p2p_hard.sh \
	tests/integration/p2p_diverge.sh \
	tests/integration/p2p_snapshot.sh \
	tests/integration/hosts_p2p_snapshot.sh \
	tests/integration/p2p_apps.sh \
	tests/integration/handles.sh \
	tests/integration/datatypes.sh \
	tests/integration/topo.sh \
	tests/integration/inter.sh \
	tests/integration/mpi4py.sh \
	tests/integration/junk_peers.sh \
	tests/integration/recovery_kill.sh \
	tests/integration/io.sh \
	tests/integration/io_shared.sh \
	tests/integration/recovery_stop.sh \
	tests/integration/recovery_fail.sh \
	tests/integration/recovery_overlap.sh \
	tests/integration/recovery_random.sh \
	tests/integration/recovery_ckpt.sh \
	tests/integration/recovery_log.sh \
	tests/integration/recovery_spill.sh \
	tests/integration/resbuf_wrap.sh \
	tests/integration/recovery_comm.sh \
	tests/integration/coll_big.sh \
	tests/integration/recovery_topo.sh \
	tests/integration/log_comm.sh \
	tests/integration/comm_ckpt.sh \
	tests/integration/p2p_ckpt.sh \
	tests/integration/comm_churn.sh \
	tests/integration/snapshot_kill.sh \
	tests/integration/snapshot_programs.sh \
	tests/integration/snapshot_threads.sh \
	tests/integration/threads_multiple.sh \
	tests/integration/lammps_melt.sh \
	tests/integration/shm_peer_death.sh \
	tests/integration/shm_reclaim.sh \
	tests/integration/soak_short.sh \
	tests/integration/soak_p2p_short.sh \
	tests/integration/leaks_short.sh \
	tests/integration/fortran_collectives.sh \
	tests/integration/fortran_recovery.sh \
	tests/integration/fortran_checkpoint.sh \
	tests/integration/netns_selftest.sh \
	tests/integration/slurm_selftest.sh \
	tests/integration/hosts_run.sh \
	tests/integration/hosts_p2p.sh \
	tests/integration/hosts_loss.sh \
	tests/integration/hosts_loss_p2p.sh \
	tests/integration/hosts_loss_comm.sh \
	tests/integration/hosts_agent.sh \
	tests/integration/hosts_snapshot.sh \
	tests/integration/hosts_shm.sh \
	tests/integration/hosts_slurm.sh

if ENABLE_TESTS
# ---- unit tests: tests/unit/test_X.c, linked with the MPI-free blocks ----
unit_tests = \
	tests/unit/test_topo \
	tests/unit/test_tmpdir \
	tests/unit/test_tunables \
	tests/unit/test_reduce \
	tests/unit/test_wire \
	tests/unit/test_frame \
	tests/unit/test_auth \
	tests/unit/test_msgs \
	tests/unit/test_snapmsg \
	tests/unit/test_sock \
	tests/unit/test_recovery_parts \
	tests/unit/test_log_holders \
	tests/unit/test_tracker \
	tests/unit/test_placement \
	tests/unit/test_agent_shm \
	tests/unit/test_agent_image \
	tests/unit/test_vec \
	tests/unit/test_p2p_match \
	tests/unit/test_p2p_chanseq \
	tests/unit/test_p2p_det_store \
	tests/unit/test_p2p_shm_ring \
	tests/unit/test_p2p_pool \
	tests/unit/test_p2p_wire \
	tests/unit/test_p2p_spin_adapt \
	tests/unit/test_threads
check_PROGRAMS += $(unit_tests)
TESTS += $(unit_tests)
# The link of every program that names none: the unit tests'.
LDADD = libenccore.la $(CRITERION_LIBS)
# Unit tests that also compile the module they test, outside libenccore:
# the MPI-free parts of shim/recovery (the rest runs in the recovery
# integration tests), shim/p2p (in libencore only), the tracker and its
# client, the launcher's host
# list and mapping, the agent's --shm argument.
tests_unit_test_recovery_parts_SOURCES = tests/unit/test_recovery_parts.c \
	shim/recovery/log/logreq.c shim/recovery/log/bootstrap.c shim/recovery/log/bufpool.c \
	shim/recovery/log/sitemod.c
tests_unit_test_log_holders_SOURCES = tests/unit/test_log_holders.c \
	shim/recovery/log/holders.c
tests_unit_test_tracker_SOURCES = tests/unit/test_tracker.c shim/tracker_client/tclient.c \
	shim/tracker_client/tclient_send.c shim/tracker_client/tclient_det.c
tests_unit_test_tracker_CPPFLAGS = $(RUN_CPPFLAGS)
tests_unit_test_tracker_LDADD = libenctracker.la $(LDADD)
tests_unit_test_placement_SOURCES = tests/unit/test_placement.c run/launcher/placement.c \
	run/launcher/binding.c \
	run/launcher/slurm.c
tests_unit_test_placement_CPPFLAGS = $(RUN_CPPFLAGS)
tests_unit_test_placement_CFLAGS = $(AM_CFLAGS) $(HWLOC_CFLAGS)
tests_unit_test_placement_LDADD = $(LDADD) $(HWLOC_LIBS)
tests_unit_test_p2p_match_SOURCES = tests/unit/test_p2p_match.c shim/p2p/match.c \
	shim/p2p/chanseq.c
tests_unit_test_p2p_chanseq_SOURCES = tests/unit/test_p2p_chanseq.c shim/p2p/chanseq.c
tests_unit_test_p2p_det_store_SOURCES = tests/unit/test_p2p_det_store.c shim/p2p/det_store.c \
	shim/p2p/chanseq.c
tests_unit_test_p2p_shm_ring_SOURCES = tests/unit/test_p2p_shm_ring.c shim/p2p/shm_ring.c
tests_unit_test_p2p_pool_SOURCES = tests/unit/test_p2p_pool.c shim/p2p/pool.c
tests_unit_test_p2p_wire_SOURCES = tests/unit/test_p2p_wire.c shim/p2p/wire.c
# with OpenMP when the compiler has it: GCC's workers are libgomp's pool
tests_unit_test_threads_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
tests_unit_test_threads_LDFLAGS = $(OPENMP_CFLAGS)
tests_unit_test_agent_shm_SOURCES = tests/unit/test_agent_shm.c run/common/agent_proto.c
tests_unit_test_agent_shm_CPPFLAGS = $(RUN_CPPFLAGS)
tests_unit_test_agent_image_SOURCES = tests/unit/test_agent_image.c run/common/agent_proto.c
tests_unit_test_agent_image_CPPFLAGS = $(RUN_CPPFLAGS)

# ---- programs the integration tests run ----
# fake_rank: a rank without MPI, speaking the tracker protocol.
check_PROGRAMS += tests/programs/fake_rank
tests_programs_fake_rank_SOURCES = tests/programs/fake_rank.c shim/tracker_client/tclient.c \
	shim/tracker_client/tclient_send.c shim/tracker_client/tclient_det.c
tests_programs_fake_rank_LDADD = libenccore.la
# Plain MPI programs: not linked with libencore (encore-run preloads it).
mpi_programs = \
	tests/programs/passthrough_prog \
	tests/programs/refused_on_world \
	tests/programs/snap_iter \
	tests/programs/snap_drop \
	tests/programs/recov_iter \
	tests/programs/scale_loop \
	tests/programs/coll_check \
	tests/programs/comm_check \
	tests/programs/recov_comm \
	tests/programs/coll_big \
	tests/programs/icoll_overlap \
	tests/programs/icoll_cross \
	tests/programs/p2p_check \
	tests/programs/p2p_flood \
	tests/programs/p2p_diverge \
	tests/programs/p2p_stencil \
	tests/programs/p2p_master \
	tests/programs/p2p_poll \
	tests/programs/p2p_big \
	tests/programs/p2p_late_reader \
	tests/programs/p2p_behind \
	tests/programs/p2p_quiet \
	tests/programs/p2p_ring \
	tests/programs/p2p_mt_recv \
	tests/programs/p2p_halo2d \
	tests/programs/p2p_farm \
	tests/programs/handle_check \
	tests/programs/alltoallw_check \
	tests/programs/topo_check \
	tests/programs/recov_topo \
	tests/programs/inter_check \
	tests/programs/inter_p2p \
	tests/programs/noncontig_reduce \
	tests/programs/op_table \
	tests/programs/junk_target \
	tests/programs/spawn_child \
	tests/programs/mt_comms
mpi_programs += tests/programs/io_check tests/programs/io_shared_check
check_PROGRAMS += $(mpi_programs)
mpi_cflags = $(AM_CFLAGS) $(MPI_CFLAGS)
tests_programs_io_check_CFLAGS = $(mpi_cflags)
tests_programs_io_check_LDADD = $(MPI_LIBS)
tests_programs_io_shared_check_CFLAGS = $(mpi_cflags)
tests_programs_io_shared_check_LDADD = $(MPI_LIBS)
tests_programs_passthrough_prog_CFLAGS = $(mpi_cflags)
tests_programs_passthrough_prog_LDADD = $(MPI_LIBS) $(DL_LIBS)
tests_programs_refused_on_world_CFLAGS = $(mpi_cflags)
tests_programs_refused_on_world_LDADD = $(MPI_LIBS)
tests_programs_snap_iter_CFLAGS = $(mpi_cflags)
tests_programs_snap_iter_LDADD = $(MPI_LIBS)
tests_programs_snap_drop_CFLAGS = $(mpi_cflags)
tests_programs_snap_drop_LDADD = $(MPI_LIBS)
tests_programs_recov_iter_CFLAGS = $(mpi_cflags)
tests_programs_recov_iter_LDADD = $(MPI_LIBS)
tests_programs_scale_loop_CFLAGS = $(mpi_cflags)
tests_programs_scale_loop_LDADD = $(MPI_LIBS)
tests_programs_coll_check_CFLAGS = $(mpi_cflags)
tests_programs_coll_check_LDADD = $(MPI_LIBS)
tests_programs_comm_check_CFLAGS = $(mpi_cflags)
tests_programs_comm_check_LDADD = $(MPI_LIBS)
tests_programs_recov_comm_CFLAGS = $(mpi_cflags)
tests_programs_recov_comm_LDADD = $(MPI_LIBS)
tests_programs_coll_big_CFLAGS = $(mpi_cflags)
tests_programs_coll_big_LDADD = $(MPI_LIBS)
tests_programs_icoll_overlap_CFLAGS = $(mpi_cflags)
tests_programs_icoll_overlap_LDADD = $(MPI_LIBS)
tests_programs_icoll_cross_CFLAGS = $(mpi_cflags)
tests_programs_icoll_cross_LDADD = $(MPI_LIBS)
tests_programs_p2p_check_CFLAGS = $(mpi_cflags)
tests_programs_p2p_check_LDADD = $(MPI_LIBS)
tests_programs_p2p_flood_CFLAGS = $(mpi_cflags)
tests_programs_p2p_flood_LDADD = $(MPI_LIBS)
tests_programs_p2p_diverge_CFLAGS = $(mpi_cflags)
tests_programs_p2p_diverge_LDADD = $(MPI_LIBS)
tests_programs_p2p_stencil_CFLAGS = $(mpi_cflags)
tests_programs_p2p_stencil_LDADD = $(MPI_LIBS)
tests_programs_p2p_master_CFLAGS = $(mpi_cflags)
tests_programs_p2p_master_LDADD = $(MPI_LIBS)
tests_programs_p2p_poll_CFLAGS = $(mpi_cflags)
tests_programs_p2p_poll_LDADD = $(MPI_LIBS)
tests_programs_p2p_big_CFLAGS = $(mpi_cflags)
tests_programs_p2p_big_LDADD = $(MPI_LIBS)
tests_programs_p2p_late_reader_CFLAGS = $(mpi_cflags)
tests_programs_p2p_late_reader_LDADD = $(MPI_LIBS)
tests_programs_p2p_behind_CFLAGS = $(mpi_cflags)
tests_programs_p2p_behind_LDADD = $(MPI_LIBS)
tests_programs_p2p_quiet_CFLAGS = $(mpi_cflags)
tests_programs_p2p_quiet_LDADD = $(MPI_LIBS)
tests_programs_p2p_ring_CFLAGS = $(mpi_cflags)
tests_programs_p2p_ring_LDADD = $(MPI_LIBS) -lpthread
tests_programs_p2p_mt_recv_CFLAGS = $(mpi_cflags)
tests_programs_p2p_mt_recv_LDADD = $(MPI_LIBS) -lpthread
tests_programs_p2p_halo2d_CFLAGS = $(mpi_cflags)
tests_programs_p2p_halo2d_LDADD = $(MPI_LIBS)
tests_programs_p2p_farm_CFLAGS = $(mpi_cflags)
tests_programs_p2p_farm_LDADD = $(MPI_LIBS)
tests_programs_handle_check_CFLAGS = $(mpi_cflags)
tests_programs_handle_check_LDADD = $(MPI_LIBS)
tests_programs_alltoallw_check_CFLAGS = $(mpi_cflags)
tests_programs_alltoallw_check_LDADD = $(MPI_LIBS)
tests_programs_topo_check_CFLAGS = $(mpi_cflags)
tests_programs_topo_check_LDADD = $(MPI_LIBS)
tests_programs_recov_topo_CFLAGS = $(mpi_cflags)
tests_programs_recov_topo_LDADD = $(MPI_LIBS)
tests_programs_inter_check_CFLAGS = $(mpi_cflags)
tests_programs_inter_check_LDADD = $(MPI_LIBS)
tests_programs_inter_p2p_CFLAGS = $(mpi_cflags)
tests_programs_inter_p2p_LDADD = $(MPI_LIBS)
tests_programs_noncontig_reduce_CFLAGS = $(mpi_cflags)
tests_programs_noncontig_reduce_LDADD = $(MPI_LIBS)
tests_programs_op_table_CFLAGS = $(mpi_cflags)
tests_programs_op_table_LDADD = $(MPI_LIBS)
tests_programs_junk_target_CFLAGS = $(mpi_cflags)
tests_programs_junk_target_LDADD = $(MPI_LIBS)
tests_programs_spawn_child_CFLAGS = $(mpi_cflags)
tests_programs_spawn_child_LDADD = $(MPI_LIBS)
tests_programs_mt_comms_CFLAGS = $(mpi_cflags) $(PTHREAD_CFLAGS)
tests_programs_mt_comms_LDADD = $(MPI_LIBS)
# An OpenMP loop (GCC's libgomp; LLVM's libomp stands in under --openmp llvm).
if HAVE_OPENMP
check_PROGRAMS += tests/programs/omp_iter
tests_programs_omp_iter_CFLAGS = $(mpi_cflags) $(OPENMP_CFLAGS)
tests_programs_omp_iter_LDFLAGS = $(OPENMP_CFLAGS)
tests_programs_omp_iter_LDADD = $(MPI_LIBS)
endif
# MPI programs that call the checkpoint API, so they link libencore
# (-no-install: no libtool wrapper script in front of the program).
api_programs = \
	tests/programs/recov_ckpt \
	tests/programs/comm_ckpt \
	tests/programs/comm_churn \
	tests/programs/soak_mix \
	tests/programs/p2p_ckpt
check_PROGRAMS += $(api_programs)
tests_programs_recov_ckpt_CFLAGS = $(mpi_cflags)
tests_programs_recov_ckpt_LDADD = libencore.la $(MPI_LIBS)
tests_programs_recov_ckpt_LDFLAGS = -no-install
tests_programs_comm_churn_CFLAGS = $(mpi_cflags)
tests_programs_comm_churn_LDADD = libencore.la $(MPI_LIBS)
tests_programs_comm_churn_LDFLAGS = -no-install
tests_programs_comm_ckpt_CFLAGS = $(mpi_cflags)
tests_programs_comm_ckpt_LDADD = libencore.la $(MPI_LIBS)
tests_programs_comm_ckpt_LDFLAGS = -no-install
tests_programs_soak_mix_CFLAGS = $(mpi_cflags)
tests_programs_soak_mix_LDADD = libencore.la $(MPI_LIBS)
tests_programs_soak_mix_LDFLAGS = -no-install
tests_programs_p2p_ckpt_CFLAGS = $(mpi_cflags)
tests_programs_p2p_ckpt_LDADD = libencore.la $(MPI_LIBS)
tests_programs_p2p_ckpt_LDFLAGS = -no-install

TESTS += $(integration_tests)
endif

EXTRA_DIST += $(integration_tests) \
	tests/integration/lib.sh \
	tests/integration/netns_lib.sh \
	tests/integration/snap_lib.sh \
	tests/integration/slurm_lib.sh \
	tests/integration/junk_client.py \
	tests/programs/mpi4py_coll.py \
	tests/programs/numpy_iter.py \
	tests/programs/lammps_melt.in \
	tests/programs/fortran_coll.F90 \
	tests/programs/fortran_ckpt.f90 \
	tests/programs/rank_lines.h \
	tests/programs/xorshift_fill.h \
	tests/programs/mpi_check.h
