/* group.c - communicator groups: members, rank translation, communicator ids (cid). */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include "engine/group.h"
#include "engine/state.h"

/* Every group made and not yet freed, oldest first. */
static struct {
    struct enc_group *head, *tail;
} groups;

static void link_group(struct enc_group *g)
{
    g->prev = groups.tail;
    if (groups.tail)
        groups.tail->next = g;
    else
        groups.head = g;
    groups.tail = g;
}

static void unlink_group(struct enc_group *g)
{
    if (g->prev)
        g->prev->next = g->next;
    else if (groups.head == g)
        groups.head = g->next;
    else
        return; /* never linked */
    if (g->next)
        g->next->prev = g->prev;
    else
        groups.tail = g->prev;
}

static int check_members(const int *members, int n, uint8_t *seen)
{
    for (int i = 0; i < n; i++) {
        if (members[i] < 0 || members[i] >= enc_eng.size || seen[members[i]]) {
            ENC_ERROR("group", "rank %d of a new communicator is world rank %d: out of range "
                      "or repeated (world size %d)", i, members[i], enc_eng.size);
            return ENC_ERR_INVAL;
        }
        seen[members[i]] = 1;
    }
    return ENC_OK;
}

enc_status_t enc_group_new(uint64_t cid, const int *members, int n, int live,
                           struct enc_group **out)
{
    struct enc_group *g = calloc(1, sizeof(*g));
    uint8_t *seen = calloc((size_t)enc_eng.size + 1, 1);
    enc_status_t rv = ENC_ERR_NOMEM;

    if (g == NULL || seen == NULL || (g->members = malloc(sizeof(int) * (size_t)n + 1)) == NULL ||
        (g->order = malloc(sizeof(int) * (size_t)n + 1)) == NULL ||
        (g->locality = malloc(sizeof(int) * (size_t)n + 1)) == NULL ||
        (g->lead_of = malloc(sizeof(int) * (size_t)n + 1)) == NULL ||
        (g->chan_of = malloc(sizeof(int) * (size_t)n + 1)) == NULL)
        goto fail;
    if ((rv = check_members(members, n, seen)) != ENC_OK)
        goto fail;
    g->cid = cid;
    g->size = n;
    g->rank = -1;
    g->chan.index = -1;
    for (int i = 0; i < n; i++) {
        g->members[i] = members[i];
        g->order[i] = i;
        if (members[i] == enc_eng.rank)
            g->rank = i;
    }
    g->locality_epoch = ENC_GROUP_UNCERTAIN;
    g->live_epoch = live ? enc_eng.epoch : ENC_GROUP_UNCERTAIN;
    free(seen);
    link_group(g);
    *out = g;
    return ENC_OK;
fail:
    free(seen);
    enc_group_free(g);
    return rv;
}

void enc_group_free(struct enc_group *g)
{
    if (g == NULL)
        return;
    unlink_group(g);
    free(g->lead_of);
    free(g->chan_of);
    free(g->members);
    free(g->order);
    free(g->locality);
    free(g);
}

void enc_group_each(void (*fn)(void *arg, struct enc_group *g), void *arg)
{
    for (struct enc_group *g = groups.head; g; g = g->next)
        if (g->rank >= 0)
            fn(arg, g);
}

void enc_group_skip_to(struct enc_group *g, uint64_t seq)
{
    if (seq > g->seq)
        g->seq = seq;
}

int enc_group_last_live(const struct enc_group *g)
{
    if (g == NULL) /* the world's last collective: was it answered from the log? */
        return enc_eng.seq == 0 || !enc_coll_behind(enc_eng.seq - 1);
    return g->live_epoch == enc_eng.epoch;
}

int enc_group_my_rank(const struct enc_group *g)
{
    return g ? g->rank : enc_eng.rank;
}

int enc_group_my_size(const struct enc_group *g)
{
    return g ? g->size : enc_eng.size;
}

int enc_group_world_rank(const struct enc_group *g, int r)
{
    return g ? g->members[r] : r;
}

uint64_t enc_group_cid_derive(uint64_t parent, uint64_t seq, uint64_t salt)
{
    uint64_t v[3] = {parent, seq, salt}, h = 1469598103934665603ull;

    for (int i = 0; i < 3; i++)
        for (int b = 0; b < 8; b++) {
            h ^= (v[i] >> (8 * b)) & 0xff;
            h *= 1099511628211ull;
        }
    return h ? h : 1;
}

uint64_t enc_group_cid(const struct enc_group *g)
{
    return g ? g->cid : 0;
}

uint64_t enc_group_seq(const struct enc_group *g)
{
    return g ? g->seq : enc_eng.seq;
}

const int *enc_group_locality(struct enc_group *g)
{
    int k = 0;

    if (g->locality_epoch == enc_eng.epoch)
        return g->locality;
    for (int pos = 0; pos < enc_eng.size; pos++)
        for (int i = 0; i < g->size; i++)
            if (g->members[i] == enc_eng.locality[pos])
                g->locality[k++] = i;
    g->locality_epoch = enc_eng.epoch;
    return g->locality;
}

const char *enc_group_host(int world_rank)
{
    return enc_eng.peers[world_rank].addr;
}
