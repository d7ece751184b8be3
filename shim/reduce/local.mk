# shim/reduce
noinst_HEADERS += shim/reduce/reduce.h
noinst_HEADERS += shim/reduce/elem.h
libenccore_la_SOURCES += \
	shim/reduce/kernels.c \
	shim/reduce/types.c
