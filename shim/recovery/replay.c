/*
 * replay.c - a rank that is behind is answered from the survivors' log.
 *
 * For each collective below the survivors' progress, ask the ranks that
 * completed it (holders first), check the logged signature against this
 * call's (a different collective or different arguments is a replay
 * divergence: the job stops with both signatures, never with wrong data),
 * and deliver the result into the caller's buffers.
 */
#include "enc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/coll.h"
#include "engine/scratch.h"
#include "engine/state.h"
#include "recovery/logreq.h"
#include "recovery/reclog.h"
#include "recovery/recovery.h"

static int read_data(int fd, uint64_t seq, uint8_t *dst, uint64_t len, uint64_t deadline)
{
    for (uint64_t off = 0; off < len;) {
        uint8_t raw[ENC_FRAME_HDR_SIZE];
        struct enc_frame_hdr h;
        int rv;

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

int enc_log_fetch(int peer, const struct enc_logreq *q, struct enc_sigrec *sig, uint8_t *dst,
                  uint64_t expect, void **alloc)
{
    uint64_t deadline = enc_deadline_ms(enc_eng.coll_timeout_ms);
    uint64_t seq = q->seq;
    struct enc_frame_hdr h = {.type = ENC_MSG_LOG_REQ, .src = (uint16_t)enc_eng.rank,
                              .epoch = enc_eng.epoch, .seq = seq, .len = ENC_LOGREQ_WIRE};
    uint8_t wire[ENC_SIGREC_WIRE], req[ENC_LOGREQ_WIRE];
    int fd, rv;

    if (alloc != NULL)
        *alloc = NULL;
    enc_logreq_encode(q, req);
    if ((rv = enc_log_conn(peer, &fd)) != ENC_OK ||
        (rv = enc_frame_send(fd, &h, req, deadline)) != ENC_OK ||
        (rv = enc_frame_recv(fd, &h, wire, sizeof(wire), deadline)) != ENC_OK)
        goto fail;
    if (h.type == ENC_MSG_LOG_MISSING && h.seq == seq)
        return ENC_ERR_LOST;
    if (h.type != ENC_MSG_LOG_RESULT || h.seq != seq || h.len != ENC_SIGREC_WIRE ||
        enc_sigrec_decode(sig, wire) != ENC_OK) {
        rv = ENC_ERR_PROTO;
        goto fail;
    }
    if (expect != ENC_LOG_ANY_LEN && sig->len != expect) {
        enc_sock_close(&enc_eng.log_fd[peer]); /* the data stays unread */
        return ENC_ERR_DIVERGED; /* reported by the caller with both signatures */
    }
    if (alloc != NULL && (dst = *alloc = malloc(sig->len ? sig->len : 1)) == NULL) {
        rv = ENC_ERR_NOMEM;
        goto fail;
    }
    if ((rv = read_data(fd, seq, dst, sig->len, deadline)) != ENC_OK)
        goto fail;
    return ENC_OK;
fail:
    if (alloc != NULL) {
        free(*alloc);
        *alloc = NULL;
    }
    enc_sock_close(&enc_eng.log_fd[peer]);
    ENC_DEBUG("replay", "fetching seq %llu from rank %d failed: %s", (unsigned long long)seq,
              peer, encore_strerror(rv));
    return ENC_ERR_PEER_RESET;
}

static int same_call(const struct enc_sigrec *a, const struct enc_sigrec *b)
{
    return a->kind == b->kind && a->count == b->count && a->dtype == b->dtype &&
           a->op == b->op && a->root == b->root && a->len == b->len;
}

static void diverged(const struct enc_sigrec *mine, const struct enc_sigrec *logged)
{
    char a[200], b[200], msg[512];

    enc_sigrec_format(mine, a, sizeof(a));
    enc_sigrec_format(logged, b, sizeof(b));
    snprintf(msg, sizeof(msg), "replay divergence at seq %llu on rank %d: this call is %s; "
             "the log has %s", (unsigned long long)enc_eng.seq, enc_eng.rank, a, b);
    ENC_ERROR("replay", "%s", msg);
    enc_engine_abort(1, msg);
}

/* Order of candidates: holders first, then anyone who completed seq. */
static int try_peers(const struct enc_logreq *q, int root, struct enc_sigrec *sig,
                     uint8_t *dst, uint64_t len)
{
    uint64_t seq = q->seq;
    /* a bootstrap entry may sit at any seq the peer completed */
    uint64_t need = q->what == ENC_LOGREQ_BOOTSTRAP ? 0 : seq;
    int rv, unreachable = 0;

    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < enc_eng.size; i++) {
            int peer = (int)((seq + (uint64_t)i) % (uint64_t)enc_eng.size);

            if (root >= 0)
                peer = (root + i) % enc_eng.size;
            if (peer == enc_eng.rank || enc_eng.peer_completed[peer] <= need ||
                enc_reclog_is_holder(seq, root, peer) != (pass == 0))
                continue;
            rv = enc_log_fetch(peer, q, sig, dst, len, NULL);
            if (rv == ENC_ERR_PEER_RESET)
                unreachable++; /* that rank may be dying or in recovery itself */
            else if (rv != ENC_ERR_LOST)
                return rv;
        }
    }
    /* "Lost" only when every candidate answered: an unreachable one means a
     * new failure, and the caller recovers and asks again in the new epoch. */
    return unreachable ? ENC_ERR_PEER_RESET : ENC_ERR_LOST;
}

static void deliver_allgatherv(struct enc_coll *co, const uint8_t *packed)
{
    for (int i = 0; i < enc_eng.size; i++) {
        memcpy((uint8_t *)co->recvbuf + co->displs[i], packed, co->recvbytes[i]);
        packed += co->recvbytes[i];
    }
}

/* Asks the survivors: by call site and occurrence first while this rank is
 * in its bootstrap phase (it may make those collectives in another order),
 * then by sequence number, checking the logged signature. */
static int fetch_result(struct enc_coll *co, uint8_t *dst, struct enc_sigrec *logged)
{
    int root = co->sig->kind == ENC_COLL_BCAST ? co->root : -1;
    struct enc_logreq q = {.what = ENC_LOGREQ_BOOTSTRAP, .seq = co->ctx.seq,
                           .site_off = co->site_off, .occ = co->occ,
                           .kind = co->sig->kind, .root = co->sig->root,
                           .count = co->sig->count, .dtype = co->sig->dtype,
                           .op = co->sig->op};
    int rv;

    snprintf(q.site_mod, sizeof(q.site_mod), "%s", co->site_mod);
    if (co->bootstrap) {
        rv = try_peers(&q, root, logged, dst, co->bytes);
        if (rv != ENC_ERR_LOST)
            return rv;
    }
    q.what = ENC_LOGREQ_SEQ;
    return try_peers(&q, root, logged, dst, co->bytes);
}

int enc_replay(struct enc_coll *co)
{
    uint64_t seq = co->ctx.seq;
    struct enc_sigrec mine, logged;
    int gather = co->sig->kind == ENC_COLL_ALLGATHERV;
    uint8_t *dst = gather ? enc_scratch_get(ENC_SCRATCH_ALGO, co->bytes) : co->result;
    double t0 = enc_now_s();
    int rv;

    if (gather && dst == NULL)
        return ENC_ERR_NOMEM;
    enc_sigrec_from_coll(&mine, co, co->bytes);
    rv = fetch_result(co, dst, &logged);
    if (rv == ENC_ERR_DIVERGED || (rv == ENC_OK && !same_call(&mine, &logged)))
        diverged(&mine, &logged);
    if (rv == ENC_ERR_LOST) {
        ENC_ERROR("replay", "result of collective seq %llu is lost: every rank that held it "
                  "died (more simultaneous failures than ENCORE_REPLICAS=%lld)",
                  (unsigned long long)seq, enc_tunable_ll(ENC_TUNE_REPLICAS));
        return ENC_ERR_LOST;
    }
    if (rv != ENC_OK)
        return rv;
    if (gather)
        deliver_allgatherv(co, dst);
    enc_eng.replayed++;
    enc_eng.replayed_bytes += co->bytes;
    enc_eng.replay_s += enc_now_s() - t0;
    if (seq + 1 == enc_eng.replay_until)
        ENC_INFO("replay", "caught up with the survivors at seq %llu: %llu collectives, "
                 "%llu bytes replayed in %.6f s",
                 (unsigned long long)enc_eng.replay_until, (unsigned long long)enc_eng.replayed,
                 (unsigned long long)enc_eng.replayed_bytes, enc_eng.replay_s);
    return ENC_OK;
}
