/*
 * conn.c - point-to-point connections and the progress thread (p2p.h).
 *
 * Writes go out at once from the sending thread as far as the socket
 * takes them; the rest, and every read, is the progress thread's, which
 * sleeps in poll on the connections peers made to us, on ours that have
 * bytes queued, and on an eventfd that says "poll anew" (a new queue, a
 * new connection, stop).  The lock is held while a ready connection is
 * served, never while poll sleeps.
 */
#include "enc.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/layer.h"
#include "net/sock.h"
#include "p2p/p2p_int.h"
#include "proto/auth.h"

#define READ_CHUNK (1u << 20) /* payload bytes read per turn, so sends interleave */

static void wake_thread(void)
{
    uint64_t one = 1;

    if (write(enc_p2p.wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
        ENC_WARN("p2p", "eventfd write: %m");
}

void enc_p2p_peer_lost(int peer, const char *what)
{
    char reason[256];

    snprintf(reason, sizeof(reason), "rank %d %s while point-to-point messages were in use; "
             "encore does not yet recover point-to-point traffic, so the job ends", peer, what);
    ENC_ERROR("p2p", "%s", reason);
    enc_engine_abort(1, reason);
}

/* Called by the listener's thread with an authenticated connection. */
static void accepted(int fd, const struct enc_auth_id *id)
{
    enc_p2p_lock();
    if (enc_p2p.start_locked == NULL || enc_p2p.start_locked() != ENC_OK || id->rank >= (uint32_t)enc_p2p.size ||
        enc_p2p.finishing) {
        enc_p2p_unlock();
        close(fd);
        return;
    }
    if (enc_p2p.in[id->rank].fd >= 0) {
        enc_p2p_unlock();
        enc_p2p_peer_lost((int)id->rank, "connected a second time (it was restarted)");
    }
    (void)enc_sock_set_nonblock(fd);
    enc_p2p.in[id->rank].fd = fd;
    enc_p2p_unlock();
    wake_thread();
}

/* Writes what the socket takes: ENC_OK (maybe with bytes left), or the
 * peer is gone. */
static enc_status_t flush_out(struct p2p_out *o)
{
    while (o->head != NULL) {
        struct p2p_frame *f = o->head;
        ssize_t n = send(o->fd, f->buf + o->off, f->len - o->off, MSG_NOSIGNAL);

        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return ENC_OK;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return ENC_ERR_PEER_RESET;
        o->off += (size_t)n;
        if (o->off < f->len)
            continue;
        o->head = f->next;
        if (o->head == NULL)
            o->tail = NULL;
        o->off = 0;
        free(f);
    }
    enc_p2p_wake_waiters(); /* enc_p2p_flush waits for empty queues */
    return ENC_OK;
}

static enc_status_t connect_out(int peer, struct p2p_out *o)
{
    enc_status_t rv;

    if (o->fd >= 0)
        return ENC_OK;
    if ((rv = enc_p2p_conn_open(peer, &o->fd)) != ENC_OK) {
        ENC_ERROR("p2p", "cannot connect to rank %d for point-to-point messages: %s", peer,
                  encore_strerror(rv));
        return rv;
    }
    return enc_sock_set_nonblock(o->fd);
}

enc_status_t enc_p2p_conn_queue(int peer, const struct enc_p2p_hdr *h, const void *payload)
{
    struct p2p_out *o = &enc_p2p.out[peer];
    size_t plen = h->kind == ENC_P2P_DATA ? h->bytes : 0;
    struct p2p_frame *f = malloc(sizeof(*f) + ENC_P2P_HDR_BYTES + plen);
    bool was_empty = o->head == NULL;
    enc_status_t rv;

    if (f == NULL)
        return ENC_ERR_NOMEM;
    if ((rv = connect_out(peer, o)) != ENC_OK) {
        free(f);
        return rv;
    }
    f->next = NULL;
    f->len = ENC_P2P_HDR_BYTES + plen;
    enc_p2p_hdr_encode(h, f->buf);
    if (plen > 0)
        memcpy(f->buf + ENC_P2P_HDR_BYTES, payload, plen);
    if (o->tail != NULL)
        o->tail->next = f;
    else
        o->head = f;
    o->tail = f;
    if (!was_empty)
        return ENC_OK; /* the progress thread is writing this connection */
    if (flush_out(o) != ENC_OK)
        enc_p2p_peer_lost(peer, "closed its connection");
    if (o->head != NULL)
        wake_thread();
    return ENC_OK;
}

/* A complete header was read: start the frame. */
static enc_status_t begin_frame(int peer, struct p2p_in *in)
{
    struct enc_p2p_hdr h;
    struct enc_p2p_msg *m;

    if (enc_p2p_hdr_decode(&h, in->hdr, sizeof(in->hdr)) != ENC_OK)
        return ENC_ERR_PROTO;
    if (h.kind == ENC_P2P_ACK) {
        enc_p2p.on_ack(h.ack);
        return ENC_OK;
    }
    if ((m = calloc(1, sizeof(*m))) == NULL ||
        (h.bytes > 0 && (m->data = malloc(h.bytes)) == NULL)) {
        free(m);
        return ENC_ERR_NOMEM;
    }
    m->mm.src = h.src;
    m->mm.tag = h.tag;
    m->mm.seq = h.seq;
    m->cid = h.cid;
    m->from = peer;
    m->sync = h.mode == ENC_P2P_SYNC;
    m->ack = h.ack;
    m->bytes = h.bytes;
    in->msg = m;
    in->got = 0;
    return ENC_OK;
}

/* Reads what has arrived on a peer's connection: ENC_OK, or the peer is
 * gone (ENC_ERR_PEER_CLOSED) or broken. */
static enc_status_t read_in(int peer, struct p2p_in *in)
{
    for (size_t budget = READ_CHUNK;;) {
        bool hdr = in->msg == NULL;
        uint8_t *dst = hdr ? in->hdr + in->hgot : in->msg->data + in->got;
        size_t want = hdr ? sizeof(in->hdr) - in->hgot : in->msg->bytes - in->got;
        ssize_t n = want > 0 ? recv(in->fd, dst, ENC_MIN(want, budget), 0) : 0;
        enc_status_t rv;

        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return ENC_OK;
        if (n < 0 && errno == EINTR)
            continue;
        if (want > 0 && n <= 0)
            return n == 0 ? ENC_ERR_PEER_CLOSED : ENC_ERR_PEER_RESET;
        if (hdr && (in->hgot += (size_t)n) == sizeof(in->hdr)) {
            in->hgot = 0;
            if ((rv = begin_frame(peer, in)) != ENC_OK)
                return rv;
        } else if (!hdr) {
            in->got += (size_t)n;
        }
        if (in->msg != NULL && in->got == in->msg->bytes) {
            struct enc_p2p_msg *m = in->msg;

            in->msg = NULL;
            enc_p2p.on_data(m);
        }
        if (budget <= (size_t)n)
            return ENC_OK;
        budget -= (size_t)n;
    }
}

static void serve(const struct pollfd *p, const int *who, const bool *is_in, int n)
{
    for (int i = 0; i < n; i++) {
        int peer = who[i];
        enc_status_t rv = ENC_OK;

        if (p[i].revents == 0)
            continue;
        if (is_in[i] && enc_p2p.in[peer].fd == p[i].fd)
            rv = read_in(peer, &enc_p2p.in[peer]);
        else if (!is_in[i] && enc_p2p.out[peer].fd == p[i].fd)
            rv = flush_out(&enc_p2p.out[peer]);
        if (rv == ENC_OK)
            continue;
        if (enc_p2p.finishing && rv == ENC_ERR_PEER_CLOSED) {
            enc_sock_close(&enc_p2p.in[peer].fd); /* it finished */
            continue;
        }
        enc_p2p_peer_lost(peer, rv == ENC_ERR_PROTO ? "sent a malformed point-to-point frame"
                                                    : "closed its connection");
    }
}

/* The poll set (the lock held): the eventfd, then connections. */
static int poll_set(struct pollfd *p, int *who, bool *is_in)
{
    int n = 1;

    p[0] = (struct pollfd){.fd = enc_p2p.wake_fd, .events = POLLIN};
    for (int r = 0; r < enc_p2p.size; r++) {
        if (enc_p2p.in[r].fd >= 0) {
            p[n] = (struct pollfd){.fd = enc_p2p.in[r].fd, .events = POLLIN};
            who[n] = r;
            is_in[n++] = true;
        }
        if (enc_p2p.out[r].fd >= 0 && enc_p2p.out[r].head != NULL) {
            p[n] = (struct pollfd){.fd = enc_p2p.out[r].fd, .events = POLLOUT};
            who[n] = r;
            is_in[n++] = false;
        }
    }
    return n;
}

static void *progress_main(void *arg)
{
    int cap = 1 + 2 * enc_p2p.size;
    struct pollfd *p = calloc((size_t)cap, sizeof(*p));
    int *who = calloc((size_t)cap, sizeof(int));
    bool *is_in = calloc((size_t)cap, sizeof(bool));

    (void)arg;
    __atomic_store_n(&enc_p2p.tid, (int)gettid(), __ATOMIC_RELEASE);
    if (p == NULL || who == NULL || is_in == NULL)
        enc_p2p_peer_lost(enc_p2p.rank, "ran out of memory");
    for (;;) {
        uint64_t v;
        int n;

        enc_p2p_lock();
        if (enc_p2p.stop) {
            enc_p2p_unlock();
            break;
        }
        n = poll_set(p, who, is_in);
        enc_p2p_unlock();
        if (poll(p, (nfds_t)n, -1) < 0 && errno != EINTR)
            ENC_WARN("p2p", "poll: %m");
        if (p[0].revents && read(enc_p2p.wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
            ENC_WARN("p2p", "eventfd read: %m");
        enc_p2p_lock();
        serve(p + 1, who + 1, is_in + 1, n - 1);
        enc_p2p_unlock();
    }
    free(p);
    free(who);
    free(is_in);
    return NULL;
}

enc_status_t enc_p2p_conn_alloc(void)
{
    enc_p2p.out = calloc((size_t)enc_p2p.size, sizeof(*enc_p2p.out));
    enc_p2p.in = calloc((size_t)enc_p2p.size, sizeof(*enc_p2p.in));
    if (enc_p2p.out == NULL || enc_p2p.in == NULL) {
        free(enc_p2p.out);
        free(enc_p2p.in);
        enc_p2p.out = NULL;
        enc_p2p.in = NULL;
        return ENC_ERR_NOMEM;
    }
    for (int r = 0; r < enc_p2p.size; r++)
        enc_p2p.out[r].fd = enc_p2p.in[r].fd = -1;
    if ((enc_p2p.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
        ENC_ERROR("p2p", "eventfd: %m");
        return ENC_ERR_SYS;
    }
    return ENC_OK;
}

enc_status_t enc_p2p_conn_start(void)
{
    if (pthread_create(&enc_p2p.thread, NULL, progress_main, NULL) != 0) {
        ENC_ERROR("p2p", "cannot start the point-to-point progress thread");
        return ENC_ERR_SYS;
    }
    return ENC_OK;
}

void enc_p2p_conn_listen(void) { enc_engine_set_p2p_accept(accepted); }

static bool queues_empty(void)
{
    for (int r = 0; r < enc_p2p.size; r++)
        if (enc_p2p.out[r].head != NULL)
            return false;
    return true;
}

enc_status_t enc_p2p_flush(void)
{
    uint64_t deadline = enc_deadline_ms(enc_engine_coll_timeout_ms());
    enc_status_t rv = ENC_OK;

    if (!enc_p2p_started())
        return ENC_OK;
    enc_p2p_lock();
    enc_p2p.finishing = true;
    while (!queues_empty() && (rv = enc_p2p_wait(deadline)) == ENC_OK)
        ;
    enc_p2p_unlock();
    if (rv != ENC_OK)
        ENC_ERROR("p2p", "point-to-point messages still unsent at MPI_Finalize after the "
                  "collective timeout");
    return rv;
}

void enc_p2p_finalize(void)
{
    if (!enc_p2p_started())
        return;
    enc_engine_set_p2p_accept(NULL);
    enc_p2p_lock();
    enc_p2p.stop = true;
    enc_p2p_unlock();
    wake_thread();
    pthread_join(enc_p2p.thread, NULL);
    for (int r = 0; r < enc_p2p.size; r++) {
        enc_sock_close(&enc_p2p.out[r].fd);
        enc_sock_close(&enc_p2p.in[r].fd);
    }
    __atomic_store_n(&enc_p2p.tid, 0, __ATOMIC_RELEASE);
}

int enc_p2p_thread_id(void) { return __atomic_load_n(&enc_p2p.tid, __ATOMIC_ACQUIRE); }
