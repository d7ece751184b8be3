/*
 * serve.c - survivors answer log requests from replaying ranks.
 *
 * A replaying rank opens a log-service connection (role ENC_ROLE_LOG) and
 * sends LOG_REQ for one sequence number at a time; the survivor answers,
 * from inside whatever collective it is waiting in, with LOG_RESULT (the
 * logged signature) followed by the result as DATA frames, or LOG_MISSING.
 */
#include "enc.h"

#include <string.h>

#include "engine/layer.h"
#include "proto/frame.h"
#include "proto/wire.h"
#include "recovery/checkpoint/ckpt.h"
#include "recovery/log/logreq.h"
#include "recovery/log/log.h"
#include "recovery/recovery.h"
#include "recovery/log/serve.h"

int enc_serve_pollfds(void *arg, struct pollfd *p, int cap)
{
    int n = 0;

    (void)arg;
    for (int i = 0; i < enc_engine_size() && n < cap; i++)
        if (enc_log_served_fd(i) >= 0)
            p[n++] = (struct pollfd){.fd = enc_log_served_fd(i), .events = POLLIN};
    return n;
}

static enc_status_t send_result(int fd, uint64_t seq, const struct enc_sigrec *sig, const uint8_t *data,
                       uint64_t deadline)
{
    struct enc_frame_hdr h = {.type = ENC_MSG_LOG_RESULT, .src = (uint16_t)enc_engine_rank(),
                              .epoch = enc_engine_epoch(), .seq = seq, .len = ENC_SIGREC_WIRE};
    uint8_t wire[ENC_SIGREC_WIRE];
    enc_status_t rv;

    enc_sigrec_encode(sig, wire);
    if ((rv = enc_frame_send(fd, &h, wire, deadline)) != ENC_OK)
        return rv;
    for (uint64_t off = 0; off < sig->len;) {
        uint64_t n = ENC_MIN(sig->len - off, (uint64_t)ENC_DATA_MAX_PAYLOAD);

        h.type = ENC_MSG_DATA;
        h.len = n;
        if ((rv = enc_frame_send(fd, &h, data + off, deadline)) != ENC_OK)
            return rv;
        off += n;
    }
    return ENC_OK;
}

/* A bootstrap entry answers only the same call: site, occurrence and
 * arguments.  Anything less falls back to the lookup by sequence number,
 * where a difference is reported as a replay divergence. */
static bool key_match(const struct enc_logreq *q, const struct enc_sigrec *s)
{
    return s->bootstrap && s->occ == q->occ && s->site_off == q->site_off &&
           strcmp(s->site_mod, q->site_mod) == 0 && q->kind == s->kind &&
           q->root == s->root && q->count == s->count && q->dtype == s->dtype &&
           q->op == s->op;
}

/* The replica q asks for from the checkpoint this rank is still inside.
 * A rank that asks for version v saw a survivor commit v, so every rank
 * finished phase one of v: our replicas of v are final even though we have
 * not committed v yet (we are about to, replaying the barrier from that
 * survivor's log after a regroup). */
static bool taken_replica(const struct enc_logreq *q, const void **data, size_t *len)
{
    const struct enc_ckpt *t = enc_rec.taking;

    if (t == NULL || !t->replicas_in || t->version != q->version)
        return false;
    return (*data = enc_ckpt_replica(t, (int)q->rank, len)) != NULL;
}

/* Finds what q asks for; ENC_ERR_NOT_FOUND when this rank does not have it. */
static enc_status_t lookup(const struct enc_logreq *q, struct enc_sigrec *sig,
                           const void **data, size_t *len)
{
    const struct enc_ckpt *c = &enc_rec.committed;
    enc_status_t rv;

    switch (q->what) {
    case ENC_LOGREQ_SEQ:
        return enc_reclog_find(q->seq, sig, data, len);
    case ENC_LOGREQ_COMM:
        return enc_commlog_find(q->site_off, q->seq, sig, data, len);
    case ENC_LOGREQ_COMM_POS:
        *data = NULL;
        *len = 0;
        return enc_commlog_position(q->site_off, q->version, sig);
    case ENC_LOGREQ_BOOTSTRAP:
        /* in order (the usual case), then anywhere in the bootstrap cache */
        rv = enc_reclog_find(q->seq, sig, data, len);
        if (rv == ENC_OK && key_match(q, sig))
            return ENC_OK;
        rv = enc_reclog_find_bootstrap(q->site_mod, q->site_off, q->occ, sig, data, len);
        return rv == ENC_OK && key_match(q, sig) ? ENC_OK : ENC_ERR_NOT_FOUND;
    default:
        break;
    }
    memset(sig, 0, sizeof(*sig));
    sig->kind = ENC_COLL_CHECKPOINT;
    sig->count = c->version;
    sig->site_off = c->seq_after;
    *data = NULL;
    *len = 0;
    if (q->what == ENC_LOGREQ_CKPT_INFO)
        return ENC_OK;
    if (q->what == ENC_LOGREQ_CKPT_LOCAL && taken_replica(q, data, len)) {
        sig->len = *len;
        return ENC_OK;
    }
    if (q->version != c->version || c->version == 0)
        return ENC_ERR_NOT_FOUND;
    if (q->what == ENC_LOGREQ_CKPT_GLOBAL) {
        *data = c->global;
        *len = c->glen;
    } else if ((*data = enc_ckpt_replica(c, (int)q->rank, len)) == NULL) {
        return ENC_ERR_NOT_FOUND;
    }
    sig->len = *len;
    return ENC_OK;
}

/* A run of consecutive results, ended by LOG_MISSING for the first one not
 * sent (absent here, or over the count or byte budget). */
static enc_status_t serve_run(int fd, const struct enc_logreq *q, uint64_t deadline)
{
    struct enc_frame_hdr m = {.type = ENC_MSG_LOG_MISSING, .src = (uint16_t)enc_engine_rank(),
                              .epoch = enc_engine_epoch()};
    uint64_t s = q->seq, bytes = 0;
    struct enc_sigrec sig;
    const void *data;
    size_t len;
    enc_status_t rv;

    for (uint32_t i = 0; i < q->rank && bytes < ENC_LOGREQ_RUN_BYTES; i++, s++) {
        if (enc_reclog_find(s, &sig, &data, &len) != ENC_OK)
            break;
        if ((rv = send_result(fd, s, &sig, data, deadline)) != ENC_OK)
            return rv;
        bytes += len;
    }
    m.seq = s;
    return enc_frame_send(fd, &m, NULL, deadline);
}

/* LOG_MISSING, saying which results this rank dropped when q's is one. */
static enc_status_t send_missing(int fd, const struct enc_logreq *q, uint64_t seq,
                                 uint64_t deadline)
{
    struct enc_frame_hdr m = {.type = ENC_MSG_LOG_MISSING, .src = (uint16_t)enc_engine_rank(),
                              .epoch = enc_engine_epoch(), .seq = seq};
    uint8_t p[ENC_LOGREQ_DROP_WIRE];
    uint64_t first, last;
    struct enc_wbuf w;

    if ((q->what == ENC_LOGREQ_SEQ || q->what == ENC_LOGREQ_BOOTSTRAP) &&
        enc_reclog_dropped(q->seq, &first, &last)) {
        enc_w_init(&w, p, sizeof(p));
        enc_w_u64(&w, first);
        enc_w_u64(&w, last);
        m.len = sizeof(p);
    }
    return enc_frame_send(fd, &m, p, deadline);
}

static enc_status_t serve_one(int fd)
{
    uint64_t deadline = enc_deadline_ms(enc_engine_coll_timeout_ms());
    uint8_t payload[ENC_LOGREQ_WIRE];
    struct enc_frame_hdr h;
    struct enc_logreq q;
    struct enc_sigrec sig;
    const void *data;
    size_t len;
    enc_status_t rv;

    if ((rv = enc_frame_recv(fd, &h, payload, sizeof(payload), deadline)) != ENC_OK)
        return rv;
    if (h.type != ENC_MSG_LOG_REQ || enc_logreq_decode(&q, payload, h.len) != ENC_OK) {
        ENC_WARN("serve", "malformed request (frame type %u) on a log-service connection",
                 h.type);
        return ENC_ERR_PROTO;
    }
    if (q.what == ENC_LOGREQ_RUN)
        return serve_run(fd, &q, deadline);
    if (lookup(&q, &sig, &data, &len) != ENC_OK)
        return send_missing(fd, &q, h.seq, deadline);
    return send_result(fd, h.seq, &sig, data, deadline);
}

enc_status_t enc_serve_ready(void *arg, const struct pollfd *p, int n)
{
    (void)arg;
    for (int i = 0; i < n; i++) {
        if (!p[i].revents)
            continue;
        for (int r = 0; r < enc_engine_size(); r++) {
            if (enc_log_served_fd(r) != p[i].fd)
                continue;
            if (serve_one(p[i].fd) != ENC_OK)
                enc_log_served_close(r); /* the requester retries elsewhere */
            break;
        }
    }
    return ENC_OK;
}
