/*
 * regroup.c - agreeing on the world with the tracker: at MPI_Init, and
 * again after every death.
 *
 * After a failure every rank drops all its data links (a half-sent message
 * must never be read as data), tells the tracker how many collectives it
 * completed, and waits for the new world.  RESUME carries every rank's
 * progress; the engine hands it to the layer above (engine/layer.h), which
 * decides what to replay.
 */
#include "enc.h"

#include <string.h>

#include "engine/layer.h"
#include "engine/state.h"
#include "proto/msgs.h"

static uint64_t regroup_deadline(void)
{
    return enc_deadline_ms(enc_tunable_ll(ENC_TUNE_REGISTER_TIMEOUT_MS) +
                           2 * enc_tunable_ll(ENC_TUNE_HEARTBEAT_TIMEOUT_MS));
}

static enc_status_t send_status(void)
{
    struct enc_msg_status st = {.epoch = enc_eng.latest_epoch, .completed = enc_eng.seq};

    return enc_tclient_send_status(enc_eng.tc, &st);
}

/* Status for the newest epoch, then its world; again on every new death. */
static enc_status_t converge(uint64_t deadline, bool first_needs_status)
{
    enc_status_t rv;

    for (bool status = first_needs_status;; status = true) {
        bool want_resume;

        if (status && (rv = send_status()) != ENC_OK)
            return rv;
        want_resume = enc_eng.have_world ? enc_eng.pending_world.epoch > 0
                                         : enc_eng.latest_epoch > 0;
        rv = enc_world_wait(want_resume, deadline);
        if (rv == ENC_OK && !want_resume && enc_eng.pending_world.epoch > 0)
            rv = enc_world_wait(true, deadline); /* joined a later epoch: RESUME follows */
        if (rv != ENC_ERR_EPOCH)
            break;
    }
    if (rv != ENC_OK)
        return rv;
    return enc_world_adopt();
}

/* Moves the pending RESUME of this world to *out (size 0 when none). */
static void take_resume(struct enc_msg_resume *out)
{
    memset(out, 0, sizeof(*out));
    if (!enc_eng.have_resume)
        return;
    if ((int)enc_eng.pending_resume.size == enc_eng.size)
        *out = enc_eng.pending_resume;
    else
        enc_msg_resume_free(&enc_eng.pending_resume);
    enc_eng.have_resume = false;
}

enc_status_t enc_engine_join_world(void)
{
    const struct enc_engine_ops *ops = enc_eng.ops;
    struct enc_msg_resume r;
    enc_status_t rv;

    if ((rv = converge(regroup_deadline(), false)) != ENC_OK)
        return rv;
    take_resume(&r);
    if (ops && ops->join)
        rv = ops->join(enc_eng.ops_arg, r.size ? &r : NULL);
    enc_msg_resume_free(&r);
    return rv;
}

static enc_status_t wait_for_notice(uint64_t deadline)
{
    while (enc_eng.latest_epoch <= enc_eng.epoch) {
        struct enc_tclient_event ev;
        enc_status_t rv = enc_tclient_wait_event(enc_eng.tc, &ev, deadline);

        if (rv != ENC_OK) {
            ENC_ERROR("recover", "a link failed but the tracker announced no death in time");
            return rv < 0 && rv != ENC_ERR_TIMEOUT ? ENC_ERR_ABORTED : ENC_ERR_TIMEOUT;
        }
        enc_engine_handle_event(&ev);
    }
    return ENC_OK;
}

enc_status_t enc_engine_regroup(struct enc_msg_resume *resume)
{
    uint64_t deadline = regroup_deadline();
    enc_status_t rv;

    memset(resume, 0, sizeof(*resume));
    enc_links_close_all();
    if ((rv = wait_for_notice(deadline)) != ENC_OK ||
        (rv = converge(deadline, true)) != ENC_OK)
        return rv;
    take_resume(resume);
    return ENC_OK;
}
