# tests/fuzz: one fuzz target per decoder of untrusted bytes (see
# tests/fuzz/README.md).  Each target builds twice:
#  * here, with the normal compiler and a plain main() (driver.c), so that
#    `make check` replays every checked-in corpus and regression input;
#  * by `make fuzz`, with clang and libFuzzer (tests/fuzz/fuzz.sh), run for
#    FUZZ_SECONDS each.
# A target is its fuzz_<name>.c plus what its _SOURCES adds; fuzz.sh takes
# the same lists, so adding a target is: the file, three lines below, one
# line in FUZZ_TARGETS.
FUZZ_TARGETS = frame msgs wire auth_server auth_client hostport inject secret tunables \
	log logreq sigrec tracker hostfile agent det match p2p_hdr
fuzz_main = tests/fuzz/driver.c tests/fuzz/fuzz_common.c
fuzz_cflags = $(AM_CFLAGS)
noinst_HEADERS += tests/fuzz/fuzz.h

check_PROGRAMS += tests/fuzz/fuzz_frame tests/fuzz/fuzz_msgs tests/fuzz/fuzz_wire \
	tests/fuzz/fuzz_auth_server tests/fuzz/fuzz_auth_client tests/fuzz/fuzz_hostport \
	tests/fuzz/fuzz_inject tests/fuzz/fuzz_secret tests/fuzz/fuzz_tunables \
	tests/fuzz/fuzz_log tests/fuzz/fuzz_logreq tests/fuzz/fuzz_sigrec tests/fuzz/fuzz_tracker \
	tests/fuzz/fuzz_hostfile tests/fuzz/fuzz_agent tests/fuzz/fuzz_det \
	tests/fuzz/fuzz_match tests/fuzz/fuzz_p2p_hdr
tests_fuzz_fuzz_frame_SOURCES = tests/fuzz/fuzz_frame.c $(fuzz_main)
tests_fuzz_fuzz_frame_CFLAGS = $(fuzz_cflags)
tests_fuzz_fuzz_frame_LDADD = libenccore.la
tests_fuzz_fuzz_msgs_SOURCES = tests/fuzz/fuzz_msgs.c $(fuzz_main)
tests_fuzz_fuzz_msgs_CFLAGS = $(fuzz_cflags)
tests_fuzz_fuzz_msgs_LDADD = libenccore.la
tests_fuzz_fuzz_wire_SOURCES = tests/fuzz/fuzz_wire.c $(fuzz_main)
tests_fuzz_fuzz_wire_CFLAGS = $(fuzz_cflags)
tests_fuzz_fuzz_wire_LDADD = libenccore.la
tests_fuzz_fuzz_auth_server_SOURCES = tests/fuzz/fuzz_auth_server.c $(fuzz_main)
tests_fuzz_fuzz_auth_server_CFLAGS = $(fuzz_cflags)
tests_fuzz_fuzz_auth_server_LDADD = libenccore.la
tests_fuzz_fuzz_auth_client_SOURCES = tests/fuzz/fuzz_auth_client.c $(fuzz_main)
tests_fuzz_fuzz_auth_client_CFLAGS = $(fuzz_cflags)
tests_fuzz_fuzz_auth_client_LDADD = libenccore.la
tests_fuzz_fuzz_hostport_SOURCES = tests/fuzz/fuzz_hostport.c $(fuzz_main)
tests_fuzz_fuzz_hostport_CFLAGS = $(fuzz_cflags)
tests_fuzz_fuzz_hostport_LDADD = libenccore.la
tests_fuzz_fuzz_inject_SOURCES = tests/fuzz/fuzz_inject.c run/launcher/inject_plan.c \
	shim/engine/inject.c $(fuzz_main)
tests_fuzz_fuzz_inject_CFLAGS = $(fuzz_cflags)
tests_fuzz_fuzz_inject_CPPFLAGS = $(RUN_CPPFLAGS)
tests_fuzz_fuzz_inject_LDADD = libenccore.la
tests_fuzz_fuzz_secret_SOURCES = tests/fuzz/fuzz_secret.c $(fuzz_main)
tests_fuzz_fuzz_secret_CFLAGS = $(fuzz_cflags)
tests_fuzz_fuzz_secret_LDADD = libenccore.la
tests_fuzz_fuzz_tunables_SOURCES = tests/fuzz/fuzz_tunables.c $(fuzz_main)
tests_fuzz_fuzz_tunables_CFLAGS = $(fuzz_cflags)
tests_fuzz_fuzz_tunables_LDADD = libenccore.la
tests_fuzz_fuzz_log_SOURCES = tests/fuzz/fuzz_log.c $(fuzz_main)
tests_fuzz_fuzz_log_CFLAGS = $(fuzz_cflags)
tests_fuzz_fuzz_log_LDADD = libenccore.la
tests_fuzz_fuzz_logreq_SOURCES = tests/fuzz/fuzz_logreq.c shim/recovery/log/logreq.c $(fuzz_main)
tests_fuzz_fuzz_logreq_CFLAGS = $(fuzz_cflags)
tests_fuzz_fuzz_logreq_LDADD = libenccore.la
tests_fuzz_fuzz_sigrec_SOURCES = tests/fuzz/fuzz_sigrec.c shim/recovery/log/sigrec.c \
	shim/recovery/log/sitemod.c \
	shim/recovery/log/bootstrap.c $(fuzz_main)
tests_fuzz_fuzz_sigrec_CFLAGS = $(fuzz_cflags)
tests_fuzz_fuzz_sigrec_LDADD = libenccore.la
tests_fuzz_fuzz_tracker_SOURCES = tests/fuzz/fuzz_tracker.c $(fuzz_main)
tests_fuzz_fuzz_tracker_CFLAGS = $(fuzz_cflags)
tests_fuzz_fuzz_tracker_CPPFLAGS = $(RUN_CPPFLAGS)
tests_fuzz_fuzz_tracker_LDADD = libenctracker.la libenccore.la
tests_fuzz_fuzz_hostfile_SOURCES = tests/fuzz/fuzz_hostfile.c run/launcher/placement.c \
	run/launcher/slurm.c $(fuzz_main)
tests_fuzz_fuzz_hostfile_CFLAGS = $(fuzz_cflags) $(HWLOC_CFLAGS)
tests_fuzz_fuzz_hostfile_CPPFLAGS = $(RUN_CPPFLAGS)
tests_fuzz_fuzz_hostfile_LDADD = libenccore.la $(HWLOC_LIBS)
tests_fuzz_fuzz_agent_SOURCES = tests/fuzz/fuzz_agent.c run/common/agent_proto.c $(fuzz_main)
tests_fuzz_fuzz_agent_CFLAGS = $(fuzz_cflags)
tests_fuzz_fuzz_agent_CPPFLAGS = $(RUN_CPPFLAGS)
tests_fuzz_fuzz_agent_LDADD = libenccore.la
tests_fuzz_fuzz_det_SOURCES = tests/fuzz/fuzz_det.c shim/p2p/chanseq.c $(fuzz_main)
tests_fuzz_fuzz_det_CFLAGS = $(fuzz_cflags)
tests_fuzz_fuzz_det_LDADD = libenccore.la
tests_fuzz_fuzz_match_SOURCES = tests/fuzz/fuzz_match.c shim/p2p/match.c shim/p2p/chanseq.c \
	$(fuzz_main)
tests_fuzz_fuzz_match_CFLAGS = $(fuzz_cflags)
tests_fuzz_fuzz_match_LDADD = libenccore.la
tests_fuzz_fuzz_p2p_hdr_SOURCES = tests/fuzz/fuzz_p2p_hdr.c shim/p2p/wire.c $(fuzz_main)
tests_fuzz_fuzz_p2p_hdr_CFLAGS = $(fuzz_cflags)
tests_fuzz_fuzz_p2p_hdr_LDADD = libenccore.la

# make check: every target over its corpus and regression inputs.
TESTS += tests/fuzz/replay.sh
EXTRA_DIST += tests/fuzz/replay.sh tests/fuzz/fuzz.sh tests/fuzz/README.md \
	tests/fuzz/corpus tests/fuzz/regressions


# make fuzz: libFuzzer builds (clang, ASan + UBSan) run FUZZ_SECONDS each.
FUZZ_SECONDS = 60
fuzz_sh = FUZZ_CC='$(FUZZ_CC)' FUZZ_CPPFLAGS='$(DEFS) $(RUN_CPPFLAGS) $(CPPFLAGS)' \
	FUZZ_LIBS='$(HWLOC_LIBS) $(CRYPTO_LIBS) $(DL_LIBS) -lm' srcdir='$(srcdir)' \
	FUZZ_SECONDS='$(FUZZ_SECONDS)' $(SHELL) $(srcdir)/tests/fuzz/fuzz.sh
fuzz-build:
	@$(fuzz_sh) lib core $(libenccore_la_SOURCES)
	@$(fuzz_sh) lib tracker $(libenctracker_la_SOURCES)
	@$(fuzz_sh) target frame $(tests_fuzz_fuzz_frame_SOURCES)
	@$(fuzz_sh) target msgs $(tests_fuzz_fuzz_msgs_SOURCES)
	@$(fuzz_sh) target wire $(tests_fuzz_fuzz_wire_SOURCES)
	@$(fuzz_sh) target auth_server $(tests_fuzz_fuzz_auth_server_SOURCES)
	@$(fuzz_sh) target auth_client $(tests_fuzz_fuzz_auth_client_SOURCES)
	@$(fuzz_sh) target hostport $(tests_fuzz_fuzz_hostport_SOURCES)
	@$(fuzz_sh) target inject $(tests_fuzz_fuzz_inject_SOURCES)
	@$(fuzz_sh) target secret $(tests_fuzz_fuzz_secret_SOURCES)
	@$(fuzz_sh) target tunables $(tests_fuzz_fuzz_tunables_SOURCES)
	@$(fuzz_sh) target log $(tests_fuzz_fuzz_log_SOURCES)
	@$(fuzz_sh) target logreq $(tests_fuzz_fuzz_logreq_SOURCES)
	@$(fuzz_sh) target sigrec $(tests_fuzz_fuzz_sigrec_SOURCES)
	@$(fuzz_sh) target tracker $(tests_fuzz_fuzz_tracker_SOURCES)
	@$(fuzz_sh) target hostfile $(tests_fuzz_fuzz_hostfile_SOURCES)
	@$(fuzz_sh) target agent $(tests_fuzz_fuzz_agent_SOURCES)
	@$(fuzz_sh) target det $(tests_fuzz_fuzz_det_SOURCES)
	@$(fuzz_sh) target match $(tests_fuzz_fuzz_match_SOURCES)
	@$(fuzz_sh) target p2p_hdr $(tests_fuzz_fuzz_p2p_hdr_SOURCES)
fuzz: fuzz-build
	@$(fuzz_sh) run $(FUZZ_TARGETS)
# Rewrites tests/fuzz/corpus/<target>/ from each target's fuzz_seeds().
fuzz-seeds: $(check_PROGRAMS)
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(srcdir)/tests/fuzz/corpus/$$t && \
	  tests/fuzz/fuzz_$$t --seeds $(srcdir)/tests/fuzz/corpus/$$t || exit 1; \
	done
.PHONY: fuzz fuzz-build fuzz-seeds
