# shim/proto
noinst_HEADERS += shim/proto/wire.h shim/proto/frame.h shim/proto/auth.h shim/proto/msgs.h
libenccore_la_SOURCES += shim/proto/wire.c
