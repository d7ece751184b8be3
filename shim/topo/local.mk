# shim/topo
noinst_HEADERS += shim/topo/topo.h
libenccore_la_SOURCES += \
	shim/topo/locality.c \
	shim/topo/locality_order.c \
	shim/topo/tree.c \
	shim/topo/bind.c
