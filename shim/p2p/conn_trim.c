/*
 * conn_trim.c - the bounds of the sender's payload log (conn_trim.h).
 *
 * A receiver's snapshot image lists, for each channel it received on,
 * the channel's key (enc_p2p_key: a digest of communicator, the sender's
 * rank in it and the receiver's world rank, which both ends compute) and
 * the number of the next message it needs, as one more "communicator"
 * position of one member (recovery/snapshot/image.c).  encore-run turns
 * positions of parked images into trim floors as it does for
 * communicators (EVENT TRIM, cid = the key): the sender frees the log's
 * frames below the floor, since no incarnation of the receiver can ask for
 * them again (it restores from that image or a newer one).  On a job of
 * several hosts their payloads are moved to the rank's spill file instead
 * (the log module's, within ENCORE_SPILL_MAX), the header staying in the
 * log: a lost host's ranks re-execute from the start and need every
 * message again, which is read back when the cursor reaches it
 * (docs/p2p.md, 0; the collective log does the same, store.c spill_below),
 * in batches written without the layer's lock (the spill writer, below).
 * Only covered payloads leave memory: a transport may read a payload from
 * the log until the receiver's image covers it.
 *
 * A restored receiver sends the positions its image had (POSITIONS,
 * before its RESUME): the sender's cursor skips the frames below them,
 * which the image had received, instead of writing the whole log again.
 *
 * Log bytes count in the result log's memory (one peak, one budget:
 * recovery/log/log.h enc_log_payload_bytes).
 */
#include "enc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec.h"
#include "engine/layer.h"
#include "p2p/conn_trim.h"
#include "p2p/p2p_int.h"
#include "p2p/pool.h"
#include "proto/wire.h"
#include "recovery/log/log.h"
#include "recovery/log/spill.h"

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t enc_p2p_key(uint64_t cid, int src, int dst_world)
{
    uint64_t ends = ((uint64_t)(uint32_t)src << 32) | (uint32_t)dst_world;

    /* the top bit set, so a key is never the world's id 0 */
    return mix64(mix64(cid) ^ ends) | (1ull << 63);
}

bool enc_p2p_skipped(const struct p2p_out *o, const struct p2p_frame *f)
{
    for (size_t i = 0; i < o->nskip; i++)
        if (o->skip[i].key == f->key)
            return f->seq < o->skip[i].pos;
    return false;
}

void enc_p2p_set_skip(int peer, const uint8_t *pairs, size_t bytes)
{
    struct p2p_out *o = &enc_p2p.out[peer];
    size_t n = bytes / ENC_P2P_POS_BYTES;
    struct p2p_skip *s = n ? calloc(n, sizeof(*s)) : NULL;
    struct enc_rbuf r;

    free(o->skip);
    o->skip = s;
    o->nskip = s != NULL ? n : 0; /* no memory: the whole log goes, dropped by number */
    enc_r_init(&r, pairs, bytes);
    for (size_t i = 0; i < o->nskip; i++) {
        enc_r_u64(&r, &s[i].key);
        enc_r_u64(&r, &s[i].pos);
    }
}

void enc_p2p_log_added(const struct p2p_frame *f)
{
    /* counted as recorded by its receiver, whose snapshot releases it */
    enc_log_payload_bytes((int64_t)f->len, false);
}

void enc_p2p_log_removed(const struct p2p_frame *f)
{
    enc_log_payload_bytes(-(int64_t)f->len, false);
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
}

/*
 * The spill writer.  Writing a trim's payloads to the spill file under the
 * layer's lock held every point-to-point call and the progress thread for
 * as long as the disk took (hundreds of megabytes at a receiver's
 * snapshot, in a stream across hosts), on the thread that handled the
 * trim.  Now a trim queues (peer, channel, floor) and the thread that
 * handled it writes them as before, but in batches of up to BATCH_BYTES
 * (marked spilling, still whole in the log, so a re-send meanwhile writes
 * them from memory as before), each written without the lock and then,
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
#define BATCH_FRAMES 4096

struct spill_job {
    int peer;
    uint64_t key, floor;
};

static struct {
    bool busy;              /* a batch is being written (the lock not held) */
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
    return f->key == key && !f->spilled && !f->spilling && f->seq < floor &&
           f->len > ENC_P2P_HDR_BYTES;
}

/* Takes the next frames of job j into the batch (the lock held); true when
 * the job has more. */
static bool take_batch(const struct spill_job *j)
{
    struct p2p_out *o = &enc_p2p.out[j->peer];
    size_t bytes = 0;

    sw.n = 0;
    for (struct p2p_frame *f = o->log; f != NULL && f != o->cursor; f = f->next) {
        if (!spillable(f, j->key, j->floor))
            continue;
        if (sw.n == BATCH_FRAMES || bytes >= BATCH_BYTES)
            return true;
        f->spilling = true;
        sw.batch[sw.n++] = f;
        bytes += f->len - ENC_P2P_HDR_BYTES;
    }
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
    n->spilling = false;
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
        f->spilling = false;
        if (sw.ok[i] && (n = put_spilled(o, prev, f, sw.off[i])) != NULL) {
            moved += n->len - ENC_P2P_HDR_BYTES;
            f = n;
        } else if (sw.ok[i]) {
            enc_spill_release(sw.off[i], f->len - ENC_P2P_HDR_BYTES);
        }
        i++;
    }
    for (; i < sw.n; i++) { /* reached by the cursor again: they stay whole */
        sw.batch[i]->spilling = false;
        if (sw.ok[i])
            enc_spill_release(sw.off[i], sw.batch[i]->len - ENC_P2P_HDR_BYTES);
    }
    sw.n = 0;
    return moved;
}

static void spill_step(void)
{
    struct spill_job j;
    size_t moved;

    if (sw.njobs == 0 || sw.busy)
        return;
    j = sw.jobs[0];
    if (!take_batch(&j))
        memmove(sw.jobs, sw.jobs + 1, --sw.njobs * sizeof(*sw.jobs));
    if (sw.n == 0)
        return;
    sw.busy = true;
    enc_p2p_unlock();
    write_batch();
    enc_p2p_lock();
    sw.busy = false;
    if ((moved = place_batch(&enc_p2p.out[j.peer])) > 0) {
        enc_log_payload_bytes(-(int64_t)moved, false);
        ENC_DEBUG("p2p", "payload log: %zu bytes below message %llu of a channel spilled "
                  "(kept for a lost host's re-execution)", moved, (unsigned long long)j.floor);
    }
    pthread_cond_broadcast(&sw.cv);
}

/* Queues the spill of o's frames on key below floor (the lock held); true
 * when o's log has that channel. */
static bool spill_out(int peer, uint64_t key, uint64_t floor)
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

void enc_p2p_spill_fork_child(void)
{
    pthread_cond_init(&sw.cv, NULL); /* a thread writing a batch is not in the image */
    if (sw.busy) /* its frames stay whole; its job waits for the next trim */
        for (size_t i = 0; i < sw.n; i++)
            sw.batch[i]->spilling = false;
    sw.busy = false;
    sw.n = 0;
}

/* Until no batch is being written (the lock held): frames may then leave
 * the logs. */
static void spill_idle(void)
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
        n->spilling = false;
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

/* True when some rank of the world runs on another host than this one. */
static bool spans_hosts(void)
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

/* Frees the frames of o's log on channel key below floor; true when the
 * log has that channel.  The frame being written stays. */
static bool trim_out(struct p2p_out *o, uint64_t key, uint64_t floor, size_t *freed)
{
    struct p2p_frame **p = &o->log, *prev = NULL;
    bool mine = false;

    while (*p != NULL) {
        struct p2p_frame *f = *p;

        if (f->key != key || f->seq >= floor || (f == o->cursor && o->off > 0)) {
            mine |= f->key == key;
            prev = f;
            p = &f->next;
            continue;
        }
        mine = true;
        if (o->cursor == f)
            o->cursor = f->next;
        *p = f->next;
        if (o->log_tail == f)
            o->log_tail = prev;
        o->logged -= f->len;
        *freed += f->len;
        enc_p2p_pool_put(f);
    }
    return mine;
}

bool enc_p2p_conn_trim(uint64_t key, uint64_t floor)
{
    size_t freed = 0;
    bool mine = false, history;

    if (enc_p2p.out == NULL)
        return false;
    history = spans_hosts();
    for (int r = 0; r < enc_p2p.size; r++)
        mine |= history ? spill_out(r, key, floor) : trim_out(&enc_p2p.out[r], key, floor, &freed);
    while (sw.njobs > 0 && !sw.busy) /* a thread in a batch already writes the rest */
        spill_step();
    if (freed > 0) {
        enc_log_payload_bytes(-(int64_t)freed, false);
        ENC_DEBUG("p2p", "payload log trimmed: %zu bytes below message %llu of a channel "
                  "released (the receiver's parked image has them)", freed,
                  (unsigned long long)floor);
    }
    return mine;
}

size_t enc_p2p_conn_release(uint64_t key, uint64_t floor)
{
    size_t freed = 0, mem = 0;

    if (enc_p2p.out == NULL)
        return 0;
    spill_idle();
    for (int r = 0; r < enc_p2p.size; r++) {
        struct p2p_out *o = &enc_p2p.out[r];
        struct p2p_frame **p = &o->log, *prev = NULL;

        /* frames from the cursor on are not written yet: never released */
        while (*p != NULL && *p != o->cursor) {
            struct p2p_frame *f = *p;
            size_t payload = f->len - ENC_P2P_HDR_BYTES;

            if (f->key != key || f->seq >= floor) {
                prev = f;
                p = &f->next;
                continue;
            }
            *p = f->next;
            if (o->log_tail == f)
                o->log_tail = prev;
            o->logged -= f->len;
            freed += f->len;
            if (f->spilled)
                enc_spill_release(f->spill_off, payload);
            mem += f->spilled ? ENC_P2P_HDR_BYTES : f->len;
            enc_p2p_pool_put(f);
        }
    }
    if (mem > 0)
        enc_log_payload_bytes(-(int64_t)mem, false);
    return freed;
}
