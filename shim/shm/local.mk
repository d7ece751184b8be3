# shim/shm: the shared-memory segment of the ranks of one host (made by
# encore-run or the agent, mapped by the ranks).
noinst_HEADERS += shim/shm/shm.h
libenccore_la_SOURCES += \
	shim/shm/segment.c \
	shim/shm/host_segment.c \
	shim/shm/flags.c \
	shim/shm/channels.c \
	shim/shm/cma.c \
	shim/shm/resbuf.c
