/*
 * tclient.c - the rank side of the control connection (see tclient.h).
 *
 * One background thread reads frames and sends heartbeats, so a rank that
 * computes for minutes between collectives still looks alive, and a death
 * notice is queued (and the event fd made readable) even while the engine
 * is busy.  The caller's sends share the socket under a mutex
 * (tclient_send.c); determinant copies are tclient_det.c's.
 */
#include "enc.h"
#include "net/sock.h"
#include "proto/auth.h"
#include "proto/frame.h"
#include "proto/msgs.h"
#include "tracker_client/tclient.h"
#include "tracker_client/tclient_det.h"
#include "tracker_client/tclient_int.h"
#include "core/tmpdir.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* A lost tracker is mostly encore-run ending (killed): its job directory
 * goes with the last rank once encore-run is gone (core/tmpdir.h). */
#define TRACKER_LOST_OWNER_WAIT_MS 500

static bool exit_on_lost = true;

void enc_tclient_set_exit_on_lost(bool on) { exit_on_lost = on; }

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

/* ENC_OK once the socket has nothing more, or the status that ends the
 * connection. */
static enc_status_t read_frames(struct enc_tclient *c)
{
    struct tc_node *n;
    enc_status_t rv, got;

    while ((got = enc_frame_reader_progress(&c->rd, c->fd)) == ENC_OK) {
        if (c->rd.hdr.type == ENC_MSG_DET_ACK || c->rd.hdr.type == ENC_MSG_DET_DATA) {
            rv = enc_tc_det_frame(c);
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
static void tracker_lost(struct enc_tclient *c, enc_status_t rv)
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
    enc_tc_det_wake(c);
}

static enc_status_t heartbeat(struct enc_tclient *c)
{
    struct enc_msg_heartbeat m = {.completed = __atomic_load_n(&c->completed,
                                                               __ATOMIC_RELAXED)};
    uint8_t buf[16];
    int n = enc_msg_heartbeat_encode(&m, buf, sizeof(buf));

    return n < 0 ? n : enc_tc_send_frame(c, ENC_MSG_HEARTBEAT, buf, (size_t)n);
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
    tracker_lost(c, rv);
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
    enc_tc_det_init(c);
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
    enc_tc_det_fini(c);
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
