/*
 * ckpt.c - the checkpoint record (ckpt.h): freeing one, finding a rank's
 * local state in it, and answering other ranks' requests for it.  Shared
 * by the public API (api.c), the exchange and the restarted rank's load
 * (load.c).
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/layer.h"
#include "recovery/checkpoint/ckpt.h"
#include "recovery/log/logreq.h"
#include "recovery/log/sigrec.h"
#include "recovery/ops.h"

void enc_ckpt_free(struct enc_ckpt *c)
{
    free(c->global);
    free(c->local);
    free(c->rep[0]);
    free(c->rep[1]);
    memset(c, 0, sizeof(*c));
    c->rep_rank[0] = c->rep_rank[1] = -1;
}

const void *enc_ckpt_replica(const struct enc_ckpt *c, int rank, size_t *len)
{
    if (rank == enc_engine_rank() && c->local != NULL) {
        *len = c->llen; /* our own: a restarted neighbour restores its replica */
        return c->local;
    }
    for (int i = 0; i < 2; i++) {
        if (c->rep_rank[i] == rank) {
            *len = c->rep_len[i];
            return c->rep[i];
        }
    }
    return NULL;
}

/* The replica q asks for from the checkpoint this rank is still inside.
 * A rank that asks for version v saw a survivor commit v, so every rank
 * finished phase one of v: our replicas of v are final even though we have
 * not committed v yet (we are about to, replaying the barrier from that
 * survivor's log after a regroup). */
static bool taken_replica(const struct enc_logreq *q, const void **data, size_t *len)
{
    const struct enc_ckpt *t = enc_rec.taking;

    if (t == NULL || !t->replicas_in || t->version != q->version)
        return false;
    return (*data = enc_ckpt_replica(t, (int)q->rank, len)) != NULL;
}

enc_status_t enc_ckpt_answer(const struct enc_logreq *q, struct enc_sigrec *sig,
                             const void **data, size_t *len)
{
    const struct enc_ckpt *c = &enc_rec.committed;

    memset(sig, 0, sizeof(*sig));
    sig->kind = ENC_COLL_CHECKPOINT;
    sig->count = c->version;
    sig->site_off = c->seq_after;
    *data = NULL;
    *len = 0;
    if (q->what == ENC_LOGREQ_CKPT_INFO)
        return ENC_OK;
    if (q->what == ENC_LOGREQ_CKPT_LOCAL && taken_replica(q, data, len)) {
        sig->len = *len;
        return ENC_OK;
    }
    if (q->version != c->version || c->version == 0)
        return ENC_ERR_NOT_FOUND;
    if (q->what == ENC_LOGREQ_CKPT_GLOBAL) {
        *data = c->global;
        *len = c->glen;
    } else if ((*data = enc_ckpt_replica(c, (int)q->rank, len)) == NULL) {
        return ENC_ERR_NOT_FOUND;
    }
    sig->len = *len;
    return ENC_OK;
}
