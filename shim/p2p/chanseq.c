/*
 * chanseq.c - channel sequence numbers, duplicate suppression and the
 * determinant record (chanseq.h).
 *
 * Channels live in an open-addressing table keyed by (cid, peer) with
 * linear probing; a freed communicator's channels are removed by rebuilding
 * the table, which happens as rarely as MPI_Comm_free.
 */
#include "enc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p2p/chanseq.h"
#include "proto/wire.h"

struct enc_chanseq_slot {
    uint64_t cid;
    int32_t peer;
    bool used;
    struct enc_chan_pos pos;
};

static uint64_t mix(uint64_t cid, int peer)
{
    uint64_t h = cid * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uint32_t)peer;

    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ h >> 29;
}

void enc_chanseq_init(struct enc_chanseq *cs)
{
    memset(cs, 0, sizeof(*cs));
}

void enc_chanseq_fini(struct enc_chanseq *cs)
{
    free(cs->slot);
    memset(cs, 0, sizeof(*cs));
}

static struct enc_chanseq_slot *lookup(const struct enc_chanseq *cs, uint64_t cid, int peer)
{
    /* a message's send or arrival asks for the same channel two to four
     * times, and a program talks to few peers at a time */
    if (cs->last != NULL && cs->last->cid == cid && cs->last->peer == peer)
        return cs->last;
    if (cs->cap == 0)
        return NULL;
    for (size_t i = mix(cid, peer) & (cs->cap - 1);; i = (i + 1) & (cs->cap - 1)) {
        struct enc_chanseq_slot *s = &cs->slot[i];
        if (!s->used)
            return NULL;
        if (s->cid == cid && s->peer == peer)
            return s;
    }
}

/* Puts a slot into a table that has room (no check for an existing key). */
static struct enc_chanseq_slot *place(struct enc_chanseq_slot *tab, size_t cap, uint64_t cid,
                                      int peer)
{
    size_t i = mix(cid, peer) & (cap - 1);

    while (tab[i].used)
        i = (i + 1) & (cap - 1);
    tab[i] = (struct enc_chanseq_slot){.cid = cid, .peer = peer, .used = true};
    return &tab[i];
}

/* Rebuilds the table with cap slots, leaving out the channels of skip_cid
 * when skip. */
static enc_status_t rebuild(struct enc_chanseq *cs, size_t cap, uint64_t skip_cid, bool skip)
{
    struct enc_chanseq_slot *tab = calloc(cap, sizeof(*tab));
    size_t n = 0;

    if (tab == NULL)
        return ENC_ERR_NOMEM;
    for (size_t i = 0; i < cs->cap; i++) {
        const struct enc_chanseq_slot *s = &cs->slot[i];
        if (!s->used || (skip && s->cid == skip_cid))
            continue;
        place(tab, cap, s->cid, s->peer)->pos = s->pos;
        n++;
    }
    free(cs->slot);
    cs->slot = tab;
    cs->cap = cap;
    cs->n = n;
    cs->last = NULL;
    return ENC_OK;
}

/* The channel's slot, made when new; NULL when out of memory. */
static struct enc_chanseq_slot *get(struct enc_chanseq *cs, uint64_t cid, int peer)
{
    struct enc_chanseq_slot *s = lookup(cs, cid, peer);

    if (s != NULL)
        return cs->last = s;
    if ((cs->n + 1) * 4 > cs->cap * 3 &&
        rebuild(cs, cs->cap ? cs->cap * 2 : 64, 0, false) != ENC_OK)
        return NULL;
    cs->n++;
    return cs->last = place(cs->slot, cs->cap, cid, peer);
}

uint64_t enc_chan_link(uint64_t chain, int tag, uint64_t bytes, bool sync)
{
    uint64_t h = chain ^ ((uint64_t)(uint32_t)tag << 1 | sync) * 0x9e3779b97f4a7c15ull;

    h = (h ^ h >> 30) * 0xbf58476d1ce4e5b9ull;
    h ^= bytes;
    h = (h ^ h >> 27) * 0x94d049bb133111ebull;
    return h ^ h >> 31;
}

enc_status_t enc_chanseq_next_send(struct enc_chanseq *cs, uint64_t cid, int peer,
                                   uint64_t *seq)
{
    struct enc_chanseq_slot *s = get(cs, cid, peer);

    if (s == NULL)
        return ENC_ERR_NOMEM;
    *seq = s->pos.send++;
    return ENC_OK;
}

enc_status_t enc_chanseq_next_send_linked(struct enc_chanseq *cs, uint64_t cid, int peer,
                                          int tag, uint64_t bytes, bool sync, uint64_t *seq,
                                          uint64_t *chain)
{
    struct enc_chanseq_slot *s = get(cs, cid, peer);

    if (s == NULL)
        return ENC_ERR_NOMEM;
    *seq = s->pos.send++;
    *chain = s->pos.send_chain = enc_chan_link(s->pos.send_chain, tag, bytes, sync);
    return ENC_OK;
}

bool enc_chanseq_chain_ok(struct enc_chanseq *cs, uint64_t cid, int peer, uint64_t seq,
                          enum enc_chan_verdict v, int tag, uint64_t bytes, bool sync,
                          uint64_t chain)
{
    struct enc_chanseq_slot *s = lookup(cs, cid, peer);

    if (s == NULL)
        return true;
    if (v == ENC_CHAN_DELIVER) { /* accept moved recv past seq */
        bool ok = enc_chan_link(s->pos.recv_chain, tag, bytes, sync) == chain;

        s->pos.recv_chain = chain;
        return ok;
    }
    return v != ENC_CHAN_DUPLICATE || seq + 1 != s->pos.recv || chain == s->pos.recv_chain;
}

enum enc_chan_verdict enc_chanseq_accept(struct enc_chanseq *cs, uint64_t cid, int peer,
                                         uint64_t seq, uint64_t *expected)
{
    struct enc_chanseq_slot *s = get(cs, cid, peer);
    uint64_t want = s ? s->pos.recv : UINT64_MAX;

    if (expected != NULL)
        *expected = want;
    if (s == NULL)
        return ENC_CHAN_GAP;
    if (seq < want)
        return ENC_CHAN_DUPLICATE;
    if (seq > want)
        return ENC_CHAN_GAP;
    s->pos.recv++;
    return ENC_CHAN_DELIVER;
}

struct enc_chan_pos enc_chanseq_pos(const struct enc_chanseq *cs, uint64_t cid, int peer)
{
    const struct enc_chanseq_slot *s = lookup(cs, cid, peer);

    return s ? s->pos : (struct enc_chan_pos){0};
}

enc_status_t enc_chanseq_set(struct enc_chanseq *cs, uint64_t cid, int peer,
                             struct enc_chan_pos pos)
{
    struct enc_chanseq_slot *s = get(cs, cid, peer);

    if (s == NULL)
        return ENC_ERR_NOMEM;
    s->pos = pos;
    return ENC_OK;
}

void enc_chanseq_drop_comm(struct enc_chanseq *cs, uint64_t cid)
{
    /* Without memory for the new table the old one stays: the channels
     * remain, harmless, until the next drop. */
    if (cs->cap != 0)
        (void)rebuild(cs, cs->cap, cid, true);
}

size_t enc_chanseq_count(const struct enc_chanseq *cs)
{
    return cs->n;
}

void enc_chanseq_each(const struct enc_chanseq *cs,
                      void (*fn)(void *arg, uint64_t cid, int peer, struct enc_chan_pos pos),
                      void *arg)
{
    for (size_t i = 0; i < cs->cap; i++)
        if (cs->slot[i].used)
            fn(arg, cs->slot[i].cid, cs->slot[i].peer, cs->slot[i].pos);
}

/* ---- determinant records ---- */

void enc_det_encode(const struct enc_det *d, uint8_t out[ENC_DET_WIRE])
{
    struct enc_wbuf w;

    enc_w_init(&w, out, ENC_DET_WIRE);
    enc_w_u8(&w, (uint8_t)d->kind);
    enc_w_u8(&w, d->flags);
    enc_w_u16(&w, 0);
    enc_w_u32(&w, d->creator);
    enc_w_u64(&w, d->clock);
    enc_w_u64(&w, d->cid);
    if (d->kind == ENC_DET_DONE) {
        enc_w_u32(&w, 0);
        enc_w_u32(&w, 0);
        enc_w_u32(&w, 0);
        enc_w_u32(&w, d->idx);
        return;
    }
    enc_w_u32(&w, (uint32_t)d->src);
    enc_w_u32(&w, (uint32_t)d->tag);
    enc_w_u64(&w, d->seq);
}

/* The fields a kind leaves unused are zero, and the used ones in range. */
static bool det_valid(const struct enc_det *d)
{
    switch (d->kind) {
    case ENC_DET_MATCH:
    case ENC_DET_SEND:
        return d->flags == 0 && d->src >= 0 && d->tag >= 0;
    case ENC_DET_NONE:
        return d->flags == 0 && d->cid == 0 && d->src == 0 && d->tag == 0 && d->seq > 0;
    case ENC_DET_DONE:
        return (d->flags & ~ENC_DET_LAST) == 0 && d->cid == 0;
    case ENC_DET_CANCEL:
        return d->flags == 0 && d->src == 0 && d->tag == 0 && d->seq <= 1;
    }
    return false;
}

enc_status_t enc_det_decode(struct enc_det *d, const uint8_t *in, size_t len)
{
    struct enc_rbuf r;
    uint8_t kind;
    uint16_t reserved;
    uint32_t src, tag, hi, lo;

    if (len != ENC_DET_WIRE)
        return ENC_ERR_PROTO;
    memset(d, 0, sizeof(*d));
    enc_r_init(&r, in, len);
    enc_r_u8(&r, &kind);
    enc_r_u8(&r, &d->flags);
    enc_r_u16(&r, &reserved);
    enc_r_u32(&r, &d->creator);
    enc_r_u64(&r, &d->clock);
    enc_r_u64(&r, &d->cid);
    enc_r_u32(&r, &src);
    enc_r_u32(&r, &tag);
    enc_r_u32(&r, &hi);
    enc_r_u32(&r, &lo);
    if (enc_r_done(&r) != ENC_OK || reserved != 0)
        return ENC_ERR_PROTO;
    d->kind = (enum enc_det_kind)kind;
    if (d->kind == ENC_DET_DONE) {
        if (src != 0 || tag != 0 || hi != 0)
            return ENC_ERR_PROTO;
        d->idx = lo;
    } else {
        d->src = (int32_t)src;
        d->tag = (int32_t)tag;
        d->seq = (uint64_t)hi << 32 | lo;
    }
    return det_valid(d) ? ENC_OK : ENC_ERR_PROTO;
}

void enc_det_format(const struct enc_det *d, char *out, size_t cap)
{
    switch (d->kind) {
    case ENC_DET_MATCH:
        snprintf(out, cap, "match clock=%" PRIu64 " cid=%" PRIu64 " src=%d tag=%d seq=%" PRIu64,
                 d->clock, d->cid, d->src, d->tag, d->seq);
        return;
    case ENC_DET_NONE:
        snprintf(out, cap, "none clock=%" PRIu64 " calls=%" PRIu64, d->clock, d->seq);
        return;
    case ENC_DET_DONE:
        if (d->idx == ENC_DET_ALL)
            snprintf(out, cap, "done clock=%" PRIu64 " all", d->clock);
        else
            snprintf(out, cap, "done clock=%" PRIu64 " index=%u%s", d->clock, d->idx,
                     d->flags & ENC_DET_LAST ? " last" : "");
        return;
    case ENC_DET_CANCEL:
        snprintf(out, cap, "cancel clock=%" PRIu64 " cid=%" PRIu64 " %s", d->clock, d->cid,
                 d->seq ? "cancelled" : "matched before");
        return;
    case ENC_DET_SEND:
        snprintf(out, cap, "send clock=%" PRIu64 " cid=%" PRIu64 " dst=%d tag=%d seq=%" PRIu64,
                 d->clock, d->cid, d->src, d->tag, d->seq);
        return;
    }
    snprintf(out, cap, "determinant of kind %d", (int)d->kind);
}
