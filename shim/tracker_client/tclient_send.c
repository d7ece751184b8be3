/*
 * tclient_send.c - what the rank sends on the control connection: one
 * frame at a time under the write lock, so the caller's messages and the
 * client thread's heartbeats never interleave (tclient_int.h).
 */
#include "enc.h"
#include "proto/frame.h"
#include "proto/msgs.h"
#include "tracker_client/tclient.h"
#include "tracker_client/tclient_int.h"

#include <pthread.h>

enc_status_t enc_tc_send_frame(struct enc_tclient *c, uint8_t type, const void *p, size_t len)
{
    struct enc_frame_hdr h = {.type = type, .src = (uint16_t)c->rank, .len = len};
    enc_status_t rv;

    h.epoch = __atomic_load_n(&c->epoch, __ATOMIC_RELAXED);
    pthread_mutex_lock(&c->wlock);
    rv = enc_frame_send(c->fd, &h, p, enc_deadline_ms(c->send_ms));
    pthread_mutex_unlock(&c->wlock);
    return rv;
}

enc_status_t enc_tclient_send_status(struct enc_tclient *c, const struct enc_msg_status *m)
{
    uint8_t buf[32];
    int n = enc_msg_status_encode(m, buf, sizeof(buf));

    return n < 0 ? n : enc_tc_send_frame(c, ENC_MSG_STATUS, buf, (size_t)n);
}

enc_status_t enc_tclient_send_abort(struct enc_tclient *c, const struct enc_msg_abort *m)
{
    uint8_t buf[32 + ENC_REASON_MAX];
    int n = enc_msg_abort_encode(m, buf, sizeof(buf));

    /* The tracker will end the job; its closing the connection is expected. */
    __atomic_store_n(&c->quiet, true, __ATOMIC_RELEASE);
    return n < 0 ? n : enc_tc_send_frame(c, ENC_MSG_ABORT, buf, (size_t)n);
}

enc_status_t enc_tclient_send_dropped(struct enc_tclient *c, const struct enc_msg_dropped *m)
{
    uint8_t buf[32];
    int n = enc_msg_dropped_encode(m, buf, sizeof(buf));

    return n < 0 ? n : enc_tc_send_frame(c, ENC_MSG_DROPPED, buf, (size_t)n);
}

enc_status_t enc_tclient_send_nondet(struct enc_tclient *c)
{
    return enc_tc_send_frame(c, ENC_MSG_NONDET, NULL, 0);
}

enc_status_t enc_tclient_send_finalize(struct enc_tclient *c, const struct enc_msg_stats *m)
{
    uint8_t buf[80];
    int n = enc_msg_stats_encode(m, buf, sizeof(buf));

    __atomic_store_n(&c->quiet, true, __ATOMIC_RELEASE);
    return n < 0 ? n : enc_tc_send_frame(c, ENC_MSG_FINALIZE, buf, (size_t)n);
}
