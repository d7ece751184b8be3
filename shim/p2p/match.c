/*
 * match.c - the posted and unexpected queues of one communicator
 * (match.h): FIFO lists per pattern, found by a chained hash of
 * (pattern, src, tag), emptied lists kept for reuse.
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include "p2p/match.h"

/* The patterns, in the order of enc_match_msg.link. */
enum pat { PAT_EXACT, PAT_SRC, PAT_TAG, PAT_ANY, PAT_COUNT };

struct enc_match_list {
    uint64_t key;
    struct enc_match_list *chain;
    struct enc_match_link *head, *tail;
};

#define LINK_OWNER(l, type, member) ((type *)((char *)(l) - offsetof(type, member)))

static uint64_t key_of(enum pat p, int32_t src, int32_t tag)
{
    uint64_t s = p == PAT_EXACT || p == PAT_SRC ? (uint64_t)src : 0;
    uint64_t t = p == PAT_EXACT || p == PAT_TAG ? (uint64_t)(uint32_t)tag : 0;

    return (uint64_t)p << 59 | s << 32 | t;
}

static enum pat pat_of(int32_t src, int32_t tag)
{
    if (src == ENC_MATCH_ANY)
        return tag == ENC_MATCH_ANY ? PAT_ANY : PAT_TAG;
    return tag == ENC_MATCH_ANY ? PAT_SRC : PAT_EXACT;
}

static size_t bucket_of(const struct enc_match_table *t, uint64_t key)
{
    uint64_t h = key * 0x9e3779b97f4a7c15ull;

    return (size_t)(h ^ h >> 32) & (t->cap - 1);
}

static struct enc_match_list *find(const struct enc_match_table *t, uint64_t key)
{
    if (t->cap == 0)
        return NULL;
    for (struct enc_match_list *l = t->bucket[bucket_of(t, key)]; l; l = l->chain)
        if (l->key == key)
            return l;
    return NULL;
}

static void table_free(struct enc_match_table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        while (t->bucket[i]) {
            struct enc_match_list *l = t->bucket[i];
            t->bucket[i] = l->chain;
            free(l);
        }
    while (t->spare) {
        struct enc_match_list *l = t->spare;
        t->spare = l->chain;
        free(l);
    }
    free(t->bucket);
    memset(t, 0, sizeof(*t));
}

static enc_status_t table_grow(struct enc_match_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 64;
    struct enc_match_list **b = calloc(cap, sizeof(*b));
    struct enc_match_table nt = {.bucket = b, .cap = cap};

    if (b == NULL)
        return ENC_ERR_NOMEM;
    for (size_t i = 0; i < t->cap; i++)
        while (t->bucket[i]) {
            struct enc_match_list *l = t->bucket[i];
            size_t j = bucket_of(&nt, l->key);
            t->bucket[i] = l->chain;
            l->chain = b[j];
            b[j] = l;
        }
    free(t->bucket);
    t->bucket = b;
    t->cap = cap;
    return ENC_OK;
}

/* Room for k new lists: afterwards get() cannot fail for k keys. */
static enc_status_t reserve(struct enc_match_table *t, size_t k)
{
    size_t spare = 0;
    enc_status_t rv;

    if (t->n + k > t->cap && (rv = table_grow(t)) != ENC_OK)
        return rv;
    for (struct enc_match_list *l = t->spare; l && spare < k; l = l->chain)
        spare++;
    for (; spare < k; spare++) {
        struct enc_match_list *l = malloc(sizeof(*l));
        if (l == NULL)
            return ENC_ERR_NOMEM;
        l->chain = t->spare;
        t->spare = l;
    }
    return ENC_OK;
}

/* The list of key, made from a reserved spare when new. */
static struct enc_match_list *get(struct enc_match_table *t, uint64_t key)
{
    struct enc_match_list *l = find(t, key);
    size_t b;

    if (l != NULL)
        return l;
    l = t->spare;
    t->spare = l->chain;
    b = bucket_of(t, key);
    *l = (struct enc_match_list){.key = key, .chain = t->bucket[b]};
    t->bucket[b] = l;
    t->n++;
    return l;
}

/* An emptied list goes back to the spares. */
static void put(struct enc_match_table *t, struct enc_match_list *l)
{
    struct enc_match_list **p = &t->bucket[bucket_of(t, l->key)];

    while (*p != l)
        p = &(*p)->chain;
    *p = l->chain;
    l->chain = t->spare;
    t->spare = l;
    t->n--;
}

static void append(struct enc_match_list *l, struct enc_match_link *k)
{
    k->list = l;
    k->next = NULL;
    k->prev = l->tail;
    if (l->tail)
        l->tail->next = k;
    else
        l->head = k;
    l->tail = k;
}

/* Unlinks k; true when its list is now empty. */
static bool unlink_one(struct enc_match_link *k)
{
    struct enc_match_list *l = k->list;

    if (k->prev)
        k->prev->next = k->next;
    else
        l->head = k->next;
    if (k->next)
        k->next->prev = k->prev;
    else
        l->tail = k->prev;
    k->prev = k->next = NULL;
    k->list = NULL;
    return l->head == NULL;
}

static void remove_link(struct enc_match_table *t, struct enc_match_link *k)
{
    struct enc_match_list *l = k->list;

    if (unlink_one(k) && t != NULL)
        put(t, l);
}

void enc_match_init(struct enc_match *m)
{
    memset(m, 0, sizeof(*m));
}

void enc_match_fini(struct enc_match *m)
{
    table_free(&m->posted);
    table_free(&m->unexpected);
    free(m->pinned);
    memset(m, 0, sizeof(*m));
}

static void unexpected_remove(struct enc_match *m, struct enc_match_msg *msg)
{
    for (int p = 0; p < PAT_COUNT; p++)
        remove_link(&m->unexpected, &msg->link[p]);
    m->nunexpected--;
}

static void posted_remove(struct enc_match *m, struct enc_match_recv *r)
{
    remove_link(r->pin ? NULL : &m->posted, &r->link);
    if (!r->pin)
        m->nposted_pat[pat_of(r->src, r->tag)]--;
    m->nposted--;
}

/* The pinned receive waiting for (src, seq), or NULL. */
static struct enc_match_recv *pinned_for(const struct enc_match *m, int32_t src, uint64_t seq)
{
    if (m->pinned == NULL)
        return NULL;
    for (struct enc_match_link *k = m->pinned->head; k; k = k->next) {
        struct enc_match_recv *r = LINK_OWNER(k, struct enc_match_recv, link);
        if (r->src == src && r->pin == seq + 1)
            return r;
    }
    return NULL;
}

/* The earliest posted receive msg matches, or NULL. */
static struct enc_match_recv *earliest_posted(const struct enc_match *m,
                                              const struct enc_match_msg *msg)
{
    struct enc_match_recv *best = NULL;

    for (int p = 0; p < PAT_COUNT; p++) {
        const struct enc_match_list *l;
        struct enc_match_recv *r;
        if (m->nposted_pat[p] == 0 ||
            (l = find(&m->posted, key_of(p, msg->src, msg->tag))) == NULL)
            continue;
        r = LINK_OWNER(l->head, struct enc_match_recv, link);
        if (best == NULL || r->order < best->order)
            best = r;
    }
    return best;
}

static bool valid_msg(const struct enc_match_msg *msg)
{
    return msg->src >= 0 && msg->src <= ENC_MATCH_MAX_SRC && msg->tag >= 0;
}

static bool valid_pattern(int32_t src, int32_t tag)
{
    return src >= ENC_MATCH_ANY && src <= ENC_MATCH_MAX_SRC && tag >= ENC_MATCH_ANY;
}

enc_status_t enc_match_arrive(struct enc_match *m, struct enc_match_msg *msg,
                              struct enc_match_recv **r)
{
    enc_status_t rv;

    *r = NULL;
    if (!valid_msg(msg))
        return ENC_ERR_INVAL;
    if ((*r = pinned_for(m, msg->src, msg->seq)) == NULL)
        *r = earliest_posted(m, msg);
    if (*r != NULL) {
        posted_remove(m, *r);
        return ENC_OK;
    }
    if ((rv = reserve(&m->unexpected, PAT_COUNT)) != ENC_OK)
        return rv;
    msg->arrival = m->next_arrival++;
    for (int p = 0; p < PAT_COUNT; p++)
        append(get(&m->unexpected, key_of(p, msg->src, msg->tag)), &msg->link[p]);
    m->nunexpected++;
    return ENC_OK;
}

struct enc_match_recv *enc_match_peek(const struct enc_match *m, const struct enc_match_msg *msg)
{
    struct enc_match_recv *r;

    if (!valid_msg(msg))
        return NULL;
    if ((r = pinned_for(m, msg->src, msg->seq)) != NULL)
        return r;
    return earliest_posted(m, msg);
}

/* The unexpected message from src with channel number seq, or NULL. */
static struct enc_match_msg *unexpected_seq(const struct enc_match *m, int32_t src,
                                            uint64_t seq)
{
    const struct enc_match_list *l = find(&m->unexpected, key_of(PAT_SRC, src, 0));

    for (struct enc_match_link *k = l ? l->head : NULL; k; k = k->next) {
        struct enc_match_msg *msg = LINK_OWNER(k, struct enc_match_msg, link[PAT_SRC]);
        if (msg->seq == seq)
            return msg;
    }
    return NULL;
}

static enc_status_t post_pinned(struct enc_match *m, struct enc_match_recv *r,
                                struct enc_match_msg **msg)
{
    if (r->src == ENC_MATCH_ANY)
        return ENC_ERR_INVAL;
    r->order = m->next_order++;
    if ((*msg = unexpected_seq(m, r->src, r->pin - 1)) != NULL) {
        unexpected_remove(m, *msg);
        return ENC_OK;
    }
    if (m->pinned == NULL && (m->pinned = calloc(1, sizeof(*m->pinned))) == NULL)
        return ENC_ERR_NOMEM;
    append(m->pinned, &r->link);
    m->nposted++;
    return ENC_OK;
}

enc_status_t enc_match_post(struct enc_match *m, struct enc_match_recv *r,
                            struct enc_match_msg **msg)
{
    enc_status_t rv;

    *msg = NULL;
    if (!valid_pattern(r->src, r->tag))
        return ENC_ERR_INVAL;
    if (r->pin)
        return post_pinned(m, r, msg);
    if ((*msg = enc_match_mprobe(m, r->src, r->tag)) != NULL) {
        r->order = m->next_order++;
        return ENC_OK;
    }
    if ((rv = reserve(&m->posted, 1)) != ENC_OK)
        return rv;
    r->order = m->next_order++;
    append(get(&m->posted, key_of(pat_of(r->src, r->tag), r->src, r->tag)), &r->link);
    m->nposted_pat[pat_of(r->src, r->tag)]++;
    m->nposted++;
    return ENC_OK;
}

struct enc_match_msg *enc_match_probe(const struct enc_match *m, int src, int tag)
{
    enum pat p;
    const struct enc_match_list *l;

    if (m->nunexpected == 0 || !valid_pattern(src, tag))
        return NULL;
    p = pat_of(src, tag);
    l = find(&m->unexpected, key_of(p, src, tag));
    return l ? LINK_OWNER(l->head, struct enc_match_msg, link[p]) : NULL;
}

struct enc_match_msg *enc_match_mprobe(struct enc_match *m, int src, int tag)
{
    struct enc_match_msg *msg = enc_match_probe(m, src, tag);

    if (msg != NULL)
        unexpected_remove(m, msg);
    return msg;
}

bool enc_match_cancel(struct enc_match *m, struct enc_match_recv *r)
{
    if (r->link.list == NULL)
        return false;
    posted_remove(m, r);
    return true;
}

void enc_match_det(struct enc_det *d, uint32_t creator, uint64_t clock, uint64_t cid,
                   const struct enc_match_msg *msg)
{
    *d = (struct enc_det){.kind = ENC_DET_MATCH, .creator = creator, .clock = clock,
                          .cid = cid, .src = msg->src, .tag = msg->tag, .seq = msg->seq};
}

enc_status_t enc_match_replay(struct enc_match_recv *r, const struct enc_det *d, bool pin)
{
    if (d->kind != ENC_DET_MATCH || (r->src != ENC_MATCH_ANY && r->src != d->src) ||
        (r->tag != ENC_MATCH_ANY && r->tag != d->tag) || d->src < 0 ||
        d->src > ENC_MATCH_MAX_SRC || d->seq == UINT64_MAX)
        return ENC_ERR_DIVERGED;
    r->src = d->src;
    r->pin = pin ? d->seq + 1 : 0;
    return ENC_OK;
}

bool enc_match_replayed_ok(const struct enc_det *d, const struct enc_match_msg *msg)
{
    return msg->src == d->src && msg->tag == d->tag && msg->seq == d->seq;
}
