/*
 * serve.h - answering log requests from replaying ranks inside the
 * engine's progress loop (recovery's pollfds and serve ops).
 */
#ifndef ENC_RECOVERY_SERVE_H
#define ENC_RECOVERY_SERVE_H

#include <poll.h>

#include "core/status.h"

/* Writes poll entries (at most cap) for log-service connections; returns
 * how many. */
int enc_serve_pollfds(void *arg, struct pollfd *p, int cap);
/* Serves the ready ones among the n entries written above. */
enc_status_t enc_serve_ready(void *arg, const struct pollfd *p, int n);

#endif
