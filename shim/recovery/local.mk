# shim/recovery: result log, replay, log service, recovery handshake,
# checkpoints and the bootstrap cache.
libencore_la_SOURCES += \
	shim/recovery/log/store.c \
	shim/recovery/log/spill.c \
	shim/recovery/log/commlog.c \
	shim/recovery/log/bufpool.c \
	shim/recovery/log/sigrec.c \
	shim/recovery/log/logreq.c \
	shim/recovery/log/serve.c \
	shim/recovery/replay.c \
	shim/recovery/log/fetch.c \
	shim/recovery/log/prefetch.c \
	shim/recovery/log/refetch.c \
	shim/recovery/recover.c \
	shim/recovery/ops.c \
	shim/recovery/log/bootstrap.c \
	shim/recovery/checkpoint/api.c \
	shim/recovery/checkpoint/ckpt.c \
	shim/recovery/checkpoint/exchange.c \
	shim/recovery/checkpoint/load.c \
	shim/recovery/snapshot/snapshot.c \
	shim/recovery/snapshot/image.c \
	shim/recovery/snapshot/threads.c
noinst_HEADERS += \
	shim/recovery/recovery.h \
	shim/recovery/log/log.h \
	shim/recovery/log/spill.h \
	shim/recovery/log/bufpool.h \
	shim/recovery/log/logreq.h \
	shim/recovery/checkpoint/ckpt.h \
	shim/recovery/log/serve.h \
	shim/recovery/snapshot/snapshot.h
