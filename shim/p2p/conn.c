/*
 * conn.c - point-to-point connections and the progress thread (p2p.h).
 *
 * Writes go out at once from the sending thread as far as the socket
 * takes them; the rest, and every read, is the progress thread's, which
 * sleeps in poll on the connections peers made to us, on ours that have
 * bytes queued, and on an eventfd that says "poll anew" (a new queue, a
 * new connection, stop).  The lock is held while a ready connection is
 * served, never while poll sleeps.
 *
 * A peer of this host gets its DATA frames through our ring to it
 * instead of the socket (shm_ring.h, shm_link.h): the same frames, the
 * same log cursor, written as far as the ring takes them; its ring to us
 * is read while its connection is installed, by every call that waits or
 * polls and by the progress thread when the peer rings its BELL.
 *
 * A peer that is lost (its connection ends outside MPI_Finalize) is
 * marked down: messages to it go to its log only.  Its restored
 * incarnation connects to every rank and sends RESUME with its address;
 * each rank then connects to it and writes its whole log for it again, in
 * order.  Whatever either side receives twice, it drops by channel number
 * (p2p.c), so any connection may be replaced at any time: a new
 * connection from a peer replaces the old one, and frames half read on
 * the old one come again on the new.
 */
#include "enc.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/layer.h"
#include "core/tunables.h"
#include "core/vec.h"
#include "net/sock.h"
#include "p2p/p2p_int.h"
#include "p2p/pool.h"
#include "p2p/remote.h"
#include "p2p/shm_link.h"
#include "proto/auth.h"
#include "proto/wire.h"

#define READ_CHUNK (1u << 20) /* payload bytes read per turn, so sends interleave */

/* The progress thread: it computes its poll set anew after every turn,
 * so it never needs to wake itself (that made it spin on the eventfd
 * while a ring was full).  shm_retry (the lock's): it sleeps at most
 * SHM_RETRY_MS, so a ring waiting for room needs no wake-up either. */
static ENC_HOT_TLS bool on_progress_thread;
static bool shm_retry;
/* A look at a ring stopped at its turn's end with frames left in it (the
 * lock's): nothing else would bring the reader back to them (their
 * writer found the bell set, rung for an earlier frame, and this look
 * cleared it), so the progress thread looks again without sleeping. */
static bool rings_behind;

static void wake_thread(void)
{
    uint64_t one = 1;

    if (write(enc_p2p.wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
        ENC_WARN("p2p", "eventfd write: %m");
}


void enc_p2p_conn_wake(void)
{
    if (enc_p2p.wake_fd >= 0)
        wake_thread();
}

static void rx_forget(struct p2p_rx *rx)
{
    enc_p2p_msg_free(rx->msg);
    rx->msg = NULL;
    rx->hgot = 0;
    rx->got = 0;
    rx->remote = false;
    rx->lgot = 0;
}

/* Forgets the frames half read from a peer (they come again; a dead
 * writer's half-written frame in its ring is never delivered). */
static void close_in(struct p2p_in *in)
{
    if (in->fd >= 0)
        enc_p2p.tcp_fds_gen++; /* a leader's poll set has it (tcp_wait.c) */
    enc_sock_close(&in->fd);
    free(in->stage); /* what it staged was that connection's */
    in->stage = NULL;
    in->slen = in->spos = 0;
    rx_forget(&in->tcp);
    rx_forget(&in->ring);
    in->ring_on = false;
}

static void free_frames(struct p2p_frame *f)
{
    while (f != NULL) {
        struct p2p_frame *next = f->next;

        enc_p2p_pool_put(f);
        f = next;
    }
}

/* The peer's incarnation inc is gone: its log waits for its next
 * incarnation's RESUME.  A connection to a newer incarnation (its RESUME
 * came first) stays. */
static void append(struct p2p_frame **head, struct p2p_frame **tail, struct p2p_frame *f);

static void mark_down(int peer, uint32_t inc)
{
    struct p2p_out *o = &enc_p2p.out[peer];

    if (o->fd >= 0 && o->inc > inc)
        return;
    if (!o->down)
        ENC_INFO("p2p", "rank %d lost; its messages wait in the log for its restart", peer);
    o->down = true;
    enc_sock_close(&o->fd);
    /* its ACKs are held for this incarnation: a peer whose connection
     * only ended while it replaced it is alive (revive), and its
     * synchronous sends still wait for them; a new incarnation drops them */
    while (o->ctrl != NULL) {
        struct p2p_frame *f = o->ctrl;

        o->ctrl = f->next;
        f->next = NULL;
        if (f->buf[4] == ENC_P2P_ACK) {
            f->inc = o->inc;
            append(&o->held, &o->held_tail, f);
        } else {
            enc_p2p_pool_put(f);
        }
        o->ctrl_off = 0;
    }
    o->ctrl_tail = NULL;
}

static enc_status_t connect_out(int peer, struct p2p_out *o);
static void push(int peer);

/* A new connection from a peer marked down, of the incarnation marked
 * down: the peer is alive (its earlier connection ended because it
 * replaced it, a survivor reconnecting to a restored rank, and that end
 * was read before the new one was installed).  Not its restart (that one
 * RESUMEs): connect to it again, which sends it the whole log again. */
static void revive(int peer, uint32_t inc)
{
    struct p2p_out *o = &enc_p2p.out[peer];

    if (!o->down || o->fd >= 0 || inc != o->inc)
        return;
    ENC_INFO("p2p", "rank %d is alive (a new connection of its incarnation %u): connecting "
             "to it again", peer, inc);
    o->down = false;
    (void)connect_out(peer, o);
    push(peer);
}

/* Connections the listener's thread authenticated, waiting for the
 * progress thread to install them.  The listener never waits for the
 * layer's lock: a rank connecting to a peer holds that lock while the
 * peer's listener finishes the handshake, and two ranks connecting to each
 * other at once would otherwise each wait for the other's listener. */
static struct {
    pthread_mutex_t mu;
    struct {
        int fd;
        int rank;
        uint32_t inc;
    } *q;
    size_t n, cap;
} acc = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void accepted(int fd, const struct enc_auth_id *id)
{
    pthread_mutex_lock(&acc.mu);
    if (id->rank >= (uint32_t)enc_engine_size() ||
        ENC_VEC_RESERVE(acc.q, acc.cap, acc.n + 1) != ENC_OK) {
        pthread_mutex_unlock(&acc.mu);
        close(fd);
        return;
    }
    acc.q[acc.n].fd = fd;
    acc.q[acc.n].inc = id->incarnation;
    acc.q[acc.n++].rank = (int)id->rank;
    pthread_mutex_unlock(&acc.mu);
    /* A peer may send first: start the layer.  The lock's holder, if any,
     * is inside a point-to-point call, so the layer runs already. */
    if (!enc_p2p_started() && pthread_mutex_trylock(&enc_p2p.mu) == 0) {
        if (enc_p2p.start_locked != NULL)
            (void)enc_p2p.start_locked();
        enc_p2p_unlock();
    }
    if (enc_p2p_started())
        wake_thread();
}

/* Installs the accepted connections (the lock held): each replaces any
 * older one from that peer; also while this rank finalizes, since a peer
 * restarted meanwhile still needs this rank's log. */
/* A connection that carries nothing and has ended already: one a peer
 * made and closed again (it replaced it, resume_peer), whose handshake the
 * listener may finish after the one that replaced it; installed last, it
 * would push out the live one.  Anything it carries is read as usual. */
static bool ended_empty(int fd)
{
    char c;

    return recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/* The peer has closed its end, bytes still unread before it or not. */
static bool peer_ended(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLRDHUP};

    return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

/* An accepted connection that has ended while the installed one from that
 * peer, of its incarnation or a newer one, lives: one the peer replaced
 * (resume_peer closes it before it makes the new one), its handshake
 * finished after the new one's.  Installed, it would close the live one
 * here, whose end the peer never reads (it only writes on it), and its own
 * end would then take a live peer for lost, each side waiting for the
 * other's RESUME.  What it carries the peer sends again on the live one
 * (its log, from the start) and its ACKs for a new incarnation wait for
 * that incarnation's RESUME (held). */
static bool superseded(int fd, const struct p2p_in *in, uint32_t inc)
{
    return in->fd >= 0 && in->inc >= inc && peer_ended(fd) && !peer_ended(in->fd);
}

static void install_accepted(void)
{
    int peers[16], incs[16], nrev = 0;

    pthread_mutex_lock(&acc.mu);
    for (size_t i = 0; i < acc.n; i++) {
        struct p2p_in *in = &enc_p2p.in[acc.q[i].rank];

        if (ended_empty(acc.q[i].fd)) {
            close(acc.q[i].fd);
            continue;
        }
        if (superseded(acc.q[i].fd, in, acc.q[i].inc)) {
            ENC_INFO("p2p", "rank %d: a connection it has replaced already ignored",
                     acc.q[i].rank);
            close(acc.q[i].fd);
            continue;
        }

        close_in(in);
        (void)enc_sock_set_nonblock(acc.q[i].fd);
        in->fd = acc.q[i].fd;
        in->inc = acc.q[i].inc;
        if (enc_p2p_shm_peer(acc.q[i].rank)) { /* its writes wait for this reset */
            enc_p2p_ring_reset(enc_p2p_shm_ring(acc.q[i].rank, enc_p2p.rank));
            in->ring_on = true;
        }
        if (enc_p2p.out[acc.q[i].rank].down && nrev < 16) {
            peers[nrev] = acc.q[i].rank;
            incs[nrev++] = (int)acc.q[i].inc;
        }
    }
    /* a connection replaced or dropped may have taken a BELL with it,
     * the bell in our line still set (no writer rings while it is): look
     * once before sleeping, which clears it */
    if (acc.n > 0) {
        rings_behind = true;
        enc_p2p_tcp_fds_changed();
    }
    acc.n = 0;
    pthread_mutex_unlock(&acc.mu);
    for (int i = 0; i < nrev; i++) /* connecting waits for the peer: not under acc.mu */
        revive(peers[i], (uint32_t)incs[i]);
}

/* A byte stream to a peer (its TCP connection or our ring to it), as
 * send(2): bytes taken, or -1 with errno EAGAIN when full. */
typedef ssize_t (*tx_fn)(int peer, int fd, const void *src, size_t n);

static ssize_t tcp_tx(int peer, int fd, const void *src, size_t n)
{
    (void)peer;
    return send(fd, src, n, MSG_NOSIGNAL);
}

static ssize_t ring_tx(int peer, int fd, const void *src, size_t n)
{
    size_t k = enc_p2p_ring_put(enc_p2p_shm_ring(enc_p2p.rank, peer), enc_p2p_shm_cap(), src, n);

    (void)fd;
    if (k == 0) {
        errno = EAGAIN;
        return -1;
    }
    return (ssize_t)k;
}

/* Writes part of len bytes from *off: ENC_OK when they are all written,
 * ENC_INPROGRESS when the stream is full, or the peer is gone. */
static enc_status_t write_bytes(tx_fn tx, int peer, int fd, const uint8_t *buf, size_t len,
                                size_t *off)
{
    while (*off < len) {
        ssize_t n = tx(peer, fd, buf + *off, len - *off);

        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return ENC_INPROGRESS;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return ENC_ERR_PEER_RESET;
        *off += (size_t)n;
    }
    *off = 0;
    return ENC_OK;
}

static enc_status_t write_frame(tx_fn tx, int peer, int fd, const struct p2p_frame *f,
                                size_t *off)
{
    return write_bytes(tx, peer, fd, f->buf, f->len, off);
}

/* Without recovery (ENCORE_RECOVERY=0) a lost peer ends the job, so
 * nothing is ever sent again: a frame leaves the log once written. */
static bool keeps_log(void)
{
    static int keep = -1;

    if (keep < 0)
        keep = enc_tunable_ll(ENC_TUNE_RECOVERY) != 0;
    return keep;
}

/* Writes the cursor's DATA frame: whole, or into a ring as its header
 * flagged REMOTE and a locator when its payload is large enough (the
 * reader copies it out of our log, remote.h). */
static enc_status_t write_data(tx_fn tx, int peer, struct p2p_out *o)
{
    const struct p2p_frame *f = o->cursor;
    size_t payload = f->len - ENC_P2P_HDR_BYTES;
    size_t min = tx == ring_tx ? enc_p2p_remote_min(keeps_log()) : 0;
    enc_status_t rv;

    if (min == 0 || payload < min || f->spilled)
        return write_frame(tx, peer, o->fd, f, &o->off);
    if (o->off == 0 && (rv = enc_p2p_remote_encode(f, o->remote)) != ENC_OK)
        return rv;
    return write_bytes(tx, peer, o->fd, o->remote, sizeof(o->remote), &o->off);
}

/* The cursor's frame was written: on to the next (and the written one
 * forgotten when the log is not kept: it is then the log's head). */
static void cursor_done(struct p2p_out *o)
{
    struct p2p_frame *f = o->cursor;

    o->cursor = f->next;
    if (keeps_log() || o->log != f)
        return;
    if ((o->log = f->next) == NULL)
        o->log_tail = NULL;
    o->logged -= f->len;
    enc_p2p_log_removed(f);
    enc_p2p_pool_put(f);
}

static enc_status_t flush_ctrl(int peer, struct p2p_out *o)
{
    enc_status_t rv = ENC_OK;

    /* a DATA frame half written on the socket goes on first: a control
     * frame queued meanwhile (an ACK, a restored rank's RESUME after its
     * POSITIONS) must not land inside its payload (a ring's frames never
     * share the socket) */
    if (!o->shm && o->cursor != NULL && o->off > 0) {
        if ((rv = write_frame(tcp_tx, peer, o->fd, o->cursor, &o->off)) != ENC_OK)
            return rv;
        cursor_done(o);
    }
    while (o->ctrl != NULL &&
           (rv = write_frame(tcp_tx, peer, o->fd, o->ctrl, &o->ctrl_off)) == ENC_OK) {
        struct p2p_frame *f = o->ctrl;

        if ((o->ctrl = f->next) == NULL)
            o->ctrl_tail = NULL;
        enc_p2p_pool_put(f);
    }
    return rv;
}

/* Writes the log from its cursor into a stream (tx) as far as it takes:
 * frames the restored peer's image had already are not sent again, a
 * spilled one is read back first. */
static enc_status_t write_log(tx_fn tx, int peer, struct p2p_out *o)
{
    enc_status_t rv = ENC_OK;

    while (o->cursor != NULL) {
        if (o->off == 0 && o->cursor->spilled && !enc_p2p_skipped(o, o->cursor))
            (void)enc_p2p_unspill_cursor(o);
        if (o->off > 0 || !enc_p2p_skipped(o, o->cursor)) {
            if ((rv = write_data(tx, peer, o)) != ENC_OK)
                break;
            enc_p2p.shm_sent += tx == ring_tx;
        }
        cursor_done(o);
    }
    return rv;
}

static struct p2p_frame *frame_new(int lane, const struct enc_p2p_hdr *h, const void *payload);
static void append(struct p2p_frame **head, struct p2p_frame **tail, struct p2p_frame *f);

/* Rings peer's bell on our TCP connection to it (connected already). */
static enc_status_t ring_bell(int peer, struct p2p_out *o)
{
    struct enc_p2p_hdr h = {.kind = ENC_P2P_BELL};
    struct p2p_frame *f = frame_new(-1, &h, NULL);

    if (f == NULL)
        return ENC_ERR_NOMEM;
    append(&o->ctrl, &o->ctrl_tail, f);
    return flush_ctrl(peer, o);
}

/* The ring to peer is ours to write once peer reset it for this connection. */
static bool ring_ready(int peer, struct p2p_out *o)
{
    if (!o->shm_ready &&
        __atomic_load_n(&enc_p2p_shm_ring(enc_p2p.rank, peer)->resets, __ATOMIC_ACQUIRE) !=
            o->shm_base)
        o->shm_ready = true;
    return o->shm_ready;
}

/* Writes the log's unwritten frames into the ring to peer as far as they
 * fit (asking the reader to ring when it frees room), then rings the
 * reader's bell unless it is polling. */
static enc_status_t flush_ring(int peer, struct p2p_out *o)
{
    const struct p2p_frame *was = o->cursor;
    size_t was_off = o->off;
    enc_status_t rv = ENC_OK;

    if (!ring_ready(peer, o))
        return ENC_INPROGRESS;
    for (;;) {
        rv = write_log(ring_tx, peer, o);
        if (o->cursor == NULL || !enc_p2p_shm_want_room(peer))
            break;
    }
    if ((o->cursor != was || o->off != was_off) && enc_p2p_shm_bell_needed(peer, !on_progress_thread))
        rv = ring_bell(peer, o);
    return rv == ENC_OK && o->cursor != NULL ? ENC_INPROGRESS : rv;
}

/* ACKs held for an incarnation this connection reaches now join the
 * control frames, in the order they were made. */
static void release_held(struct p2p_out *o)
{
    struct p2p_frame *keep = NULL, *keep_tail = NULL;

    while (o->held != NULL) {
        struct p2p_frame *f = o->held;

        o->held = f->next;
        f->next = NULL;
        if (f->inc == o->inc)
            append(&o->ctrl, &o->ctrl_tail, f);
        else if (f->inc < o->inc) /* for an incarnation that is gone */
            enc_p2p_pool_put(f);
        else
            append(&keep, &keep_tail, f);
    }
    o->held = keep;
    o->held_tail = keep_tail;
}

/* Writes what the stream takes, control frames first: ENC_OK (maybe with
 * bytes left), or the peer is gone. */
static enc_status_t flush_out(int peer, struct p2p_out *o)
{
    enc_status_t rv;

    if (o->held != NULL)
        release_held(o);
    rv = flush_ctrl(peer, o);

    if (rv == ENC_OK)
        rv = o->shm ? flush_ring(peer, o) : write_log(tcp_tx, peer, o);
    if (rv == ENC_OK)
        enc_p2p_wake_waiters(); /* enc_p2p_flush waits for empty queues */
    return rv == ENC_INPROGRESS ? ENC_OK : rv;
}

/* Flushes, and marks the peer down when its connection broke. */
static void push(int peer)
{
    struct p2p_out *o = &enc_p2p.out[peer];

    if (o->fd < 0)
        return;
    if (flush_out(peer, o) != ENC_OK) {
        if (!enc_p2p.finishing)
            mark_down(peer, o->inc);
        else
            enc_sock_close(&o->fd);
        return;
    }
    if (on_progress_thread)
        return;
    if (o->ctrl != NULL || (o->cursor != NULL && !(o->shm && shm_retry)))
        wake_thread(); /* it polls (a ring: looks again within SHM_RETRY_MS) */
}

/* A new connection to a peer: the whole log goes again. */
static void connected(struct p2p_out *o, int fd)
{
    enc_sock_close(&o->fd);
    o->fd = fd;
    o->down = false;
    o->cursor = o->log;
    o->off = 0;
    o->shm_ready = false;
    (void)enc_sock_set_nonblock(fd);
}

/* Before a new connection to peer: the ring's resets, which the peer moves
 * when it installs the connection (so reset before our first write). */
static void before_connect(int peer, struct p2p_out *o)
{
    o->shm = enc_p2p_shm_peer(peer);
    if (o->shm)
        o->shm_base =
            __atomic_load_n(&enc_p2p_shm_ring(enc_p2p.rank, peer)->resets, __ATOMIC_ACQUIRE);
}

static enc_status_t connect_out(int peer, struct p2p_out *o)
{
    enc_status_t rv;
    int fd;

    if (o->fd >= 0 || o->down)
        return ENC_OK;
    before_connect(peer, o);
    if ((rv = enc_p2p_conn_open(peer, &fd)) != ENC_OK) {
        ENC_DEBUG("p2p", "cannot connect to rank %d (%s); its messages wait in the log", peer,
                  encore_strerror(rv));
        o->down = true; /* its restored incarnation will RESUME */
        return ENC_OK;
    }
    connected(o, fd);
    o->inc = enc_p2p_peer_incarnation(peer);
    return ENC_OK;
}

/* A restarted rank's RESUME that could not be delivered (the peer was
 * itself being restarted): true while one waits, so the progress thread
 * tries again. */
static bool resume_waits(const struct p2p_out *o)
{
    return o->down && o->fd < 0 && o->ctrl != NULL;
}

#define RESUME_RETRY_MS 100
#define SHM_RETRY_MS 2

/* Tries again to reach peers whose RESUME waits (the lock held). */
static void retry_resumes(void)
{
    for (int r = 0; r < enc_p2p.size; r++) {
        struct p2p_out *o = &enc_p2p.out[r];

        if (!resume_waits(o))
            continue;
        o->down = false;
        (void)connect_out(r, o);
        push(r);
    }
}

/* A frame in the pool's lane of peer lane (-1: control frames' lane). */
static struct p2p_frame *frame_new(int lane, const struct enc_p2p_hdr *h, const void *payload)
{
    struct p2p_frame *f = enc_p2p_pool_log_get(lane, sizeof(*f) + ENC_P2P_HDR_BYTES + h->bytes);

    if (f == NULL)
        return NULL;
    f->next = NULL;
    f->key = 0;
    f->spilled = false;
    f->spilling = false;
    f->inc = 0;
    f->seq = h->seq;
    f->len = ENC_P2P_HDR_BYTES + h->bytes;
    enc_p2p_hdr_encode(h, f->buf);
    if (h->bytes > 0)
        memcpy(f->buf + ENC_P2P_HDR_BYTES, payload, h->bytes);
    return f;
}

static void append(struct p2p_frame **head, struct p2p_frame **tail, struct p2p_frame *f)
{
    if (*tail != NULL)
        (*tail)->next = f;
    else
        *head = f;
    *tail = f;
}

/* Payloads up to this long may go into the ring at once (ring_at_once). */
#define RING_AT_ONCE_MAX 4096

/* A small DATA message to a peer of this host, nothing queued before it
 * and room for all of its frame in the ready ring: its frame (the header
 * encoded here, then the payload) written whole now, before its log copy
 * is made, so the receiver's wait ends sooner; true, then the caller logs
 * it as written.  Else false: it is queued and pushed as any frame. */
static bool ring_at_once(int peer, struct p2p_out *o, const struct enc_p2p_hdr *h,
                         const void *payload)
{
    uint8_t hdr[ENC_P2P_HDR_BYTES];

    if (!o->shm || o->fd < 0 || o->cursor != NULL || o->ctrl != NULL || o->nskip != 0 ||
        h->bytes > RING_AT_ONCE_MAX || !ring_ready(peer, o))
        return false;
    enc_p2p_hdr_encode(h, hdr);
    if (!enc_p2p_ring_put_all2(enc_p2p_shm_ring(enc_p2p.rank, peer), enc_p2p_shm_cap(), hdr,
                               sizeof(hdr), payload, h->bytes))
        return false;
    enc_p2p.shm_sent++;
    return true;
}

/* A message written at once (ring_at_once, tcp_at_once) goes into the
 * log after it, as written (the caller moves the cursor to it when part
 * of it is still to write).  It left already, so a log without memory for
 * it ends the job. */
static struct p2p_frame *log_at_once(int peer, struct p2p_out *o, const struct enc_p2p_hdr *h,
                                     const void *payload)
{
    struct p2p_frame *f = frame_new(peer, h, payload);

    if (f == NULL)
        enc_p2p_peer_lost(enc_p2p.rank, "ran out of memory for its payload log (a message "
                          "it sent could not be kept for the receiver's restart)");
    f->key = enc_p2p_key(h->cid, h->src, peer);
    append(&o->log, &o->log_tail, f);
    o->logged += f->len;
    enc_p2p_log_added(f);
    return f;
}

/* After ring_at_once: the reader rung unless it looks; the message kept
 * in the log as written (its cursor stays past it) when a log is kept. */
static void wrote_at_once(int peer, struct p2p_out *o, const struct enc_p2p_hdr *h,
                          const void *payload)
{
    if (enc_p2p_shm_bell_needed(peer, !on_progress_thread)) {
        (void)ring_bell(peer, o);
        push(peer); /* what the socket did not take, or a broken connection */
    }
    if (keeps_log())
        (void)log_at_once(peer, o, h, payload);
}

/* A DATA message to a peer over TCP, nothing queued before it on a
 * connection made: its header and payload go out from the caller's buffer
 * at once (one sendmsg), before its log copy is made, so the receiver's
 * wait ends sooner and the copy overlaps the transfer (for a large
 * message, the copy into fresh log memory took as long as the send).  The
 * log copy then records what the socket took: all of it, the frame is
 * written (without a log, nothing is kept); part, the cursor resumes
 * after it.  False when the socket took nothing: it is queued as any
 * frame. */
static bool tcp_at_once(int peer, struct p2p_out *o, const struct enc_p2p_hdr *h,
                        const void *payload)
{
    uint8_t hdr[ENC_P2P_HDR_BYTES];
    struct iovec iov[2] = {{hdr, sizeof(hdr)}, {(void *)payload, h->bytes}};
    struct msghdr mh = {.msg_iov = iov, .msg_iovlen = h->bytes > 0 ? 2 : 1};
    struct p2p_frame *f;
    ssize_t n;

    if (o->shm || o->fd < 0 || o->down || o->cursor != NULL || o->ctrl != NULL ||
        o->nskip != 0)
        return false;
    enc_p2p_hdr_encode(h, hdr);
    if ((n = sendmsg(o->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT)) <= 0)
        return false; /* full, or broken: the usual path finds out */
    if ((size_t)n == sizeof(hdr) + h->bytes && !keeps_log())
        return true;
    f = log_at_once(peer, o, h, payload);
    if ((size_t)n < f->len) { /* the rest from the log, as a frame the socket took part of */
        o->cursor = f;
        o->off = (size_t)n;
        push(peer);
    }
    return true;
}

enc_status_t enc_p2p_conn_queue_ack(int peer, uint32_t inc, const struct enc_p2p_hdr *h)
{
    struct p2p_out *o = &enc_p2p.out[peer];
    struct p2p_frame *f;

    if (inc <= o->inc)
        return enc_p2p_conn_queue(peer, h, NULL);
    /* its RESUME is on its way (it came first on the same connection as
     * this message, but the rings are read apart from TCP): written to
     * the incarnation before, or dropped by that RESUME, the ACK would
     * leave the restored sender's MPI_Ssend waiting for ever */
    if ((f = frame_new(-1, h, NULL)) == NULL)
        return ENC_ERR_NOMEM;
    f->inc = inc;
    append(&o->held, &o->held_tail, f);
    return ENC_OK;
}

enc_status_t enc_p2p_conn_queue(int peer, const struct enc_p2p_hdr *h, const void *payload)
{
    struct p2p_out *o = &enc_p2p.out[peer];
    struct p2p_frame *f;

    if (h->kind == ENC_P2P_DATA && ring_at_once(peer, o, h, payload)) {
        wrote_at_once(peer, o, h, payload);
        return ENC_OK;
    }
    if (h->kind == ENC_P2P_DATA && tcp_at_once(peer, o, h, payload))
        return ENC_OK;
    if ((f = frame_new(h->kind == ENC_P2P_DATA ? peer : -1, h, payload)) == NULL)
        return ENC_ERR_NOMEM;
    if (h->kind == ENC_P2P_DATA)
        f->key = enc_p2p_key(h->cid, h->src, peer);
    if (h->kind != ENC_P2P_DATA) {
        append(&o->ctrl, &o->ctrl_tail, f);
    } else {
        append(&o->log, &o->log_tail, f);
        o->logged += f->len;
        enc_p2p_log_added(f);
        if (o->cursor == NULL) {
            o->cursor = f;
            o->off = 0;
        }
    }
    (void)connect_out(peer, o);
    push(peer);
    return ENC_OK;
}

/* RESUME from a peer's new incarnation: connect to it, send the log. */
static void resume_peer(int peer, const struct enc_p2p_msg *m)
{
    struct p2p_out *o = &enc_p2p.out[peer];
    char addr[ENC_P2P_MAX_ADDR + 1];
    enc_status_t rv;
    int fd;

    memcpy(addr, m->data, m->bytes);
    addr[m->bytes] = '\0';
    if (o->fd >= 0 && o->inc >= enc_p2p.in[peer].inc) {
        o->down = false; /* made to that incarnation: it sent the whole log then */
        return;
    }
    free_frames(o->ctrl);
    o->ctrl = o->ctrl_tail = NULL;
    o->ctrl_off = 0;
    /* the connection made before (to the incarnation before, or to this
     * one before its RESUME was read) ends before the new one starts: the
     * peer then installs the new one after it read the old one's end (the
     * listener may finish two handshakes in either order, and a peer that
     * installed the old one last took the new one's end for our death);
     * the old one's end alone makes it think us lost until the new one
     * comes (revive) */
    enc_sock_close(&o->fd);
    before_connect(peer, o);
    if ((rv = enc_p2p_conn_open_at(addr, (uint16_t)m->ack, &fd)) != ENC_OK) {
        ENC_WARN("p2p", "rank %d restarted but cannot be reached at %s:%llu (%s)", peer, addr,
                 (unsigned long long)m->ack, encore_strerror(rv));
        enc_sock_close(&o->fd);
        o->down = true;
        return;
    }
    connected(o, fd);
    {
        size_t n = 0, again = 0;

        for (const struct p2p_frame *f = o->log; f != NULL; f = f->next, n++)
            again += !enc_p2p_skipped(o, f);
        ENC_INFO("p2p", "rank %d restarted: re-sending %zu of the %zu messages in its log "
                 "(its image had received the other %zu)", peer, again, n, n - again);
    }
    o->inc = enc_p2p.in[peer].inc; /* the RESUME came on its connection */
    push(peer);                    /* the ACKs held for it first */
}

/* A complete header was read: start the frame. */
static enc_status_t begin_frame(int peer, struct p2p_rx *in)
{
    struct enc_p2p_hdr h;
    struct enc_p2p_msg *m;

    if (enc_p2p_hdr_decode(&h, in->hdr, sizeof(in->hdr)) != ENC_OK)
        return ENC_ERR_PROTO;
    if (h.kind == ENC_P2P_ACK) {
        enc_p2p.on_ack(h.ack);
        return ENC_OK;
    }
    if (h.kind == ENC_P2P_BELL) { /* the progress thread looks at the rings after serving */
        enc_p2p_shm_bell_heard();
        return ENC_OK;
    }
    /* a locator comes only through a ring, where the writer is on this host */
    if ((h.flags & ENC_P2P_REMOTE) && in != &enc_p2p.in[peer].ring)
        return ENC_ERR_PROTO;
    if ((m = enc_p2p_msg_new(h.bytes)) == NULL) /* a small payload inline */
        return ENC_ERR_NOMEM;
    if (h.kind == ENC_P2P_DATA &&
        (m->direct_to = enc_p2p_direct_target(h.cid, h.src, h.tag, h.seq, h.bytes)) != NULL)
        m->data = m->direct_to->direct;
    else if (h.bytes > 0 && m->data == NULL && (m->data = enc_p2p_pool_get(h.bytes)) == NULL) {
        free(m);
        return ENC_ERR_NOMEM;
    }
    m->mm.src = h.src;
    m->mm.tag = h.tag;
    m->mm.seq = h.seq;
    m->cid = h.cid;
    m->from = peer;
    m->inc = enc_p2p.in[peer].inc;
    m->sync = h.mode == ENC_P2P_SYNC;
    m->resume = h.kind == ENC_P2P_RESUME;
    m->positions = h.kind == ENC_P2P_POSITIONS;
    m->ack = h.ack;
    m->chain = h.chain;
    m->bytes = h.bytes;
    in->msg = m;
    in->got = 0;
    in->remote = (h.flags & ENC_P2P_REMOTE) != 0;
    in->lgot = 0;
    return ENC_OK;
}

bool enc_p2p_conn_streaming_into(const struct enc_p2p_recv *r)
{
    for (int p = 0; p < enc_p2p.size; p++) {
        const struct p2p_in *in = &enc_p2p.in[p];

        if ((in->tcp.msg != NULL && in->tcp.msg->direct_to == r) ||
            (in->ring.msg != NULL && in->ring.msg->direct_to == r))
            return true;
    }
    return false;
}

static void frame_done(int peer, struct p2p_rx *in)
{
    struct enc_p2p_msg *m = in->msg;

    in->msg = NULL;
    if (m->positions) {
        enc_p2p_set_skip(peer, m->data, m->bytes);
        enc_p2p_msg_free(m);
    } else if (m->resume) {
        resume_peer(peer, m);
        enc_p2p_msg_free(m);
    } else {
        enc_p2p.on_data(m);
    }
}

/* A byte stream from a peer, as recv(2): bytes read, 0 at its end, -1
 * with errno EAGAIN when nothing is there. */
typedef ssize_t (*rx_fn)(int peer, int fd, void *dst, size_t n);

/* A peer's connection is read through a staging buffer of STAGE_BYTES
 * when little is wanted (a header, a small payload): one recv takes
 * every small frame that arrived, where each frame cost two (its header,
 * then its payload) and the look that found the socket empty a third.
 * Larger payloads are read straight into their buffer once the staged
 * bytes are used.  Staged bytes are invisible to poll, so read_rx never
 * leaves a connection with bytes staged (staged()). */
#define STAGE_BYTES ((size_t)64 << 10)
#define STAGE_MAX_WANT ((size_t)4 << 10)

static bool staged(const struct p2p_in *pin) { return pin->spos < pin->slen; }

static ssize_t tcp_rx(int peer, int fd, void *dst, size_t n)
{
    struct p2p_in *pin = &enc_p2p.in[peer];
    ssize_t got;

    if (!staged(pin)) {
        if (n > STAGE_MAX_WANT ||
            (pin->stage == NULL && (pin->stage = malloc(STAGE_BYTES)) == NULL))
            return recv(fd, dst, n, 0);
        if ((got = recv(fd, pin->stage, STAGE_BYTES, 0)) <= 0)
            return got;
        pin->slen = (size_t)got;
        pin->spos = 0;
    }
    n = ENC_MIN(n, pin->slen - pin->spos);
    memcpy(dst, pin->stage + pin->spos, n);
    pin->spos += n;
    return (ssize_t)n;
}

static ssize_t ring_rx(int peer, int fd, void *dst, size_t n)
{
    size_t k = enc_p2p_ring_get(enc_p2p_shm_ring(peer, enc_p2p.rank), enc_p2p_shm_cap(), dst, n);

    (void)fd;
    if (k == 0) {
        errno = EAGAIN;
        return -1;
    }
    return (ssize_t)k;
}

/* Reads what has arrived from a peer (on its connection, or in its ring
 * while the connection is installed): ENC_OK, or the peer is gone
 * (ENC_ERR_PEER_CLOSED) or broken.  *moved: bytes were read; *cut: the
 * turn ended with more to read (a payload read out of the sender's log
 * counts whole, so one large message can end it). */
static enc_status_t read_rx(int peer, struct p2p_in *pin, struct p2p_rx *in, rx_fn rx,
                            bool *moved, bool *cut)
{
    for (size_t budget = READ_CHUNK; pin->fd >= 0;) {
        bool hdr = in->msg == NULL, loc = !hdr && in->remote;
        uint8_t *dst = hdr   ? in->hdr + in->hgot
                       : loc ? in->loc + in->lgot
                             : in->msg->data + in->got;
        size_t want = hdr   ? sizeof(in->hdr) - in->hgot
                      : loc ? sizeof(in->loc) - in->lgot
                            : in->msg->bytes - in->got;
        ssize_t n = want > 0 ? rx(peer, pin->fd, dst, budget > 0 ? ENC_MIN(want, budget) : want)
                             : 0;
        enc_status_t rv;

        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return ENC_OK;
        if (n < 0 && errno == EINTR)
            continue;
        if (want > 0 && n <= 0)
            return n == 0 ? ENC_ERR_PEER_CLOSED : ENC_ERR_PEER_RESET;
        *moved = true;
        if (hdr && (in->hgot += (size_t)n) == sizeof(in->hdr)) {
            in->hgot = 0;
            if ((rv = begin_frame(peer, in)) != ENC_OK)
                return rv;
        } else if (loc && (in->lgot += (size_t)n) == sizeof(in->loc)) {
            in->remote = false;
            if ((rv = enc_p2p_remote_fetch(peer, in)) == ENC_ERR_PEER_RESET) {
                /* its writer is gone, and what else it wrote with it: the
                 * ring is read again once its restored incarnation resets it */
                ENC_INFO("p2p", "rank %d ended before its message %llu could be read from "
                         "its log: dropped, its restored incarnation sends it again", peer,
                         (unsigned long long)in->msg->mm.seq);
                rx_forget(in);
                pin->ring_on = false;
                return ENC_OK;
            }
            if (rv != ENC_OK)
                return rv;
            n += (ssize_t)in->got; /* the copy counts against the turn */
            enc_p2p.shm_remote++;
        } else if (!hdr && !loc) {
            in->got += (size_t)n;
        }
        if (in->msg != NULL && in->got == in->msg->bytes) {
            enc_p2p.shm_recvd += rx == ring_rx;
            frame_done(peer, in);
        }
        budget = budget > (size_t)n ? budget - (size_t)n : 0;
        if (budget == 0 && !(in == &pin->tcp && staged(pin))) {
            *cut = true;
            return ENC_OK; /* the turn is over (staged bytes are read first) */
        }
    }
    return ENC_OK;
}

static enc_status_t read_in(int peer, struct p2p_in *in)
{
    bool moved = false, cut = false; /* a socket with more polls readable again */

    return read_rx(peer, in, &in->tcp, tcp_rx, &moved, &cut);
}

/* Reads peer's ring to us; rings peer when it waits for the room freed
 * (unless its connection just ended: it finished, or is lost; nor before
 * this rank's first point-to-point call: a peer may write while this rank
 * is still in MPI_Init, without the world's addresses to connect to yet;
 * the writer looks again within SHM_RETRY_MS). */
static bool read_ring(int peer, struct p2p_in *in, bool ring_back)
{
    bool moved = false, cut = false;

    if (in->fd < 0 || !in->ring_on ||
        enc_p2p_ring_used(enc_p2p_shm_ring(peer, enc_p2p.rank)) == 0) /* the usual look */
        return false;
    if (read_rx(peer, in, &in->ring, ring_rx, &moved, &cut) != ENC_OK)
        enc_p2p_peer_lost(peer, "sent a malformed point-to-point frame through shared memory");
    if (cut && !rings_behind) {
        rings_behind = true;
        if (!on_progress_thread)
            wake_thread();
    }
    /* as for a write: a writer that polls needs nothing, a sleeping one
     * its futex, only one that does neither a bell on TCP */
    if (moved && ring_back && enc_p2p_announced() && enc_p2p_shm_room_asked(peer) &&
        enc_p2p_shm_bell_needed(peer, !on_progress_thread)) {
        struct p2p_out *o = &enc_p2p.out[peer];

        (void)connect_out(peer, o);
        if (o->fd >= 0 && ring_bell(peer, o) == ENC_OK)
            push(peer);
    }
    return moved;
}

bool enc_p2p_conn_shm_progress(void)
{
    uint64_t ev = enc_p2p.events;
    bool moved = false;

    if (!enc_p2p_shm_any() || enc_p2p.out == NULL)
        return false;
    enc_p2p_shm_bell_heard(); /* looking now: a write from now on rings again */
    for (int r = 0; r < enc_p2p.size; r++) {
        struct p2p_out *o = &enc_p2p.out[r];

        if (!enc_p2p_shm_peer(r))
            continue;
        moved |= read_ring(r, &enc_p2p.in[r], true);
        if (o->shm && o->fd >= 0 && o->cursor != NULL) {
            const struct p2p_frame *was = o->cursor;
            size_t was_off = o->off;

            push(r);
            moved |= o->cursor != was || o->off != was_off;
        }
    }
    return moved || enc_p2p.events != ev;
}

static void serve(const struct pollfd *p, const int *who, const bool *is_in, int n)
{
    for (int i = 0; i < n; i++) {
        int peer = who[i];

        if (p[i].revents == 0)
            continue;
        if (!is_in[i]) {
            if (enc_p2p.out[peer].fd == p[i].fd)
                push(peer);
        } else if (!enc_p2p.tcp_led) { /* else a waiting thread reads (tcp_wait.c) */
            enc_p2p_conn_read_peer(peer, p[i].fd);
        }
    }
}

void enc_p2p_conn_read_peer(int peer, int fd)
{
    struct p2p_in *in = &enc_p2p.in[peer];
    enc_status_t rv;
    uint32_t inc;

    if (in->fd != fd || (rv = read_in(peer, in)) == ENC_OK)
        return;
    if (rv == ENC_ERR_PROTO)
        enc_p2p_peer_lost(peer, "sent a malformed point-to-point frame");
    inc = in->inc;
    while (read_ring(peer, in, false)) /* what it wrote before it ended */
        ;
    close_in(in);
    if (!enc_p2p.finishing) /* else it finished */
        mark_down(peer, inc);
}

int enc_p2p_conn_in_set(struct pollfd *p, int *who)
{
    int n = 0;

    for (int r = 0; r < enc_p2p.size; r++)
        if (enc_p2p.in[r].fd >= 0) {
            p[n] = (struct pollfd){.fd = enc_p2p.in[r].fd, .events = POLLIN};
            who[n++] = r;
        }
    return n;
}

/* The poll set (the lock held): the eventfd, then connections. */
static int poll_set(struct pollfd *p, int *who, bool *is_in, int *timeout)
{
    int n = 1, tcp_timeout = -1;
    bool reads = enc_p2p_tcp_progress_reads(&tcp_timeout);

    *timeout = -1;

    p[0] = (struct pollfd){.fd = enc_p2p.wake_fd, .events = POLLIN};
    for (int r = 0; r < enc_p2p.size; r++) {
        const struct p2p_out *o = &enc_p2p.out[r];

        if (enc_p2p.in[r].fd >= 0 && reads) {
            p[n] = (struct pollfd){.fd = enc_p2p.in[r].fd, .events = POLLIN};
            who[n] = r;
            is_in[n++] = true;
        }
        if (o->fd >= 0 && (o->cursor != NULL || o->ctrl != NULL)) {
            p[n] = (struct pollfd){.fd = o->fd, .events = POLLOUT};
            who[n] = r;
            is_in[n++] = false;
        }
        if (resume_waits(o))
            *timeout = RESUME_RETRY_MS;
        /* a ring not reset yet by its reader, or full: look again soon (its
         * bell or reset normally comes first) */
        if (o->shm && o->fd >= 0 && o->cursor != NULL)
            *timeout = *timeout < 0 ? SHM_RETRY_MS : ENC_MIN(*timeout, SHM_RETRY_MS);
    }
    /* a held attentive count (shm_link.h) is let go when idle */
    if (enc_p2p_shm_hold_timer())
        *timeout = *timeout < 0 ? ENC_P2P_HOLD_MS : ENC_MIN(*timeout, ENC_P2P_HOLD_MS);
    if (rings_behind)
        *timeout = 0;
    shm_retry = *timeout >= 0 && *timeout <= SHM_RETRY_MS;
    if (tcp_timeout >= 0) /* a leader's reads are looked after */
        *timeout = *timeout < 0 ? tcp_timeout : ENC_MIN(*timeout, tcp_timeout);
    return n;
}

static void *progress_main(void *arg)
{
    int cap = 1 + 2 * enc_p2p.size;
    struct pollfd *p = calloc((size_t)cap, sizeof(*p));
    int *who = calloc((size_t)cap, sizeof(int));
    bool *is_in = calloc((size_t)cap, sizeof(bool));
    uint64_t held_seen = UINT64_MAX;

    (void)arg;
    on_progress_thread = true;
    __atomic_store_n(&enc_p2p.tid, (int)gettid(), __ATOMIC_RELEASE);
    if (p == NULL || who == NULL || is_in == NULL)
        enc_p2p_peer_lost(enc_p2p.rank, "ran out of memory for point-to-point progress");
    for (;;) {
        uint64_t v;
        int n, timeout;

        enc_p2p_lock();
        if (enc_p2p.stop) {
            enc_p2p_unlock();
            break;
        }
        install_accepted();
        n = poll_set(p, who, is_in, &timeout);
        enc_p2p_unlock();
        if (poll(p, (nfds_t)n, timeout) < 0 && errno != EINTR)
            ENC_WARN("p2p", "poll: %m");
        if (p[0].revents && read(enc_p2p.wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
            ENC_WARN("p2p", "eventfd read: %m");
        enc_p2p_lock();
        shm_retry = false;
        rings_behind = false; /* the look below reads on */
        enc_p2p_tcp_progress_woke(); /* may take the reads back from an idle leader */
        serve(p + 1, who + 1, is_in + 1, n - 1);
        (void)enc_p2p_shm_expire_held(&held_seen); /* then the look below */
        (void)enc_p2p_conn_shm_progress();
        if (timeout >= 0)
            retry_resumes();
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
    enc_p2p_shm_open(enc_p2p.rank, enc_p2p.size);
    if ((enc_p2p.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
        ENC_ERROR("p2p", "eventfd: %m");
        return ENC_ERR_SYS;
    }
    return enc_p2p_tcp_open();
}

/* What this rank has received on each channel, as POSITIONS pairs. */
struct pos_list {
    uint8_t *buf;
    size_t n, cap;
};

static void add_pos(void *arg, uint64_t cid, int peer, struct enc_chan_pos pos)
{
    struct pos_list *l = arg;
    struct enc_wbuf w;

    if (pos.recv == 0 || l->n >= l->cap)
        return; /* a channel left out is re-sent whole (dropped here by number) */
    enc_w_init(&w, l->buf + l->n * ENC_P2P_POS_BYTES, ENC_P2P_POS_BYTES);
    enc_w_u64(&w, enc_p2p_key(cid, peer, enc_p2p.rank));
    enc_w_u64(&w, pos.recv);
    l->n++;
}

void enc_p2p_announce(void)
{
    struct enc_p2p_hdr h = {.kind = ENC_P2P_RESUME};
    struct enc_p2p_hdr ph = {.kind = ENC_P2P_POSITIONS};
    struct pos_list l = {.cap = ENC_MIN(enc_chanseq_count(&enc_p2p.chans), ENC_P2P_MAX_POS)};
    char addr[ENC_P2P_MAX_ADDR + 1];
    uint16_t port;

    l.buf = l.cap ? malloc(l.cap * ENC_P2P_POS_BYTES) : NULL;
    if (l.buf != NULL)
        enc_chanseq_each(&enc_p2p.chans, add_pos, &l);
    ph.bytes = l.n * ENC_P2P_POS_BYTES;
    enc_p2p_self_addr(addr, sizeof(addr), &port);
    h.bytes = strlen(addr);
    h.ack = port;
    ENC_INFO("p2p", "announcing this incarnation to its peers with the positions of %zu "
             "channels", l.n);
    for (int r = 0; r < enc_p2p.size; r++) {
        if (r == enc_p2p.rank)
            continue;
        enc_p2p.out[r].down = false; /* reach every peer, also one lost meanwhile */
        (void)enc_p2p_conn_queue(r, &ph, l.buf);
        (void)enc_p2p_conn_queue(r, &h, addr);
    }
    free(l.buf);
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

/* In a snapshot image, the lock held: the copy shares every socket with
 * the rank, and a peer must see the rank's connections end when it dies,
 * so the image closes them; a frame half read comes again (the image's
 * positions are below it); a half-written one is written again whole.
 * Control frames stay queued (an ACK the rank owed goes when the
 * connection is made again). */
void enc_p2p_conn_fork_child(void)
{
    acc.mu = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    for (size_t i = 0; i < acc.n; i++)
        close(acc.q[i].fd);
    acc.n = 0;
    for (int r = 0; r < enc_p2p.size; r++) {
        struct p2p_out *o = &enc_p2p.out[r];

        close_in(&enc_p2p.in[r]);
        enc_sock_close(&o->fd);
        o->cursor = NULL;
        o->off = 0;
        o->ctrl_off = 0;
        o->down = false;
        o->shm_ready = false; /* a new connection's ring is reset by its reader */
    }
    if (enc_p2p.wake_fd >= 0)
        close(enc_p2p.wake_fd);
    enc_p2p.wake_fd = -1;
    enc_p2p_tcp_fork_child();
    enc_p2p_spill_fork_child();
    enc_p2p_remote_forget(); /* a restored image asks the kernel again to be readable */
    __atomic_store_n(&enc_p2p.tid, 0, __ATOMIC_RELEASE);
}

enc_status_t enc_p2p_conn_restart(void)
{
    enc_p2p_shm_reset_line(); /* the image's threads that polled or slept are gone */
    if ((enc_p2p.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
        ENC_ERROR("p2p", "eventfd: %m");
        return ENC_ERR_SYS;
    }
    if (enc_p2p_tcp_open() != ENC_OK)
        return ENC_ERR_SYS;
    return enc_p2p_conn_start();
}

static bool queues_empty(void)
{
    for (int r = 0; r < enc_p2p.size; r++) {
        const struct p2p_out *o = &enc_p2p.out[r];

        if (o->fd >= 0 && (o->cursor != NULL || o->ctrl != NULL))
            return false;
    }
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
    struct enc_p2p_pool_stats ps;

    if (!enc_p2p_started())
        return;
    enc_engine_set_p2p_accept(NULL);
    enc_p2p_lock();
    enc_p2p.stop = true;
    enc_p2p_unlock();
    wake_thread();
    pthread_join(enc_p2p.thread, NULL);
    ENC_DEBUG("p2p", "messages through shared memory: %llu sent, %llu received (%llu of them "
              "read from the sender's log)", (unsigned long long)enc_p2p.shm_sent,
              (unsigned long long)enc_p2p.shm_recvd, (unsigned long long)enc_p2p.shm_remote);
    enc_p2p_pool_stats(&ps);
    ENC_DEBUG("p2p", "payload memory: %zu chunks of %zu bytes held (%zu kept free, %zu bytes), "
              "%zu mapped in all, %zu dropped after a fork", ps.chunks, ps.bytes, ps.kept_chunks,
              ps.kept_bytes, ps.mapped, ps.dropped);
    for (int r = 0; r < enc_p2p.size; r++) {
        enc_sock_close(&enc_p2p.out[r].fd);
        close_in(&enc_p2p.in[r]);
    }
    __atomic_store_n(&enc_p2p.tid, 0, __ATOMIC_RELEASE);
}

int enc_p2p_thread_id(void) { return __atomic_load_n(&enc_p2p.tid, __ATOMIC_ACQUIRE); }
