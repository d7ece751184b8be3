# shim/tracker
encore_tracker_SOURCES += shim/tracker/main.c
libenctracker_la_SOURCES += shim/tracker/placeholder.c
