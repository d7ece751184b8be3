/*
 * serve.h - the log service (serve.c): answering other ranks' requests
 * inside the engine's progress loop (recovery's pollfds and serve ops).
 */
#ifndef ENC_RECOVERY_LOG_SERVE_H
#define ENC_RECOVERY_LOG_SERVE_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

struct enc_logreq;
struct enc_sigrec;
/* A module answering requests of a kind of its own (the checkpoints'):
 * ENC_OK with *sig, *data and *len, or ENC_ERR_NOT_FOUND. */
typedef enc_status_t (*enc_serve_fn)(const struct enc_logreq *q, struct enc_sigrec *sig,
                                     const void **data, size_t *len);
/* fn answers requests of kind what (enum enc_logreq_what) from now on. */
void enc_serve_answer(uint8_t what, enc_serve_fn fn);

/* Writes poll entries (at most cap) for log-service connections; returns
 * how many. */
int enc_serve_pollfds(void *arg, struct pollfd *p, int cap);
/* Serves the ready ones among the n entries written above. */
enc_status_t enc_serve_ready(void *arg, const struct pollfd *p, int n);

#endif
