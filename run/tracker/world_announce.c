/*
 * world_announce.c - deciding that a rendezvous is complete and telling the ranks:
 * WORLD (who is where, the ring) and, after a recovery, RESUME (how far
 * every rank had got, so the restarted ones know what to replay).
 */
#include "enc.h"
#include "proto/frame.h"
#include "proto/msgs.h"
#include "topo/topo.h"
#include "tracker/tracker_int.h"

#include <stdlib.h>

/* Every rank is registered for this epoch, and every survivor (a rank that
 * has seen a previous WORLD) has reported where it stands. */
static bool ready(const struct enc_tracker *t)
{
    for (int i = 0; i < t->cfg.size; i++) {
        const struct trk_rank *r = &t->ranks[i];

        if (r->finalized)
            continue;
        if (r->conn == NULL)
            return false;
        if (!r->fresh && !(r->has_status && r->status_epoch == t->epoch))
            return false;
    }
    return true;
}

static enc_status_t build_world(const struct enc_tracker *t, struct enc_msg_world *w)
{
    int n = t->cfg.size;
    struct enc_locality *locs = calloc((size_t)n, sizeof(*locs));
    int *order = calloc((size_t)n, sizeof(*order));

    w->epoch = t->epoch;
    w->size = (uint32_t)n;
    w->peers = calloc((size_t)n, sizeof(*w->peers));
    w->locality = calloc((size_t)n, sizeof(*w->locality));
    if (locs == NULL || order == NULL || w->peers == NULL || w->locality == NULL) {
        free(locs);
        free(order);
        return ENC_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        const struct enc_msg_register *g = &t->ranks[i].reg;

        w->peers[i].incarnation = g->incarnation;
        w->peers[i].port = g->data_port;
        snprintf(w->peers[i].addr, sizeof(w->peers[i].addr), "%s", g->addr);
        locs[i] = g->loc;
    }
    enc_topo_locality_order(locs, n, order);
    enc_trk_log_topology(locs, order, n);
    for (int i = 0; i < n; i++)
        w->locality[i] = (uint32_t)order[i];
    free(locs);
    free(order);
    return ENC_OK;
}

void enc_trk_broadcast(struct enc_tracker *t, uint8_t type, const void *buf, size_t len)
{
    /* finalized ranks too: they serve the log until every rank is done */
    for (int i = 0; i < t->cfg.size; i++)
        if (t->ranks[i].conn != NULL)
            enc_trk_send(t, t->ranks[i].conn, type, buf, len);
}

static enc_status_t send_world(struct enc_tracker *t)
{
    struct enc_msg_world w = {0};
    size_t cap = 64 + (size_t)t->cfg.size * (ENC_HOST_MAX + 16);
    uint8_t *buf = malloc(cap);
    enc_status_t rv;
    int n;

    if (buf == NULL || build_world(t, &w) != ENC_OK) {
        rv = ENC_ERR_NOMEM;
        goto out;
    }
    if ((n = enc_msg_world_encode(&w, buf, cap)) < 0) {
        rv = (enc_status_t)n;
        goto out;
    }
    enc_trk_broadcast(t, ENC_MSG_WORLD, buf, (size_t)n);
    rv = ENC_OK;
out:
    if (rv != ENC_OK)
        ENC_ERROR("tracker", "cannot build WORLD: %s", encore_strerror(rv));
    free(w.peers);
    free(w.locality);
    free(buf);
    return rv;
}

/* completed[r]: for a rank that (re-)registered in this rendezvous, what
 * its REGISTER said (0, or where a restored snapshot stands). */
static enc_status_t send_resume(struct enc_tracker *t)
{
    struct enc_msg_resume m = {.epoch = t->epoch, .size = (uint32_t)t->cfg.size};
    size_t cap = 16 + (size_t)t->cfg.size * 8;
    uint8_t *buf = malloc(cap);
    int n = ENC_ERR_NOMEM;

    m.completed = calloc((size_t)t->cfg.size, sizeof(*m.completed));
    if (buf != NULL && m.completed != NULL) {
        for (int i = 0; i < t->cfg.size; i++)
            m.completed[i] = t->ranks[i].completed;
        n = enc_msg_resume_encode(&m, buf, cap);
    }
    if (n >= 0)
        enc_trk_broadcast(t, ENC_MSG_RESUME, buf, (size_t)n);
    else
        ENC_ERROR("tracker", "cannot build RESUME: %s", encore_strerror(n));
    free(m.completed);
    free(buf);
    return n < 0 ? (enc_status_t)n : ENC_OK;
}

static void record_recovery(struct enc_tracker *t)
{
    struct enc_tracker_recovery *p;
    double s = (double)(enc_now_ns() - t->recovery_start) * 1e-9;

    ENC_INFO("tracker", "epoch %u: recovery after rank %d died took %.3f s", t->epoch,
             t->recovery_rank, s);
    p = realloc(t->recov, (size_t)(t->nrecov + 1) * sizeof(*p));
    if (p != NULL) {
        t->recov = p;
        t->recov[t->nrecov++] = (struct enc_tracker_recovery){t->epoch, t->recovery_rank, s};
    }
    t->recovery_start = 0;
}

void enc_trk_check_ready(struct enc_tracker *t)
{
    if (!t->pending || t->aborted || !ready(t))
        return;
    if (send_world(t) != ENC_OK)
        return;
    if (t->world_formed)
        send_resume(t);
    ENC_INFO("tracker", "epoch %u: world of %d ranks sent", t->epoch, t->cfg.size);
    if (t->recovery_start != 0)
        record_recovery(t);
    t->world_formed = true;
    t->pending = false;
    for (int i = 0; i < t->cfg.size; i++)
        t->ranks[i].fresh = false;
}
