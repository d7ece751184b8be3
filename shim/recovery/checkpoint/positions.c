/*
 * positions.c - communicators at checkpoints (positions.h).
 *
 * A committed checkpoint releases every logged entry before it but the
 * bootstrap ones, and remembers each communicator's position (the number
 * of its next collective), which a restarted rank loading that checkpoint
 * asks its fellow members for.  Every member stands at the same position
 * there: the checkpoint is a world collective, and a collective on a
 * communicator lets no member finish before all entered.
 */
#include "enc.h"

#include <string.h>

#include "core/vec.h"
#include "engine/group.h"
#include "engine/layer.h"
#include "recovery/checkpoint/positions.h"
#include "recovery/log/fetch.h"
#include "recovery/log/log.h"
#include "recovery/log/logreq.h"

/* A communicator's position at the committed checkpoint. */
struct cpos {
    uint64_t cid, seq;
};

static struct {
    struct cpos *pos;        /* at checkpoint version */
    size_t n, cap;
    uint32_t version;
} cp;

static void add_pos(void *arg, struct enc_group *g)
{
    enc_status_t *rv = arg;

    if (ENC_VEC_RESERVE(cp.pos, cp.cap, cp.n + 1) != ENC_OK) {
        *rv = ENC_ERR_NOMEM;
        return;
    }
    cp.pos[cp.n++] = (struct cpos){enc_group_cid(g), enc_group_seq(g)};
}

/* Remembers where every live communicator stands at checkpoint version. */
static enc_status_t note_positions(uint32_t version)
{
    enc_status_t rv = ENC_OK;

    cp.n = 0;
    enc_group_each(add_pos, &rv);
    cp.version = version;
    return rv;
}

void enc_ckpt_positions_commit(uint32_t version, uint64_t world_below)
{
    struct enc_log_cut cut;

    if (note_positions(version) != ENC_OK)
        ENC_WARN("commlog", "out of memory noting communicator positions at checkpoint %u: "
                 "a rank restarted from it may not find its communicators' results", version);
    enc_log_checkpoint(world_below, &cut);
    if (cut.comms == 0 && cut.dropped == 0)
        return; /* a program on the world alone */
    ENC_INFO("commlog", "checkpoint %u: dropped %zu communicator results, kept %zu "
             "(%zu bytes) on %zu communicators", version, cut.dropped, cut.kept,
             cut.kept_bytes, cut.comms);
}

enc_status_t enc_ckpt_position_answer(const struct enc_logreq *q, struct enc_sigrec *sig,
                                      const void **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    if (q->version == 0 || q->version != cp.version)
        return ENC_ERR_NOT_FOUND;
    for (size_t i = 0; i < cp.n; i++) {
        if (cp.pos[i].cid == q->cid) {
            memset(sig, 0, sizeof(*sig));
            sig->kind = ENC_COLL_CHECKPOINT;
            sig->count = cp.pos[i].seq;
            return ENC_OK;
        }
    }
    return ENC_ERR_NOT_FOUND;
}

/* g's position at checkpoint version, from any other member. */
static void rebase_one(void *arg, struct enc_group *g)
{
    const uint32_t *version = arg;
    struct enc_logreq q = {.what = ENC_LOGREQ_COMM_POS, .cid = enc_group_cid(g),
                           .version = *version};
    struct enc_log_comm c = {.cid = q.cid, .n = enc_group_my_size(g), .members = g->members};
    struct enc_sigrec sig;

    for (int i = 0; i < c.n; i++) {
        int peer = enc_group_world_rank(g, i);

        if (peer == enc_engine_rank() ||
            enc_log_fetch(peer, &q, &sig, NULL, 0, NULL) != ENC_OK)
            continue;
        ENC_INFO("commlog", "communicator %016llx resumes at its collective %llu (checkpoint "
                 "%u)", (unsigned long long)q.cid, (unsigned long long)sig.count, *version);
        enc_group_skip_to(g, sig.count);
        enc_log_rebase(&c, sig.count);
        return;
    }
    ENC_DEBUG("commlog", "no other member of communicator %016llx knows it at checkpoint %u",
              (unsigned long long)q.cid, *version);
}

void enc_ckpt_positions_rebase(uint32_t version)
{
    enc_group_each(rebase_one, &version);
    if (note_positions(version) != ENC_OK)
        ENC_WARN("commlog", "out of memory noting communicator positions at checkpoint %u",
                 version);
}
