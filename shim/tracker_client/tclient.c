/*
 * tclient.c - the rank side of the control connection (see tclient.h).
 *
 * One background thread reads frames and sends heartbeats, so a rank that
 * computes for minutes between collectives still looks alive, and a death
 * notice is queued (and the event fd made readable) even while the engine
 * is busy.  The caller's sends share the socket under a mutex.
 */
#include "enc.h"
#include "net/sock.h"
#include "proto/auth.h"
#include "proto/detmsg.h"
#include "proto/frame.h"
#include "proto/msgs.h"
#include "tracker_client/tclient.h"
#include "core/tmpdir.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

/* A lost tracker is mostly encore-run ending (killed): its job directory
 * goes with the last rank once encore-run is gone (core/tmpdir.h). */
#define TRACKER_LOST_OWNER_WAIT_MS 500

struct tc_node {
    struct tc_node *next;
    struct enc_tclient_event ev;
};

struct enc_tclient {
    int fd;
    int efd;                    /* semaphore eventfd: one count per queued event */
    int stop_fd;                /* tells the thread to finish */
    pthread_t thread;
    int thread_started;
    int tid;                    /* the thread's gettid(), 0 until it runs */
    pthread_mutex_t wlock;      /* serialises writes on fd */
    pthread_mutex_t qlock;
    struct tc_node *head, *tail;
    enc_status_t lost;          /* status once the connection is gone */
    uint32_t rank;
    uint32_t epoch;             /* latest epoch heard of, for frame headers */
    uint64_t completed;
    bool quiet;                 /* finalized or closing: loss is expected */
    int64_t hb_ms;
    int64_t send_ms;
    struct enc_frame_reader rd;
    /* determinant replication (detmsg.h), answered on the thread */
    pthread_mutex_t det_mu;
    pthread_cond_t det_cv;
    uint64_t det_acked;         /* highest version encore-run acked */
    uint8_t *det_copy;          /* DET_DATA received so far */
    uint64_t det_have, det_total;
    bool det_fetching, det_fetched;
};

static bool exit_on_lost = true;

static void det_cond_init(pthread_cond_t *cv);

void enc_tclient_set_exit_on_lost(bool on) { exit_on_lost = on; }

static enc_status_t send_frame(struct enc_tclient *c, uint8_t type, const void *p, size_t len)
{
    struct enc_frame_hdr h = {.type = type, .src = (uint16_t)c->rank, .len = len};
    enc_status_t rv;

    h.epoch = __atomic_load_n(&c->epoch, __ATOMIC_RELAXED);
    pthread_mutex_lock(&c->wlock);
    rv = enc_frame_send(c->fd, &h, p, enc_deadline_ms(c->send_ms));
    pthread_mutex_unlock(&c->wlock);
    return rv;
}

static void signal_fd(int fd)
{
    uint64_t one = 1;
    ssize_t n = write(fd, &one, sizeof(one));
    (void)n;
}

static void enqueue(struct enc_tclient *c, struct tc_node *n)
{
    pthread_mutex_lock(&c->qlock);
    if (c->tail != NULL)
        c->tail->next = n;
    else
        c->head = n;
    c->tail = n;
    pthread_mutex_unlock(&c->qlock);
    signal_fd(c->efd);
}

static enc_status_t decode_event(struct enc_tclient *c, struct tc_node *n)
{
    const void *p = c->rd.payload;
    size_t len = (size_t)c->rd.hdr.len;
    uint32_t epoch = 0;
    enc_status_t rv;

    n->ev.type = c->rd.hdr.type;
    switch (n->ev.type) {
    case ENC_MSG_EVENT:
        rv = enc_msg_event_decode(&n->ev.u.ev, p, len);
        epoch = n->ev.u.ev.kind == ENC_EV_DEAD ? n->ev.u.ev.epoch : 0;
        break;
    case ENC_MSG_WORLD:
        rv = enc_msg_world_decode(&n->ev.u.world, p, len);
        epoch = n->ev.u.world.epoch;
        break;
    case ENC_MSG_RESUME: rv = enc_msg_resume_decode(&n->ev.u.resume, p, len); break;
    default: rv = ENC_ERR_PROTO; break;
    }
    if (rv == ENC_OK && epoch > c->epoch)
        __atomic_store_n(&c->epoch, epoch, __ATOMIC_RELAXED);
    return rv;
}

/* A DET_ACK or DET_DATA: the caller waiting in enc_tclient_det_* wakes. */
static enc_status_t det_frame(struct enc_tclient *c)
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

/* ENC_OK once the socket has nothing more, or the status that ends the
 * connection. */
static enc_status_t read_frames(struct enc_tclient *c)
{
    struct tc_node *n;
    enc_status_t rv, got;

    while ((got = enc_frame_reader_progress(&c->rd, c->fd)) == ENC_OK) {
        if (c->rd.hdr.type == ENC_MSG_DET_ACK || c->rd.hdr.type == ENC_MSG_DET_DATA) {
            rv = det_frame(c);
            enc_frame_reader_reset(&c->rd);
            if (rv != ENC_OK)
                return rv;
            continue;
        }
        if ((n = calloc(1, sizeof(*n))) == NULL)
            return ENC_ERR_NOMEM;
        rv = decode_event(c, n);
        enc_frame_reader_reset(&c->rd);
        if (rv != ENC_OK) {
            free(n);
            return rv;
        }
        enqueue(c, n);
    }
    return got < 0 ? (enc_status_t)got : ENC_OK;
}

/* The tracker is gone: nothing this rank does can be coordinated any more. */
static void lost(struct enc_tclient *c, enc_status_t rv)
{
    if (__atomic_load_n(&c->quiet, __ATOMIC_ACQUIRE)) {
        ENC_DEBUG("tracker", "tracker connection closed after finalize: %s",
                  encore_strerror(rv));
        return;
    }
    if (exit_on_lost) {
        ENC_ERROR("tracker", "tracker lost: %s; exiting", encore_strerror(rv));
        enc_rank_tmpdir_remove_wait(TRACKER_LOST_OWNER_WAIT_MS);
        _exit(ENC_EXIT_TRACKER_LOST);
    }
    ENC_WARN("tracker", "tracker lost: %s", encore_strerror(rv));
    __atomic_store_n(&c->lost, rv, __ATOMIC_RELEASE);
    signal_fd(c->efd);
    pthread_mutex_lock(&c->det_mu);
    pthread_cond_broadcast(&c->det_cv);
    pthread_mutex_unlock(&c->det_mu);
}

static enc_status_t heartbeat(struct enc_tclient *c)
{
    struct enc_msg_heartbeat m = {.completed = __atomic_load_n(&c->completed,
                                                               __ATOMIC_RELAXED)};
    uint8_t buf[16];
    int n = enc_msg_heartbeat_encode(&m, buf, sizeof(buf));

    return n < 0 ? n : send_frame(c, ENC_MSG_HEARTBEAT, buf, (size_t)n);
}

static void *thread_main(void *arg)
{
    struct enc_tclient *c = arg;
    uint64_t next_hb = enc_deadline_ms(c->hb_ms);
    enc_status_t rv = ENC_OK;

    __atomic_store_n(&c->tid, (int)gettid(), __ATOMIC_RELEASE);
    while (rv >= 0) {
        struct pollfd pf[2] = {{.fd = c->fd, .events = POLLIN},
                               {.fd = c->stop_fd, .events = POLLIN}};

        if (poll(pf, 2, enc_ms_left(next_hb)) < 0 && errno != EINTR)
            rv = ENC_ERR_SYS;
        else if (pf[1].revents)
            return NULL;
        else if (pf[0].revents && (rv = read_frames(c)) >= 0 &&
                 (pf[0].revents & (POLLERR | POLLNVAL)))
            rv = ENC_ERR_PEER_RESET;
        if (rv >= 0 && enc_ms_left(next_hb) == 0) {
            rv = heartbeat(c);
            next_hb = enc_deadline_ms(c->hb_ms);
        }
    }
    lost(c, rv);
    return NULL;
}

static enc_status_t connect_register(struct enc_tclient *c, const char *hostport,
                                     const struct enc_secret *s,
                                     const struct enc_msg_register *reg, uint64_t deadline)
{
    struct enc_auth_id id = {.role = ENC_ROLE_CONTROL, .rank = reg->rank,
                             .incarnation = reg->incarnation};
    struct enc_frame_hdr h = {.type = ENC_MSG_REGISTER, .src = (uint16_t)reg->rank};
    char host[256];
    uint8_t buf[512];
    uint16_t port;
    enc_status_t rv;
    int n;

    if ((rv = enc_parse_hostport(hostport, host, sizeof(host), &port)) != ENC_OK)
        return rv;
    if ((rv = enc_sock_connect(host, port, deadline, &c->fd)) != ENC_OK)
        return rv;
    if ((rv = enc_auth_client(c->fd, s, &id, deadline)) != ENC_OK)
        return rv;
    if ((n = enc_msg_register_encode(reg, buf, sizeof(buf))) < 0)
        return n;
    h.len = (uint64_t)n;
    return enc_frame_send(c->fd, &h, buf, deadline);
}

static struct enc_tclient *tc_alloc(const struct enc_msg_register *reg)
{
    struct enc_tclient *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return NULL;
    c->fd = -1;
    c->rank = reg->rank;
    c->hb_ms = ENC_MAX(enc_tunable_ll(ENC_TUNE_HEARTBEAT_MS), 1);
    c->send_ms = ENC_MAX(enc_tunable_ll(ENC_TUNE_HEARTBEAT_TIMEOUT_MS), 100);
    pthread_mutex_init(&c->wlock, NULL);
    pthread_mutex_init(&c->qlock, NULL);
    pthread_mutex_init(&c->det_mu, NULL);
    det_cond_init(&c->det_cv);
    enc_frame_reader_init(&c->rd, ENC_CTRL_MAX_PAYLOAD);
    c->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE);
    c->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    return c;
}

enc_status_t enc_tclient_open(struct enc_tclient **out, const char *tracker_hostport,
                              const struct enc_secret *s, const struct enc_msg_register *reg,
                              uint64_t deadline)
{
    struct enc_tclient *c = tc_alloc(reg);
    enc_status_t rv;

    if (c == NULL)
        return ENC_ERR_NOMEM;
    if (c->efd < 0 || c->stop_fd < 0) {
        ENC_ERROR("tracker", "eventfd: %m");
        rv = ENC_ERR_SYS;
        goto fail;
    }
    if ((rv = connect_register(c, tracker_hostport, s, reg, deadline)) != ENC_OK) {
        ENC_ERROR("tracker", "cannot join the tracker at %s: %s", tracker_hostport,
                  encore_strerror(rv));
        goto fail;
    }
    if (pthread_create(&c->thread, NULL, thread_main, c) != 0) {
        ENC_ERROR("tracker", "cannot start the tracker thread");
        rv = ENC_ERR_SYS;
        goto fail;
    }
    c->thread_started = 1;
    *out = c;
    return ENC_OK;
fail:
    enc_tclient_close(c);
    return rv;
}

int enc_tclient_event_fd(const struct enc_tclient *c) { return c->efd; }

void enc_tclient_set_progress(struct enc_tclient *c, uint64_t completed)
{
    __atomic_store_n(&c->completed, completed, __ATOMIC_RELAXED);
}

enc_status_t enc_tclient_poll_event(struct enc_tclient *c, struct enc_tclient_event *ev)
{
    struct tc_node *n;
    uint64_t v;

    pthread_mutex_lock(&c->qlock);
    if ((n = c->head) != NULL && (c->head = n->next) == NULL)
        c->tail = NULL;
    pthread_mutex_unlock(&c->qlock);
    if (n == NULL) {
        enc_status_t rv = __atomic_load_n(&c->lost, __ATOMIC_ACQUIRE);
        return rv < 0 ? rv : ENC_INPROGRESS;
    }
    ssize_t r = read(c->efd, &v, sizeof(v)); /* one count per event */
    (void)r;
    *ev = n->ev;
    free(n);
    return ENC_OK;
}

enc_status_t enc_tclient_wait_event(struct enc_tclient *c, struct enc_tclient_event *ev,
                                    uint64_t deadline)
{
    struct pollfd pf = {.fd = c->efd, .events = POLLIN};
    enc_status_t rv;

    while ((rv = enc_tclient_poll_event(c, ev)) == ENC_INPROGRESS) {
        if (enc_ms_left(deadline) == 0)
            return ENC_ERR_TIMEOUT;
        if (poll(&pf, 1, enc_ms_left(deadline)) < 0 && errno != EINTR) {
            ENC_ERROR("tracker", "poll: %m");
            return ENC_ERR_SYS;
        }
    }
    return rv;
}

enc_status_t enc_tclient_send_status(struct enc_tclient *c, const struct enc_msg_status *m)
{
    uint8_t buf[32];
    int n = enc_msg_status_encode(m, buf, sizeof(buf));

    return n < 0 ? n : send_frame(c, ENC_MSG_STATUS, buf, (size_t)n);
}

enc_status_t enc_tclient_send_abort(struct enc_tclient *c, const struct enc_msg_abort *m)
{
    uint8_t buf[32 + ENC_REASON_MAX];
    int n = enc_msg_abort_encode(m, buf, sizeof(buf));

    /* The tracker will end the job; its closing the connection is expected. */
    __atomic_store_n(&c->quiet, true, __ATOMIC_RELEASE);
    return n < 0 ? n : send_frame(c, ENC_MSG_ABORT, buf, (size_t)n);
}

enc_status_t enc_tclient_send_dropped(struct enc_tclient *c, const struct enc_msg_dropped *m)
{
    uint8_t buf[32];
    int n = enc_msg_dropped_encode(m, buf, sizeof(buf));

    return n < 0 ? n : send_frame(c, ENC_MSG_DROPPED, buf, (size_t)n);
}

enc_status_t enc_tclient_send_nondet(struct enc_tclient *c)
{
    return send_frame(c, ENC_MSG_NONDET, NULL, 0);
}

/* A monotonic-clock condition variable: waits are bounded by deadlines
 * (enc_deadline_ms, CLOCK_MONOTONIC). */
static void det_cond_init(pthread_cond_t *cv)
{
    pthread_condattr_t a;

    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &a);
    pthread_condattr_destroy(&a);
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

        rv = len < 0 ? len : send_frame(c, ENC_MSG_DET_PUT, buf, (size_t)len);
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
    if ((rv = send_frame(c, ENC_MSG_DET_GET, NULL, 0)) != ENC_OK)
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

enc_status_t enc_tclient_send_finalize(struct enc_tclient *c, const struct enc_msg_stats *m)
{
    uint8_t buf[80];
    int n = enc_msg_stats_encode(m, buf, sizeof(buf));

    __atomic_store_n(&c->quiet, true, __ATOMIC_RELEASE);
    return n < 0 ? n : send_frame(c, ENC_MSG_FINALIZE, buf, (size_t)n);
}

static void free_event(struct enc_tclient_event *ev)
{
    if (ev->type == ENC_MSG_WORLD)
        enc_msg_world_free(&ev->u.world);
    else if (ev->type == ENC_MSG_RESUME)
        enc_msg_resume_free(&ev->u.resume);
}

void enc_tclient_close(struct enc_tclient *c)
{
    if (c == NULL)
        return;
    __atomic_store_n(&c->quiet, true, __ATOMIC_RELEASE);
    if (c->thread_started) {
        signal_fd(c->stop_fd);
        pthread_join(c->thread, NULL);
    }
    while (c->head != NULL) {
        struct tc_node *n = c->head;

        c->head = n->next;
        free_event(&n->ev);
        free(n);
    }
    enc_sock_close(&c->fd);
    if (c->efd >= 0)
        close(c->efd);
    if (c->stop_fd >= 0)
        close(c->stop_fd);
    enc_frame_reader_fini(&c->rd);
    pthread_mutex_destroy(&c->wlock);
    pthread_mutex_destroy(&c->qlock);
    pthread_mutex_destroy(&c->det_mu);
    pthread_cond_destroy(&c->det_cv);
    free(c->det_copy);
    free(c);
}

void enc_tclient_forget(struct enc_tclient *c)
{
    if (c == NULL)
        return;
    c->quiet = true;
    enc_sock_close(&c->fd);
    enc_sock_close(&c->efd);
    enc_sock_close(&c->stop_fd);
}

int enc_tclient_thread_id(const struct enc_tclient *c)
{
    return c ? __atomic_load_n(&c->tid, __ATOMIC_ACQUIRE) : 0;
}
