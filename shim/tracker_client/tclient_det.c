/*
 * tclient_det.c - determinant copies on the control connection (tclient.h,
 * proto/detmsg.h): the caller's thread ships and waits; the client's
 * thread takes DET_ACK and DET_DATA off the socket and wakes it.
 */
#include "enc.h"
#include "proto/detmsg.h"
#include "proto/frame.h"
#include "tracker_client/tclient.h"
#include "tracker_client/tclient_det.h"
#include "tracker_client/tclient_int.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

/* det_cv runs on the monotonic clock: waits are bounded by deadlines
 * (enc_deadline_ms, CLOCK_MONOTONIC). */
void enc_tc_det_init(struct enc_tclient *c)
{
    pthread_condattr_t a;

    pthread_mutex_init(&c->det_mu, NULL);
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&c->det_cv, &a);
    pthread_condattr_destroy(&a);
}

void enc_tc_det_fini(struct enc_tclient *c)
{
    pthread_mutex_destroy(&c->det_mu);
    pthread_cond_destroy(&c->det_cv);
    free(c->det_copy);
}

void enc_tc_det_wake(struct enc_tclient *c)
{
    pthread_mutex_lock(&c->det_mu);
    pthread_cond_broadcast(&c->det_cv);
    pthread_mutex_unlock(&c->det_mu);
}

/* Waits on det_cv (det_mu held) until deadline; false at the deadline or
 * when the connection is lost. */
static bool det_wait(struct enc_tclient *c, uint64_t deadline)
{
    struct timespec ts = {.tv_sec = (time_t)(deadline / 1000000000ull),
                          .tv_nsec = (long)(deadline % 1000000000ull)};

    if (__atomic_load_n(&c->lost, __ATOMIC_ACQUIRE) < 0 || enc_ms_left(deadline) == 0)
        return false;
    pthread_cond_timedwait(&c->det_cv, &c->det_mu, &ts);
    return true;
}

bool enc_tclient_tracker_local(const struct enc_tclient *c)
{
    struct sockaddr_storage a, b;
    socklen_t la = sizeof(a), lb = sizeof(b);

    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    if (getsockname(c->fd, (struct sockaddr *)&a, &la) != 0 ||
        getpeername(c->fd, (struct sockaddr *)&b, &lb) != 0 || la != lb)
        return false;
    if (a.ss_family == AF_INET)
        return ((struct sockaddr_in *)&a)->sin_addr.s_addr ==
               ((struct sockaddr_in *)&b)->sin_addr.s_addr;
    if (a.ss_family == AF_INET6)
        return memcmp(&((struct sockaddr_in6 *)&a)->sin6_addr,
                      &((struct sockaddr_in6 *)&b)->sin6_addr, sizeof(struct in6_addr)) == 0;
    return a.ss_family == AF_UNIX;
}

enc_status_t enc_tclient_det_put(struct enc_tclient *c, uint64_t version, uint64_t off,
                                 const void *bytes, size_t n)
{
    uint8_t *buf = malloc(ENC_DETMSG_HDR + ENC_DETMSG_CHUNK);
    enc_status_t rv = buf == NULL ? ENC_ERR_NOMEM : ENC_OK;

    if (bytes == NULL) /* nothing but the version */
        bytes = buf;
    /* in chunks; only the last carries the version (it acks them all) */
    for (size_t done = 0; rv == ENC_OK && (done < n || n == 0); ) {
        size_t k = ENC_MIN(n - done, ENC_DETMSG_CHUNK);
        struct enc_msg_det m = {.word = done + k == n ? version : 0, .off = off + done,
                                .bytes = (const uint8_t *)bytes + done, .n = (uint32_t)k};
        int len = enc_msg_det_encode(&m, buf, ENC_DETMSG_HDR + ENC_DETMSG_CHUNK);

        rv = len < 0 ? len : enc_tc_send_frame(c, ENC_MSG_DET_PUT, buf, (size_t)len);
        done += k;
        if (n == 0)
            break;
    }
    free(buf);
    return rv;
}

enc_status_t enc_tclient_det_wait_ack(struct enc_tclient *c, uint64_t version, uint64_t deadline)
{
    bool acked;

    pthread_mutex_lock(&c->det_mu);
    while (!(acked = c->det_acked >= version) && det_wait(c, deadline))
        ;
    pthread_mutex_unlock(&c->det_mu);
    if (acked)
        return ENC_OK;
    return __atomic_load_n(&c->lost, __ATOMIC_ACQUIRE) < 0 ? ENC_ERR_LOST : ENC_ERR_TIMEOUT;
}

uint64_t enc_tclient_det_acked(struct enc_tclient *c)
{
    uint64_t v;

    pthread_mutex_lock(&c->det_mu);
    v = c->det_acked;
    pthread_mutex_unlock(&c->det_mu);
    return v;
}

enc_status_t enc_tclient_det_fetch(struct enc_tclient *c, uint64_t deadline, uint8_t **bytes,
                                   size_t *n)
{
    enc_status_t rv;
    bool done;

    pthread_mutex_lock(&c->det_mu);
    c->det_fetching = true;
    c->det_fetched = false;
    c->det_have = c->det_total = 0;
    pthread_mutex_unlock(&c->det_mu);
    if ((rv = enc_tc_send_frame(c, ENC_MSG_DET_GET, NULL, 0)) != ENC_OK)
        return rv;
    pthread_mutex_lock(&c->det_mu);
    while (!(done = c->det_fetched) && det_wait(c, deadline))
        ;
    c->det_fetching = false;
    *n = done ? (size_t)c->det_total : 0;
    *bytes = done && *n > 0 ? c->det_copy : NULL;
    if (*bytes != NULL)
        c->det_copy = NULL; /* the caller's now */
    pthread_mutex_unlock(&c->det_mu);
    if (done)
        return ENC_OK;
    return __atomic_load_n(&c->lost, __ATOMIC_ACQUIRE) < 0 ? ENC_ERR_LOST : ENC_ERR_TIMEOUT;
}

/* A DET_ACK or DET_DATA: the caller waiting in enc_tclient_det_* wakes. */
enc_status_t enc_tc_det_frame(struct enc_tclient *c)
{
    const void *p = c->rd.payload;
    size_t len = (size_t)c->rd.hdr.len;
    struct enc_msg_det m;
    uint64_t v;
    enc_status_t rv = ENC_OK;

    pthread_mutex_lock(&c->det_mu);
    if (c->rd.hdr.type == ENC_MSG_DET_ACK) {
        if ((rv = enc_msg_det_ack_decode(&v, p, len)) == ENC_OK && v > c->det_acked)
            c->det_acked = v;
    } else if (enc_msg_det_decode(&m, p, len) != ENC_OK || !c->det_fetching ||
               m.off != c->det_have || m.word > ENC_DETMSG_MAX_BYTES ||
               m.off + m.n > m.word) {
        rv = ENC_ERR_PROTO; /* chunks come in order, within the length they name */
    } else if (m.n > 0 || m.word == 0) {
        uint8_t *b = m.off == 0 ? NULL : c->det_copy;

        if (m.off == 0 && m.word > 0) {
            free(c->det_copy);
            b = malloc((size_t)m.word);
        }
        if (m.word > 0 && b == NULL) {
            rv = ENC_ERR_NOMEM;
        } else {
            if (m.n > 0)
                memcpy(b + m.off, m.bytes, m.n);
            c->det_copy = b;
            c->det_total = m.word;
            c->det_have = m.off + m.n;
            c->det_fetched = c->det_have == c->det_total;
        }
    }
    pthread_cond_broadcast(&c->det_cv);
    pthread_mutex_unlock(&c->det_mu);
    return rv;
}
