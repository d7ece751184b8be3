/*
 * serve.h - answering log requests from replaying ranks inside the
 * engine's progress loop (private to libencore).
 */
#ifndef ENC_RECOVERY_SERVE_H
#define ENC_RECOVERY_SERVE_H

#include <poll.h>

/* Appends poll entries for log-service connections; returns the new count. */
int enc_serve_add_pollfds(struct pollfd *p, int n);
/* Serves the ready ones among the n entries added above. */
int enc_serve_handle_pollfds(const struct pollfd *p, int n);

#endif
