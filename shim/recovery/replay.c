/*
 * replay.c - a rank that is behind is answered from the survivors' log
 * (replay.h), on the world and on every other communicator alike.
 *
 * For each collective it must not run again, ask the ranks that may hold
 * its entry (holders first), check the logged signature against this
 * call's (a different collective or different arguments is a replay
 * divergence: the job stops with both signatures, never with wrong data),
 * and deliver the result into the caller's buffers.  On the world, the
 * survivors' progress says which collectives are behind; on another
 * communicator, uncertain after a failure, whether any member completed
 * the next one decides (engine/group_coll.c).
 */
#include "enc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/coll.h"
#include "engine/layer.h"
#include "recovery/log/fetch.h"
#include "recovery/log/holders.h"
#include "recovery/log/logreq.h"
#include "recovery/log/prefetch.h"
#include "recovery/ops.h"
#include "recovery/replay.h"

#define ENC_PREFETCH_MAX_BYTES ((size_t)64 << 10)

/* One collective being answered from the log. */
struct replay {
    struct enc_coll *co;
    uint64_t cid, seq;       /* its entry */
    struct enc_log_ask ask;  /* whom to ask */
    struct enc_sigrec mine, logged;
    uint8_t *dst;            /* where the entry lands */
};

/* "seq 41" on the world, "#7 on communicator 00ab... (rank 1 of 2)" elsewhere. */
static void name_of(const struct replay *r, char *out, size_t cap)
{
    if (r->cid == 0)
        snprintf(out, cap, "seq %llu", (unsigned long long)r->seq);
    else
        snprintf(out, cap, "#%llu on communicator %016llx (rank %d of %d)",
                 (unsigned long long)r->seq, (unsigned long long)r->cid, r->co->me, r->co->n);
}

static void diverged(const struct replay *r)
{
    char a[200], b[200], at[96], msg[600];

    enc_sigrec_format(&r->mine, a, sizeof(a));
    enc_sigrec_format(&r->logged, b, sizeof(b));
    name_of(r, at, sizeof(at));
    snprintf(msg, sizeof(msg), "replay divergence at %s on rank %d: this call is %s; the log "
             "has %s", at, enc_engine_rank(), a, b);
    ENC_ERROR("replay", "%s", msg);
    enc_engine_abort(1, msg);
}

static enc_status_t lost(const struct replay *r)
{
    const struct enc_log_drop *d = enc_log_last_drop();
    char what[96];

    name_of(r, what, sizeof(what));
    if (d->known && d->cid == r->cid && r->seq >= d->first && r->seq <= d->last)
        ENC_ERROR("replay", "%sresult of collective %s is lost: rank %d dropped results "
                  "%llu..%llu from its log (log memory ENCORE_LOG_MEM_MAX and spill budget "
                  "ENCORE_SPILL_MAX full), and no other rank holds it; call encore_checkpoint, "
                  "raise ENCORE_SPILL_MAX, or set ENCORE_SPILL_DIR to a larger disk",
                  r->cid ? "the " : "", what, d->rank, (unsigned long long)d->first,
                  (unsigned long long)d->last);
    else
        ENC_ERROR("replay", "%sresult of collective %s is lost: no surviving rank holds it "
                  "(more simultaneous failures than ENCORE_REPLICAS=%lld)", r->cid ? "the " : "",
                  what, enc_tunable_ll(ENC_TUNE_REPLICAS));
    return ENC_ERR_LOST;
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

static enc_status_t begin(struct replay *r, struct enc_coll *co, uint64_t cid, uint64_t seq)
{
    bool gather = co->sig->kind == ENC_COLL_ALLGATHERV;

    memset(r, 0, sizeof(*r));
    r->co = co;
    r->cid = cid;
    r->seq = seq;
    r->ask = (struct enc_log_ask){.comm = enc_log_comm_of(co, cid), .me = co->me,
                                  .root = enc_log_root(co)};
    enc_sigrec_from_coll(&r->mine, co, &enc_rec.cur, co->bytes);
    if (!gather) {
        r->dst = co->result; /* NULL for a barrier */
        return ENC_OK;
    }
    return (r->dst = gather_buf(co->bytes)) != NULL ? ENC_OK : ENC_ERR_NOMEM;
}

/* The answer, checked and delivered (rv: how fetching it went). */
static enc_status_t deliver(struct replay *r, enc_status_t rv)
{
    if (rv == ENC_ERR_DIVERGED || (rv == ENC_OK && !enc_sigrec_same_call(&r->mine, &r->logged)))
        diverged(r);
    if (rv == ENC_ERR_LOST)
        return lost(r);
    if (rv != ENC_OK)
        return rv;
    if (r->co->sig->kind == ENC_COLL_ALLGATHERV)
        enc_coll_result_unpack(r->co, r->dst);
    enc_rec.replayed++;
    enc_rec.replayed_bytes += r->co->bytes;
    return ENC_OK;
}

/* ---- the world ---- */

/* The usual case: the entry came with a prefetched run and is this very
 * call.  Any doubt goes to the exact lookups below. */
static enc_status_t from_prefetch(struct replay *r)
{
    const struct enc_sigrec *s;
    const void *data;
    enc_status_t rv;

    if ((rv = enc_prefetch_get(&r->ask, r->seq, &s, &data)) != ENC_OK)
        return rv == ENC_ERR_EPOCH ? rv : ENC_ERR_LOST;
    if (!enc_sigrec_same_call(&r->mine, s))
        return ENC_ERR_LOST;
    r->logged = *s;
    if (s->len > 0)
        memcpy(r->dst, data, s->len);
    return ENC_OK;
}

/* Asks the survivors by sequence number.  Ranks of one collective may call
 * it from different call sites (an MPI program branches on its rank), so
 * the sequence number is what names it.  Only when that finds no matching
 * call, and this rank is in its bootstrap phase (it may make those
 * collectives in another order), by call site and occurrence. */
static enc_status_t fetch_world(struct replay *r)
{
    const struct enc_sitekey *k = &enc_rec.cur;
    const struct enc_callsig *sig = r->co->sig;
    struct enc_logreq q = {.what = ENC_LOGREQ_SEQ, .seq = r->seq, .site_off = k->off,
                           .occ = k->occ, .kind = (uint8_t)enc_coll_what(sig),
                           .root = sig->root, .count = sig->count, .dtype = sig->dtype,
                           .op = sig->op};
    enc_status_t rv, by_site;

    snprintf(q.site_mod, sizeof(q.site_mod), "%s", k->mod);
    /* large results go straight into the caller's buffer instead */
    if (r->co->bytes < ENC_PREFETCH_MAX_BYTES && (rv = from_prefetch(r)) != ENC_ERR_LOST)
        return rv;
    rv = enc_log_fetch_any(&r->ask, &q, &r->logged, r->dst, r->co->bytes);
    if (rv == ENC_ERR_NOT_FOUND)
        rv = ENC_ERR_LOST; /* every one asked completed it */
    if (!k->bootstrap || (rv == ENC_OK && enc_sigrec_same_call(&r->mine, &r->logged)) ||
        (rv != ENC_OK && rv != ENC_ERR_LOST && rv != ENC_ERR_DIVERGED))
        return rv;
    q.what = ENC_LOGREQ_BOOTSTRAP;
    r->ask.need = 0; /* a bootstrap entry may sit at any seq the peer completed */
    by_site = enc_log_fetch_any(&r->ask, &q, &r->logged, r->dst, r->co->bytes);
    return by_site == ENC_ERR_LOST || by_site == ENC_ERR_NOT_FOUND ? rv : by_site;
}

enc_status_t enc_replay(struct enc_coll *co)
{
    double t0 = enc_now_s();
    struct replay r;
    enc_status_t rv;

    if ((rv = begin(&r, co, 0, co->ctx.seq)) != ENC_OK)
        return rv;
    r.ask.completed = enc_rec.peer_completed; /* those that completed it */
    r.ask.need = r.seq;
    if ((rv = deliver(&r, fetch_world(&r))) != ENC_OK)
        return rv;
    enc_rec.replay_s += enc_now_s() - t0;
    if (r.seq + 1 == enc_rec.replay_until) {
        enc_prefetch_clear();
        ENC_INFO("replay", "caught up with the survivors at seq %llu: %llu collectives, "
                 "%llu bytes replayed in %.6f s",
                 (unsigned long long)enc_rec.replay_until, (unsigned long long)enc_rec.replayed,
                 (unsigned long long)enc_rec.replayed_bytes, enc_rec.replay_s);
    }
    return ENC_OK;
}

/* ---- other communicators ---- */

enc_status_t enc_replay_comm(void *arg, struct enc_coll *co, uint64_t cid, uint64_t seq)
{
    struct enc_logreq q = {.what = ENC_LOGREQ_SEQ, .seq = seq, .cid = cid};
    struct replay r;
    enc_status_t rv;

    (void)arg;
    if ((rv = begin(&r, co, cid, seq)) != ENC_OK)
        return rv;
    rv = enc_log_fetch_any(&r.ask, &q, &r.logged, r.dst, co->bytes);
    if (rv == ENC_ERR_NOT_FOUND)
        return rv; /* no member completed it: everyone runs it live */
    return deliver(&r, rv);
}
