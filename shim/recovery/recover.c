/*
 * recover.c - the rank side of the recovery handshake with the tracker.
 *
 * After a failure every rank drops all its data links (a half-sent message
 * must never be read as data), tells the tracker how many collectives it
 * completed, and waits for the new world.  RESUME carries every rank's
 * progress: whoever is behind the most advanced rank is answered from the
 * log up to that point (replay_until); then everyone runs the next
 * collective together.
 */
#include "enc.h"

#include <stdlib.h>

#include "engine/state.h"
#include "recovery/recovery.h"

static uint64_t recovery_deadline(void)
{
    return enc_deadline_ms(enc_tunable_ll(ENC_TUNE_REGISTER_TIMEOUT_MS) +
                           2 * enc_tunable_ll(ENC_TUNE_HEARTBEAT_TIMEOUT_MS));
}

static void apply_resume(void)
{
    struct enc_msg_resume *r = &enc_eng.pending_resume;
    uint64_t max = 0, min = UINT64_MAX;

    if (!enc_eng.have_resume || (int)r->size != enc_eng.size)
        return;
    for (int i = 0; i < enc_eng.size; i++) {
        enc_eng.peer_completed[i] = r->completed[i];
        max = ENC_MAX(max, r->completed[i]);
        min = ENC_MIN(min, r->completed[i]);
    }
    enc_eng.replay_until = max;
    enc_msg_resume_free(r);
    enc_eng.have_resume = 0;
    ENC_INFO("recover", "epoch %u: ranks completed %llu..%llu collectives; this rank %llu",
             enc_eng.epoch, (unsigned long long)min, (unsigned long long)max,
             (unsigned long long)enc_eng.seq);
}

static int send_status(void)
{
    struct enc_msg_status st = {.epoch = enc_eng.latest_epoch, .completed = enc_eng.seq};

    return enc_tclient_send_status(enc_eng.tc, &st);
}

/* Status for the newest epoch, then its world; again on every new death. */
static int converge(uint64_t deadline, int first_needs_status)
{
    int rv;

    for (int status = first_needs_status;; status = 1) {
        int want_resume;

        if (status && (rv = send_status()) != ENC_OK)
            return rv;
        want_resume = enc_eng.have_world ? enc_eng.pending_world.epoch > 0
                                         : enc_eng.latest_epoch > 0;
        rv = enc_world_wait(want_resume, deadline);
        if (rv == ENC_OK && !want_resume && enc_eng.pending_world.epoch > 0)
            rv = enc_world_wait(1, deadline); /* joined a later epoch: RESUME follows */
        if (rv != ENC_ERR_EPOCH)
            break;
    }
    if (rv != ENC_OK)
        return rv;
    if ((rv = enc_world_adopt()) != ENC_OK)
        return rv;
    apply_resume();
    return ENC_OK;
}

int enc_recovery_join(void)
{
    return converge(recovery_deadline(), 0);
}

static int wait_for_notice(uint64_t deadline)
{
    while (enc_eng.latest_epoch <= enc_eng.epoch) {
        struct enc_tclient_event ev;
        int rv = enc_tclient_wait_event(enc_eng.tc, &ev, deadline);

        if (rv != ENC_OK) {
            ENC_ERROR("recover", "a link failed but the tracker announced no death in time");
            return rv < 0 && rv != ENC_ERR_TIMEOUT ? ENC_ERR_ABORTED : ENC_ERR_TIMEOUT;
        }
        enc_engine_handle_event(&ev);
    }
    return ENC_OK;
}

int enc_recover(void)
{
    uint64_t deadline = recovery_deadline();
    double t0 = enc_now_s();
    int rv;

    enc_links_close_all();
    if ((rv = wait_for_notice(deadline)) != ENC_OK)
        return rv;
    if ((rv = converge(deadline, 1)) != ENC_OK)
        return rv;
    enc_eng.recovery_s += enc_now_s() - t0;
    ENC_INFO("recover", "resumed in epoch %u after %.3f s", enc_eng.epoch, enc_now_s() - t0);
    return ENC_OK;
}
