/*
 * fetch.h - the asking side of the log service (fetch.c): one request and
 * its answer on a log-service connection, and an entry asked of the ranks
 * that may hold it, in turn.
 */
#ifndef ENC_RECOVERY_LOG_FETCH_H
#define ENC_RECOVERY_LOG_FETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"
#include "recovery/log/holders.h"

struct enc_logreq;
struct enc_sigrec;

#define ENC_LOG_ANY_LEN UINT64_MAX
/* Asks peer for q.  The answer's data (expect bytes, or any length with
 * ENC_LOG_ANY_LEN) lands in dst, or in a new malloc'd buffer stored in
 * *alloc when alloc is not NULL.  ENC_ERR_NOT_FOUND when the peer has not
 * completed it, ENC_ERR_LOST when it did and has it no more, ENC_ERR_DIVERGED
 * when the length differs (*sig says what the peer has), ENC_ERR_EPOCH, or
 * ENC_ERR_PEER_RESET when it could not answer. */
enc_status_t enc_log_fetch(int peer, const struct enc_logreq *q, struct enc_sigrec *sig,
                           uint8_t *dst, uint64_t expect, void **alloc);
/* q from the candidates of a (holders.h) in turn, into dst (len bytes):
 * ENC_OK, ENC_ERR_DIVERGED, ENC_ERR_EPOCH; ENC_ERR_PEER_RESET when one
 * was unreachable; ENC_ERR_LOST when one completed it and none has it;
 * ENC_ERR_NOT_FOUND when none completed it (or there was nobody to ask). */
enc_status_t enc_log_fetch_any(const struct enc_log_ask *a, const struct enc_logreq *q,
                               struct enc_sigrec *sig, uint8_t *dst, uint64_t len);
/* Waits until fd is readable, or ENC_ERR_EPOCH when the tracker announces
 * a new epoch meanwhile. */
enc_status_t enc_log_wait(int fd, uint64_t deadline);
/* Reads len bytes of DATA frames for request seq. */
enc_status_t enc_log_read_data(int fd, uint64_t seq, uint8_t *dst, uint64_t len,
                               uint64_t deadline);
/* The last answer that a peer dropped what was asked (memory cap and
 * spill budget full): who, and which entries of which communicator. */
struct enc_log_drop {
    bool known;
    int rank;
    uint64_t cid, first, last;
};
const struct enc_log_drop *enc_log_last_drop(void);

#endif
