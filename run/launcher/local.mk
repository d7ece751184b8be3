# shim/launcher: encore-run (process lifecycle around the embedded tracker).
noinst_HEADERS += shim/launcher/run.h
encore_run_SOURCES += \
	shim/launcher/main.c \
	shim/launcher/args.c \
	shim/launcher/inject.c \
	shim/launcher/elf_links.c \
	shim/launcher/preload.c \
	shim/launcher/env.c \
	shim/launcher/spawn.c \
	shim/launcher/output.c \
	shim/launcher/restart.c \
	shim/launcher/job.c
encore_run_CFLAGS = $(AM_CFLAGS) -DENC_LIBDIR=\"$(libdir)\" -DENC_PKGLIBDIR=\"$(pkglibdir)\"
