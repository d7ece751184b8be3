# run/agent: encore-agent, one per host of a multi-host job (started by
# encore-run through --rsh or srun); shares the spawn and output code of
# encore-run, and the agent protocol with it.
bin_PROGRAMS += encore-agent
noinst_HEADERS += run/agent/agent_proto.h
encore_agent_SOURCES = run/agent/encore_agent.c run/agent/agent_proto.c \
	run/launcher/spawn.c run/launcher/tag_output.c run/launcher/jobdir.c
encore_agent_CPPFLAGS = $(RUN_CPPFLAGS)
encore_agent_CFLAGS = $(AM_CFLAGS) $(HWLOC_CFLAGS)
encore_agent_LDADD = libenccore.la
encore_run_SOURCES += run/agent/agent_proto.c
