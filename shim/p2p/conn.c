/*
 * conn.c - the point-to-point connections' lifecycle (conn.h): the tables
 * and the eventfd made, the connections peers made to us accepted (by the
 * listener's thread) and installed (by the progress thread), a peer
 * marked down revived, a restored rank's RESUME sent and retried, the
 * layer's descriptors closed in a snapshot's image.  Writing is
 * conn_tx.c's, reading conn_rx.c's, the progress thread progress.c's.
 *
 * A peer that is lost (its connection ends outside MPI_Finalize) is
 * marked down (conn_tx.c).  Its restored incarnation connects to every
 * rank and sends RESUME with its address; each rank then connects to it
 * and writes its whole log for it again, in order.  Whatever either side
 * receives twice, it drops by channel number (p2p.c), so any connection
 * may be replaced at any time: a new connection from a peer replaces the
 * old one, and frames half read on the old one come again on the new.
 */
#include "enc.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/vec.h"
#include "engine/engine.h"
#include "engine/layer.h"
#include "net/sock.h"
#include "p2p/conn.h"
#include "p2p/conn_rx.h"
#include "p2p/conn_spill.h"
#include "p2p/conn_trim.h"
#include "p2p/conn_tx.h"
#include "p2p/p2p_int.h"
#include "p2p/remote.h"
#include "p2p/shm_link.h"
#include "p2p/tcp_lead.h"
#include "proto/auth.h"
#include "proto/wire.h"

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
    (void)enc_p2p_conn_connect(peer, o);
    enc_p2p_conn_push(peer);
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
        if (enc_p2p.up != NULL)
            (void)enc_p2p.up->start_locked();
        enc_p2p_unlock();
    }
    if (enc_p2p_started())
        enc_p2p_wake_thread();
}

/* A connection that carries nothing and has ended already: one a peer
 * made and closed again (it replaced it, enc_p2p_conn_resume_peer), whose
 * handshake the listener may finish after the one that replaced it;
 * installed last, it would push out the live one.  Anything it carries is
 * read as usual. */
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
 * (enc_p2p_conn_resume_peer closes it before it makes the new one), its
 * handshake finished after the new one's.  Installed, it would close the live one
 * here, whose end the peer never reads (it only writes on it), and its own
 * end would then take a live peer for lost, each side waiting for the
 * other's RESUME.  What it carries the peer sends again on the live one
 * (its log, from the start) and its ACKs for a new incarnation wait for
 * that incarnation's RESUME (held). */
static bool superseded(int fd, const struct p2p_in *in, uint32_t inc)
{
    return in->fd >= 0 && in->inc >= inc && peer_ended(fd) && !peer_ended(in->fd);
}

/* This accepted connection must not replace the installed one from its
 * peer (in): it ended empty, or it was superseded; *quiet: it ended
 * empty (nothing worth a line). */
static bool must_not_replace(int fd, const struct p2p_in *in, uint32_t inc, bool *quiet)
{
    return (*quiet = ended_empty(fd)) || superseded(fd, in, inc);
}

/* Installs the accepted connections (the lock held): each replaces any
 * older one from that peer; also while this rank finalizes, since a peer
 * restarted meanwhile still needs this rank's log. */
void enc_p2p_conn_install_accepted(void)
{
    int peers[16], incs[16], nrev = 0;

    pthread_mutex_lock(&acc.mu);
    for (size_t i = 0; i < acc.n; i++) {
        struct p2p_in *in = &enc_p2p.in[acc.q[i].rank];
        bool quiet;

        if (must_not_replace(acc.q[i].fd, in, acc.q[i].inc, &quiet)) {
            if (!quiet)
                ENC_INFO("p2p", "rank %d: a connection it has replaced already ignored",
                         acc.q[i].rank);
            close(acc.q[i].fd);
            continue;
        }

        enc_p2p_conn_close_in(in);
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
        enc_p2p.rings_behind = true;
        enc_p2p_tcp_fds_changed();
    }
    acc.n = 0;
    pthread_mutex_unlock(&acc.mu);
    for (int i = 0; i < nrev; i++) /* connecting waits for the peer: not under acc.mu */
        revive(peers[i], (uint32_t)incs[i]);
}

/* A restarted rank's RESUME that could not be delivered (the peer was
 * itself being restarted): true while one waits, so the progress thread
 * tries again. */
bool enc_p2p_conn_resume_waits(const struct p2p_out *o)
{
    return o->down && o->fd < 0 && o->ctrl != NULL;
}

/* Tries again to reach peers whose RESUME waits (the lock held). */
void enc_p2p_conn_retry_resumes(void)
{
    for (int r = 0; r < enc_p2p.size; r++) {
        struct p2p_out *o = &enc_p2p.out[r];

        if (!enc_p2p_conn_resume_waits(o))
            continue;
        o->down = false;
        (void)enc_p2p_conn_connect(r, o);
        enc_p2p_conn_push(r);
    }
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

void enc_p2p_conn_listen(const struct enc_p2p_delivery *up)
{
    enc_p2p.up = up;
    enc_engine_set_p2p_accept(accepted);
}

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

        enc_p2p_conn_close_in(&enc_p2p.in[r]);
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
