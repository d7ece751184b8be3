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
 * (conn_spill.c): a lost host's ranks re-execute from the start and need
 * every message again.
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
#include "p2p/conn_spill.h"
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
        enc_p2p_spill_forget(o, f);
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
    history = enc_p2p_log_spans_hosts();
    for (int r = 0; r < enc_p2p.size; r++)
        mine |= history ? enc_p2p_spill_queue(r, key, floor) : trim_out(&enc_p2p.out[r], key, floor, &freed);
    enc_p2p_spill_run(); /* on the thread that handled the trim, as before */
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
    enc_p2p_spill_idle();
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
            enc_p2p_spill_forget(o, f);
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
