# shim/recovery: result log, replay, log service, recovery handshake, checkpoints.
libencore_la_SOURCES += \
	shim/recovery/reclog.c \
	shim/recovery/sigrec.c \
	shim/recovery/serve.c \
	shim/recovery/replay.c \
	shim/recovery/recover.c \
	shim/recovery/checkpoint.c
noinst_HEADERS += \
	shim/recovery/recovery.h \
	shim/recovery/reclog.h \
	shim/recovery/serve.h
