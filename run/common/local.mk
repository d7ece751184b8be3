# run/common: code the programs share (encore-run, encore-agent): starting
# ranks, their output, the job directory, signals, and the protocol between
# encore-run and its agents.
noinst_LTLIBRARIES += libencrun.la
noinst_HEADERS += run/common/proc.h run/common/agent_proto.h run/common/parking.h
libencrun_la_SOURCES = \
	run/common/spawn.c \
	run/common/tag_output.c \
	run/common/jobdir.c \
	run/common/signals.c \
	run/common/agent_proto.c \
	run/common/parking.c
libencrun_la_CPPFLAGS = $(RUN_CPPFLAGS)
libencrun_la_CFLAGS = $(AM_CFLAGS) $(HWLOC_CFLAGS)
libencrun_la_LIBADD = libenccore.la
