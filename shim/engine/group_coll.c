/*
 * group_coll.c - the dispatcher for collectives on communicators derived
 * from the world.
 *
 * Each communicator numbers its own collectives; frames carry (communicator id,
 * number).  Every algorithm used on a group lets no member finish before
 * all members entered in the current epoch (tree allreduce, ring
 * allgatherv, bcast_sync).  So after a failure, when the group is
 * "uncertain", its next collective is either in some member's log (every
 * member that has not completed it takes it from there: replay) or in
 * nobody's (every member runs it live); no member can complete it live
 * while another still asks.  A restarted rank's groups are uncertain until
 * a collective runs live, so it replays its history group by group.
 */
#include "enc.h"

#include "engine/coll.h"
#include "engine/dispatch.h"
#include "engine/group.h"
#include "engine/state.h"
#include "engine/layer.h"

/* 24 bits of communicator id above 40 bits of sequence (the world's frames have
 * id 0: plain sequence numbers). */
static uint64_t frame_seq(const struct enc_group *g)
{
    uint64_t id = g->cid & 0xffffffu;

    return (id ? id : 1) << 40 | (g->seq & ((1ull << 40) - 1));
}

static void view(struct enc_coll *co, struct enc_group *g)
{
    co->n = g->size;
    co->me = g->rank;
    co->locality = enc_group_locality(g);
    co->order = g->order;
    co->ctx.peers = g->members;
    co->chan = &g->chan;
}

static enc_status_t run_once(struct enc_coll *co, struct enc_group *g)
{
    const struct enc_engine_ops *ops = enc_eng.ops;
    enc_status_t rv;

    if ((rv = enc_engine_poll_tracker()) != ENC_OK)
        return rv;
    view(co, g);
    co->replayed = false;
    if (ops && ops->group_replay && g->live_epoch != enc_eng.epoch) {
        rv = ops->group_replay(enc_eng.ops_arg, co, g->cid, g->seq);
        if (rv != ENC_ERR_NOT_FOUND) {
            co->replayed = rv == ENC_OK;
            return rv;
        }
    }
    return enc_coll_live(co);
}

enc_status_t enc_group_run(struct enc_coll *co)
{
    const struct enc_engine_ops *ops = enc_eng.ops;
    struct enc_group *g = (struct enc_group *)co->sig->grp;
    /* the clock only for the "finished" line */
    double t0 = enc_log_level() >= ENC_LOG_INFO ? enc_now_s() : 0;
    enc_status_t rv;

    if (g->rank < 0)
        return ENC_ERR_INVAL;
    /* the setup is part of the call that made g: one call, one count */
    if (co->sig->what != ENC_COLL_COMM_SETUP)
        enc_inject_check();
    co->ctx.check = enc_callsig_check(co->sig);
    if (ops && ops->begin)
        ops->begin(enc_eng.ops_arg, co);
    for (;;) {
        co->ctx.seq = frame_seq(g);
        co->epoch = enc_eng.epoch;
        if ((rv = run_once(co, g)) == ENC_OK)
            break;
        enc_coll_recover_or_fail(co, rv);
    }
    if (!co->replayed)
        g->live_epoch = enc_eng.epoch;
    if (ops && ops->group_record &&
        (rv = ops->group_record(enc_eng.ops_arg, co, g->cid, g->seq)) != ENC_OK)
        enc_coll_recover_or_fail(co, rv);
    g->seq++;
    enc_coll_log_finished(co, t0, co->replayed);
    if (ops && ops->after)
        ops->after(enc_eng.ops_arg, co);
    return ENC_OK;
}
