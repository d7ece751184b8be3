/*
 * tracker.c - the tracker object: its listening socket, the poll loop that
 * drives conn.c, and the timers (handshake deadlines, heartbeats, the
 * register deadline).  Every wait here ends at the nearest timer.
 */
#include "enc.h"
#include "net/sock.h"
#include "proto/msgs.h"
#include "tracker/tracker_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int64_t tunable_or(int64_t v, enum enc_tunable_id id)
{
    return v > 0 ? v : (int64_t)enc_tunable_ll(id);
}

enc_status_t enc_tracker_create(struct enc_tracker **out, const struct enc_tracker_config *cfg)
{
    struct enc_tracker *t;
    enc_status_t rv;

    if (cfg->size <= 0 || cfg->size > ENC_MAX_RANKS || cfg->secret == NULL)
        return ENC_ERR_INVAL;
    if ((t = calloc(1, sizeof(*t))) == NULL)
        return ENC_ERR_NOMEM;
    t->cfg = *cfg;
    t->conn_ops = &enc_trk_rendezvous_ops;
    t->secret = *cfg->secret;
    t->lfd = -1;
    t->connect_timeout_ms = tunable_or(cfg->connect_timeout_ms, ENC_TUNE_CONNECT_TIMEOUT_MS);
    t->register_timeout_ms = tunable_or(cfg->register_timeout_ms, ENC_TUNE_REGISTER_TIMEOUT_MS);
    t->hb_timeout_ns = (uint64_t)tunable_or(cfg->heartbeat_timeout_ms,
                                            ENC_TUNE_HEARTBEAT_TIMEOUT_MS) * 1000000ull;
    if ((t->ranks = calloc((size_t)cfg->size, sizeof(*t->ranks))) == NULL) {
        rv = ENC_ERR_NOMEM;
        goto fail;
    }
    if ((rv = enc_sock_listen(cfg->bind_host, cfg->port, &t->lfd, &t->port)) != ENC_OK)
        goto fail;
    enc_trk_open_rendezvous(t);
    *out = t;
    return ENC_OK;
fail:
    free(t->ranks);
    free(t);
    return rv;
}

void enc_tracker_destroy(struct enc_tracker *t)
{
    if (t == NULL)
        return;
    while (t->nconns > 0)
        enc_trk_conn_drop(t, t->conns[t->nconns - 1]);
    enc_sock_close(&t->lfd);
    free(t->conns);
    for (int i = 0; i < t->cfg.size; i++)
        free(t->ranks[i].det);
    free(t->ranks);
    free(t->recov);
    free(t);
}

uint16_t enc_tracker_port(const struct enc_tracker *t) { return t->port; }
uint32_t enc_tracker_epoch(const struct enc_tracker *t) { return t->epoch; }
bool enc_tracker_world_formed(const struct enc_tracker *t) { return t->world_formed; }

enum enc_tracker_rank_state enc_tracker_rank_state(const struct enc_tracker *t, int rank)
{
    const struct trk_rank *r = &t->ranks[rank];

    if (r->finalized)
        return ENC_TRK_FINALIZED;
    return r->conn != NULL ? ENC_TRK_REGISTERED : ENC_TRK_ABSENT;
}

uint32_t enc_tracker_incarnation(const struct enc_tracker *t, int rank)
{
    return t->ranks[rank].incarnation;
}

enc_status_t enc_tracker_rank_stats(const struct enc_tracker *t, int rank,
                                    struct enc_msg_stats *st)
{
    if (!t->ranks[rank].has_stats)
        return ENC_ERR_NOT_FOUND;
    *st = t->ranks[rank].stats;
    return ENC_OK;
}

bool enc_tracker_dropped(const struct enc_tracker *t, uint64_t *first, uint64_t *last)
{
    bool any = false;

    for (int i = 0; i < t->cfg.size; i++) {
        const struct trk_rank *r = &t->ranks[i];

        if (!r->dropped)
            continue;
        *first = any ? ENC_MIN(*first, r->drop.first) : r->drop.first;
        *last = any ? ENC_MAX(*last, r->drop.last) : r->drop.last;
        any = true;
    }
    return any;
}

bool enc_tracker_rank_nondet(const struct enc_tracker *t, int rank)
{
    return rank >= 0 && rank < t->cfg.size && t->ranks[rank].nondet;
}

int enc_tracker_recoveries(const struct enc_tracker *t, const struct enc_tracker_recovery **out)
{
    *out = t->recov;
    return t->nrecov;
}

/* "ranks 1, 3" of those the open rendezvous still waits for. */
static void missing_ranks(const struct enc_tracker *t, char *out, size_t cap, bool want_conn)
{
    size_t n = 0;

    out[0] = '\0';
    for (int i = 0; i < t->cfg.size && n + 16 < cap; i++) {
        const struct trk_rank *r = &t->ranks[i];
        bool miss = want_conn ? r->conn == NULL
                             : r->conn != NULL && !r->fresh &&
                                   !(r->has_status && r->status_epoch == t->epoch);

        if (!r->finalized && miss)
            n += (size_t)snprintf(out + n, cap - n, "%s%d", n ? ", " : "", i);
    }
}

static void register_timeout(struct enc_tracker *t)
{
    char miss[160], stat[160], why[400];

    missing_ranks(t, miss, sizeof(miss), true);
    missing_ranks(t, stat, sizeof(stat), false);
    if (miss[0] != '\0')
        snprintf(why, sizeof(why), "rank%s %s did not register within %lld ms (epoch %u)",
                 strchr(miss, ',') ? "s" : "", miss, (long long)t->register_timeout_ms,
                 t->epoch);
    else
        snprintf(why, sizeof(why), "rank%s %s sent no STATUS within %lld ms (epoch %u)",
                 strchr(stat, ',') ? "s" : "", stat, (long long)t->register_timeout_ms,
                 t->epoch);
    enc_tracker_abort(t, -1, 1, why);
    if (t->cfg.hooks.failed != NULL)
        t->cfg.hooks.failed(t->cfg.hooks.arg, why);
    else
        ENC_ERROR("tracker", "%s", why);
}

static void check_heartbeats(struct enc_tracker *t, uint64_t now)
{
    char why[80];

    for (int i = 0; i < t->cfg.size; i++) {
        struct trk_rank *r = &t->ranks[i];

        if (r->conn == NULL || r->finalized || now - r->last_seen <= t->hb_timeout_ns)
            continue;
        snprintf(why, sizeof(why), "silent for more than %llu ms",
                 (unsigned long long)(t->hb_timeout_ns / 1000000ull));
        enc_trk_rank_lost(t, i, why);
    }
}

static void run_timers(struct enc_tracker *t)
{
    uint64_t now = enc_now_ns();

    enc_trk_sweep(t);
    check_heartbeats(t, now);
    if (t->pending && !t->aborted && now >= t->reg_deadline)
        register_timeout(t);
}

/* The nearest timer, as a poll timeout. */
static int next_timeout(const struct enc_tracker *t)
{
    uint64_t next = ENC_NEVER;

    if (t->pending && !t->aborted)
        next = t->reg_deadline;
    for (int i = 0; i < t->nconns; i++) {
        const struct trk_conn *c = t->conns[i];

        if (c->state != TRK_RANK)
            next = ENC_MIN(next, c->deadline);
        else if (!t->ranks[c->rank].finalized)
            next = ENC_MIN(next, t->ranks[c->rank].last_seen + t->hb_timeout_ns + 1000000);
    }
    return enc_ms_left(next);
}

static void conn_event(struct enc_tracker *t, struct trk_conn *c, short revents)
{
    enc_status_t rv = enc_trk_conn_input(t, c);

    if (rv >= 0 && !(revents & (POLLERR | POLLNVAL)))
        return;
    if (rv >= 0)
        rv = ENC_ERR_PEER_RESET;
    if (c->state == TRK_RANK) {
        enc_trk_rank_lost(t, c->rank, rv == ENC_ERR_PEER_CLOSED ? "closed its tracker connection"
                                      : c->why[0] ? c->why : encore_strerror(rv));
        return;
    }
    if (c->state != TRK_AUTH) /* the handshake logs its own rejections */
        ENC_WARN("tracker", "connection from %s closed: %s", c->peer,
                 c->why[0] ? c->why : encore_strerror(rv));
    enc_trk_conn_drop(t, c);
}

/* Connections may come and go while handling events, so the poll set is
 * matched back by fd and connection pointer. */
static void dispatch(struct enc_tracker *t, struct pollfd *pf, struct trk_conn **who, int n)
{
    for (int i = 1; i < n; i++) {
        if (pf[i].revents == 0)
            continue;
        for (int j = 0; j < t->nconns; j++) {
            if (t->conns[j] == who[i] && who[i]->fd == pf[i].fd) {
                conn_event(t, who[i], pf[i].revents);
                break;
            }
        }
    }
    if (pf[0].revents & POLLIN)
        enc_trk_accept(t);
}

enc_status_t enc_tracker_poll(struct enc_tracker *t, int timeout_ms, struct pollfd *extra,
                              int nextra)
{
    int n = 1 + t->nconns, tmo = next_timeout(t);
    enc_status_t rv = ENC_OK;
    struct pollfd *pf = calloc((size_t)(n + nextra), sizeof(*pf));
    struct trk_conn **who = calloc((size_t)n, sizeof(*who));

    if (pf == NULL || who == NULL) {
        rv = ENC_ERR_NOMEM;
        goto out;
    }
    pf[0] = (struct pollfd){.fd = t->lfd, .events = POLLIN};
    for (int i = 1; i < n; i++) {
        who[i] = t->conns[i - 1];
        pf[i] = (struct pollfd){.fd = who[i]->fd, .events = POLLIN};
    }
    /* extra may be NULL when nextra is 0 (encore-tracker), and memcpy from
     * NULL is undefined even for 0 bytes (UBSan, found by fuzz_tracker). */
    if (nextra > 0)
        memcpy(pf + n, extra, (size_t)nextra * sizeof(*pf));
    if (timeout_ms >= 0 && (tmo < 0 || timeout_ms < tmo))
        tmo = timeout_ms;
    if (poll(pf, (nfds_t)(n + nextra), tmo) < 0 && errno != EINTR) {
        ENC_ERROR("tracker", "poll: %m");
        rv = ENC_ERR_SYS;
        goto out;
    }
    for (int i = 0; i < nextra; i++)
        extra[i].revents = pf[n + i].revents;
    dispatch(t, pf, who, n);
    run_timers(t);
out:
    free(pf);
    free(who);
    return rv;
}
