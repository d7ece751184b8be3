# shim/reduce
noinst_HEADERS += shim/reduce/reduce.h
