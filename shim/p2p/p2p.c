/*
 * p2p.c - sends, receives, probes and the matching of arrived messages
 * (p2p.h), above the transport: conn.c (connections' lifecycle), conn_tx.c
 * (writes), conn_rx.c (reads, handed up through the delivery registered
 * here) and progress.c (the progress thread).
 */
#include "enc.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/layer.h"
#include "p2p/conn.h"
#include "p2p/conn_rx.h"
#include "p2p/conn_spill.h"
#include "p2p/conn_trim.h"
#include "p2p/conn_tx.h"
#include "p2p/det_replica.h"
#include "p2p/det_store.h"
#include "p2p/p2p_int.h"
#include "p2p/pool.h"
#include "p2p/progress.h"
#include "p2p/shm_link.h"
#include "recovery/channels.h"
#include "recovery/log/log.h"

#define CONTAINER(p, type, member) ((type *)(void *)((char *)(p) - offsetof(type, member)))

static void deliver_data(struct enc_p2p_msg *m);
static void deliver_ack(uint64_t id);
static struct enc_p2p_recv *direct_target(uint64_t cid, int src, int tag, uint64_t seq,
                                          size_t bytes);

/* What the transport hands up (conn_rx.h). */
static const struct enc_p2p_delivery delivery = {
    .data = deliver_data,
    .ack = deliver_ack,
    .start_locked = enc_p2p_start_locked,
    .direct_target = direct_target,
};

/* The condition variable on the monotonic clock, once, at MPI_Init: the
 * completion waits sleep on it before point-to-point starts too (a
 * nonblocking collective's completion wakes them, shim/mpi/p2p/p2p_complete.c). */
static void init_cv(void)
{
    static bool ready;
    pthread_condattr_t a;

    if (ready)
        return;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&enc_p2p.cv, &a);
    pthread_condattr_destroy(&a);
    ready = true;
}

/* The state, made on first need: this rank's first point-to-point call,
 * or a peer's connection (the listener's thread), whichever comes first. */
enc_status_t enc_p2p_make_state(void)
{
    if (enc_p2p.out != NULL)
        return ENC_OK;
    init_cv();
    enc_p2p.rank = enc_engine_rank();
    enc_p2p.size = enc_engine_size();
    enc_chanseq_init(&enc_p2p.chans);
    return enc_p2p_conn_alloc();
}

enc_status_t enc_p2p_start_locked(void)
{
    enc_status_t rv;

    if (enc_p2p.started)
        return ENC_OK;
    if ((rv = enc_p2p_make_state()) == ENC_OK && (rv = enc_p2p_conn_start()) == ENC_OK)
        __atomic_store_n(&enc_p2p.started, true, __ATOMIC_RELEASE);
    return rv;
}

/* recovery/ sits below this layer: it reaches the payload logs through these. */
static const struct enc_channel_ops channel_ops = {
    .trim = enc_p2p_trim,
    .each_received = enc_p2p_each_received,
    .counts = enc_p2p_ckpt_counts,
    .checkpointed = enc_p2p_ckpt_release,
};

void enc_p2p_listen(void)
{
    enc_channels_register(&channel_ops);
    init_cv();
    enc_p2p_conn_listen(&delivery);
}

enc_status_t enc_p2p_start(void)
{
    enc_status_t rv;

    enc_p2p_lock();
    rv = enc_p2p_start_locked();
    /* determinants copied to encore-run, or reported as kept on this
     * host only (docs/p2p.md 5.3) */
    enc_det_replica_init();
    if (rv == ENC_OK && !enc_p2p.announced)
        (void)enc_det_replica_open(enc_p2p.rank, enc_engine_incarnation());
    if (rv == ENC_OK && !enc_p2p.announced && enc_engine_incarnation() > 0)
        enc_p2p_announce();
    enc_p2p.announced = true;
    enc_p2p_unlock();
    return rv;
}

/* The queues of communicator cid, made on its first message or receive. */
static struct p2p_comm *comm_of(uint64_t cid)
{
    struct p2p_comm *c;

    for (c = enc_p2p.comms; c != NULL; c = c->next)
        if (c->cid == cid)
            return c;
    if ((c = calloc(1, sizeof(*c))) == NULL)
        return NULL;
    c->cid = cid;
    enc_match_init(&c->m);
    c->next = enc_p2p.comms;
    enc_p2p.comms = c;
    return c;
}


/* The receiver's side of a synchronous message's match. */
static enc_status_t send_ack(const struct enc_p2p_msg *m)
{
    struct enc_p2p_hdr h = {.kind = ENC_P2P_ACK, .ack = m->ack};

    if (!m->sync)
        return ENC_OK;
    if (m->from == enc_p2p.rank) {
        deliver_ack(m->ack);
        return ENC_OK;
    }
    return enc_p2p_conn_queue_ack(m->from, m->inc, &h);
}

/* The receive completes before the synchronous sender's ACK goes: a
 * sender that learns of the match, then synchronises with this rank some
 * other way (a barrier), finds the receive complete (MPICH's rqstatus);
 * deliver frees m, so the ACK is sent from a copy of its envelope. */
static void matched(struct enc_p2p_recv *r, struct enc_p2p_msg *m)
{
    struct enc_p2p_msg env = *m;

    env.data = NULL;
    r->deliver(r, m);
    (void)send_ack(&env);
    enc_p2p_wake_waiters();
}

/* Receives posted and not matched yet, and the thread that posted them:
 * under MPI_THREAD_MULTIPLE, two threads with receives posted at once race
 * for messages, an order no determinant records (docs/p2p.md, 6.3): that
 * combination is refused. */
static struct {
    bool multiple;
    int tid;
    size_t posted;
} posts;

void enc_p2p_set_thread_multiple(bool on) { posts.multiple = on; }

static void posted_matched(void)
{
    if (posts.posted > 0)
        posts.posted--;
}

/* m's chain is not the channel's: its sender re-executed differently. */
static void diverged(const struct enc_p2p_msg *m, enum enc_chan_verdict v)
{
    char why[320];

    snprintf(why, sizeof(why), "re-executed its sends on communicator %llx differently: replay "
             "divergence at its message %llu (%s, tag %d, %zu bytes%s): the tags, lengths or "
             "modes of its messages up to it differ from those this rank received the first "
             "time", (unsigned long long)m->cid, (unsigned long long)m->mm.seq,
             v == ENC_CHAN_DELIVER ? "a new one" : "a re-send", m->mm.tag, m->bytes,
             m->sync ? ", synchronous" : "");
    enc_p2p_peer_lost(m->from, why);
}

/*
 * Receiving straight into the posted buffer.  A message whose header
 * arrives while the receive it will match is posted (contiguous, large
 * enough, naming its source) is read from the ring or socket into that
 * receive's buffer instead of a buffer of its own, then matched as usual
 * when complete.  Only a receive naming the source: then only this
 * channel's messages can match it, and they come in order on this one
 * stream, so the receive the header saw is still the earliest match at
 * the end (enc_p2p_cancel refuses to cancel it meanwhile: its message is
 * arriving).  A frame forgotten half read (its writer's connection ended)
 * comes again whole, into the same receive.
 */
static struct enc_p2p_recv *direct_target(uint64_t cid, int src, int tag, uint64_t seq,
                                          size_t bytes)
{
    struct enc_match_msg mm = {.src = src, .tag = tag, .seq = seq};
    struct enc_match_recv *mr;
    struct enc_p2p_recv *r;
    struct p2p_comm *c;

    /* a small payload is read into the message's inline room and copied
     * at delivery: cheaper than finding its receive twice */
    if (bytes == 0 || bytes <= ENC_P2P_INLINE_MAX)
        return NULL;
    for (c = enc_p2p.comms; c != NULL && c->cid != cid; c = c->next)
        ;
    if (c == NULL || c->m.nposted == 0 || (mr = enc_match_peek(&c->m, &mm)) == NULL ||
        mr->src == ENC_MATCH_ANY || mr->pin != 0)
        return NULL;
    r = CONTAINER(mr, struct enc_p2p_recv, mr);
    if (r->direct == NULL || r->direct_cap < bytes ||
        enc_chanseq_pos(&enc_p2p.chans, cid, src).recv != seq)
        return NULL;
    return r;
}

/* A message read into a receive's buffer that another receive matched
 * (never expected: see above) gets a buffer of its own. */
static bool undirect(struct enc_p2p_msg *m)
{
    uint8_t *own = enc_p2p_pool_get(m->bytes);

    if (own == NULL)
        return false;
    memcpy(own, m->data, m->bytes);
    m->data = own;
    m->direct_to = NULL;
    return true;
}

static void deliver_data(struct enc_p2p_msg *m)
{
    struct p2p_comm *c = comm_of(m->cid);
    struct enc_match_recv *r = NULL;
    uint64_t expected;
    enum enc_chan_verdict v;

    v = enc_chanseq_accept(&enc_p2p.chans, m->cid, m->mm.src, m->mm.seq, &expected);
    if (v != ENC_CHAN_GAP && !enc_chanseq_chain_ok(&enc_p2p.chans, m->cid, m->mm.src, m->mm.seq, v,
                                                   m->mm.tag, m->bytes, m->sync, m->chain))
        diverged(m, v);
    switch (v) {
    case ENC_CHAN_DELIVER:
        /* held in its sender's log until our snapshot, unless it goes to
         * the sender's spill file anyway (conn_spill.h) */
        if (m->from != enc_p2p.rank && !enc_p2p_spills_early(m->from, m->bytes))
            enc_log_payload_received(ENC_P2P_HDR_BYTES + m->bytes);
        break;
    case ENC_CHAN_DUPLICATE: /* a restored sender's re-send, or our log again */
        (void)send_ack(m);         /* its synchronous send completes as the first one did */
        enc_p2p_msg_free(m);
        return;
    default: {
        char why[320];

        snprintf(why, sizeof(why), "sent message %llu on communicator %llx where this rank "
                 "needs message %llu: the messages between are lost (released by a checkpoint, "
                 "which a restarted rank must load before its first message, or lost with the "
                 "sender's log)", (unsigned long long)m->mm.seq, (unsigned long long)m->cid,
                 (unsigned long long)expected);
        enc_p2p_peer_lost(m->from, why);
    }
    }
    if (c == NULL || enc_match_arrive(&c->m, &m->mm, &r) != ENC_OK ||
        (m->direct_to != NULL && (r == NULL || r != &m->direct_to->mr) && !undirect(m)))
        enc_p2p_peer_lost(m->from, "sent a message this rank could not queue (out of memory)");
    if (r != NULL) {
        posted_matched();
        matched(CONTAINER(r, struct enc_p2p_recv, mr), m);
    }
    else
        enc_p2p_wake_waiters(); /* a probe may be waiting for it */
}

static void deliver_ack(uint64_t id)
{
    for (struct enc_p2p_sync **p = &enc_p2p.syncs; *p != NULL; p = &(*p)->next) {
        struct enc_p2p_sync *s = *p;

        if (s->id == id) {
            *p = s->next;
            s->acked(s);
            enc_p2p_wake_waiters();
            return;
        }
    }
    ENC_WARN("p2p", "acknowledgement of an unknown synchronous send %llu ignored",
             (unsigned long long)id);
}

/* A message to this rank itself: no connection, a copy. */
static enc_status_t send_self(const struct enc_p2p_hdr *h, const void *data)
{
    struct enc_p2p_msg *m = enc_p2p_msg_new(h->bytes);

    if (m == NULL ||
        (h->bytes > 0 && m->data == NULL && (m->data = enc_p2p_pool_get(h->bytes)) == NULL)) {
        free(m);
        return ENC_ERR_NOMEM;
    }
    if (h->bytes > 0)
        memcpy(m->data, data, h->bytes);
    m->mm.src = h->src;
    m->mm.tag = h->tag;
    m->mm.seq = h->seq;
    m->cid = h->cid;
    m->from = enc_p2p.rank;
    m->sync = h->mode == ENC_P2P_SYNC;
    m->ack = h->ack;
    m->chain = h->chain;
    m->bytes = h->bytes;
    deliver_data(m);
    return ENC_OK;
}

enc_status_t enc_p2p_send(uint64_t cid, int src, int dst, int dst_world, int tag,
                          const void *data, size_t bytes, struct enc_p2p_sync *s, bool blocking)
{
    struct enc_p2p_hdr h = {.kind = ENC_P2P_DATA, .cid = cid, .src = src, .tag = tag,
                            .bytes = bytes};
    enc_status_t rv;

    if ((rv = enc_chanseq_next_send_linked(&enc_p2p.chans, cid, dst, tag, bytes, s != NULL,
                                           &h.seq, &h.chain)) != ENC_OK)
        return rv;
    if (s != NULL) {
        h.mode = ENC_P2P_SYNC;
        h.ack = s->id = ++enc_p2p.next_sync;
        s->next = enc_p2p.syncs;
        enc_p2p.syncs = s;
    }
    if (dst_world == enc_p2p.rank)
        return send_self(&h, data);
    rv = enc_p2p_conn_send_data(dst_world, &h, data, blocking);
    /* payloads written to another host go to the spill file while this
     * thread waits (tcp_wait.c), or here when that fell behind */
    enc_p2p_spill_send_step();
    return rv;
}

enc_status_t enc_p2p_post(struct enc_p2p_recv *r)
{
    struct p2p_comm *c = comm_of(r->cid);
    struct enc_match_msg *mm = NULL;
    enc_status_t rv;
    int me = posts.multiple ? (int)gettid() : 0; /* a system call: only where threads race */

    if (c == NULL)
        return ENC_ERR_NOMEM;
    if (posts.multiple && posts.posted > 0 && posts.tid != me) {
        ENC_ERROR("p2p", "receives posted concurrently from several threads "
                  "(MPI_THREAD_MULTIPLE: thread %d posted one while thread %d has %zu "
                  "pending) are not supported in encore mode: which receive takes a "
                  "message would not be replayed after a restart; post receives from one "
                  "thread at a time", me, posts.tid, posts.posted);
        return ENC_ERR_STATE;
    }
    if ((rv = enc_match_post(&c->m, &r->mr, &mm)) != ENC_OK)
        return rv;
    if (mm != NULL) {
        matched(r, CONTAINER(mm, struct enc_p2p_msg, mm));
        return ENC_OK;
    }
    posts.posted++;
    posts.tid = me;
    /* what peers of this host wrote, read now that the receive is posted:
     * its message goes straight into its buffer (direct_target).
     * A message still in a ring has not arrived yet, so taking it after
     * the post is an order the matching allows (channels stay FIFO). */
    if (enc_p2p_shm_look_needed()) /* usually nothing there yet: no full look */
        (void)enc_p2p_conn_shm_progress();
    return ENC_OK;
}

const struct enc_p2p_msg *enc_p2p_probe(uint64_t cid, int src, int tag)
{
    struct p2p_comm *c = (enc_p2p_conn_shm_progress(), comm_of(cid));
    struct enc_match_msg *mm = c ? enc_match_probe(&c->m, src, tag) : NULL;

    return mm ? CONTAINER(mm, struct enc_p2p_msg, mm) : NULL;
}

struct enc_p2p_msg *enc_p2p_mprobe(uint64_t cid, int src, int tag)
{
    struct p2p_comm *c = (enc_p2p_conn_shm_progress(), comm_of(cid));
    struct enc_match_msg *mm = c ? enc_match_mprobe(&c->m, src, tag) : NULL;
    struct enc_p2p_msg *m = mm ? CONTAINER(mm, struct enc_p2p_msg, mm) : NULL;

    if (m != NULL)
        (void)send_ack(m);
    return m;
}

bool enc_p2p_cancel(struct enc_p2p_recv *r)
{
    struct p2p_comm *c = comm_of(r->cid);

    if (c == NULL || enc_p2p_conn_streaming_into(r) || !enc_match_cancel(&c->m, &r->mr))
        return false;
    posted_matched();
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
    while (!enc_p2p_conn_queues_empty() && (rv = enc_p2p_wait(deadline)) == ENC_OK)
        ;
    enc_p2p_unlock();
    if (rv != ENC_OK)
        ENC_ERROR("p2p", "point-to-point messages still unsent at MPI_Finalize after the "
                  "collective timeout");
    return rv;
}

/* ---- snapshots (p2p.h) ---- */

bool enc_p2p_fork_prepare(void)
{
    enc_p2p_lock();
    return true;
}

void enc_p2p_fork_parent(void) { enc_p2p_unlock(); }

void enc_p2p_fork_child(void)
{
    enc_p2p.mu = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    if (enc_p2p.out != NULL)
        enc_p2p_conn_fork_child();
}

struct pos_sum {
    uint64_t sent, received;
    size_t channels;
};

static void sum_pos(void *arg, uint64_t cid, int peer, struct enc_chan_pos pos)
{
    struct pos_sum *t = arg;

    (void)cid;
    (void)peer;
    t->sent += pos.send;
    t->received += pos.recv;
    t->channels++;
}

void enc_p2p_restored(void)
{
    struct pos_sum t = {0};
    enc_status_t rv;

    if (!enc_p2p_started())
        return; /* the layer starts at its first use, as in any incarnation */
    enc_p2p_lock();
    rv = enc_p2p_conn_restart();
    enc_chanseq_each(&enc_p2p.chans, sum_pos, &t);
    ENC_INFO("p2p", "restored at the image's positions: %llu messages sent and %llu received "
             "on %zu channels, %zu receives pending, determinant clock %llu",
             (unsigned long long)t.sent, (unsigned long long)t.received, t.channels, posts.posted,
             (unsigned long long)enc_det_store_clock());
    if (rv == ENC_OK && enc_p2p.announced) {
        (void)enc_det_replica_open(enc_p2p.rank, enc_engine_incarnation());
        enc_p2p_announce();
    }
    enc_p2p_unlock();
    if (rv != ENC_OK)
        enc_p2p_peer_lost(enc_p2p.rank, "was restored but cannot start point-to-point again");
}

bool enc_p2p_trim(uint64_t key, uint64_t floor)
{
    bool mine;

    if (!enc_p2p_started())
        return false;
    enc_p2p_lock();
    mine = enc_p2p_conn_trim(key, floor);
    enc_p2p_unlock();
    return mine;
}

struct each_pos {
    void (*fn)(void *arg, uint64_t key, uint64_t pos);
    void *arg;
};

static void each_recv(void *arg, uint64_t cid, int peer, struct enc_chan_pos pos)
{
    const struct each_pos *e = arg;

    if (pos.recv > 0)
        e->fn(e->arg, enc_p2p_key(cid, peer, enc_p2p.rank), pos.recv);
}

void enc_p2p_each_received(void (*fn)(void *arg, uint64_t key, uint64_t pos), void *arg)
{
    struct each_pos e = {fn, arg};

    if (enc_p2p.out != NULL)
        enc_chanseq_each(&enc_p2p.chans, each_recv, &e);
}
