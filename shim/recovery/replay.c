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
#include "engine/layer.h"
#include "proto/msgs.h"
#include "recovery/log/logreq.h"
#include "recovery/log/log.h"
#include "recovery/recovery.h"

static void diverged(const struct enc_sigrec *mine, const struct enc_sigrec *logged)
{
    char a[200], b[200], msg[512];

    enc_sigrec_format(mine, a, sizeof(a));
    enc_sigrec_format(logged, b, sizeof(b));
    snprintf(msg, sizeof(msg), "replay divergence at seq %llu on rank %d: this call is %s; "
             "the log has %s", (unsigned long long)enc_engine_seq(), enc_engine_rank(), a, b);
    ENC_ERROR("replay", "%s", msg);
    enc_engine_abort(1, msg);
}


#define ENC_PREFETCH_MAX_BYTES ((size_t)64 << 10)

/* The usual case: the entry came with a prefetched run and is this very
 * call.  Any doubt goes to the exact lookups below. */
static enc_status_t from_prefetch(struct enc_coll *co, uint8_t *dst, struct enc_sigrec *logged)
{
    const struct enc_sitekey *k = &enc_rec.cur;
    int root = co->sig->kind == ENC_COLL_BCAST ? co->root : -1;
    const struct enc_sigrec *s;
    const void *data;
    struct enc_sigrec mine;
    enc_status_t rv;

    if ((rv = enc_prefetch_get(co->ctx.seq, root, &s, &data)) != ENC_OK)
        return rv == ENC_ERR_EPOCH ? rv : ENC_ERR_LOST;
    enc_sigrec_from_coll(&mine, co, k, co->bytes);
    if (!enc_sigrec_same_call(&mine, s))
        return ENC_ERR_LOST;
    *logged = *s;
    if (s->len > 0)
        memcpy(dst, data, s->len);
    return ENC_OK;
}

/* Asks the survivors by sequence number, checking the logged signature.
 * Ranks of one collective may call it from different call sites (an MPI
 * program branches on its rank), so the sequence number is what names it.
 * Only when that finds no matching call, and this rank is in its
 * bootstrap phase (it may make those collectives in another order), by
 * call site and occurrence. */
static enc_status_t fetch_result(struct enc_coll *co, uint8_t *dst, struct enc_sigrec *logged)
{
    const struct enc_sitekey *k = &enc_rec.cur;
    int root = co->sig->kind == ENC_COLL_BCAST ? co->root : -1;
    struct enc_logreq q = {.what = ENC_LOGREQ_SEQ, .seq = co->ctx.seq,
                           .site_off = k->off, .occ = k->occ,
                           .kind = (uint8_t)enc_coll_what(co->sig), .root = co->sig->root,
                           .count = co->sig->count, .dtype = co->sig->dtype,
                           .op = co->sig->op};
    struct enc_sigrec mine;
    enc_status_t rv, by_site;

    snprintf(q.site_mod, sizeof(q.site_mod), "%s", k->mod);
    /* large results go straight into the caller's buffer instead */
    if (co->bytes < ENC_PREFETCH_MAX_BYTES && (rv = from_prefetch(co, dst, logged)) != ENC_ERR_LOST)
        return rv;
    rv = enc_log_fetch_any(&q, root, logged, dst, co->bytes);
    enc_sigrec_from_coll(&mine, co, k, co->bytes);
    if (!k->bootstrap || (rv == ENC_OK && enc_sigrec_same_call(&mine, logged)) ||
        (rv != ENC_OK && rv != ENC_ERR_LOST && rv != ENC_ERR_DIVERGED))
        return rv;
    q.what = ENC_LOGREQ_BOOTSTRAP;
    by_site = enc_log_fetch_any(&q, root, logged, dst, co->bytes);
    return by_site == ENC_ERR_LOST ? rv : by_site;
}

static uint8_t *gather_buf(size_t bytes)
{
    static uint8_t *buf;
    static size_t cap;

    if (buf != NULL && bytes <= cap)
        return buf;
    free(buf);
    cap = 0;
    if ((buf = malloc(bytes ? bytes : 1)) == NULL) {
        ENC_ERROR("replay", "cannot allocate %zu bytes for an allgatherv result", bytes);
        return NULL;
    }
    cap = bytes;
    return buf;
}

static enc_status_t lost(uint64_t seq)
{
    const struct enc_log_drop *d = &enc_rec.drop;

    if (d->known && seq >= d->first && seq <= d->last)
        ENC_ERROR("replay", "result of collective seq %llu is lost: rank %d dropped results "
                  "%llu..%llu from its log (log memory ENCORE_LOG_MEM_MAX and spill budget "
                  "ENCORE_SPILL_MAX full), and no other rank holds it; call encore_checkpoint, "
                  "raise ENCORE_SPILL_MAX, or set ENCORE_SPILL_DIR to a larger disk",
                  (unsigned long long)seq, d->rank, (unsigned long long)d->first,
                  (unsigned long long)d->last);
    else
        ENC_ERROR("replay", "result of collective seq %llu is lost: no surviving rank holds "
                  "it (more simultaneous failures than ENCORE_REPLICAS=%lld)",
                  (unsigned long long)seq, enc_tunable_ll(ENC_TUNE_REPLICAS));
    return ENC_ERR_LOST;
}

enc_status_t enc_replay(struct enc_coll *co)
{
    uint64_t seq = co->ctx.seq;
    struct enc_sigrec mine, logged;
    bool gather = co->sig->kind == ENC_COLL_ALLGATHERV;
    uint8_t *dst = gather ? gather_buf(co->bytes) : co->result;
    double t0 = enc_now_s();
    enc_status_t rv;

    if (gather && dst == NULL)
        return ENC_ERR_NOMEM;
    enc_sigrec_from_coll(&mine, co, &enc_rec.cur, co->bytes);
    rv = fetch_result(co, dst, &logged);
    if (rv == ENC_ERR_DIVERGED || (rv == ENC_OK && !enc_sigrec_same_call(&mine, &logged)))
        diverged(&mine, &logged);
    if (rv == ENC_ERR_LOST)
        return lost(seq);
    if (rv != ENC_OK)
        return rv;
    if (gather)
        enc_coll_result_unpack(co, dst);
    enc_rec.replayed++;
    enc_rec.replayed_bytes += co->bytes;
    enc_rec.replay_s += enc_now_s() - t0;
    if (seq + 1 == enc_rec.replay_until) {
        enc_prefetch_clear();
        ENC_INFO("replay", "caught up with the survivors at seq %llu: %llu collectives, "
                 "%llu bytes replayed in %.6f s",
                 (unsigned long long)enc_rec.replay_until, (unsigned long long)enc_rec.replayed,
                 (unsigned long long)enc_rec.replayed_bytes, enc_rec.replay_s);
    }
    return ENC_OK;
}
