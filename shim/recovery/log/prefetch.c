/*
 * prefetch.c - replay fetches runs of entries, not one at a time (prefetch.h).
 *
 * A restarted rank may have tens of thousands of small collectives to
 * replay; one round trip each would make recovery slow and widen the
 * window for a second failure.  Holders own runs of ENC_HOLDER_RUN
 * consecutive results, so one ENC_LOGREQ_RUN request brings up to a run
 * (bounded by ENC_LOGREQ_RUN_BYTES), kept here until replay consumes it.
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include "engine/layer.h"
#include "proto/frame.h"
#include "proto/msgs.h"
#include "recovery/log/fetch.h"
#include "recovery/log/logreq.h"
#include "recovery/log/prefetch.h"
#include "recovery/log/sigrec.h"

struct pf_entry {
    struct enc_sigrec sig;
    void *data;
};

static struct {
    uint64_t cid;        /* the communicator the entries are of */
    uint64_t from;       /* entries cover [from, from + n) */
    size_t n;
    struct pf_entry e[ENC_HOLDER_RUN];
} pf;

void enc_prefetch_clear(void)
{
    for (size_t i = 0; i < pf.n; i++)
        free(pf.e[i].data);
    pf.n = 0;
}

static enc_status_t read_entry(int fd, uint64_t seq, uint64_t deadline, bool *end)
{
    uint8_t wire[ENC_SIGREC_WIRE];
    struct pf_entry *x = &pf.e[pf.n];
    struct enc_frame_hdr h;
    enc_status_t rv;

    if ((rv = enc_log_wait(fd, deadline)) != ENC_OK ||
        (rv = enc_frame_recv(fd, &h, wire, sizeof(wire), deadline)) != ENC_OK)
        return rv;
    if (h.type == ENC_MSG_LOG_MISSING && h.seq == seq) {
        *end = true;
        return ENC_OK;
    }
    if (h.type != ENC_MSG_LOG_RESULT || h.seq != seq || h.len != ENC_SIGREC_WIRE ||
        enc_sigrec_decode(&x->sig, wire) != ENC_OK || pf.n == ENC_HOLDER_RUN)
        return ENC_ERR_PROTO;
    if ((x->data = malloc(x->sig.len ? x->sig.len : 1)) == NULL)
        return ENC_ERR_NOMEM;
    if ((rv = enc_log_read_data(fd, seq, x->data, x->sig.len, deadline)) != ENC_OK) {
        free(x->data);
        return rv;
    }
    pf.n++;
    return ENC_OK;
}

static enc_status_t fetch_run(int peer, uint64_t cid, uint64_t seq)
{
    uint64_t deadline = enc_deadline_ms(enc_engine_coll_timeout_ms());
    struct enc_logreq q = {.what = ENC_LOGREQ_RUN, .seq = seq, .rank = ENC_HOLDER_RUN,
                           .cid = cid};
    struct enc_frame_hdr h = {.type = ENC_MSG_LOG_REQ, .src = (uint16_t)enc_engine_rank(),
                              .epoch = enc_engine_epoch(), .seq = seq, .len = ENC_LOGREQ_WIRE};
    uint8_t req[ENC_LOGREQ_WIRE];
    enc_status_t rv;
    bool end = false;
    int fd;

    enc_logreq_encode(&q, req);
    if ((rv = enc_log_conn(peer, &fd)) != ENC_OK ||
        (rv = enc_frame_send(fd, &h, req, deadline)) != ENC_OK)
        goto fail;
    while (!end && (rv = read_entry(fd, seq + pf.n, deadline, &end)) == ENC_OK)
        ;
    if (rv == ENC_OK)
        return pf.n > 0 ? ENC_OK : ENC_ERR_LOST;
fail:
    enc_log_conn_close(peer);
    return rv == ENC_ERR_EPOCH ? rv : ENC_ERR_PEER_RESET;
}

static enc_status_t fill(const struct enc_log_ask *a, uint64_t seq)
{
    int peers[ENC_MAX_RANKS], n = enc_log_candidates(a, seq, peers);

    enc_prefetch_clear();
    pf.cid = a->comm.cid;
    pf.from = seq;
    for (int i = 0; i < n; i++) {
        enc_status_t rv = fetch_run(peers[i], pf.cid, seq);

        if (rv == ENC_OK)
            return ENC_OK;
        enc_prefetch_clear(); /* a half-read run is dropped */
        if (rv == ENC_ERR_EPOCH)
            return rv;
    }
    return ENC_ERR_LOST;
}

enc_status_t enc_prefetch_get(const struct enc_log_ask *a, uint64_t seq,
                              const struct enc_sigrec **sig, const void **data)
{
    enc_status_t rv;

    if ((a->comm.cid != pf.cid || seq < pf.from || seq >= pf.from + pf.n) &&
        (rv = fill(a, seq)) != ENC_OK)
        return rv;
    *sig = &pf.e[seq - pf.from].sig;
    *data = pf.e[seq - pf.from].data;
    return ENC_OK;
}
