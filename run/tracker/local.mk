# shim/tracker: the tracker (rendezvous) in libenctracker, the standalone
# encore-tracker, and the rank-side tracker client (in libenccore, because
# libencore.so links it).
noinst_HEADERS += shim/tracker/tracker.h shim/tracker/trk.h shim/tracker/client.h
libenctracker_la_SOURCES += \
	shim/tracker/conn.c \
	shim/tracker/rendezvous.c \
	shim/tracker/world.c \
	shim/tracker/tracker.c \
	shim/tracker/summary.c
libenccore_la_SOURCES += shim/tracker/client.c
encore_tracker_SOURCES += shim/tracker/main.c
