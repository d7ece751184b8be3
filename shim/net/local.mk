# shim/net: TCP sockets (non-blocking, bounded waits) and address parsing.
noinst_HEADERS += shim/net/sock.h
libenccore_la_SOURCES += \
	shim/net/sock.c \
	shim/net/sockio.c \
	shim/net/hostport.c
