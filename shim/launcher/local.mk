# shim/launcher
encore_run_SOURCES += shim/launcher/main.c
