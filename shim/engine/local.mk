# shim/engine: the collective engine (links, progress loop, algorithms).
libencore_la_SOURCES += \
	shim/engine/join.c \
	shim/engine/finalize.c \
	shim/engine/membership.c \
	shim/engine/peer_host.c \
	shim/engine/regroup.c \
	shim/engine/layer.c \
	shim/engine/listener.c \
	shim/engine/links.c \
	shim/engine/xfer.c \
	shim/engine/link_io.c \
	shim/engine/turns.c \
	shim/engine/coll.c \
	shim/engine/coll_result.c \
	shim/engine/coll_live.c \
	shim/engine/coll_shm.c shim/engine/coll_hier.c \
	shim/engine/allreduce_tree.c \
	shim/engine/allreduce_ring.c \
	shim/engine/bcast_tree.c \
	shim/engine/allgatherv_ring.c \
	shim/engine/bcast_sync.c \
	shim/engine/group.c \
	shim/engine/group_coll.c \
	shim/engine/group_chan.c \
	shim/engine/reducer.c \
	shim/engine/scratch.c \
	shim/engine/inject.c \
	shim/engine/fork_child.c \
	shim/engine/callsite.c
noinst_HEADERS += \
	shim/engine/engine.h \
	shim/engine/layer.h \
	shim/engine/state.h \
	shim/engine/xfer.h \
	shim/engine/link_io.h \
	shim/engine/turns.h \
	shim/engine/coll.h \
	shim/engine/scratch.h \
	shim/engine/shm_wait.h \
	shim/engine/chan.h \
	shim/engine/dispatch.h \
	shim/engine/hier.h \
	shim/engine/group.h
