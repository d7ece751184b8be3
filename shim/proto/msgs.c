/*
 * msgs.c - encoding and validating decoding of rank <-> tracker payloads
 * (proto/msgs.h).
 *
 * Each message is described once, by a "walk" over its fields that either
 * writes or reads them, so encoder and decoder cannot drift apart.
 * Decoders trust nothing: counts are bounded before anything is allocated,
 * ranks are checked against the world size, every byte must be consumed;
 * anything else is ENC_ERR_PROTO.  Encoders check only what they need to
 * produce bytes (room, non-NULL arrays, a size the arrays can describe).
 */
#include "enc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "proto/wire.h"
#include "proto/msgs.h"

/* One direction of a walk.  When writing, the walk only reads the message. */
struct codec {
    bool reading;
    bool nomem;
    struct enc_wbuf w;
    struct enc_rbuf r;
};

typedef void (*walk_fn)(struct codec *c, void *m);
typedef bool (*valid_fn)(const void *m);
typedef void (*release_fn)(void *m);

static bool c_failed(const struct codec *c)
{
    return c->nomem || (c->reading ? c->r.err : c->w.err);
}

static void c_check(struct codec *c, bool ok)
{
    if (ok)
        return;
    if (c->reading)
        c->r.err = 1;
    else
        c->w.err = 1;
}

/* c_u8 .. c_u64: one field of a fixed width, in the walk's direction. */
#define ENC_CODEC_UINT(bits)                                                \
    static void c_u##bits(struct codec *c, uint##bits##_t *v)               \
    {                                                                       \
        if (c->reading)                                                     \
            enc_r_u##bits(&c->r, v);                                        \
        else                                                                \
            enc_w_u##bits(&c->w, *v);                                       \
    }
ENC_CODEC_UINT(8)
ENC_CODEC_UINT(16)
ENC_CODEC_UINT(32)
ENC_CODEC_UINT(64)

/* Two's complement in a u32; memcpy keeps the conversion well defined. */
static void c_i32(struct codec *c, int32_t *v)
{
    uint32_t u;

    memcpy(&u, v, sizeof(u));
    c_u32(c, &u);
    if (c->reading)
        memcpy(v, &u, sizeof(u));
}

/* Doubles travel as their IEEE-754 bit pattern. */
static void c_f64(struct codec *c, double *v)
{
    uint64_t u;

    memcpy(&u, v, sizeof(u));
    c_u64(c, &u);
    if (c->reading)
        memcpy(v, &u, sizeof(u));
}

/* A string that must be NUL-terminated within cap, on both sides. */
static void c_str(struct codec *c, char *s, size_t cap)
{
    if (c->reading)
        enc_r_str(&c->r, s, cap);
    else if (strnlen(s, cap) >= cap)
        c->w.err = 1;
    else
        enc_w_str(&c->w, s);
}

/* Reading: n zeroed elements, provided the rest of the buffer could hold n
 * entries of at least min_wire bytes, so a lying count cannot make us
 * allocate.  Writing: checks the caller's array exists. */
static void *c_array(struct codec *c, void *have, uint32_t n, size_t elem, size_t min_wire)
{
    void *p;

    if (!c->reading) {
        c_check(c, have != NULL);
        return have;
    }
    c_check(c, (size_t)n * min_wire <= c->r.len - c->r.off);
    if (c_failed(c))
        return NULL;
    if ((p = calloc(n, elem)) == NULL)
        c->nomem = true;
    return p;
}

static bool world_size_ok(uint32_t size)
{
    return size >= 1 && size <= ENC_MAX_RANKS;
}

static int msg_encode(walk_fn walk, const void *m, void *buf, size_t cap)
{
    struct codec c = {.reading = false};

    enc_w_init(&c.w, buf, cap);
    walk(&c, (void *)(uintptr_t)m); /* a writing walk never stores */
    if (c.w.err || c.w.len > INT32_MAX)
        return ENC_ERR_INVAL;
    return (int)c.w.len;
}

static enc_status_t msg_decode(walk_fn walk, valid_fn valid, release_fn release, void *m,
                               const void *buf, size_t len)
{
    struct codec c = {.reading = true};
    enc_status_t rv;

    enc_r_init(&c.r, buf, len);
    walk(&c, m);
    if (c.nomem)
        rv = ENC_ERR_NOMEM;
    else if (c.r.err || (valid != NULL && !valid(m)))
        rv = ENC_ERR_PROTO;
    else
        rv = enc_r_done(&c.r);
    if (rv != 0 && release != NULL)
        release(m);
    return rv;
}

/* Defines the public encoder and decoder of enc_msg_T from its walk. */
#define ENC_MSG_CODEC(T, valid, release)                                             \
    int enc_msg_##T##_encode(const struct enc_msg_##T *m, void *buf, size_t cap)      \
    {                                                                               \
        return msg_encode(T##_walk, m, buf, cap);                                   \
    }                                                                               \
    enc_status_t enc_msg_##T##_decode(struct enc_msg_##T *m, const void *buf, size_t len) \
    {                                                                               \
        memset(m, 0, sizeof(*m));                                                   \
        return msg_decode(T##_walk, valid, release, m, buf, len);                   \
    }

/* --- REGISTER --- */

static void register_walk(struct codec *c, void *p)
{
    struct enc_msg_register *m = p;

    c_u32(c, &m->rank);
    c_u32(c, &m->size);
    c_u32(c, &m->incarnation);
    c_u32(c, &m->pid);
    c_u16(c, &m->data_port);
    c_str(c, m->addr, sizeof(m->addr));
    c_str(c, m->loc.host, sizeof(m->loc.host));
    c_i32(c, &m->loc.package);
    c_i32(c, &m->loc.numa);
    c_i32(c, &m->loc.core);
    c_u64(c, &m->completed);
}

/* Locality fields are -1 when unknown; anything more negative is garbage. */
static bool register_valid(const void *p)
{
    const struct enc_msg_register *m = p;

    return world_size_ok(m->size) && m->rank < m->size && m->loc.package >= -1 &&
           m->loc.numa >= -1 && m->loc.core >= -1;
}

ENC_MSG_CODEC(register, register_valid, NULL)

/* --- WORLD --- */

/* Smallest wire size of one entry: incarnation, port, empty addr, locality slot. */
#define ENC_WORLD_ENTRY_MIN (4 + 2 + 2 + 4)

static void world_walk(struct codec *c, void *p)
{
    struct enc_msg_world *m = p;
    struct enc_world_peer *peers;
    uint32_t *locality;

    c_u32(c, &m->epoch);
    c_u32(c, &m->size);
    c_check(c, world_size_ok(m->size));
    peers = c_array(c, m->peers, m->size, sizeof(*peers), ENC_WORLD_ENTRY_MIN);
    locality = c_array(c, m->locality, m->size, sizeof(*locality), 0);
    if (c->reading) {
        m->peers = peers;
        m->locality = locality;
    }
    if (c_failed(c))
        return;
    for (uint32_t i = 0; i < m->size; i++) {
        c_u32(c, &peers[i].incarnation);
        c_u16(c, &peers[i].port);
        c_str(c, peers[i].addr, sizeof(peers[i].addr));
    }
    for (uint32_t i = 0; i < m->size; i++)
        c_u32(c, &locality[i]);
}

/* The locality order must name every rank exactly once. */
static bool world_valid(const void *p)
{
    const struct enc_msg_world *m = p;
    uint8_t seen[ENC_MAX_RANKS] = {0};

    for (uint32_t i = 0; i < m->size; i++) {
        if (m->locality[i] >= m->size || seen[m->locality[i]])
            return false;
        seen[m->locality[i]] = 1;
    }
    return true;
}

static void world_release(void *m) { enc_msg_world_free(m); }

ENC_MSG_CODEC(world, world_valid, world_release)

void enc_msg_world_free(struct enc_msg_world *m)
{
    free(m->peers);
    free(m->locality);
    m->peers = NULL;
    m->locality = NULL;
}

/* --- HEARTBEAT, STATUS --- */

static void heartbeat_walk(struct codec *c, void *p)
{
    struct enc_msg_heartbeat *m = p;

    c_u64(c, &m->completed);
}

ENC_MSG_CODEC(heartbeat, NULL, NULL)

static void status_walk(struct codec *c, void *p)
{
    struct enc_msg_status *m = p;

    c_u32(c, &m->epoch);
    c_u64(c, &m->completed);
}

ENC_MSG_CODEC(status, NULL, NULL)

/* --- EVENT, ABORT --- */

static void event_walk(struct codec *c, void *p)
{
    struct enc_msg_event *m = p;

    c_u8(c, &m->kind);
    c_u32(c, &m->rank);
    c_u32(c, &m->epoch);
    c_i32(c, &m->code);
    c_str(c, m->reason, sizeof(m->reason));
    c_u64(c, &m->seq);
    c_u64(c, &m->cid);
}

/* A death names a rank; an abort may come from the tracker itself, so its
 * rank field is informational and not checked. */
static bool event_valid(const void *p)
{
    const struct enc_msg_event *m = p;

    if (m->kind == ENC_EV_DEAD)
        return m->rank < ENC_MAX_RANKS;
    return m->kind == ENC_EV_ABORT || m->kind == ENC_EV_DONE || m->kind == ENC_EV_TRIM;
}

ENC_MSG_CODEC(event, event_valid, NULL)

static void abort_walk(struct codec *c, void *p)
{
    struct enc_msg_abort *m = p;

    c_i32(c, &m->code);
    c_str(c, m->reason, sizeof(m->reason));
}

ENC_MSG_CODEC(abort, NULL, NULL)

/* --- RESUME --- */

static void resume_walk(struct codec *c, void *p)
{
    struct enc_msg_resume *m = p;
    uint64_t *done;

    c_u32(c, &m->epoch);
    c_u32(c, &m->size);
    c_check(c, world_size_ok(m->size));
    done = c_array(c, m->completed, m->size, sizeof(*done), sizeof(*done));
    if (c->reading)
        m->completed = done;
    for (uint32_t i = 0; i < m->size && !c_failed(c); i++)
        c_u64(c, &done[i]);
}

static void resume_release(void *m) { enc_msg_resume_free(m); }

ENC_MSG_CODEC(resume, NULL, resume_release)

void enc_msg_resume_free(struct enc_msg_resume *m)
{
    free(m->completed);
    m->completed = NULL;
}

/* --- STATS --- */

static void stats_walk(struct codec *c, void *p)
{
    struct enc_msg_stats *m = p;

    c_u64(c, &m->completed);
    c_u64(c, &m->replayed);
    c_f64(c, &m->recovery_s);
    c_u64(c, &m->log_peak);
    c_u64(c, &m->spill_peak);
    c_u64(c, &m->private_rss);
    c_u64(c, &m->comm_completed);
}

static bool stats_valid(const void *p)
{
    const struct enc_msg_stats *m = p;

    return isfinite(m->recovery_s) && m->recovery_s >= 0;
}

ENC_MSG_CODEC(stats, stats_valid, NULL)

/* --- DROPPED --- */

static void dropped_walk(struct codec *c, void *p)
{
    struct enc_msg_dropped *m = p;

    c_u64(c, &m->first);
    c_u64(c, &m->last);
}

static bool dropped_valid(const void *p)
{
    const struct enc_msg_dropped *m = p;

    return m->first <= m->last;
}

ENC_MSG_CODEC(dropped, dropped_valid, NULL)
