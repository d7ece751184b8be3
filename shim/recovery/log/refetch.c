/*
 * refetch.c - a rank restored from a snapshot fetches again the entries
 * it holds whose buffers the fork wiped (bufpool.h, refetch.h).
 *
 * The image left them out so that the rank, reusing those buffers, pays no
 * copy-on-write fault; their other holders still have them.  Fetched right
 * after the rejoin, they are this rank's share again before a second
 * failure can need them (a rank restored from an older point asks for
 * every entry after it).  An entry no other holder has any more was
 * released by all of them (every member's snapshot is past it; this image
 * learns the new floor only later): it is not needed.  Any other failure
 * leaves it out with a debug line; a replay that needs it reports it.
 */
#include "enc.h"

#include "engine/engine.h"
#include "engine/layer.h"
#include "recovery/log/fetch.h"
#include "recovery/log/log.h"
#include "recovery/log/logreq.h"
#include "recovery/log/refetch.h"

/* From the first of its other holders that has it. */
static enc_status_t fetch_one(const struct enc_log_forgotten *f, void *buf)
{
    struct enc_logreq q = {.what = ENC_LOGREQ_SEQ, .seq = f->seq, .cid = f->cid};
    struct enc_log_ask a = {.comm = f->comm, .me = f->me, .root = f->root};
    struct enc_sigrec got;
    enc_status_t rv = enc_log_fetch_any(&a, &q, &got, buf, f->sig.len);

    return rv == ENC_OK && !enc_sigrec_same_call(&got, &f->sig) ? ENC_ERR_DIVERGED : rv;
}

void enc_refetch_forgotten(void)
{
    struct enc_log_cursor at = {0};
    struct enc_log_forgotten f;
    uint64_t got = 0, released = 0, missed = 0, bytes = 0;
    double t0 = enc_now_s();
    enc_status_t rv = ENC_OK;

    while (rv != ENC_ERR_EPOCH && enc_log_next_forgotten(&at, &f)) {
        size_t cap = 0;
        void *buf = enc_log_refill_buf(f.cid, f.seq, &cap);

        rv = buf != NULL ? fetch_one(&f, buf) : ENC_ERR_NOMEM;
        enc_log_refilled(f.cid, f.seq, buf, cap, rv == ENC_OK);
        if (rv == ENC_OK) {
            got++;
            bytes += f.sig.len;
        } else if (rv == ENC_ERR_LOST || rv == ENC_ERR_NOT_FOUND) {
            released++;
        } else {
            missed++;
            ENC_DEBUG("snapshot", "held result %llu of communicator %016llx not fetched "
                      "again: %s", (unsigned long long)f.seq, (unsigned long long)f.cid,
                      encore_strerror(rv));
        }
    }
    if (got + released + missed > 0)
        ENC_INFO("snapshot", "held results the snapshot left out: %llu fetched again (%.1f MiB) "
                 "in %.3f s, %llu released everywhere, %llu not fetched",
                 (unsigned long long)got, bytes / 1048576.0, enc_now_s() - t0,
                 (unsigned long long)released, (unsigned long long)missed);
}
