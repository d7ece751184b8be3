/*
 * fetch.c - the asking side of the log service (fetch.h).
 */
#include "enc.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "engine/layer.h"
#include "net/sock.h"
#include "proto/frame.h"
#include "proto/wire.h"
#include "recovery/log/fetch.h"
#include "recovery/log/log.h"
#include "recovery/log/logreq.h"

static struct enc_log_drop last_drop;

const struct enc_log_drop *enc_log_last_drop(void) { return &last_drop; }

/* Waits for the answer on fd, watching the tracker too: a peer that
 * learnt of a new death stops serving and waits for the new epoch, and so
 * must we (ENC_ERR_EPOCH), or each would wait for the other.  Meanwhile
 * this rank answers requests itself: members of a communicator that is
 * uncertain after a failure ask each other at the same time. */
enc_status_t enc_log_wait(int fd, uint64_t deadline)
{
    return enc_engine_wait_readable(fd, deadline);
}

enc_status_t enc_log_read_data(int fd, uint64_t seq, uint8_t *dst, uint64_t len,
                               uint64_t deadline)
{
    for (uint64_t off = 0; off < len;) {
        uint8_t raw[ENC_FRAME_HDR_SIZE];
        struct enc_frame_hdr h;
        enc_status_t rv;

        if ((rv = enc_sock_read_all(fd, raw, sizeof(raw), deadline)) != ENC_OK ||
            (rv = enc_frame_decode(raw, &h)) != ENC_OK)
            return rv;
        if (h.type != ENC_MSG_DATA || h.seq != seq || h.len > len - off || h.len == 0)
            return ENC_ERR_PROTO;
        if ((rv = enc_sock_read_all(fd, dst + off, h.len, deadline)) != ENC_OK)
            return rv;
        off += h.len;
    }
    return ENC_OK;
}

/* A LOG_MISSING payload: why the peer has no answer. */
static enc_status_t missing(int peer, const struct enc_logreq *q, const uint8_t *p,
                            uint64_t len)
{
    struct enc_rbuf r;
    uint8_t why = ENC_LOG_RELEASED;
    uint64_t first = 0, last = 0;

    enc_r_init(&r, p, len);
    enc_r_u8(&r, &why);
    enc_r_u64(&r, &first);
    enc_r_u64(&r, &last);
    if (r.err || len != ENC_LOG_MISSING_WIRE)
        return ENC_ERR_LOST;
    if (why == ENC_LOG_DROPPED && first <= last)
        last_drop = (struct enc_log_drop){.known = true, .rank = peer, .cid = q->cid,
                                          .first = first, .last = last};
    return why == ENC_LOG_NOT_YET ? ENC_ERR_NOT_FOUND : ENC_ERR_LOST;
}

enc_status_t enc_log_fetch(int peer, const struct enc_logreq *q, struct enc_sigrec *sig,
                           uint8_t *dst, uint64_t expect, void **alloc)
{
    uint64_t deadline = enc_deadline_ms(enc_engine_coll_timeout_ms());
    uint64_t seq = q->seq;
    struct enc_frame_hdr h = {.type = ENC_MSG_LOG_REQ, .src = (uint16_t)enc_engine_rank(),
                              .epoch = enc_engine_epoch(), .seq = seq, .len = ENC_LOGREQ_WIRE};
    uint8_t wire[ENC_SIGREC_WIRE], req[ENC_LOGREQ_WIRE];
    enc_status_t rv;
    int fd;

    if (alloc != NULL)
        *alloc = NULL;
    enc_logreq_encode(q, req);
    if ((rv = enc_log_conn(peer, &fd)) != ENC_OK ||
        (rv = enc_frame_send(fd, &h, req, deadline)) != ENC_OK ||
        (rv = enc_log_wait(fd, deadline)) != ENC_OK ||
        (rv = enc_frame_recv(fd, &h, wire, sizeof(wire), deadline)) != ENC_OK)
        goto fail;
    if (h.type == ENC_MSG_LOG_MISSING && h.seq == seq)
        return missing(peer, q, wire, h.len);
    if (h.type != ENC_MSG_LOG_RESULT || h.seq != seq || h.len != ENC_SIGREC_WIRE ||
        enc_sigrec_decode(sig, wire) != ENC_OK) {
        rv = ENC_ERR_PROTO;
        goto fail;
    }
    if (expect != ENC_LOG_ANY_LEN && sig->len != expect) {
        enc_log_conn_close(peer); /* the data stays unread */
        return ENC_ERR_DIVERGED; /* reported by the caller with both signatures */
    }
    if (alloc != NULL && (dst = *alloc = malloc(sig->len ? sig->len : 1)) == NULL) {
        rv = ENC_ERR_NOMEM;
        goto fail;
    }
    if ((rv = enc_log_read_data(fd, seq, dst, sig->len, deadline)) != ENC_OK)
        goto fail;
    return ENC_OK;
fail:
    if (alloc != NULL) {
        free(*alloc);
        *alloc = NULL;
    }
    enc_log_conn_close(peer);
    ENC_DEBUG("replay", "fetching seq %llu from rank %d failed: %s", (unsigned long long)seq,
              peer, encore_strerror(rv));
    return rv == ENC_ERR_EPOCH ? rv : ENC_ERR_PEER_RESET;
}

/* Asks each candidate in turn; "lost" only when every one answered: an
 * unreachable one means a new failure, and the caller recovers and asks
 * again in the new epoch. */
enc_status_t enc_log_fetch_any(const struct enc_log_ask *a, const struct enc_logreq *q,
                               struct enc_sigrec *sig, uint8_t *dst, uint64_t len)
{
    int peers[ENC_MAX_RANKS], n = enc_log_candidates(a, q->seq, peers);
    int unreachable = 0, released = 0;
    enc_status_t rv;

    for (int i = 0; i < n; i++) {
        rv = enc_log_fetch(peers[i], q, sig, dst, len, NULL);
        if (rv == ENC_ERR_PEER_RESET)
            unreachable++; /* that rank may be dying or in recovery itself */
        else if (rv == ENC_ERR_LOST)
            released++;
        else if (rv != ENC_ERR_NOT_FOUND)
            return rv; /* ENC_OK, a divergence, or a new epoch: recover first */
    }
    if (unreachable)
        return ENC_ERR_PEER_RESET;
    return released ? ENC_ERR_LOST : ENC_ERR_NOT_FOUND;
}
