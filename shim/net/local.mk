# shim/net
noinst_HEADERS += shim/net/sock.h
