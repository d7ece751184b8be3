/*
 * xfer.c - framed non-blocking transfers and the engine's progress loop.
 *
 * Each message is one or more DATA frames (at least one, so an empty
 * message still synchronises).  The receiver validates every header: a
 * frame from another epoch, rank or collective is a fault, never data; a
 * different argument digest means the ranks called the collective
 * differently, which is reported as ENC_ERR_MISMATCH.
 */
#include "enc.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "engine/link_io.h"
#include "engine/state.h"
#include "engine/turns.h"
#include "engine/xfer.h"
#include "net/sock.h"
#include "proto/frame.h"

static bool xfer_complete(const struct enc_xfer *x)
{
    return x->frames > 0 && x->done == x->len && !x->in_frame && x->hdr_done == 0;
}

static void start_frame(struct enc_xfer *x, const struct enc_coll_ctx *c, size_t flen)
{
    struct enc_frame_hdr h = {
        .type = ENC_MSG_DATA,
        .src = (uint16_t)enc_eng.rank,
        .epoch = enc_eng.epoch,
        .check = c->check,
        .seq = c->seq,
        .len = flen,
    };

    enc_frame_encode(&h, x->hdr);
    x->frame_left = flen;
}

static size_t max_frame(const struct enc_xfer *x)
{
    return x->max_frame ? ENC_MIN(x->max_frame, ENC_DATA_MAX_PAYLOAD) : ENC_DATA_MAX_PAYLOAD;
}

/* One frame's worth of sending: ENC_OK complete, ENC_INPROGRESS would
 * block, negative on error. */
static enc_status_t send_step(struct enc_xfer *x, int fd, const struct enc_coll_ctx *c,
                              struct enc_link_io *io, short *ev)
{
    if (io->writer != NULL && io->writer != x)
        return ENC_INPROGRESS; /* another collective's frame is half written */
    for (;;) {
        if (!x->in_frame && x->hdr_done == 0) {
            size_t avail = x->limit ? *x->limit : x->len;
            size_t flen = ENC_MIN(avail - x->done, max_frame(x));

            if (xfer_complete(x))
                return ENC_OK;
            if (flen == 0 && !(x->len == 0 && x->frames == 0))
                return ENC_INPROGRESS; /* waiting for data to forward */
            start_frame(x, c, flen);
        }
        struct iovec iov[2] = {
            {x->hdr + x->hdr_done, ENC_FRAME_HDR_SIZE - x->hdr_done},
            {x->buf + x->done, x->frame_left},
        };
        struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2};
        ssize_t w = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);

        if (w < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                *ev = POLLOUT;
                return ENC_INPROGRESS;
            }
            if (errno == EINTR)
                continue;
            ENC_DEBUG("xfer", "send to rank %d: %m", x->peer);
            return ENC_ERR_PEER_RESET;
        }
        size_t hw = ENC_MIN((size_t)w, ENC_FRAME_HDR_SIZE - x->hdr_done);

        x->hdr_done += hw;
        x->in_frame = true;
        io->writer = x;
        x->done += (size_t)w - hw;
        x->frame_left -= (size_t)w - hw;
        if (x->hdr_done == ENC_FRAME_HDR_SIZE && x->frame_left == 0) {
            x->hdr_done = 0;
            x->in_frame = false;
            io->writer = NULL;
            x->frames++;
        }
    }
}

/* World rank of a transfer's peer (algorithms name communicator ranks). */
static int world_peer(const struct enc_xfer *x, const struct enc_coll_ctx *c)
{
    return c->peers ? c->peers[x->peer] : x->peer;
}

/* Data of another collective of this epoch from the peer. */
static bool other_collective(const struct enc_xfer *x, const struct enc_frame_hdr *h,
                             const struct enc_coll_ctx *c)
{
    return h->type == ENC_MSG_DATA && h->src == (uint16_t)world_peer(x, c) &&
           h->epoch == enc_eng.epoch && h->seq != c->seq;
}

/* Frame sequence numbers carry the communicator above bit 40
 * (group_coll.c); the world's are 0 there. */
static bool same_communicator(uint64_t a, uint64_t b)
{
    return a >> 40 == b >> 40;
}

static enc_status_t check_header(const struct enc_xfer *x, const struct enc_frame_hdr *h,
                                 const struct enc_coll_ctx *c)
{
    if (other_collective(x, h, c)) {
        /* its frames to this rank came before: it has none left for this
         * collective, which still waits for some */
        ENC_ERROR("xfer", "world rank %d sent data of collective #%llx while this rank waits "
                  "for its data of collective #%llx on the same communicator: the ranks call "
                  "the collectives of this communicator in different orders",
                  h->src, (unsigned long long)h->seq, (unsigned long long)c->seq);
        return ENC_ERR_MISMATCH;
    }
    if (h->type != ENC_MSG_DATA || h->src != (uint16_t)world_peer(x, c) || h->epoch != enc_eng.epoch ||
        h->seq != c->seq) {
        ENC_WARN("xfer", "unexpected frame from rank %d (type %u, src %u, epoch %u, seq %llu; "
                 "expected epoch %u seq %llu)", x->peer, h->type, h->src, h->epoch,
                 (unsigned long long)h->seq, enc_eng.epoch, (unsigned long long)c->seq);
        return ENC_ERR_PROTO;
    }
    if (h->check != c->check) {
        ENC_ERROR("xfer", "rank %d called collective #%llu with different arguments "
                  "(count, datatype, op or root) than rank %d",
                  x->peer, (unsigned long long)c->seq, enc_eng.rank);
        return ENC_ERR_MISMATCH;
    }
    if (h->len > x->len - x->done) {
        ENC_ERROR("xfer", "rank %d sent %llu bytes where %zu remain in collective #%llu",
                  x->peer, (unsigned long long)h->len, x->len - x->done,
                  (unsigned long long)c->seq);
        return ENC_ERR_MISMATCH;
    }
    return ENC_OK;
}

/* Takes the frames of this collective that were held while another one
 * read the link, in order, while x is between frames. */
static enc_status_t take_held(struct enc_xfer *x, struct enc_link_io *io,
                              const struct enc_coll_ctx *c)
{
    struct enc_held_frame *f;
    enc_status_t rv = ENC_OK;

    while (rv == ENC_OK && !xfer_complete(x) && !x->in_frame && x->hdr_done == 0 &&
           (f = enc_link_io_take(io, c->seq)) != NULL) {
        if ((rv = check_header(x, &f->h, c)) == ENC_OK) {
            memcpy(x->buf + x->done, f->data, (size_t)f->h.len);
            x->done += (size_t)f->h.len;
            x->frames++;
        }
        free(f);
    }
    return rv;
}

/* Reads a frame header into x->hdr; ENC_OK once it is complete, with
 * *held set when it is another communicator's frame (now being held). */
static enc_status_t read_header(struct enc_xfer *x, int fd, const struct enc_coll_ctx *c,
                                struct enc_link_io *io, struct enc_frame_hdr *h, bool *held)
{
    ssize_t r = enc_sock_read_some(fd, x->hdr + x->hdr_done, ENC_FRAME_HDR_SIZE - x->hdr_done);
    enc_status_t rv;

    if (r <= 0)
        return r == 0 ? ENC_INPROGRESS : (enc_status_t)r;
    io->reader = x;
    x->hdr_done += (size_t)r;
    if (x->hdr_done < ENC_FRAME_HDR_SIZE)
        return ENC_INPROGRESS;
    x->hdr_done = 0;
    io->reader = NULL;
    if ((rv = enc_frame_decode(x->hdr, h)) != ENC_OK)
        return ENC_ERR_PEER_RESET;
    *held = other_collective(x, h, c) && !same_communicator(h->seq, c->seq);
    if (*held)
        return enc_link_io_hold(io, h);
    if ((rv = check_header(x, h, c)) != ENC_OK)
        return rv == ENC_ERR_MISMATCH ? rv : ENC_ERR_PEER_RESET;
    return ENC_OK;
}

/* Reads what is there: ENC_OK complete, ENC_INPROGRESS would block,
 * negative on error. */
static enc_status_t recv_step(struct enc_xfer *x, int fd, const struct enc_coll_ctx *c,
                              struct enc_link_io *io, short *ev)
{
    enc_status_t rv;

    *ev = POLLIN;
    while ((rv = take_held(x, io, c)) == ENC_OK && !xfer_complete(x)) {
        ssize_t r;

        if (io->filling) { /* another collective's frame, read before anything else */
            if ((rv = enc_link_io_fill(io, fd)) != ENC_OK)
                return rv;
            continue;
        }
        if (io->reader != NULL && io->reader != x)
            return ENC_INPROGRESS; /* another collective's frame is half read */
        if (!x->in_frame) {
            struct enc_frame_hdr h;
            bool held = false;

            if ((rv = read_header(x, fd, c, io, &h, &held)) != ENC_OK)
                return rv;
            if (held)
                continue;
            x->frame_left = h.len;
            x->in_frame = true;
            io->reader = x;
        }
        if (x->frame_left > 0) {
            r = enc_sock_read_some(fd, x->buf + x->done, x->frame_left);
            if (r <= 0)
                return r == 0 ? ENC_INPROGRESS : (enc_status_t)r;
            x->done += (size_t)r;
            x->frame_left -= (size_t)r;
        }
        if (x->frame_left == 0) {
            x->in_frame = false;
            io->reader = NULL;
            x->frames++;
        }
    }
    return rv;
}

/* Advances one transfer (ENC_OK when complete, ENC_INPROGRESS while not);
 * fills the poll events it waits for. */
static enc_status_t step(struct enc_xfer *x, const struct enc_coll_ctx *c, int *fd, short *ev)
{
    enc_status_t rv;

    *ev = 0;
    if ((rv = enc_link_fd(world_peer(x, c), fd)) != ENC_OK)
        return rv;
    if (*fd < 0)
        return ENC_INPROGRESS; /* the peer will connect to us */
    struct enc_link_io *io = enc_link_io_of(world_peer(x, c));

    rv = x->dir == ENC_XFER_SEND ? send_step(x, *fd, c, io, ev) : recv_step(x, *fd, c, io, ev);
    if (rv < 0 && rv != ENC_ERR_MISMATCH)
        ENC_DEBUG("xfer", "link to rank %d failed: %s", x->peer, encore_strerror(rv));
    return rv;
}

/* Poll entries beyond the transfers: listener, tracker (the layer's follow). */
static int add_watch(struct pollfd *p, int n)
{
    p[n++] = (struct pollfd){.fd = enc_eng.lst.wake_fd, .events = POLLIN};
    p[n++] = (struct pollfd){.fd = enc_tclient_event_fd(enc_eng.tc), .events = POLLIN};
    return n;
}

static enc_status_t handle_tracker(void)
{
    struct enc_tclient_event ev;
    enc_status_t rv;
    int got;

    while ((got = enc_tclient_poll_event(enc_eng.tc, &ev)) == ENC_OK)
        if ((rv = enc_engine_handle_event(&ev)) != ENC_OK)
            return rv;
    return got < 0 ? ENC_ERR_ABORTED : ENC_OK;
}

enc_status_t enc_xfer_run(struct enc_xfer *x, int n, const struct enc_coll_ctx *c)
{
    struct pollfd stackp[16];
    struct pollfd *p = stackp;
    int cap = n + 2 + enc_eng.size;
    uint64_t deadline = enc_deadline_ms(enc_eng.coll_timeout_ms);
    uint32_t epoch = enc_eng.epoch;
    enc_status_t rv = ENC_OK;

    if (cap > (int)ENC_ARRAY_SIZE(stackp) && (p = malloc((size_t)cap * sizeof(*p))) == NULL)
        return ENC_ERR_NOMEM;
    uint64_t spin_until = enc_now_ns() + enc_eng.spin_ns;

    for (;;) {
        int np = 0, pending = 0;
        bool progressed = false;

        enc_links_poll_accepted();
        for (int i = 0; i < n; i++) {
            size_t before = x[i].done + (size_t)x[i].frames + x[i].hdr_done;
            int fd;
            short ev;

            if (xfer_complete(&x[i]))
                continue;
            if ((rv = step(&x[i], c, &fd, &ev)) < 0)
                goto out;
            progressed |= before != x[i].done + (size_t)x[i].frames + x[i].hdr_done;
            if (rv == ENC_OK)
                continue;
            pending++;
            if (fd >= 0 && ev)
                p[np++] = (struct pollfd){.fd = fd, .events = ev};
        }
        if (pending == 0) {
            rv = ENC_OK;
            goto out;
        }
        if (progressed) {
            deadline = enc_deadline_ms(enc_eng.coll_timeout_ms);
            spin_until = enc_now_ns() + enc_eng.spin_ns;
        }
        if (enc_turn_hand_on(epoch, &rv)) { /* another collective looks first */
            if (rv != ENC_OK)
                goto out;
            continue;
        }
        bool others = enc_turn_wanted(), shared = others || enc_turn_shared();

        /* a peer's answer is usually microseconds away: a short spin saves
         * the sleep and wake-up, when the host has a core to spare */
        if (enc_eng.spin_ns && !others && enc_now_ns() < spin_until)
            continue;
        int nx = np, wait_ms = enc_ms_left(deadline);

        if (shared)
            wait_ms = ENC_MIN(wait_ms, ENC_TURN_POLL_MS);
        np = add_watch(p, np);
        np += enc_layer_pollfds(p + np, cap - np);
        if (poll(p, (nfds_t)np, wait_ms) < 0 && errno != EINTR) {
            rv = ENC_ERR_SYS;
            goto out;
        }
        if (p[nx + 1].revents && (rv = handle_tracker()) != ENC_OK)
            goto out;
        if ((rv = enc_layer_serve(p + nx + 2, np - nx - 2)) != ENC_OK)
            goto out;
        enc_turn_slept(); /* the next look hands the engine on */
        if (shared && enc_eng.epoch != epoch) { /* the tracker's event regrouped */
            rv = ENC_ERR_EPOCH;
            goto out;
        }
        if (enc_ms_left(deadline) == 0) {
            ENC_ERROR("xfer", "collective #%llu made no progress for %d ms",
                      (unsigned long long)c->seq, enc_eng.coll_timeout_ms);
            rv = ENC_ERR_TIMEOUT;
            goto out;
        }
    }
out:
    for (int i = 0; rv != ENC_OK && i < n; i++)
        enc_link_io_forget(&x[i]);
    if (p != stackp)
        free(p);
    return rv;
}
