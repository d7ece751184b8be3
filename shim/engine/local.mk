# shim/engine
