/*
 * conn_rx.c - the read side of the point-to-point connections (conn_rx.h):
 * frames read from a peer's connection to us and from its ring to us,
 * each complete one handed up through the delivery the layer registered
 * (conn_rx.h: a message, an ACK) or taken here (a BELL, a restored peer's
 * POSITIONS and RESUME).
 *
 * A peer's ring to us is read while its connection is installed, by every
 * call that waits or polls and by the progress thread when the peer rings
 * its BELL.  A new connection from a peer replaces the old one (conn.c),
 * and frames half read on the old one come again on the new.
 */
#include "enc.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "net/sock.h"
#include "p2p/conn_rx.h"
#include "p2p/conn_trim.h"
#include "p2p/conn_tx.h"
#include "p2p/p2p_int.h"
#include "p2p/pool.h"
#include "p2p/remote.h"
#include "p2p/shm_link.h"

#define READ_CHUNK (1u << 20) /* payload bytes read per turn, so sends interleave */

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
void enc_p2p_conn_close_in(struct p2p_in *in)
{
    if (in->fd >= 0)
        enc_p2p.tcp_fds_gen++; /* a leader's poll set has it (tcp_wait.c) */
    enc_sock_close(&in->fd);
    free(in->stage); /* what it staged was that connection's */
    in->stage = NULL;
    in->slen = in->spos = 0;
    in->drained = false;
    rx_forget(&in->tcp);
    rx_forget(&in->ring);
    in->ring_on = false;
}

/* A complete header was read: start the frame. */
static enc_status_t begin_frame(int peer, struct p2p_rx *in)
{
    struct enc_p2p_hdr h;
    struct enc_p2p_msg *m;

    if (enc_p2p_hdr_decode(&h, in->hdr, sizeof(in->hdr)) != ENC_OK)
        return ENC_ERR_PROTO;
    if (h.kind == ENC_P2P_ACK) {
        enc_p2p.up->ack(h.ack);
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
        (m->direct_to = enc_p2p.up->direct_target(h.cid, h.src, h.tag, h.seq, h.bytes)) != NULL)
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
        enc_p2p_conn_resume_peer(peer, m);
        enc_p2p_msg_free(m);
    } else {
        enc_p2p.up->data(m);
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

/* A recv that took less than it asked for emptied the socket: the next
 * read, once what it took is used, reports EAGAIN without a system call
 * (one per message, about 2 us on this VM); poll, which every reader of a
 * connection waits in, reports what came since. */
static ssize_t drained_if_short(struct p2p_in *pin, ssize_t got, size_t asked)
{
    pin->drained = got > 0 && (size_t)got < asked;
    return got;
}

static ssize_t tcp_rx(int peer, int fd, void *dst, size_t n)
{
    struct p2p_in *pin = &enc_p2p.in[peer];
    ssize_t got;

    if (!staged(pin)) {
        if (pin->drained) {
            pin->drained = false;
            errno = EAGAIN;
            return -1;
        }
        if (n > STAGE_MAX_WANT ||
            (pin->stage == NULL && (pin->stage = malloc(STAGE_BYTES)) == NULL))
            return drained_if_short(pin, recv(fd, dst, n, 0), n);
        if ((got = drained_if_short(pin, recv(fd, pin->stage, STAGE_BYTES, 0), STAGE_BYTES)) <= 0)
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
    if (cut && !enc_p2p.rings_behind) {
        enc_p2p.rings_behind = true;
        if (!enc_p2p_on_progress_thread)
            enc_p2p_wake_thread();
    }
    /* as for a write: a writer that polls needs nothing, a sleeping one
     * its futex, only one that does neither a bell on TCP */
    if (moved && ring_back && enc_p2p_announced() && enc_p2p_shm_room_asked(peer) &&
        enc_p2p_shm_bell_needed(peer, !enc_p2p_on_progress_thread)) {
        struct p2p_out *o = &enc_p2p.out[peer];

        (void)enc_p2p_conn_connect(peer, o);
        if (o->fd >= 0 && enc_p2p_conn_ring_bell(peer, o) == ENC_OK)
            enc_p2p_conn_push(peer);
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

            enc_p2p_conn_push(r);
            moved |= o->cursor != was || o->off != was_off;
        }
    }
    return moved || enc_p2p.events != ev;
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
    enc_p2p_conn_close_in(in);
    if (!enc_p2p.finishing) /* else it finished */
        enc_p2p_conn_mark_down(peer, inc);
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
