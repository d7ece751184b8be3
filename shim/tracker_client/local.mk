# shim/tracker_client: a rank's control connection to the tracker (part of
# libencore; the tracker tests and fake_rank compile it in directly).
noinst_HEADERS += shim/tracker_client/tclient.h shim/tracker_client/tclient_int.h \
	shim/tracker_client/tclient_det.h
libencore_la_SOURCES += shim/tracker_client/tclient.c shim/tracker_client/tclient_send.c \
	shim/tracker_client/tclient_det.c
