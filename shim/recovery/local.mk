# shim/recovery: result log, replay, log service, recovery handshake,
# checkpoints and the bootstrap cache.
libencore_la_SOURCES += \
	shim/recovery/reclog.c \
	shim/recovery/spill.c \
	shim/recovery/commlog.c \
	shim/recovery/bufpool.c \
	shim/recovery/sigrec.c \
	shim/recovery/logreq.c \
	shim/recovery/serve.c \
	shim/recovery/replay.c \
	shim/recovery/logclient.c \
	shim/recovery/prefetch.c \
	shim/recovery/refetch.c \
	shim/recovery/recover.c \
	shim/recovery/ops.c \
	shim/recovery/bootstrap.c \
	shim/recovery/checkpoint.c \
	shim/recovery/ckpt.c \
	shim/recovery/ckpt_exchange.c \
	shim/recovery/ckpt_fetch.c \
	shim/recovery/snapshot.c \
	shim/recovery/snap_child.c \
	shim/recovery/snap_threads.c
noinst_HEADERS += \
	shim/recovery/recovery.h \
	shim/recovery/reclog.h \
	shim/recovery/spill.h \
	shim/recovery/bufpool.h \
	shim/recovery/logreq.h \
	shim/recovery/ckpt.h \
	shim/recovery/serve.h \
	shim/recovery/snapshot.h
