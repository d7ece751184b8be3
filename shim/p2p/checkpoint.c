/*
 * checkpoint.c - point-to-point at a checkpoint (p2p.h; docs/p2p.md,
 * "Checkpoints").
 *
 * A rank restarted from a checkpoint re-executes from the program's start
 * to encore_load_checkpoint, then goes on after the checkpoint: it needs
 * the channel positions it had there (how many messages it had sent and
 * received on each channel, and its determinant clock), which the MPI
 * layer keeps with its local state (enc_p2p_ckpt_save / _load), and its
 * peers must still hold every message they sent it after the checkpoint.
 *
 * A checkpoint is only taken when no message is in flight across it: the
 * checkpoint's barrier sums every rank's counts (enc_p2p_ckpt_counts), and
 * unless the world sent exactly as many messages as it received, with no
 * receive, unmatched message or synchronous send pending anywhere, every
 * rank refuses it alike (recovery/checkpoint/api.c).  Then no incarnation
 * of any rank needs a message logged before the checkpoint (a restarted
 * sender resumes after its sends, a restarted receiver after its
 * receives; older snapshot images end with the checkpoint), so once it is
 * committed each rank releases its payload logs up to the marks its count
 * took (enc_p2p_ckpt_release), also on a job of several hosts: a lost
 * host's ranks restart from the checkpoint, not from the start.
 */
#include "enc.h"

#include <stdlib.h>

#include "core/vec.h"
#include "p2p/det_store.h"
#include "p2p/conn_trim.h"
#include "p2p/p2p_int.h"
#include "proto/wire.h"

/* The end of one channel's log at the checkpoint's count. */
struct mark {
    uint64_t key, floor;
};

static struct {
    struct mark *m;
    size_t n, cap;
} marks;

struct tally {
    uint64_t sent, received;
};

static void add_pos(void *arg, uint64_t cid, int peer, struct enc_chan_pos pos)
{
    struct tally *t = arg;

    (void)cid;
    (void)peer;
    t->sent += pos.send;
    t->received += pos.recv;
}

/* Remembers, per channel key in o's log, the number just past its last
 * frame (false: out of memory, the log then stays whole). */
static bool mark_log(const struct p2p_out *o)
{
    for (const struct p2p_frame *f = o->log; f != NULL; f = f->next) {
        size_t i;

        for (i = 0; i < marks.n && marks.m[i].key != f->key; i++)
            ;
        if (i == marks.n) {
            if (ENC_VEC_RESERVE(marks.m, marks.cap, marks.n + 1) != ENC_OK)
                return false;
            marks.m[marks.n++] = (struct mark){f->key, 0};
        }
        if (f->seq + 1 > marks.m[i].floor)
            marks.m[i].floor = f->seq + 1;
    }
    return true;
}

void enc_p2p_ckpt_counts(uint64_t c[4])
{
    struct tally t = {0};
    uint64_t unmatched = 0, pending = 0;

    c[0] = c[1] = c[2] = c[3] = 0;
    marks.n = 0;
    if (!enc_p2p_started())
        return;
    enc_p2p_lock();
    enc_chanseq_each(&enc_p2p.chans, add_pos, &t);
    for (const struct p2p_comm *cm = enc_p2p.comms; cm != NULL; cm = cm->next) {
        unmatched += cm->m.nunexpected;
        pending += cm->m.nposted;
    }
    for (const struct enc_p2p_sync *s = enc_p2p.syncs; s != NULL; s = s->next)
        pending++;
    for (int r = 0; r < enc_p2p.size; r++) {
        if (!mark_log(&enc_p2p.out[r])) {
            marks.n = 0;
            break;
        }
    }
    enc_p2p_unlock();
    c[0] = t.sent;
    c[1] = t.received;
    c[2] = unmatched;
    c[3] = pending;
}

void enc_p2p_ckpt_release(void)
{
    size_t bytes = 0;

    if (marks.n == 0 || !enc_p2p_started())
        return;
    enc_p2p_lock();
    for (size_t i = 0; i < marks.n; i++)
        bytes += enc_p2p_conn_release(marks.m[i].key, marks.m[i].floor);
    enc_p2p_unlock();
    ENC_INFO("p2p", "checkpoint: released %zu bytes of payload log on %zu channels (every "
             "message sent before it was received)", bytes, marks.n);
    marks.n = 0;
}

/* The saved positions: u64 determinant clock, u64 n, then n channels of
 * u64 cid, u32 peer, u64 send, u64 recv, u64 send chain, u64 receive
 * chain (44 bytes), big-endian. */
#define CHAN_BYTES 44

struct saver {
    struct enc_wbuf w;
};

static void save_one(void *arg, uint64_t cid, int peer, struct enc_chan_pos pos)
{
    struct saver *s = arg;

    enc_w_u64(&s->w, cid);
    enc_w_u32(&s->w, (uint32_t)peer);
    enc_w_u64(&s->w, pos.send);
    enc_w_u64(&s->w, pos.recv);
    enc_w_u64(&s->w, pos.send_chain);
    enc_w_u64(&s->w, pos.recv_chain);
}

enc_status_t enc_p2p_ckpt_save(void **blob, size_t *len)
{
    struct saver s;
    size_t n, cap;
    void *buf;

    *blob = NULL;
    *len = 0;
    if (!enc_p2p_started())
        return ENC_OK;
    enc_p2p_lock();
    n = enc_chanseq_count(&enc_p2p.chans);
    cap = 16 + n * CHAN_BYTES;
    if ((buf = malloc(cap)) == NULL) {
        enc_p2p_unlock();
        return ENC_ERR_NOMEM;
    }
    enc_w_init(&s.w, buf, cap);
    enc_w_u64(&s.w, enc_det_store_clock());
    enc_w_u64(&s.w, n);
    enc_chanseq_each(&enc_p2p.chans, save_one, &s);
    enc_p2p_unlock();
    if (s.w.err || s.w.len != cap) {
        free(buf);
        return ENC_ERR_STATE;
    }
    *blob = buf;
    *len = cap;
    return ENC_OK;
}

enc_status_t enc_p2p_ckpt_load(const void *blob, size_t len)
{
    struct enc_rbuf r;
    uint64_t clock, n;
    enc_status_t rv;

    enc_r_init(&r, blob, len);
    enc_r_u64(&r, &clock);
    enc_r_u64(&r, &n);
    if (r.err || n > (len - 16) / CHAN_BYTES)
        return ENC_ERR_PROTO;
    enc_p2p_lock();
    rv = enc_p2p_make_state();
    for (uint64_t i = 0; i < n && rv == ENC_OK; i++) {
        uint64_t cid;
        uint32_t peer;
        struct enc_chan_pos pos;

        enc_r_u64(&r, &cid);
        enc_r_u32(&r, &peer);
        enc_r_u64(&r, &pos.send);
        enc_r_u64(&r, &pos.recv);
        enc_r_u64(&r, &pos.send_chain);
        enc_r_u64(&r, &pos.recv_chain);
        rv = r.err ? ENC_ERR_PROTO : enc_chanseq_set(&enc_p2p.chans, cid, (int)peer, pos);
    }
    if (rv == ENC_OK)
        rv = enc_r_done(&r);
    if (rv == ENC_OK)
        enc_det_store_set_clock(clock);
    enc_p2p_unlock();
    if (rv == ENC_OK)
        ENC_INFO("p2p", "resuming at the checkpoint's positions of %llu channels, determinant "
                 "clock %llu", (unsigned long long)n, (unsigned long long)clock);
    return rv;
}
