/*
 * api.c - the checkpoint API (include/encore.h) as recovery serves it
 * (mpi/ckpt_api.c adds the MPI layer's rules around it).
 *
 * A checkpoint is a collective: local states go to both locality neighbours,
 * a barrier closes phase one, then every rank commits the new version and
 * truncates its result log below the checkpoint (phase two).  A restarted
 * rank's encore_load_checkpoint() fetches the newest committed version from
 * the survivors and jumps to the collective after it; collectives it made
 * before that call (the bootstrap phase) were answered from the log.
 */
#include "enc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/layer.h"
#include "recovery/channels.h"
#include "recovery/checkpoint/ckpt.h"
#include "recovery/checkpoint/load.h"
#include "recovery/checkpoint/positions.h"
#include "recovery/log/bootstrap.h"
#include "recovery/ops.h"
#include "recovery/recovery.h"

int encore_version(void) { return (int)enc_rec.committed.version; }

int encore_is_replaying(void)
{
    return enc_engine_active() && enc_engine_seq() < enc_rec.replay_until;
}

static enc_status_t dup_state(void **dst, size_t *dlen, const void *src, size_t len)
{
    *dlen = len;
    if ((*dst = malloc(len ? len : 1)) == NULL)
        return ENC_ERR_NOMEM;
    if (len > 0)
        memcpy(*dst, src, len);
    return ENC_OK;
}

/* A restarted rank resumes after the checkpoint with the channel positions
 * it had there (the MPI layer keeps them with its local state), and its
 * peers' logs are released up to it: so every message sent before it must
 * have been received and matched.  The counts are the world's sums, so
 * every rank refuses alike (and none commits). */
static enc_status_t refuse_in_flight(const struct enc_ckpt *c)
{
    /* not received by the program: in flight, or arrived and unmatched */
    uint64_t open = c->p2p[0] - c->p2p[1] + c->p2p[2];

    if (open == 0 && c->p2p[3] == 0)
        return ENC_OK;
    ENC_ERROR("ckpt", "encore_checkpoint: refused: across the job, %llu point-to-point "
              "message%s sent before it not received yet and %llu receive%s or synchronous "
              "send%s pending (checkpoint where every message sent has been received)",
              (unsigned long long)open, open == 1 ? "" : "s", (unsigned long long)c->p2p[3],
              c->p2p[3] == 1 ? "" : "s", c->p2p[3] == 1 ? "" : "s");
    return ENC_ERR_STATE;
}

/* Phase one as a collective whose algorithm is enc_ckpt_exchange. */
static enc_status_t take(struct enc_ckpt *next, size_t glen, const void *site)
{
    struct enc_callsig sig = {.kind = ENC_COLL_CHECKPOINT, .count = glen,
                              .dtype = ENC_SIG_DTYPE_BYTES, .op = ENC_SIG_OP_NONE,
                              .root = -1, .site = site};
    enc_status_t rv;

    enc_rec.taking = next;
    rv = enc_layer_coll(&sig);
    enc_rec.taking = NULL;
    if (rv != ENC_OK)
        return rv;
    if ((rv = refuse_in_flight(next)) != ENC_OK)
        return rv;
    next->seq_after = enc_engine_seq();
    /* Every rank finished phase one; none needs results before the
     * checkpoint itself again (a rank still inside it may need its entry). */
    enc_ckpt_positions_commit(next->version, next->seq_after - 1);
    return ENC_OK;
}

int enc_recovery_checkpoint(const void *global, size_t global_len, const void *local,
                            size_t local_len)
{
    struct enc_ckpt next = {.version = enc_rec.committed.version + 1, .rep_rank = {-1, -1}};
    enc_status_t rv;

    if ((global_len && !global) || (local_len && !local))
        return ENC_ERR_INVAL;
    if ((rv = dup_state(&next.global, &next.glen, global, global_len)) != ENC_OK ||
        (rv = dup_state(&next.local, &next.llen, local, local_len)) != ENC_OK)
        goto fail;
    /* without recovery (ENCORE_RECOVERY=0) nobody needs replicas */
    if (enc_engine_active() && enc_rec.on && (rv = take(&next, global_len, __builtin_return_address(0))) != ENC_OK)
        goto fail;
    enc_ckpt_free(&enc_rec.committed);
    enc_rec.committed = next;
    enc_channels_checkpointed();
    ENC_INFO("ckpt", "checkpoint %u committed (global %zu B, local %zu B), log truncated "
             "below seq %llu", next.version, global_len, local_len,
             (unsigned long long)next.seq_after);
    return ENC_OK;
fail:
    enc_ckpt_free(&next);
    return rv;
}

static void copy_out(const void *src, size_t srclen, void *dst, size_t *len)
{
    if (len == NULL)
        return;
    if (dst != NULL && srclen > 0)
        memcpy(dst, src, ENC_MIN(*len, srclen));
    *len = srclen;
}

/* A rank behind the survivors with no checkpoint of its own loads theirs. */
static enc_status_t load_from_survivors(void)
{
    struct enc_ckpt got;
    enc_status_t rv;

    if ((rv = enc_ckpt_fetch(&got)) != ENC_OK) {
        char msg[160];

        snprintf(msg, sizeof(msg), "rank %d cannot load its checkpoint from the survivors: %s",
                 enc_engine_rank(), encore_strerror(rv));
        enc_engine_abort(1, msg);
    }
    if (got.version == 0)
        return ENC_OK;
    enc_ckpt_free(&enc_rec.committed);
    enc_rec.committed = got;
    ENC_INFO("ckpt", "loaded checkpoint %u from the survivors; resuming at seq %llu "
             "(skipping %llu collectives)", got.version, (unsigned long long)got.seq_after,
             (unsigned long long)(got.seq_after - enc_engine_seq()));
    enc_engine_skip_to(got.seq_after);
    enc_ckpt_positions_rebase(got.version);
    return ENC_OK;
}

int enc_recovery_load_checkpoint(void *global, size_t *global_len, void *local,
                                 size_t *local_len)
{
    struct enc_ckpt *c = &enc_rec.committed;

    enc_bootstrap_end();
    if (enc_engine_active() && enc_rec.on && c->version == 0 &&
        enc_engine_seq() < enc_rec.replay_until)
        load_from_survivors();
    if (c->version == 0)
        return 0;
    copy_out(c->global, c->glen, global, global_len);
    copy_out(c->local, c->llen, local, local_len);
    return (int)c->version;
}
