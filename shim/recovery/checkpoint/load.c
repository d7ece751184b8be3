/*
 * load.c - a restarted rank loads the newest committed checkpoint (load.h).
 *
 * Any survivor that committed version v proves every rank finished phase
 * one of v, so the newest version any survivor reports is safe to load:
 * its global state from that survivor, this rank's local state from a locality
 * neighbour's replica.
 *
 * Another rank may die while we fetch (a neighbour SIGSTOPped, then
 * declared dead by its heartbeats).  The survivors then stop serving and
 * regroup, so we do too and ask again: a bounded number of times.
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/layer.h"
#include "recovery/checkpoint/ckpt.h"
#include "recovery/checkpoint/load.h"
#include "recovery/log/fetch.h"
#include "recovery/log/logreq.h"
#include "recovery/log/sigrec.h"
#include "recovery/ops.h"
#include "recovery/recover.h"

static enc_status_t newest(int *who, uint32_t *version, uint64_t *seq_after)
{
    struct enc_logreq q = {.what = ENC_LOGREQ_CKPT_INFO};
    struct enc_sigrec sig;
    enc_status_t rv;

    *who = -1;
    *version = 0;
    for (int r = 0; r < enc_engine_size(); r++) {
        if (r == enc_engine_rank() || enc_rec.peer_completed[r] <= enc_engine_seq())
            continue;
        if ((rv = enc_log_fetch(r, &q, &sig, NULL, 0, NULL)) == ENC_ERR_EPOCH)
            return rv;
        if (rv != ENC_OK)
            continue; /* that survivor may have died too: ask the others */
        if (sig.count > *version) {
            *version = (uint32_t)sig.count;
            *seq_after = sig.site_off;
            *who = r;
        }
    }
    return ENC_OK;
}

static enc_status_t fetch_global(int who, struct enc_ckpt *out)
{
    struct enc_logreq q = {.what = ENC_LOGREQ_CKPT_GLOBAL, .version = out->version};
    struct enc_sigrec sig;
    enc_status_t rv;

    rv = enc_log_fetch(who, &q, &sig, NULL, ENC_LOG_ANY_LEN, &out->global);
    out->glen = rv == ENC_OK ? sig.len : 0;
    return rv;
}

/* Our local state lives on both locality neighbours; either will do. */
static enc_status_t fetch_local(struct enc_ckpt *out)
{
    int nb[2];
    struct enc_logreq q = {.what = ENC_LOGREQ_CKPT_LOCAL, .version = out->version,
                           .rank = (uint32_t)enc_engine_rank()};
    struct enc_sigrec sig;
    enc_status_t rv, worst = ENC_ERR_LOST;

    enc_engine_locality_neighbours(&nb[0], &nb[1]);
    for (int i = 0; i < 2; i++) {
        rv = enc_log_fetch(nb[i], &q, &sig, NULL, ENC_LOG_ANY_LEN, &out->local);
        if (rv == ENC_OK) {
            out->llen = sig.len;
            return ENC_OK;
        }
        if (rv == ENC_ERR_EPOCH || (rv == ENC_ERR_PEER_RESET && worst != ENC_ERR_EPOCH))
            worst = rv; /* not lost yet: that neighbour may answer after a regroup */
    }
    if (worst == ENC_ERR_LOST)
        ENC_ERROR("ckpt", "local state of rank %d for checkpoint %u is lost: both ring "
                  "neighbours (ranks %d and %d) lost their replica", enc_engine_rank(),
                  out->version, nb[0], nb[1]);
    return worst;
}

/* Our replicas of both neighbours' local states, so that a later death of
 * a neighbour still finds two copies (slot 0 holds the previous rank's, as
 * in the exchange).  Each is asked of its owner, else of the owner's other
 * neighbour, the other rank that keeps it: an owner being restarted too
 * has not loaded it yet, and asking only owners lost a local state when
 * its rank's restart was slow and both its neighbours were restarted, one
 * after the other, meanwhile (neither had it to give any more).  Best
 * effort: a replica nobody can give leaves its slot empty. */
static enc_status_t fetch_replicas(struct enc_ckpt *out)
{
    int nb[2];
    struct enc_sigrec sig;
    enc_status_t rv;

    enc_engine_locality_neighbours(&nb[1], &nb[0]);
    for (int i = 0; i < 2; i++) {
        struct enc_logreq q = {.what = ENC_LOGREQ_CKPT_LOCAL, .version = out->version,
                               .rank = (uint32_t)nb[i]};
        int keepers[2], next, prev;

        if (nb[i] == enc_engine_rank())
            continue;
        enc_engine_locality_neighbours_of(nb[i], &next, &prev);
        keepers[0] = nb[i];
        keepers[1] = next == enc_engine_rank() ? prev : next;
        for (int k = 0; k < 2 && out->rep_rank[i] < 0; k++) {
            if (keepers[k] == enc_engine_rank())
                continue;
            rv = enc_log_fetch(keepers[k], &q, &sig, NULL, ENC_LOG_ANY_LEN, &out->rep[i]);
            if (rv == ENC_ERR_EPOCH)
                return rv;
            if (rv == ENC_OK) {
                out->rep_rank[i] = nb[i];
                out->rep_len[i] = sig.len;
            }
        }
    }
    return ENC_OK;
}

static enc_status_t fetch_once(struct enc_ckpt *out)
{
    enc_status_t rv;
    int who;

    memset(out, 0, sizeof(*out));
    out->rep_rank[0] = out->rep_rank[1] = -1;
    if ((rv = newest(&who, &out->version, &out->seq_after)) != ENC_OK || who < 0)
        return rv;
    if ((rv = fetch_global(who, out)) != ENC_OK) {
        ENC_INFO("ckpt", "cannot fetch checkpoint %u from rank %d: %s", out->version, who,
                 encore_strerror(rv));
        return rv;
    }
    if ((rv = fetch_local(out)) != ENC_OK)
        return rv;
    return fetch_replicas(out);
}

/* After an unreachable survivor: its death shows as a new epoch within
 * the heartbeat timeout (then we regroup), or it was only slow. */
static enc_status_t regroup_if_needed(enc_status_t why)
{
    uint64_t deadline = enc_deadline_ms(2 * enc_tunable_ll(ENC_TUNE_HEARTBEAT_TIMEOUT_MS));

    while (why != ENC_ERR_EPOCH && enc_now_ns() < deadline) {
        if ((why = enc_engine_poll_tracker()) == ENC_ERR_ABORTED)
            return why;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    return why == ENC_ERR_EPOCH ? enc_recover() : ENC_OK;
}

#define FETCH_ATTEMPTS 8

enc_status_t enc_ckpt_fetch(struct enc_ckpt *out)
{
    enc_status_t rv;

    for (int attempt = 1;; attempt++) {
        rv = fetch_once(out);
        if ((rv != ENC_ERR_EPOCH && rv != ENC_ERR_PEER_RESET) || attempt == FETCH_ATTEMPTS)
            return rv;
        enc_ckpt_free(out);
        ENC_INFO("ckpt", "loading the checkpoint was interrupted (%s); asking again",
                 encore_strerror(rv));
        if ((rv = regroup_if_needed(rv)) != ENC_OK)
            return rv;
    }
}
