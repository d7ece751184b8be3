# shim/mpi: the MPI interposition layer of libencore.  The entry points
# (MPI_X and PMPI_X for every function that takes a communicator, plus
# those libencore owns) are generated from mpi.spec by gen_entries.py into
# $(srcdir)/shim/mpi/gen/ (shipped in the tarball, so building from a
# release needs no python); the hand-written files implement the owned ones.
libencore_la_SOURCES += \
	shim/mpi/mode.c \
	shim/mpi/error.c \
	shim/mpi/dtype.c \
	shim/mpi/op.c \
	shim/mpi/mpi_reducer.c \
	shim/mpi/buffer.c \
	shim/mpi/lifecycle.c \
	shim/mpi/comm.c \
	shim/mpi/comm_table.c \
	shim/mpi/comm_new.c \
	shim/mpi/comm_adopt.c \
	shim/mpi/comm_manage.c \
	shim/mpi/group_table.c \
	shim/mpi/group_ops.c \
	shim/mpi/request.c \
	shim/mpi/p2p_ops.c \
	shim/mpi/p2p_send.c \
	shim/mpi/p2p_recv.c \
	shim/mpi/p2p_probe.c \
	shim/mpi/p2p_persist.c \
	shim/mpi/p2p_complete.c \
	shim/mpi/complete_event.c \
	shim/mpi/icoll.c \
	shim/mpi/turn_queue.c \
	shim/mpi/icoll_entries.c \
	shim/mpi/icoll_neighbor.c \
	shim/mpi/ckpt_api.c \
	shim/mpi/coll_reduce.c \
	shim/mpi/coll_bcast.c \
	shim/mpi/coll_allgather.c \
	shim/mpi/coll_scan.c \
	shim/mpi/coll_rooted.c \
	shim/mpi/io_agree.c \
	shim/mpi/io_file.c \
	shim/mpi/io_shared.c \
	shim/mpi/io_pointer.c \
	shim/mpi/coll_bytes.c \
	shim/mpi/coll_neighbor.c \
	shim/mpi/inter.c \
	shim/mpi/inter_comm.c \
	shim/mpi/inter_coll.c \
	shim/mpi/inter_split.c \
	shim/mpi/topo.c \
	shim/mpi/topo_comm.c \
	shim/mpi/topo_cart.c \
	shim/mpi/topo_graph.c \
	shim/mpi/gen/wrappers.c
noinst_HEADERS += shim/mpi/mpi_layer.h shim/mpi/p2p_mpi.h shim/mpi/icoll.h shim/mpi/coll_bytes.h \
	shim/mpi/topo.h shim/mpi/inter.h shim/mpi/inter_coll.h shim/mpi/turn_queue.h shim/mpi/io.h \
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
