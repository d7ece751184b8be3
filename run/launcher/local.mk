# run/launcher: encore-run (process lifecycle around the embedded tracker).
noinst_HEADERS += run/launcher/launcher.h
encore_run_SOURCES += \
	run/launcher/encore_run.c \
	run/launcher/args.c \
	run/launcher/binding.c \
	run/launcher/inject_plan.c \
	run/launcher/elf_links.c \
	run/launcher/preload.c \
	run/launcher/rank_env.c \
	run/launcher/restart_policy.c \
	run/launcher/stopped.c \
	run/launcher/job.c \
	run/launcher/job_loop.c \
	run/launcher/job_hooks.c \
	run/launcher/job_images.c \
	run/launcher/job_timers.c \
	run/launcher/job_summary.c \
	run/launcher/placement.c \
	run/launcher/slurm.c \
	run/launcher/remote.c \
	run/launcher/host_spawn.c
encore_run_CFLAGS = $(AM_CFLAGS) $(HWLOC_CFLAGS) -DENC_LIBDIR=\"$(libdir)\" -DENC_PKGLIBDIR=\"$(pkglibdir)\"
noinst_HEADERS += run/launcher/placement.h
noinst_HEADERS += run/launcher/remote.h
noinst_HEADERS += run/launcher/job.h
