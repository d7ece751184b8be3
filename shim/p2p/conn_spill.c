/*
 * conn_spill.c - the payload log's spill (conn_spill.h): on a job of
 * several hosts, payloads move from the sender's log in memory to the
 * rank's spill file (the log module's, within ENCORE_SPILL_MAX), the
 * header staying in the log: a lost host's ranks re-execute from the start
 * and need every message again, which is read back when the log's cursor
 * reaches it (docs/p2p.md, 0; the collective log does the same, store.c
 * spill_below).
 *
 * Two things send a payload there.  A receiver's snapshot covering it (a
 * trim, conn_trim.c), as on one host it would free it.  And, for a peer on
 * another host, its having been written on the socket: no transport reads
 * it from the log afterwards (only a ring's reader copies a payload out of
 * the sender's log, remote.h), and a re-send to a restored receiver reads
 * it back as after a trim.  Without the second, a stream across hosts kept
 * every payload in memory until the receiver's next snapshot (the
 * receivers snapshotted for nothing else: a job of several hosts frees
 * nothing at a trim), so most payloads were copied into memory touched for
 * the first time (or shared with the sender's last snapshot image, which
 * costs the same: pool.c), a fault per page: 2 MiB messages across two
 * namespace hosts went at 0.14x native's TCP.  Now the log to such a peer
 * holds about EARLY_BYTES of written payloads, reused while warm.
 */
#include "enc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tunables.h"
#include "core/vec.h"
#include "engine/layer.h"
#include "p2p/conn_spill.h"
#include "p2p/p2p_int.h"
#include "p2p/pool.h"
#include "proto/wire.h"
#include "recovery/log/log.h"
#include "recovery/log/spill.h"

/* Payloads from EARLY_MIN bytes to a peer on another host go to the spill
 * file once written and once EARLY_BYTES of them are in memory for that
 * peer.  Smaller ones stay until a trim: a header-only copy and a write
 * per message would cost more than the payload's memory. */
#define EARLY_MIN ((size_t)64 << 10)
#define EARLY_BYTES ((size_t)16 << 20)
/* A smaller payload stays in the log with its frame: its spilled header
 * would take nearly the memory the whole frame does, for a write per
 * message (a trim of an 8-byte ping-pong wrote once per message). */
#define SPILL_MIN ((size_t)512)

/* True when some rank of the world runs on another host than this one. */
bool enc_p2p_log_spans_hosts(void)
{
    static int spans = -1;
    const char *mine;

    if (spans >= 0)
        return spans;
    mine = enc_engine_peer_host(enc_engine_rank());
    spans = 0;
    for (int r = 0; r < enc_engine_size() && !spans; r++)
        spans = strcmp(enc_engine_peer_host(r), mine) != 0;
    return spans;
}


/* n takes f's place in o's log, after prev (NULL: at the head). */
static void take_place(struct p2p_out *o, struct p2p_frame *prev, struct p2p_frame *f,
                       struct p2p_frame *n)
{
    if (prev != NULL)
        prev->next = n;
    else
        o->log = n;
    if (o->log_tail == f)
        o->log_tail = n;
    if (o->cursor == f)
        o->cursor = n;
    if (o->early_at == f)
        o->early_at = n;
    if (o->spilled_to == f)
        o->spilled_to = n;
}

/*
 * The spill writer.  Writing a trim's payloads to the spill file under the
 * layer's lock held every point-to-point call and the progress thread for
 * as long as the disk took (hundreds of megabytes at a receiver's
 * snapshot, in a stream across hosts), on the thread that handled the
 * trim.  Now a trim queues (peer, channel, floor) and the thread that
 * handled it writes them as before, but in batches of up to BATCH_BYTES
 * (still whole in the log, so a re-send meanwhile writes them from memory
 * as before, and unmarked: a write to a frame after a snapshot would copy
 * its page), each written without the lock and then,
 * with it, each frame's header-only copy put in its place: the progress
 * thread and the program's other calls go on meanwhile.  (Not a thread of
 * its own: a snapshot would not know it and was skipped for it; nor the
 * progress thread between its turns: the sockets it serves then waited a
 * batch at every turn, and a 2 MiB ping-pong after a stream of trims took
 * 1.6 times as long.)  The log's order never changes meanwhile: frames
 * leave a log only by a trim of a job on one host (no spill there), by a
 * checkpoint's release, which waits until no batch is being written, or
 * after the cursor (never spilled).  A frame the cursor reached again
 * meanwhile (a restored peer's re-send from the start) stays whole, its
 * spilled copy given back.
 */
#define BATCH_BYTES ((size_t)4 << 20)
/* A batch written by a thread waiting for a message (lead, tcp_wait.c):
 * short, so that a reply that comes meanwhile is read soon. */
#define IDLE_BATCH_BYTES ((size_t)512 << 10)
/* Early jobs queued before a send writes one itself.  A send also writes
 * one when a peer's written payloads reached EARLY_BYTES again before its
 * queued job was written (behind): its waits do not (a sender that never
 * waits, or waits on its rings with peers on this host), and its memory
 * would grow until a trim. */
#define SEND_BACKLOG_JOBS 4
#define BATCH_FRAMES 4096

/* A trim's: the frames of channel key below floor.  An early one (key 0):
 * the written payloads to peer of at least EARLY_MIN bytes. */
struct spill_job {
    int peer;
    uint64_t key, floor;
};

static struct {
    bool busy;              /* a batch is being written (the lock not held) */
    bool behind;            /* early spills fall behind (SEND_BACKLOG_JOBS) */
    pthread_cond_t cv;      /* a batch done (release waits for it) */
    struct spill_job *jobs;
    size_t njobs, cap;
    struct p2p_frame *batch[BATCH_FRAMES];
    off_t off[BATCH_FRAMES];
    bool ok[BATCH_FRAMES];
    size_t n;
} sw = {.cv = PTHREAD_COND_INITIALIZER};

static bool spillable(const struct p2p_frame *f, uint64_t key, uint64_t floor)
{
    if (f->spilled || f->len < ENC_P2P_HDR_BYTES + SPILL_MIN)
        return false;
    if (key == 0)
        return f->key != 0 && f->len - ENC_P2P_HDR_BYTES >= EARLY_MIN;
    return f->key == key && f->seq < floor;
}

/* Takes the next frames of job j into the batch (the lock held); true when
 * the job has more.  A walk starts after the log's prefix that holds
 * nothing to spill (o->spilled_to), an early job where the last one ended
 * (o->early_at: frames before it are spilled or too small): a log of
 * spilled headers, which stay until a checkpoint, is not walked again at
 * every batch (it was: 10 % of a sender's time in a stream of 32 KiB
 * messages across hosts). */
static bool take_batch(const struct spill_job *j, size_t max_bytes)
{
    struct p2p_out *o = &enc_p2p.out[j->peer];
    struct p2p_frame *f = o->spilled_to != NULL ? o->spilled_to : o->log;
    bool prefix = true;
    size_t bytes = 0;

    if (j->key == 0 && o->early_at != NULL) {
        f = o->early_at;
        prefix = false;
    }
    sw.n = 0;
    for (; f != NULL && f != o->cursor; f = f->next) {
        if (prefix && (f->spilled || f->len < ENC_P2P_HDR_BYTES + SPILL_MIN))
            o->spilled_to = f;
        else
            prefix = false;
        if (j->key == 0)
            o->early_at = f;
        if (!spillable(f, j->key, j->floor))
            continue;
        if (sw.n == BATCH_FRAMES || bytes >= max_bytes)
            return true;
        sw.batch[sw.n++] = f;
        bytes += f->len - ENC_P2P_HDR_BYTES;
    }
    if (j->key == 0)
        o->early_queued = false;
    return false;
}

/* Writes the batch's payloads (the lock not held: the frames stay). */
static void write_batch(void)
{
    for (size_t i = 0; i < sw.n; i++) {
        const struct p2p_frame *f = sw.batch[i];

        sw.ok[i] = enc_spill_put(f->key, f->seq, f->buf + ENC_P2P_HDR_BYTES,
                                 f->len - ENC_P2P_HDR_BYTES, &sw.off[i]) == ENC_OK;
    }
}

/* The header-only copy of f, its payload at off, takes f's place after
 * prev; the copy, or NULL when there is no memory for it. */
static struct p2p_frame *put_spilled(struct p2p_out *o, struct p2p_frame *prev,
                                     struct p2p_frame *f, off_t off)
{
    struct p2p_frame *n = enc_p2p_pool_lasting_get(sizeof(*n) + ENC_P2P_HDR_BYTES);

    if (n == NULL)
        return NULL;
    memcpy(n, f, sizeof(*n) + ENC_P2P_HDR_BYTES);
    n->spilled = true;
    n->spill_off = off;
    take_place(o, prev, f, n);
    enc_p2p_pool_put(f);
    return n;
}

/* Puts the written frames of the batch in place (the lock held): those
 * still before the cursor; the others keep their payload.  Bytes moved. */
static size_t place_batch(struct p2p_out *o)
{
    struct p2p_frame *prev = NULL, *f = o->log;
    size_t i = 0, moved = 0;

    for (; f != NULL && f != o->cursor && i < sw.n; prev = f, f = f->next) {
        struct p2p_frame *n;

        if (f != sw.batch[i])
            continue;
        if (sw.ok[i] && (n = put_spilled(o, prev, f, sw.off[i])) != NULL) {
            moved += n->len - ENC_P2P_HDR_BYTES;
            f = n;
        } else if (sw.ok[i]) {
            enc_spill_release(sw.off[i], f->len - ENC_P2P_HDR_BYTES);
        }
        i++;
    }
    for (; i < sw.n; i++) /* reached by the cursor again: they stay whole */
        if (sw.ok[i])
            enc_spill_release(sw.off[i], sw.batch[i]->len - ENC_P2P_HDR_BYTES);
    sw.n = 0;
    return moved;
}

/* Writes one batch of up to max_bytes of the first queued job; true when
 * it wrote one. */
static bool step(size_t max_bytes)
{
    struct spill_job j;
    size_t moved;

    if (sw.njobs == 0 || sw.busy)
        return false;
    j = sw.jobs[0];
    if (!take_batch(&j, max_bytes))
        memmove(sw.jobs, sw.jobs + 1, --sw.njobs * sizeof(*sw.jobs));
    if (sw.n == 0)
        return false;
    sw.busy = true;
    enc_p2p_unlock();
    write_batch();
    enc_p2p_lock();
    sw.busy = false;
    if ((moved = place_batch(&enc_p2p.out[j.peer])) > 0) {
        enc_log_payload_bytes(-(int64_t)moved, false);
        if (j.key != 0)
            ENC_DEBUG("p2p", "payload log: %zu bytes below message %llu of a channel spilled "
                      "(kept for a lost host's re-execution)", moved,
                      (unsigned long long)j.floor);
        else
            ENC_DEBUG("p2p", "payload log: %zu bytes written to rank %d spilled early (on "
                      "another host)", moved, j.peer);
    }
    pthread_cond_broadcast(&sw.cv);
    return true;
}

void enc_p2p_spill_step(void) { (void)step(BATCH_BYTES); }

bool enc_p2p_spill_idle_step(void) { return step(IDLE_BATCH_BYTES); }

void enc_p2p_spill_send_step(void)
{
    if (sw.njobs > SEND_BACKLOG_JOBS || sw.behind) {
        sw.behind = false; /* set again by the next write while still behind */
        (void)step(BATCH_BYTES);
    }
}

void enc_p2p_spill_forget(struct p2p_out *o, const struct p2p_frame *f)
{
    if (f == NULL || o->spilled_to == f)
        o->spilled_to = NULL;
    if (f == NULL || o->early_at == f)
        o->early_at = NULL;
}

void enc_p2p_spill_run(void)
{
    while (sw.njobs > 0 && !sw.busy) /* a thread in a batch already writes the rest */
        enc_p2p_spill_step();
}

/* Queues the spill of o's frames on key below floor (the lock held); true
 * when o's log has that channel. */
bool enc_p2p_spill_queue(int peer, uint64_t key, uint64_t floor)
{
    const struct p2p_out *o = &enc_p2p.out[peer];
    bool mine = false, any = false;

    for (const struct p2p_frame *f = o->log; f != NULL && f != o->cursor; f = f->next) {
        if (f->key != key)
            continue;
        mine = true;
        if ((any = spillable(f, key, floor)))
            break;
    }
    if (!any)
        return mine;
    if (ENC_VEC_RESERVE(sw.jobs, sw.cap, sw.njobs + 1) != ENC_OK)
        return mine; /* they stay in memory; a later trim queues them again */
    sw.jobs[sw.njobs++] = (struct spill_job){peer, key, floor};
    return mine;
}

/* A peer on another host of a job that keeps its log: its written
 * payloads of EARLY_MIN bytes or more go to the spill file early. */
bool enc_p2p_spills_early(int peer, size_t payload)
{
    static int recovery = -1;

    if (payload < EARLY_MIN)
        return false;
    if (recovery < 0)
        recovery = enc_tunable_ll(ENC_TUNE_RECOVERY) != 0;
    return recovery && enc_p2p_log_spans_hosts() &&
           strcmp(enc_engine_peer_host(peer), enc_engine_peer_host(enc_engine_rank())) != 0;
}

void enc_p2p_spill_written(int peer, const struct p2p_frame *f)
{
    struct p2p_out *o = &enc_p2p.out[peer];

    if (f->spilled || !enc_p2p_spills_early(peer, f->len - ENC_P2P_HDR_BYTES))
        return;
    o->early_bytes += f->len - ENC_P2P_HDR_BYTES;
    if (o->early_bytes < EARLY_BYTES)
        return;
    if (o->early_queued) { /* the queued one is not written yet: sends write */
        sw.behind = true;
        return;
    }
    if (ENC_VEC_RESERVE(sw.jobs, sw.cap, sw.njobs + 1) != ENC_OK)
        return; /* they stay in memory until a trim, or the next early job */
    sw.jobs[sw.njobs++] = (struct spill_job){peer, 0, 0};
    o->early_queued = true;
    o->early_bytes = 0;
}

void enc_p2p_spill_fork_child(void)
{
    pthread_cond_init(&sw.cv, NULL); /* a thread writing a batch is not in the image */
    sw.busy = false; /* its frames stay whole; its job waits for the next trim */
    sw.n = 0;
}

void enc_p2p_spill_idle(void)
{
    while (sw.busy)
        pthread_cond_wait(&sw.cv, &enc_p2p.mu);
}

enc_status_t enc_p2p_unspill_cursor(struct p2p_out *o)
{
    struct p2p_frame *f = o->cursor, *prev = NULL, *n;
    size_t bytes = f->len - ENC_P2P_HDR_BYTES;
    char why[200];

    for (struct p2p_frame *p = o->log; p != f; p = p->next)
        prev = p;
    n = enc_p2p_pool_log_get((int)(o - enc_p2p.out), sizeof(*n) + f->len);
    if (n != NULL &&
        enc_spill_get(f->key, f->seq, n->buf + ENC_P2P_HDR_BYTES, bytes, f->spill_off) == ENC_OK) {
        memcpy(n, f, sizeof(*n) + ENC_P2P_HDR_BYTES);
        n->spilled = false;
        take_place(o, prev, f, n);
        enc_spill_release(f->spill_off, bytes);
        enc_p2p_pool_put(f);
        enc_log_payload_bytes((int64_t)bytes, false);
        return ENC_OK;
    }
    enc_p2p_pool_put(n);
    snprintf(why, sizeof(why), "cannot read message %llu of one of its channels back from its "
             "spill file (%s): a rank that re-executes needs it",
             (unsigned long long)f->seq, n == NULL ? "out of memory" : "not found");
    enc_p2p_peer_lost(enc_p2p.rank, why);
}

