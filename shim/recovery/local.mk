# shim/recovery
