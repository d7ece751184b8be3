/*
 * rendezvous.c - the tracker's view of the job: which incarnation of each
 * rank is registered, the epoch, and when a world (WORLD, then RESUME after
 * a recovery) can be sent.  Pure bookkeeping over conn.c's connections,
 * which hand their frames up through enc_trk_rendezvous_ops.
 */
#include "enc.h"
#include "proto/frame.h"
#include "proto/msgs.h"
#include "tracker/tracker_int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static enc_status_t reject(struct trk_conn *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static enc_status_t reject(struct trk_conn *c, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(c->why, sizeof(c->why), fmt, ap);
    va_end(ap);
    return ENC_ERR_PROTO;
}

static enc_status_t check_register(struct enc_tracker *t, struct trk_conn *c,
                                   const struct enc_msg_register *m)
{
    const struct trk_rank *r;

    if (m->size != (uint32_t)t->cfg.size)
        return reject(c, "REGISTER for a job of %u ranks, this job has %d", m->size,
                      t->cfg.size);
    if (m->rank >= m->size)
        return reject(c, "REGISTER with rank %u of %u", m->rank, m->size);
    if (m->rank != c->id.rank || m->incarnation != c->id.incarnation)
        return reject(c, "REGISTER as rank %u incarnation %u, authenticated as %u/%u",
                      m->rank, m->incarnation, c->id.rank, c->id.incarnation);
    r = &t->ranks[m->rank];
    if (r->finalized)
        return reject(c, "rank %u already passed MPI_Finalize", m->rank);
    if (m->incarnation < r->min_inc)
        return reject(c, "stale incarnation %u of rank %u (fenced; current %u)",
                      m->incarnation, m->rank, r->min_inc);
    if (r->conn != NULL && m->incarnation == r->incarnation)
        return reject(c, "rank %u incarnation %u is already registered", m->rank,
                      m->incarnation);
    if (t->aborted)
        return reject(c, "the job is aborting");
    return ENC_OK;
}

/* Drops the rank's connection (conn.c knows nothing of ranks). */
static void detach(struct enc_tracker *t, struct trk_rank *r)
{
    struct trk_conn *c = r->conn;

    r->conn = NULL;
    enc_trk_conn_drop(t, c);
}

static enc_status_t on_register(struct enc_tracker *t, struct trk_conn *c, const void *p,
                                size_t len)
{
    struct enc_msg_register m;
    struct trk_rank *r;
    char why[64];
    enc_status_t rv;

    if (enc_msg_register_decode(&m, p, len) != ENC_OK)
        return reject(c, "malformed REGISTER");
    if ((rv = check_register(t, c, &m)) != ENC_OK)
        return rv;
    r = &t->ranks[m.rank];
    if (r->conn != NULL) { /* a newer incarnation fences the old one */
        snprintf(why, sizeof(why), "replaced by incarnation %u", m.incarnation);
        enc_trk_rank_lost(t, (int)m.rank, why);
    }
    c->state = TRK_RANK;
    c->rank = (int)m.rank;
    *r = (struct trk_rank){.conn = c, .incarnation = m.incarnation, .min_inc = m.incarnation,
                           .ever = true, .fresh = true, .last_seen = enc_now_ns(), .reg = m,
                           .completed = m.completed,
                           .has_stats = r->has_stats, .stats = r->stats,
                           .dropped = r->dropped, .drop = r->drop, .nondet = r->nondet,
                           .det_kept = r->det_kept, .det = r->det, .det_len = r->det_len,
                           .det_cap = r->det_cap};
    ENC_INFO("tracker", "rank %u incarnation %u (pid %u) registered from %s", m.rank,
             m.incarnation, m.pid, c->peer);
    if (t->cfg.hooks.registered != NULL)
        t->cfg.hooks.registered(t->cfg.hooks.arg, (int)m.rank, m.incarnation, m.pid);
    enc_trk_check_ready(t);
    return ENC_OK;
}

static enc_status_t on_status(struct enc_tracker *t, struct trk_rank *r,
                              const struct trk_conn *c)
{
    struct enc_msg_status m;

    if (enc_msg_status_decode(&m, c->rd.payload, (size_t)c->rd.hdr.len) != ENC_OK)
        return ENC_ERR_PROTO;
    if (m.epoch > t->epoch)
        return ENC_ERR_PROTO;
    if (m.epoch < t->epoch) /* answers an older death: superseded */
        return ENC_OK;
    r->has_status = true;
    r->status_epoch = m.epoch;
    r->completed = m.completed;
    enc_trk_check_ready(t);
    return ENC_OK;
}

static enc_status_t on_abort(struct enc_tracker *t, struct trk_conn *c)
{
    struct enc_msg_abort m;
    int rank = c->rank;

    if (enc_msg_abort_decode(&m, c->rd.payload, (size_t)c->rd.hdr.len) != ENC_OK)
        return ENC_ERR_PROTO;
    enc_tracker_abort(t, rank, m.code, m.reason);
    if (t->cfg.hooks.aborted != NULL)
        t->cfg.hooks.aborted(t->cfg.hooks.arg, rank, m.code, m.reason);
    return ENC_OK;
}

static void maybe_done(struct enc_tracker *t);

static enc_status_t on_stats(struct enc_tracker *t, struct trk_rank *r,
                             const struct trk_conn *c, bool final)
{
    if (enc_msg_stats_decode(&r->stats, c->rd.payload, (size_t)c->rd.hdr.len) != ENC_OK)
        return ENC_ERR_PROTO;
    r->has_stats = true;
    if (!final || r->finalized)
        return ENC_OK;
    r->finalized = true;
    r->completed = r->stats.completed;
    ENC_INFO("tracker", "rank %d passed MPI_Finalize", c->rank);
    if (t->cfg.hooks.finalized != NULL)
        t->cfg.hooks.finalized(t->cfg.hooks.arg, c->rank);
    enc_trk_check_ready(t); /* a finalized rank no longer owes a STATUS */
    maybe_done(t);
    return ENC_OK;
}

/* Results this rank dropped from its log: kept for the summary (the
 * widest range), the owner hears of the first report of the job. */
static enc_status_t on_dropped(struct enc_tracker *t, struct trk_rank *r, struct trk_conn *c)
{
    struct enc_msg_dropped m;

    if (enc_msg_dropped_decode(&m, c->rd.payload, (size_t)c->rd.hdr.len) != ENC_OK)
        return reject(c, "malformed DROPPED from rank %d", c->rank);
    r->drop.first = r->dropped ? ENC_MIN(r->drop.first, m.first) : m.first;
    r->drop.last = r->dropped ? ENC_MAX(r->drop.last, m.last) : m.last;
    r->dropped = true;
    ENC_DEBUG("tracker", "rank %d dropped results %llu..%llu", c->rank,
              (unsigned long long)m.first, (unsigned long long)m.last);
    if (!t->drop_reported && t->cfg.hooks.dropped != NULL)
        t->cfg.hooks.dropped(t->cfg.hooks.arg, c->rank, m.first, m.last);
    t->drop_reported = true;
    return ENC_OK;
}

static enc_status_t on_heartbeat(struct trk_rank *r, const struct trk_conn *c)
{
    struct enc_msg_heartbeat m;

    if (enc_msg_heartbeat_decode(&m, c->rd.payload, (size_t)c->rd.hdr.len) != ENC_OK)
        return ENC_ERR_PROTO;
    if (!r->fresh && !r->has_status)
        r->completed = m.completed;
    return ENC_OK;
}

/* A frame on a registered connection; any frame proves the rank alive. */
static enc_status_t on_frame(struct enc_tracker *t, struct trk_conn *c)
{
    struct trk_rank *r = &t->ranks[c->rank];

    if (c->rd.hdr.src != (uint16_t)c->rank)
        return reject(c, "frame from rank %d claims to come from rank %u", c->rank,
                      c->rd.hdr.src);
    r->last_seen = enc_now_ns();
    switch (c->rd.hdr.type) {
    case ENC_MSG_HEARTBEAT: return on_heartbeat(r, c);
    case ENC_MSG_STATUS: return on_status(t, r, c);
    case ENC_MSG_ABORT: return on_abort(t, c);
    case ENC_MSG_FINALIZE: return on_stats(t, r, c, true);
    case ENC_MSG_STATS: return on_stats(t, r, c, false);
    case ENC_MSG_DROPPED: return on_dropped(t, r, c);
    case ENC_MSG_NONDET:
        if (c->rd.hdr.len != 0)
            return reject(c, "malformed NONDET from rank %d", c->rank);
        if (!r->nondet)
            ENC_DEBUG("tracker", "rank %d recorded its first determinant", c->rank);
        r->nondet = true;
        return ENC_OK;
    case ENC_MSG_DET_PUT:
        if (enc_trk_det_put(t, r, c) == ENC_ERR_PROTO)
            return reject(c, "malformed DET_PUT from rank %d", c->rank);
        return ENC_OK;
    case ENC_MSG_DET_GET:
        if (c->rd.hdr.len != 0)
            return reject(c, "malformed DET_GET from rank %d", c->rank);
        return enc_trk_det_get(t, r, c);
    default: return reject(c, "unexpected frame type %u from rank %d", c->rd.hdr.type, c->rank);
    }
}

/* The registered connection of rank is gone (or must go) before it
 * finalized: fence it and let the owner decide. */
void enc_trk_rank_lost(struct enc_tracker *t, int rank, const char *why)
{
    struct trk_rank *r = &t->ranks[rank];
    uint32_t inc = r->incarnation;

    if (r->conn == NULL)
        return;
    detach(t, r);
    if (r->finalized)
        return; /* closing after MPI_Finalize is the normal end */
    r->min_inc = ENC_MAX(r->min_inc, inc + 1);
    ENC_INFO("tracker", "rank %d incarnation %u lost: %s", rank, inc, why);
    if (t->cfg.hooks.lost != NULL)
        t->cfg.hooks.lost(t->cfg.hooks.arg, rank, inc, why);
    else
        enc_tracker_rank_dead(t, rank, inc, true);
}

static void send_event(struct enc_tracker *t, const struct enc_msg_event *ev)
{
    uint8_t buf[64 + ENC_REASON_MAX];
    int n = enc_msg_event_encode(ev, buf, sizeof(buf));

    if (n < 0) {
        ENC_ERROR("tracker", "cannot encode EVENT: %s", encore_strerror(n));
        return;
    }
    enc_trk_broadcast(t, ENC_MSG_EVENT, buf, (size_t)n);
}

/* Every rank passed MPI_Finalize: nobody can need a logged result any more. */
static void maybe_done(struct enc_tracker *t)
{
    struct enc_msg_event ev = {.kind = ENC_EV_DONE, .epoch = t->epoch};

    for (int i = 0; i < t->cfg.size; i++)
        if (!t->ranks[i].finalized)
            return;
    ENC_INFO("tracker", "every rank passed MPI_Finalize");
    send_event(t, &ev);
}

void enc_tracker_trim(struct enc_tracker *t, uint64_t cid, uint64_t seq)
{
    struct enc_msg_event ev = {.kind = ENC_EV_TRIM, .epoch = t->epoch, .seq = seq, .cid = cid};

    ENC_DEBUG("tracker", "results below seq %llu of communicator %016llx released",
              (unsigned long long)seq, (unsigned long long)cid);
    send_event(t, &ev);
}

void enc_trk_open_rendezvous(struct enc_tracker *t)
{
    t->pending = true;
    t->reg_deadline = enc_deadline_ms(t->register_timeout_ms);
}

/* A rank is coming back: once a world exists this is a new epoch that the
 * live ranks must hear about; before that the first rendezvous just waits. */
static void new_epoch(struct enc_tracker *t, int rank)
{
    struct enc_msg_event ev = {.kind = ENC_EV_DEAD, .rank = (uint32_t)rank};

    if (!t->pending)
        enc_trk_open_rendezvous(t);
    if (!t->world_formed)
        return;
    ev.epoch = ++t->epoch;
    if (t->recovery_start == 0) {
        t->recovery_start = enc_now_ns();
        t->recovery_rank = rank;
    }
    ENC_INFO("tracker", "epoch %u: rank %d is being restarted", t->epoch, rank);
    send_event(t, &ev);
}

void enc_tracker_rank_dead(struct enc_tracker *t, int rank, uint32_t incarnation, bool restart)
{
    struct trk_rank *r;

    if (rank < 0 || rank >= t->cfg.size || t->aborted)
        return;
    r = &t->ranks[rank];
    if (r->conn != NULL && r->incarnation > incarnation)
        return; /* a newer incarnation is already in */
    if (r->conn != NULL)
        detach(t, r);
    if (r->finalized)
        return;
    r->min_inc = ENC_MAX(r->min_inc, incarnation + 1);
    if (restart)
        new_epoch(t, rank);
}

void enc_tracker_restart_all(struct enc_tracker *t)
{
    if (t->aborted)
        return;
    for (int i = 0; i < t->cfg.size; i++) {
        struct trk_rank *r = &t->ranks[i];

        if (r->conn != NULL)
            detach(t, r);
        if (r->ever)
            r->min_inc = ENC_MAX(r->min_inc, r->incarnation + 1);
        r->finalized = false;
    }
    new_epoch(t, -1);
}

void enc_tracker_abort(struct enc_tracker *t, int rank, int32_t code, const char *reason)
{
    struct enc_msg_event ev = {.kind = ENC_EV_ABORT, .rank = rank < 0 ? 0xffffffffu
                                                                     : (uint32_t)rank,
                               .epoch = t->epoch, .code = code};

    if (t->aborted)
        return;
    t->aborted = true;
    t->pending = false;
    snprintf(ev.reason, sizeof(ev.reason), "%s", reason != NULL ? reason : "");
    send_event(t, &ev);
}

static void on_broken(struct enc_tracker *t, struct trk_conn *c)
{
    enc_trk_rank_lost(t, c->rank, c->broken);
}

const struct trk_conn_ops enc_trk_rendezvous_ops = {
    .on_register = on_register,
    .on_frame = on_frame,
    .on_broken = on_broken,
};
