# shim/recovery: the layer above the engine.  Its ops table, replay and
# recovery after a regroup at the top; the result log, checkpoints and
# snapshots in rooms of their own.
libencore_la_SOURCES += \
	shim/recovery/ops.c \
	shim/recovery/channels.c \
	shim/recovery/replay.c \
	shim/recovery/recover.c \
	shim/recovery/log/store.c \
	shim/recovery/log/holders.c \
	shim/recovery/log/spill.c \
	shim/recovery/log/bufpool.c \
	shim/recovery/log/sigrec.c \
	shim/recovery/log/sitemod.c \
	shim/recovery/log/bootstrap.c \
	shim/recovery/log/logreq.c \
	shim/recovery/log/serve.c \
	shim/recovery/log/fetch.c \
	shim/recovery/log/prefetch.c \
	shim/recovery/log/refetch.c \
	shim/recovery/checkpoint/api.c \
	shim/recovery/checkpoint/ckpt.c \
	shim/recovery/checkpoint/exchange.c \
	shim/recovery/checkpoint/load.c \
	shim/recovery/checkpoint/positions.c \
	shim/recovery/snapshot/snapshot.c \
	shim/recovery/snapshot/image.c \
	shim/recovery/snapshot/precopy.c \
	shim/recovery/snapshot/threads.c
# Headers, one per module, a line per room.
noinst_HEADERS += \
	shim/recovery/recovery.h shim/recovery/ops.h shim/recovery/replay.h \
	shim/recovery/recover.h shim/recovery/channels.h \
	shim/recovery/log/log.h shim/recovery/log/holders.h shim/recovery/log/spill.h \
	shim/recovery/log/bufpool.h shim/recovery/log/sigrec.h shim/recovery/log/sitemod.h \
	shim/recovery/log/bootstrap.h \
	shim/recovery/log/wio.h shim/recovery/log/logreq.h shim/recovery/log/serve.h \
	shim/recovery/log/fetch.h shim/recovery/log/prefetch.h shim/recovery/log/refetch.h \
	shim/recovery/checkpoint/ckpt.h shim/recovery/checkpoint/exchange.h \
	shim/recovery/checkpoint/load.h shim/recovery/checkpoint/positions.h \
	shim/recovery/snapshot/snapshot.h shim/recovery/snapshot/image.h \
	shim/recovery/snapshot/precopy.h shim/recovery/snapshot/threads.h
