/*
 * ckpt_fetch.c - a restarted rank loads the newest committed checkpoint.
 *
 * Any survivor that committed version v proves every rank finished phase
 * one of v, so the newest version any survivor reports is safe to load:
 * its global state from that survivor, this rank's local state from a ring
 * neighbour's replica.
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include "engine/layer.h"
#include "recovery/ckpt.h"
#include "recovery/logreq.h"
#include "recovery/reclog.h"
#include "recovery/recovery.h"

static enc_status_t newest(int *who, uint32_t *version, uint64_t *seq_after)
{
    struct enc_logreq q = {.what = ENC_LOGREQ_CKPT_INFO};
    struct enc_sigrec sig;

    *who = -1;
    *version = 0;
    for (int r = 0; r < enc_engine_size(); r++) {
        if (r == enc_engine_rank() || enc_rec.peer_completed[r] <= enc_engine_seq())
            continue;
        if (enc_log_fetch(r, &q, &sig, NULL, 0, NULL) != ENC_OK)
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

/* Our local state lives on both ring neighbours; either will do. */
static enc_status_t fetch_local(struct enc_ckpt *out)
{
    int nb[2];
    struct enc_logreq q = {.what = ENC_LOGREQ_CKPT_LOCAL, .version = out->version,
                           .rank = (uint32_t)enc_engine_rank()};
    struct enc_sigrec sig;

    enc_engine_ring_neighbours(&nb[0], &nb[1]);
    for (int i = 0; i < 2; i++) {
        if (enc_log_fetch(nb[i], &q, &sig, NULL, ENC_LOG_ANY_LEN, &out->local) == ENC_OK) {
            out->llen = sig.len;
            return ENC_OK;
        }
    }
    ENC_ERROR("ckpt", "local state of rank %d for checkpoint %u is lost: both ring "
              "neighbours (ranks %d and %d) lost their replica", enc_engine_rank(), out->version,
              nb[0], nb[1]);
    return ENC_ERR_LOST;
}

enc_status_t enc_ckpt_fetch(struct enc_ckpt *out)
{
    enc_status_t rv;
    int who;

    memset(out, 0, sizeof(*out));
    out->rep_rank[0] = out->rep_rank[1] = -1;
    if ((rv = newest(&who, &out->version, &out->seq_after)) != ENC_OK || who < 0)
        return rv;
    if ((rv = fetch_global(who, out)) != ENC_OK) {
        ENC_ERROR("ckpt", "cannot fetch checkpoint %u from rank %d: %s", out->version, who,
                  encore_strerror(rv));
        return rv == ENC_ERR_LOST ? rv : ENC_ERR_PEER_RESET;
    }
    return fetch_local(out);
}
