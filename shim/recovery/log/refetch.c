/*
 * refetch.c - a rank restored from a snapshot fetches again the results
 * it holds whose buffers the fork wiped (recovery/log/bufpool.h).
 *
 * The image left them out so that the rank, reusing those buffers, pays no
 * copy-on-write fault; their other holders still have them.  Fetched right
 * after the rejoin, they are this rank's share again before a second
 * failure can need them (a rank restored from an older point asks for
 * every result after it).  A result no other holder has any more was
 * released by all of them (every rank's snapshot is past it; this image
 * learns the new floor only later): it is not needed.  Any other failure
 * leaves it out with a debug line; a replay that needs it reports it.
 */
#include "enc.h"

#include "engine/engine.h"
#include "engine/layer.h"
#include "recovery/log/logreq.h"
#include "recovery/log/log.h"
#include "recovery/recovery.h"

/* From the first candidate that has it (replay's lookup, logclient.c). */
static enc_status_t fetch_one(uint64_t seq, const struct enc_sigrec *want, void *buf)
{
    struct enc_logreq q = {.what = ENC_LOGREQ_SEQ, .seq = seq};
    struct enc_sigrec got;
    enc_status_t rv = enc_log_fetch_any(&q, want->kind == ENC_COLL_BCAST ? want->root : -1,
                                        &got, buf, want->len);

    return rv == ENC_OK && !enc_sigrec_same_call(&got, want) ? ENC_ERR_DIVERGED : rv;
}

void enc_refetch_forgotten(void)
{
    struct enc_sigrec sig;
    /* results below the floor are released everywhere: nobody needs them */
    uint64_t seq = enc_engine_log_floor(), got = 0, released = 0, missed = 0, bytes = 0;
    double t0 = enc_now_s();
    enc_status_t rv = ENC_OK;

    while (rv != ENC_ERR_EPOCH && enc_reclog_forgotten(seq, &seq, &sig)) {
        size_t cap = 0;
        void *buf = enc_reclog_refill_buf(seq, &cap);

        rv = buf != NULL ? fetch_one(seq, &sig, buf) : ENC_ERR_NOMEM;
        enc_reclog_refilled(seq, buf, cap, rv == ENC_OK);
        if (rv == ENC_OK) {
            got++;
            bytes += sig.len;
        } else if (rv == ENC_ERR_LOST) {
            released++;
        } else {
            missed++;
            ENC_DEBUG("snapshot", "held result of seq %llu not fetched again: %s",
                      (unsigned long long)seq, encore_strerror(rv));
        }
        seq++;
    }
    if (got + released + missed > 0)
        ENC_INFO("snapshot", "held results the snapshot left out: %llu fetched again (%.1f MiB) "
                 "in %.3f s, %llu released everywhere, %llu not fetched",
                 (unsigned long long)got, bytes / 1048576.0, enc_now_s() - t0,
                 (unsigned long long)released, (unsigned long long)missed);
}
