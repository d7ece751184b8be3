/*
 * serve.c - ranks answer log requests from other ranks (serve.h).
 *
 * A rank that replays, or fetches again what its snapshot left out, opens
 * a log-service connection (role ENC_ROLE_LOG) and sends LOG_REQ for one
 * entry (or a run) at a time; the peer answers, from inside whatever
 * collective it is waiting in, with LOG_RESULT (the logged signature)
 * followed by the entry as DATA frames, or LOG_MISSING saying why it has
 * none.  Requests of other kinds go to the module registered for them.
 */
#include "enc.h"

#include <string.h>

#include "engine/layer.h"
#include "proto/frame.h"
#include "proto/wire.h"
#include "recovery/log/log.h"
#include "recovery/log/logreq.h"
#include "recovery/log/serve.h"

static enc_serve_fn answerers[ENC_LOGREQ_KINDS];

void enc_serve_answer(uint8_t what, enc_serve_fn fn)
{
    if (what < ENC_LOGREQ_KINDS)
        answerers[what] = fn;
}

int enc_serve_pollfds(void *arg, struct pollfd *p, int cap)
{
    int n = 0;

    (void)arg;
    for (int i = 0; i < enc_engine_size() && n < cap; i++)
        if (enc_log_served_fd(i) >= 0)
            p[n++] = (struct pollfd){.fd = enc_log_served_fd(i), .events = POLLIN};
    return n;
}

static enc_status_t send_result(int fd, uint64_t seq, const struct enc_sigrec *sig,
                                const uint8_t *data, uint64_t deadline)
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
           strcmp(enc_sitemod_name(s->site_mod), q->site_mod) == 0 && q->kind == s->kind &&
           q->root == s->root && q->count == s->count && q->dtype == s->dtype &&
           q->op == s->op;
}

/* Finds what q asks for; ENC_ERR_NOT_FOUND when this rank does not have it. */
static enc_status_t lookup(const struct enc_logreq *q, struct enc_sigrec *sig,
                           const void **data, size_t *len)
{
    enc_status_t rv;

    switch (q->what) {
    case ENC_LOGREQ_SEQ:
        return enc_log_find(q->cid, q->seq, sig, data, len);
    case ENC_LOGREQ_BOOTSTRAP:
        /* in order (the usual case), then anywhere in the bootstrap cache */
        rv = enc_log_find(0, q->seq, sig, data, len);
        if (rv == ENC_OK && key_match(q, sig))
            return ENC_OK;
        rv = enc_log_find_bootstrap(q->site_mod, q->site_off, q->occ, sig, data, len);
        return rv == ENC_OK && key_match(q, sig) ? ENC_OK : ENC_ERR_NOT_FOUND;
    default:
        *data = NULL;
        *len = 0;
        return answerers[q->what] != NULL ? answerers[q->what](q, sig, data, len)
                                          : ENC_ERR_NOT_FOUND;
    }
}

/* LOG_MISSING for the answer to request seq, saying why. */
static enc_status_t send_missing(int fd, const struct enc_logreq *q, uint64_t seq,
                                 uint64_t deadline)
{
    struct enc_frame_hdr m = {.type = ENC_MSG_LOG_MISSING, .src = (uint16_t)enc_engine_rank(),
                              .epoch = enc_engine_epoch(), .seq = seq,
                              .len = ENC_LOG_MISSING_WIRE};
    uint8_t p[ENC_LOG_MISSING_WIRE];
    uint64_t first = 0, last = 0;
    enum enc_log_absence why = ENC_LOG_RELEASED; /* what other kinds say */
    struct enc_wbuf w;

    if (q->what == ENC_LOGREQ_SEQ || q->what == ENC_LOGREQ_BOOTSTRAP ||
        q->what == ENC_LOGREQ_RUN)
        why = enc_log_absence(q->what == ENC_LOGREQ_BOOTSTRAP ? 0 : q->cid, q->seq, &first,
                              &last);
    enc_w_init(&w, p, sizeof(p));
    enc_w_u8(&w, (uint8_t)why);
    enc_w_u64(&w, first);
    enc_w_u64(&w, last);
    return enc_frame_send(fd, &m, p, deadline);
}

/* A run of consecutive entries, ended by LOG_MISSING for the first one not
 * sent (absent here, or over the count or byte budget). */
static enc_status_t serve_run(int fd, const struct enc_logreq *q, uint64_t deadline)
{
    struct enc_logreq next = *q;
    uint64_t bytes = 0;
    struct enc_sigrec sig;
    const void *data;
    size_t len;
    enc_status_t rv;

    for (uint32_t i = 0; i < q->rank && bytes < ENC_LOGREQ_RUN_BYTES; i++, next.seq++) {
        if (enc_log_find(q->cid, next.seq, &sig, &data, &len) != ENC_OK)
            break;
        if ((rv = send_result(fd, next.seq, &sig, data, deadline)) != ENC_OK)
            return rv;
        bytes += len;
    }
    return send_missing(fd, &next, next.seq, deadline);
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
