# shim/core: status codes, logging, tunables, clocks, limits, whole reads
# and writes, a process's memory, its threads and the thread pools it may run.
libenccore_la_SOURCES += \
	shim/core/status.c \
	shim/core/log.c \
	shim/core/clock.c \
	shim/core/parse.c \
	shim/core/limits.c \
	shim/core/tmpdir.c \
	shim/core/fullio.c \
	shim/core/coldcopy.c \
	shim/core/procmem.c \
	shim/core/threads.c \
	shim/core/thread_pools.c \
	shim/core/tunables.c \
	shim/core/vec.c
noinst_HEADERS += \
	shim/core/status.h \
	shim/core/log.h \
	shim/core/clock.h \
	shim/core/parse.h \
	shim/core/limits.h \
	shim/core/tmpdir.h \
	shim/core/fullio.h \
	shim/core/coldcopy.h \
	shim/core/procmem.h \
	shim/core/threads.h \
	shim/core/thread_pools.h \
	shim/core/tunables.h \
	shim/core/vec.h
EXTRA_DIST += shim/core/tunables.def
