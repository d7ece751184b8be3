/*
 * conn_tx.c - the write side of the point-to-point connections (conn_tx.h):
 * frames queued to a peer, its payload log and the log's cursor, written
 * from the sending thread at once as far as the socket or the ring takes
 * them (the progress thread writes the rest, progress.c); our connection
 * to a peer made, and made again to a restored peer (RESUME), and a lost
 * peer marked down.
 *
 * Writes go out at once from the sending thread as far as the socket
 * takes them; the rest is the progress thread's, which polls our
 * connections that have bytes queued.
 *
 * A peer of this host gets its DATA frames through our ring to it
 * instead of the socket (shm_ring.h, shm_link.h): the same frames, the
 * same log cursor, written as far as the ring takes them.
 *
 * A peer that is lost (its connection ends outside MPI_Finalize) is
 * marked down: messages to it go to its log only.  Its restored
 * incarnation connects to every rank and sends RESUME with its address;
 * each rank then connects to it and writes its whole log for it again, in
 * order.  Whatever either side receives twice, it drops by channel number
 * (p2p.c), so any connection may be replaced at any time.
 */
#include "enc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include "core/coldcopy.h"
#include "core/tunables.h"
#include "engine/layer.h"
#include "net/sock.h"
#include "p2p/conn_spill.h"
#include "p2p/conn_trim.h"
#include "p2p/conn_tx.h"
#include "p2p/lend.h"
#include "p2p/p2p_int.h"
#include "p2p/pool.h"
#include "p2p/remote.h"
#include "p2p/shm_link.h"

static void free_frames(struct p2p_frame *f)
{
    while (f != NULL) {
        struct p2p_frame *next = f->next;

        enc_p2p_pool_put(f);
        f = next;
    }
}

/* A frame in the pool's lane of peer lane (-1: control frames' lane);
 * cold: the payload has left already (written at once), so its copy here
 * is read only for a restored receiver and goes around the caches; a NULL
 * payload is not copied. */
static struct p2p_frame *frame_new(int lane, const struct enc_p2p_hdr *h, const void *payload,
                                   bool cold)
{
    struct p2p_frame *f = enc_p2p_pool_log_get(lane, sizeof(*f) + ENC_P2P_HDR_BYTES + h->bytes);

    if (f == NULL)
        return NULL;
    f->next = NULL;
    f->key = 0;
    f->spilled = false;
    f->inc = 0;
    f->seq = h->seq;
    f->len = ENC_P2P_HDR_BYTES + h->bytes;
    enc_p2p_hdr_encode(h, f->buf);
    if (cold)
        enc_cold_copy(f->buf + ENC_P2P_HDR_BYTES, payload, h->bytes);
    else if (h->bytes > 0 && payload != NULL) /* NULL: the caller copies it (lend_at_once) */
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

/* The peer's incarnation inc is gone: its log waits for its next
 * incarnation's RESUME.  A connection to a newer incarnation (its RESUME
 * came first) stays. */
void enc_p2p_conn_mark_down(int peer, uint32_t inc)
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
    if (keeps_log()) {
        if (!o->shm) /* read by no transport now (a ring's reader may: remote.h) */
            enc_p2p_spill_written((int)(o - enc_p2p.out), f);
        return;
    }
    if (o->log != f)
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

/* Whether the reader of a ring must read frame f before its next call:
 * its synchronous sender waits for the match, or it goes as a locator
 * (write_data), whose lend or log frame waits for the read.  An eager
 * frame written whole waits for nothing (shm_link.h). */
static bool reader_must_act(const struct p2p_frame *f)
{
    size_t min = enc_p2p_remote_min(keeps_log());

    return enc_p2p_hdr_mode(f->buf) == ENC_P2P_SYNC ||
           (min > 0 && !f->spilled && f->len - ENC_P2P_HDR_BYTES >= min);
}

/* Writes the log from its cursor into a stream (tx) as far as it takes:
 * frames the restored peer's image had already are not sent again, a
 * spilled one is read back first.  *act (rings only, else NULL) is set
 * when a frame written needs its reader now (reader_must_act). */
static enc_status_t write_log(tx_fn tx, int peer, struct p2p_out *o, bool *act)
{
    enc_status_t rv = ENC_OK;

    while (o->cursor != NULL) {
        if (o->off == 0 && o->cursor->spilled && !enc_p2p_skipped(o, o->cursor))
            (void)enc_p2p_unspill_cursor(o);
        if (o->off > 0 || !enc_p2p_skipped(o, o->cursor)) {
            if (act != NULL && !*act)
                *act = reader_must_act(o->cursor);
            if ((rv = write_data(tx, peer, o)) != ENC_OK)
                break;
            enc_p2p.shm_sent += tx == ring_tx;
        }
        cursor_done(o);
    }
    return rv;
}

/* Rings peer's bell on our TCP connection to it (connected already). */
enc_status_t enc_p2p_conn_ring_bell(int peer, struct p2p_out *o)
{
    struct enc_p2p_hdr h = {.kind = ENC_P2P_BELL};
    struct p2p_frame *f = frame_new(-1, &h, NULL, false);

    if (f == NULL)
        return ENC_ERR_NOMEM;
    enc_p2p.shm_bells++;
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
 * reader's bell unless it is polling, when the reader must act before its
 * next call: a frame written needs it (reader_must_act), or some are left
 * for room only its read makes.  Else only a sleeping reader is woken. */
static enc_status_t flush_ring(int peer, struct p2p_out *o)
{
    const struct p2p_frame *was = o->cursor;
    size_t was_off = o->off;
    enc_status_t rv = ENC_OK;
    bool act = false;

    if (!ring_ready(peer, o))
        return ENC_INPROGRESS;
    for (;;) {
        rv = write_log(ring_tx, peer, o, &act);
        if (o->cursor == NULL || !enc_p2p_shm_want_room(peer))
            break;
    }
    if (o->cursor == was && o->off == was_off)
        return rv == ENC_OK && o->cursor != NULL ? ENC_INPROGRESS : rv;
    if (!act && o->cursor == NULL)
        enc_p2p_shm_wake_sleepers(peer);
    else if (enc_p2p_shm_bell_needed(peer, !enc_p2p_on_progress_thread))
        rv = enc_p2p_conn_ring_bell(peer, o);
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
        rv = o->shm ? flush_ring(peer, o) : write_log(tcp_tx, peer, o, NULL);
    if (rv == ENC_OK)
        enc_p2p_wake_waiters(); /* enc_p2p_flush waits for empty queues */
    return rv == ENC_INPROGRESS ? ENC_OK : rv;
}

/* Flushes, and marks the peer down when its connection broke. */
void enc_p2p_conn_push(int peer)
{
    struct p2p_out *o = &enc_p2p.out[peer];

    if (o->fd < 0)
        return;
    if (flush_out(peer, o) != ENC_OK) {
        if (!enc_p2p.finishing)
            enc_p2p_conn_mark_down(peer, o->inc);
        else
            enc_sock_close(&o->fd);
        return;
    }
    if (enc_p2p_on_progress_thread)
        return;
    if (o->ctrl != NULL || (o->cursor != NULL && !(o->shm && enc_p2p.shm_retry)))
        enc_p2p_wake_thread(); /* it polls (a ring: looks again within SHM_RETRY_MS) */
}

/* A new connection to a peer: the whole log goes again. */
static void connected(struct p2p_out *o, int fd)
{
    enc_sock_close(&o->fd);
    o->fd = fd;
    o->down = false;
    o->cursor = o->log;
    enc_p2p_spill_forget(o, NULL); /* frames read back for it are spilled again */
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

enc_status_t enc_p2p_conn_connect(int peer, struct p2p_out *o)
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

/* A sender whose lent buffer is being read spins this many times before it
 * gives up the lock between looks (wait_returned). */
#define LEND_SPINS 20000
/* ... and waits at most ENCORE_P2P_LEND_WAIT_MS for it (then revokes the
 * lend), asked once. */
static int lend_wait_ms(void)
{
    static int ms = -1;

    if (ms < 0)
        ms = (int)enc_tunable_uint(ENC_TUNE_P2P_LEND_WAIT_MS);
    return ms;
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

/* Frame f of message h to peer joins the log as written: the cursor stays
 * where it is. */
static void log_written(int peer, struct p2p_out *o, const struct enc_p2p_hdr *h,
                        struct p2p_frame *f)
{
    f->key = enc_p2p_key(h->cid, h->src, peer);
    append(&o->log, &o->log_tail, f);
    o->logged += f->len;
    enc_p2p_log_added(f);
}

/* A message written at once (ring_at_once, tcp_at_once) goes into the
 * log after it, as written (the caller moves the cursor to it when part
 * of it is still to write).  It left already, so a log without memory for
 * it ends the job. */
static struct p2p_frame *log_at_once(int peer, struct p2p_out *o, const struct enc_p2p_hdr *h,
                                     const void *payload)
{
    struct p2p_frame *f = frame_new(peer, h, payload, true);

    if (f == NULL)
        enc_p2p_peer_lost(enc_p2p.rank, "ran out of memory for its payload log (a message "
                          "it sent could not be kept for the receiver's restart)");
    log_written(peer, o, h, f);
    return f;
}

/* After ring_at_once: the reader rung unless it looks when it must act
 * (a synchronous send), else woken if it sleeps; the message kept in the
 * log as written (its cursor stays past it) when a log is kept. */
static void wrote_at_once(int peer, struct p2p_out *o, const struct enc_p2p_hdr *h,
                          const void *payload)
{
    if (h->mode != ENC_P2P_SYNC)
        enc_p2p_shm_wake_sleepers(peer);
    else if (enc_p2p_shm_bell_needed(peer, !enc_p2p_on_progress_thread)) {
        (void)enc_p2p_conn_ring_bell(peer, o);
        enc_p2p_conn_push(peer); /* what the socket did not take, or a broken connection */
    }
    if (keeps_log())
        (void)log_at_once(peer, o, h, payload);
}

/* The reader claimed the lend: the buffer is the program's again once it
 * was read, or the reader is lost (its connection's end marks it down, in
 * the progress thread, which needs the lock; a restored reader resets the
 * ring, and the word with it), or after lend_wait_ms(): then the lend is
 * revoked and the reader, if it lives, reads the log frame again
 * (lend.h).  A read of a few MiB takes a few hundred microseconds: spun on
 * first, then waited on with the lock given up. */
static void wait_returned(struct p2p_out *o, struct enc_p2p_ring *ring, uint64_t t)
{
    const struct timespec pause = {.tv_nsec = 20000};
    uint64_t deadline = enc_deadline_ms(lend_wait_ms());

    o->lending = true; /* other sends to this peer take the log's way */
    for (unsigned spins = 0; enc_p2p_lend_reading(ring, t) && !o->down; spins++) {
        if (enc_ms_left(deadline) == 0)
            break;
        if (spins < LEND_SPINS) {
            __builtin_ia32_pause();
            continue;
        }
        enc_p2p_unlock();
        nanosleep(&pause, NULL);
        enc_p2p_lock();
    }
    if (enc_p2p_lend_revoke(ring, t))
        ENC_DEBUG("p2p", "rank %d was still reading a lent buffer after %d ms, or was lost: "
                  "lend %llu revoked (it reads the log)", (int)(o - enc_p2p.out), lend_wait_ms(),
                  (unsigned long long)t);
    o->lending = false;
}

/* A large DATA message to a peer of this host, nothing queued before it:
 * the program's buffer lent to the reader while its payload is copied
 * into the log, so the two copies overlap (lend.h).  True: written and
 * logged, and the buffer the program's again.  False: it goes as any
 * frame (the reader then copies it out of the log). */
static bool lend_at_once(int peer, struct p2p_out *o, const struct enc_p2p_hdr *h,
                         const void *payload)
{
    size_t min = enc_p2p_remote_min(keeps_log());
    uint8_t wire[ENC_P2P_REMOTE_WIRE];
    struct enc_p2p_ring *ring;
    struct p2p_frame *f;
    uint64_t t;

    if (!o->shm || o->fd < 0 || o->down || o->cursor != NULL || o->ctrl != NULL ||
        o->nskip != 0 || o->lending || min == 0 || h->bytes < min || !keeps_log() ||
        !enc_p2p_remote_lend() ||
        enc_p2p_on_progress_thread || !ring_ready(peer, o))
        return false;
    if ((f = frame_new(peer, h, NULL, false)) == NULL)
        return false;
    ring = enc_p2p_shm_ring(enc_p2p.rank, peer);
    t = o->lend_ticket = o->lend_ticket % ENC_P2P_LEND_TICKET_MAX + 1;
    enc_p2p_lend_open(ring, t);
    if (enc_p2p_remote_encode_lent(f, payload, t, wire) != ENC_OK ||
        !enc_p2p_ring_put_all2(ring, enc_p2p_shm_cap(), wire, sizeof(wire), wire, 0)) {
        (void)enc_p2p_lend_withdraw(ring, t); /* nobody saw it */
        enc_p2p_pool_put(f);
        return false;
    }
    enc_p2p.shm_sent++;
    if (enc_p2p_shm_bell_needed(peer, !enc_p2p_on_progress_thread)) {
        (void)enc_p2p_conn_ring_bell(peer, o);
        enc_p2p_conn_push(peer); /* what the socket did not take, or a broken connection */
    }
    enc_cold_copy(f->buf + ENC_P2P_HDR_BYTES, payload, h->bytes);
    log_written(peer, o, h, f);
    if (!enc_p2p_lend_withdraw(ring, t))
        wait_returned(o, ring, t);
    return true;
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
        enc_p2p_conn_push(peer);
    } else {
        enc_p2p_spill_written(peer, f); /* written, as cursor_done's frames */
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
    if ((f = frame_new(-1, h, NULL, false)) == NULL)
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
    if ((f = frame_new(h->kind == ENC_P2P_DATA ? peer : -1, h, payload, false)) == NULL)
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
    (void)enc_p2p_conn_connect(peer, o);
    enc_p2p_conn_push(peer);
    return ENC_OK;
}

enc_status_t enc_p2p_conn_send_data(int peer, const struct enc_p2p_hdr *h, const void *payload,
                                    bool lend)
{
    if (lend && lend_at_once(peer, &enc_p2p.out[peer], h, payload))
        return ENC_OK;
    return enc_p2p_conn_queue(peer, h, payload);
}

/* RESUME from a peer's new incarnation: connect to it, send the log. */
void enc_p2p_conn_resume_peer(int peer, const struct enc_p2p_msg *m)
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
    enc_p2p_conn_push(peer);                    /* the ACKs held for it first */
}

bool enc_p2p_conn_queues_empty(void)
{
    for (int r = 0; r < enc_p2p.size; r++) {
        const struct p2p_out *o = &enc_p2p.out[r];

        if (o->fd >= 0 && (o->cursor != NULL || o->ctrl != NULL))
            return false;
    }
    return true;
}
