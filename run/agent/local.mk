# run/agent: encore-agent, one per host of a multi-host job (started by
# encore-run through --rsh or srun).
bin_PROGRAMS += encore-agent
encore_agent_SOURCES = run/agent/encore_agent.c run/agent/images.c
encore_agent_CPPFLAGS = $(RUN_CPPFLAGS)
encore_agent_CFLAGS = $(AM_CFLAGS) $(HWLOC_CFLAGS)
encore_agent_LDADD = libencrun.la libenccore.la
noinst_HEADERS += run/agent/images.h
