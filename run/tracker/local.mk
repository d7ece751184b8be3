# run/tracker: the tracker (rendezvous) server as libenctracker, shared by
# encore-run (embedded) and the standalone encore-tracker.
noinst_HEADERS += run/tracker/tracker.h run/tracker/tracker_int.h
libenctracker_la_SOURCES += \
	run/tracker/conn.c \
	run/tracker/rendezvous.c \
	run/tracker/det_copy.c \
	run/tracker/world_announce.c \
	run/tracker/topo_log.c \
	run/tracker/tracker.c \
	run/tracker/summary.c
encore_tracker_SOURCES += run/tracker/encore_tracker.c
