# shim/proto: the wire format (payload codec, frames), the authentication
# handshake and the rank <-> tracker messages.
noinst_HEADERS += shim/proto/wire.h shim/proto/frame.h shim/proto/auth.h shim/proto/msgs.h \
	shim/proto/auth_int.h shim/proto/snapmsg.h shim/proto/detmsg.h
libenccore_la_SOURCES += \
	shim/proto/wire.c \
	shim/proto/frame.c \
	shim/proto/frame_io.c \
	shim/proto/frame_reader.c \
	shim/proto/secret.c \
	shim/proto/auth.c \
	shim/proto/auth_server.c \
	shim/proto/msgs.c \
	shim/proto/snapmsg.c \
	shim/proto/detmsg.c
