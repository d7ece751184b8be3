# shim/mpi: the MPI interposition layer of libencore.  The entry points
# (MPI_X and PMPI_X for every function that takes a communicator, plus
# those libencore owns) are generated from mpi.spec by gen_entries.py into
# $(srcdir)/shim/mpi/gen/ (shipped in the tarball, so building from a
# release needs no python); the hand-written files implement the owned ones.
libencore_la_SOURCES += \
	shim/mpi/mode.c \
	shim/mpi/error.c \
	shim/mpi/data/dtype.c \
	shim/mpi/data/op.c \
	shim/mpi/data/mpi_reducer.c \
	shim/mpi/p2p/buffer.c \
	shim/mpi/lifecycle.c \
	shim/mpi/comm/comm.c \
	shim/mpi/comm/comm_table.c \
	shim/mpi/comm/comm_new.c \
	shim/mpi/comm/comm_adopt.c \
	shim/mpi/comm/comm_manage.c \
	shim/mpi/comm/group_table.c \
	shim/mpi/comm/group_ops.c \
	shim/mpi/request.c \
	shim/mpi/p2p/p2p_ops.c \
	shim/mpi/p2p/p2p_types.c \
	shim/mpi/p2p/p2p_send.c \
	shim/mpi/p2p/p2p_recv.c \
	shim/mpi/p2p/p2p_probe.c \
	shim/mpi/p2p/p2p_persist.c \
	shim/mpi/p2p/p2p_complete.c \
	shim/mpi/complete_event.c \
	shim/mpi/coll/icoll.c \
	shim/mpi/coll/turn_queue.c \
	shim/mpi/coll/icoll_entries.c \
	shim/mpi/coll/icoll_neighbor.c \
	shim/mpi/ckpt_api.c \
	shim/mpi/coll/coll_reduce.c \
	shim/mpi/coll/coll_bcast.c \
	shim/mpi/coll/coll_allgather.c \
	shim/mpi/coll/coll_scan.c \
	shim/mpi/coll/coll_rooted.c \
	shim/mpi/io/io_agree.c \
	shim/mpi/io/io_file.c \
	shim/mpi/io/io_shared.c \
	shim/mpi/io/io_pointer.c \
	shim/mpi/coll/coll_bytes.c \
	shim/mpi/coll/coll_neighbor.c \
	shim/mpi/inter/inter.c \
	shim/mpi/inter/inter_comm.c \
	shim/mpi/inter/inter_coll.c \
	shim/mpi/inter/inter_split.c \
	shim/mpi/topo/topo.c \
	shim/mpi/topo/topo_comm.c \
	shim/mpi/topo/topo_cart.c \
	shim/mpi/topo/topo_graph.c \
	shim/mpi/gen/wrappers.c
noinst_HEADERS += shim/mpi/mpi_layer.h shim/mpi/p2p/p2p_mpi.h shim/mpi/coll/icoll.h shim/mpi/coll/coll_bytes.h \
	shim/mpi/topo/topo.h shim/mpi/inter/inter.h shim/mpi/inter/inter_coll.h shim/mpi/coll/turn_queue.h shim/mpi/io/io.h \
	shim/mpi/gen/entries.h
EXTRA_DIST += shim/mpi/mpi.spec shim/mpi/gen_entries.py
BUILT_SOURCES += $(srcdir)/shim/mpi/gen/wrappers.c $(srcdir)/shim/mpi/gen/entries.h

# One generator run writes both files; entries.h rides on wrappers.c (the
# automake manual's recipe for rules with several outputs).
$(srcdir)/shim/mpi/gen/wrappers.c: $(srcdir)/shim/mpi/mpi.spec $(srcdir)/shim/mpi/gen_entries.py
	$(AM_V_GEN)$(PYTHON3) $(srcdir)/shim/mpi/gen_entries.py \
	    $(srcdir)/shim/mpi/mpi.spec $(srcdir)/shim/mpi/gen && touch $@
$(srcdir)/shim/mpi/gen/entries.h: $(srcdir)/shim/mpi/gen/wrappers.c
	@test -f $@ || rm -f $(srcdir)/shim/mpi/gen/wrappers.c
	@test -f $@ || $(MAKE) $(AM_MAKEFLAGS) $(srcdir)/shim/mpi/gen/wrappers.c
