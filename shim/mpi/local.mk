# shim/mpi
libencore_la_SOURCES += shim/mpi/placeholder.c
