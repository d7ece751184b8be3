# shim/topo
noinst_HEADERS += shim/topo/topo.h
