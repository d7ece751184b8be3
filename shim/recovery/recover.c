/*
 * recover.c - what recovery makes of a regroup.
 *
 * After a failure the engine regroups with the tracker (engine/layer.h:
 * links dropped, progress reported, new world adopted).  RESUME carries
 * every rank's progress: whoever is behind the most advanced rank is
 * answered from the log up to that point (replay_until); then everyone runs
 * the next collective together.
 */
#include "enc.h"

#include "engine/layer.h"
#include "proto/msgs.h"
#include "recovery/ops.h"
#include "recovery/recover.h"

enc_status_t enc_recovery_apply_resume(const struct enc_msg_resume *r)
{
    uint64_t max = 0, min = UINT64_MAX;

    if ((int)r->size != enc_engine_size())
        return ENC_OK;
    for (int i = 0; i < enc_engine_size(); i++) {
        enc_rec.peer_completed[i] = r->completed[i];
        max = ENC_MAX(max, r->completed[i]);
        min = ENC_MIN(min, r->completed[i]);
    }
    enc_rec.replay_until = max;
    ENC_INFO("recover", "epoch %u: ranks completed %llu..%llu collectives; this rank %llu",
             enc_engine_epoch(), (unsigned long long)min, (unsigned long long)max,
             (unsigned long long)enc_engine_seq());
    return ENC_OK;
}

enc_status_t enc_recover(void)
{
    struct enc_msg_resume r;
    double t0 = enc_now_s();
    enc_status_t rv;

    rv = enc_engine_regroup(&r);
    if (rv == ENC_OK)
        rv = enc_recovery_apply_resume(&r);
    enc_msg_resume_free(&r);
    if (rv != ENC_OK)
        return rv;
    enc_rec.recovery_s += enc_now_s() - t0;
    ENC_INFO("recover", "resumed in epoch %u after %.3f s", enc_engine_epoch(), enc_now_s() - t0);
    return ENC_OK;
}
