/*
 * tclient.h - a rank's control connection to the tracker (libencore).
 *
 * enc_tclient_open() connects, authenticates (ENC_ROLE_CONTROL), sends
 * REGISTER and starts a background thread that owns reading and sends a
 * HEARTBEAT every ENCORE_HEARTBEAT_MS.  Frames from the tracker (EVENT,
 * WORLD, RESUME) are queued; the event fd is readable while the queue is
 * not empty, so the engine can poll it next to its links.  Writes from the
 * caller's thread are serialised with the heartbeats by a mutex.
 *
 * Losing the tracker is unrecoverable: the thread logs one ERROR ("tracker
 * lost: ...") and _exit(ENC_EXIT_TRACKER_LOST)s the process, unless the
 * rank already sent FINALIZE or closed the client.
 */
#ifndef ENC_TRACKER_CLIENT_TCLIENT_H
#define ENC_TRACKER_CLIENT_TCLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"
#include "proto/auth.h"
#include "proto/msgs.h"

#define ENC_EXIT_TRACKER_LOST 70

struct enc_tclient;

struct enc_tclient_event {
    enum enc_msg_type type; /* ENC_MSG_EVENT, ENC_MSG_WORLD, ENC_MSG_RESUME */
    union {
        struct enc_msg_event ev;
        struct enc_msg_world world;
        struct enc_msg_resume resume;
    } u;
};

/* Connects, authenticates, registers, starts the thread; bounded by deadline. */
enc_status_t enc_tclient_open(struct enc_tclient **out, const char *tracker_hostport,
                     const struct enc_secret *s, const struct enc_msg_register *reg,
                     uint64_t deadline);
/* eventfd, readable while events are queued. */
int enc_tclient_event_fd(const struct enc_tclient *c);
/* The next queued event, without waiting.  ENC_OK: got one (the caller
 * frees world/resume with enc_msg_*_free); ENC_INPROGRESS: none yet (poll
 * the event fd); negative: the connection is lost (only when exit-on-lost
 * is off). */
enc_status_t enc_tclient_poll_event(struct enc_tclient *c, struct enc_tclient_event *ev);
/* Blocking enc_tclient_poll_event: ENC_OK, ENC_ERR_TIMEOUT at the deadline,
 * or another negative status when the connection is lost. */
enc_status_t enc_tclient_wait_event(struct enc_tclient *c, struct enc_tclient_event *ev,
                                    uint64_t deadline);
/* Collectives completed so far: the content of the next heartbeats. */
void enc_tclient_set_progress(struct enc_tclient *c, uint64_t completed);
enc_status_t enc_tclient_send_status(struct enc_tclient *c, const struct enc_msg_status *m);
enc_status_t enc_tclient_send_abort(struct enc_tclient *c, const struct enc_msg_abort *m);
/* DROPPED: results first..last are gone from this rank's log. */
enc_status_t enc_tclient_send_dropped(struct enc_tclient *c, const struct enc_msg_dropped *m);
/* The rank recorded its first determinant (an outcome only its host keeps). */
enc_status_t enc_tclient_send_nondet(struct enc_tclient *c);
/* Determinant replication (proto/detmsg.h, docs/p2p.md 5.3).  Whether
 * the tracker runs on this rank's host (both ends of the connection have
 * one address): then its host's loss ends the job anyway. */
bool enc_tclient_tracker_local(const struct enc_tclient *c);
/* Sends n bytes of the determinant file from offset off (whole records),
 * tagged with the store's version (DET_PUT, in chunks). */
enc_status_t enc_tclient_det_put(struct enc_tclient *c, uint64_t version, uint64_t off,
                                 const void *bytes, size_t n);
/* Waits until encore-run acked version: ENC_OK, ENC_ERR_TIMEOUT at the
 * deadline, ENC_ERR_LOST when the connection is gone. */
enc_status_t enc_tclient_det_wait_ack(struct enc_tclient *c, uint64_t version, uint64_t deadline);
/* The highest version acked so far. */
uint64_t enc_tclient_det_acked(struct enc_tclient *c);
/* Asks encore-run for this rank's copy (DET_GET) and waits for all of it:
 * ENC_OK with *bytes (malloc'd, the caller frees; NULL when empty) and *n,
 * or ENC_ERR_TIMEOUT / ENC_ERR_LOST. */
enc_status_t enc_tclient_det_fetch(struct enc_tclient *c, uint64_t deadline, uint8_t **bytes,
                                   size_t *n);
/* FINALIZE frame with a stats payload; later loss of the tracker is expected. */
enc_status_t enc_tclient_send_finalize(struct enc_tclient *c, const struct enc_msg_stats *m);
/* Stops the thread and closes the connection (no FINALIZE implied). */
void enc_tclient_close(struct enc_tclient *c);

/* In a forked child (the thread does not exist there): closes the
 * connection and eventfds without locking or joining; c is then leaked. */
void enc_tclient_forget(struct enc_tclient *c);
/* Thread id (gettid) of the client's thread, 0 before it runs. */
int enc_tclient_thread_id(const struct enc_tclient *c);

/* For tests and embedders: process-wide, default true.  With false, a lost
 * tracker is reported by enc_tclient_poll_event/wait_event (negative)
 * instead of _exit. */
void enc_tclient_set_exit_on_lost(bool on);

#endif
