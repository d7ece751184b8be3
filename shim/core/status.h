/*
 * status.h - the one status type of encore, after UCX's ucs_status_t.
 *
 * Every internal function that can fail returns an enc_status_t: ENC_OK (0)
 * on success, ENC_INPROGRESS (positive) when an operation has started but
 * not finished and must be called or polled again, and a negative code for
 * an error.  The negative codes are the public ENCORE_ERR_* values, so a
 * status crosses the public API unchanged; -100..-199 is the reserved range
 * for peer and link failures (ENC_IS_PEER_FAILURE), so recovery can tell
 * "a peer died" from "a bug".  encore_strerror() names every value.
 */
#ifndef ENC_CORE_STATUS_H
#define ENC_CORE_STATUS_H

#include "encore.h"

typedef enum enc_status {
    ENC_OK = ENCORE_OK,
    ENC_INPROGRESS = 1, /* started, not finished: poll or call again */

    ENC_ERR_INVAL = ENCORE_ERR_INVAL,
    ENC_ERR_NOMEM = ENCORE_ERR_NOMEM,
    ENC_ERR_PROTO = ENCORE_ERR_PROTO,
    ENC_ERR_AUTH = ENCORE_ERR_AUTH,
    ENC_ERR_TIMEOUT = ENCORE_ERR_TIMEOUT,
    ENC_ERR_UNSUPPORTED = ENCORE_ERR_UNSUPPORTED,
    ENC_ERR_MISMATCH = ENCORE_ERR_MISMATCH,
    ENC_ERR_SYS = ENCORE_ERR_SYS,
    ENC_ERR_DIVERGED = ENCORE_ERR_DIVERGED,
    ENC_ERR_LOST = ENCORE_ERR_LOST,
    ENC_ERR_ABORTED = ENCORE_ERR_ABORTED,
    ENC_ERR_STATE = ENCORE_ERR_STATE,
    /* a lookup found nothing (a missing key, an absent entry); not a fault */
    ENC_ERR_NOT_FOUND = -13,

    ENC_ERR_PEER_CLOSED = ENCORE_ERR_PEER_CLOSED,
    ENC_ERR_PEER_RESET = ENCORE_ERR_PEER_RESET,
    ENC_ERR_EPOCH = ENCORE_ERR_EPOCH,
} enc_status_t;

#define ENC_IS_PEER_FAILURE(rv) ENCORE_IS_PEER_FAILURE(rv)
#define ENC_IS_ERR(rv) ((rv) < 0)

#endif
