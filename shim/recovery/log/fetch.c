/*
 * logclient.c - the replaying side of the log service: which survivors to
 * ask, and one request/answer exchange on a log-service connection.
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
#include "recovery/log/logreq.h"
#include "recovery/log/log.h"
#include "recovery/recovery.h"
#include "recovery/log/serve.h"

/* Waits for the answer on fd, watching the tracker too: a survivor that
 * learnt of a new death stops serving and waits for the new epoch, and so
 * must we (ENC_ERR_EPOCH), or each would wait for the other.  Meanwhile
 * this rank answers requests itself: members of a communicator that is
 * uncertain after a failure ask each other at the same time. */
enc_status_t enc_log_wait(int fd, uint64_t deadline)
{
    return enc_engine_wait_readable(fd, deadline);
}

int enc_log_candidates(uint64_t seq, int root, uint64_t need, int *peers)
{
    /* walk from the first holder, so the nearest copies are asked first */
    int first = root >= 0 ? root : (int)((seq / ENC_HOLDER_RUN) % (uint64_t)enc_engine_size());
    int n = 0;

    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < enc_engine_size(); i++) {
            int peer = (first + i) % enc_engine_size();

            if (peer == enc_engine_rank() || enc_rec.peer_completed[peer] <= need ||
                enc_reclog_is_holder(seq, root, peer) != (pass == 0))
                continue;
            peers[n++] = peer;
        }
    }
    return n;
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

/* A LOG_MISSING payload: the peer dropped the result we asked for. */
static void note_drop(int peer, const uint8_t *p, uint64_t len)
{
    struct enc_rbuf r;
    uint64_t first, last;

    if (len != ENC_LOGREQ_DROP_WIRE)
        return;
    enc_r_init(&r, p, len);
    enc_r_u64(&r, &first);
    enc_r_u64(&r, &last);
    if (!r.err && first <= last)
        enc_rec.drop = (struct enc_log_drop){.known = true, .rank = peer, .first = first,
                                             .last = last};
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
    if (h.type == ENC_MSG_LOG_MISSING && h.seq == seq) {
        note_drop(peer, wire, h.len);
        return ENC_ERR_LOST;
    }
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
enc_status_t enc_log_fetch_any(const struct enc_logreq *q, int root, struct enc_sigrec *sig,
                               uint8_t *dst, uint64_t len)
{
    /* a bootstrap entry may sit at any seq the peer completed */
    uint64_t need = q->what == ENC_LOGREQ_BOOTSTRAP ? 0 : q->seq;
    int peers[ENC_MAX_RANKS], n = enc_log_candidates(q->seq, root, need, peers);
    int unreachable = 0;
    enc_status_t rv;

    for (int i = 0; i < n; i++) {
        rv = enc_log_fetch(peers[i], q, sig, dst, len, NULL);
        if (rv == ENC_ERR_EPOCH)
            return rv; /* recover first, then ask again */
        if (rv == ENC_ERR_PEER_RESET)
            unreachable++; /* that rank may be dying or in recovery itself */
        else if (rv != ENC_ERR_LOST)
            return rv;
    }
    return unreachable ? ENC_ERR_PEER_RESET : ENC_ERR_LOST;
}
