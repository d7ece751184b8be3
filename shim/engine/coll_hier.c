/*
 * coll_hier.c - collectives on a communicator (the world or a derived one)
 * whose ranks span hosts when at least one host has two or more of them:
 * allreduce (commutative ops), bcast (world only) and barrier go in three
 * phases.
 *
 *   1. within each host, to the host's leader (its lowest rank):
 *      reduce (allreduce), the root's data (bcast, on the root's host
 *      only), arrival (barrier);
 *   2. between the leaders only, over TCP, with the world's algorithms
 *      (allreduce_tree/ring, bcast_tree) on a view whose ranks are the
 *      leaders (ctx.peers: view rank -> world rank, as group_coll.c does);
 *   3. within each host, from the leader to the others.
 *
 * Hosts are the data addresses the ranks published in the current WORLD
 * (one per host), so every rank of an epoch sees the same hosts and the
 * same leaders.  Within a host the phases go through the communicator's
 * channel of the host's segment (coll_shm.c's tickets and waits, over the
 * host's ranks only) when every rank of the host shares this rank's
 * segment and, for a derived communicator, its creation gave the host a
 * channel (group_chan.c); the agent (or encore-run) puts in a host's
 * segment exactly the ranks that start there, so the ranks of one host
 * always agree.  A host where one does not (a rank moved there from a lost
 * host) uses TCP within the host as well.
 *
 * Recovery is the engine's as usual: a death notice interrupts a wait
 * (ENC_ERR_EPOCH), a TCP peer failure returns its status, enc_coll_run
 * regroups and re-runs; the re-run's tickets carry the new epoch, so what
 * a dead rank left in its slot is never read.  Each rank ends a collective
 * that staged data by posting ENC_SHM_STEP_DONE; its slot is rewritten
 * only once every rank of its host posted that (enc_coll_shm_slot_free).
 *
 * With a layer that keeps results, a large result's last phase within the
 * host goes through the host's result buffer (resbuf_bcast_from): the leader
 * (or a broadcast's root) writes it there once, the others copy it out,
 * and that entry is every local rank's log entry: one copy per host, none
 * by the log.  Every host computes the result, so each has its own copy
 * without any replication between hosts.
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include "core/tunables.h"
#include "engine/coll.h"
#include "engine/dispatch.h"
#include "engine/group.h"
#include "engine/hier.h"
#include "engine/shm_wait.h"
#include "engine/state.h"
#include "shm/shm.h"

#define MAX_CHUNKS 16000 /* 4 steps per chunk at most, below ENC_SHM_STEP_DONE */

/* The hosts of a communicator in one epoch, as this rank sees them.  Ranks
 * are the communicator's; w* arrays hold their world ranks (slots, flag
 * lines and TCP peers). */
struct enc_hier {
    uint32_t epoch;
    bool on;        /* hierarchical collectives in this epoch */
    int nhosts;
    int *host_of;   /* rank -> host index (hosts by lowest rank) */
    int *leaders;   /* host index -> its leader */
    int *wleaders;  /* host index -> its leader's world rank: the leaders' view */
    int *hosts;     /* 0..nhosts-1: the leaders' view in rank order */
    int *local;     /* this host's ranks, increasing (local[0]: leader) */
    int *wlocal;    /* their world ranks */
    int nlocal, my_local, my_host;
    int chan;       /* this host's channel: -1 when its ranks use TCP */
};

void enc_hier_free(struct enc_hier *h)
{
    if (h == NULL)
        return;
    free(h->host_of);
    free(h->leaders);
    free(h->wleaders);
    free(h->hosts);
    free(h->local);
    free(h->wlocal);
    free(h);
}

/* The world's, rebuilt per epoch; a derived communicator's hangs on its
 * group (g->hier). */
static struct enc_hier *world_hier;

static int world_of(const struct enc_group *g, int r)
{
    return g ? g->members[r] : r;
}

/* Hosts in order of their lowest rank: rank r's host is that of the
 * first rank with r's address. */
static void group_hosts(struct enc_hier *h, const struct enc_group *g, int n)
{
    h->nhosts = 0;
    for (int r = 0; r < n; r++) {
        const char *addr = enc_eng.peers[world_of(g, r)].addr;

        h->host_of[r] = -1;
        for (int q = 0; q < r && h->host_of[r] < 0; q++)
            if (strcmp(enc_eng.peers[world_of(g, q)].addr, addr) == 0)
                h->host_of[r] = h->host_of[q];
        if (h->host_of[r] < 0) {
            h->leaders[h->nhosts] = r;
            h->wleaders[h->nhosts] = world_of(g, r);
            h->hosts[h->nhosts] = h->nhosts;
            h->host_of[r] = h->nhosts++;
        }
    }
}

/* The channel g's ranks local[0..n) use on this host: g's, when they were
 * all on this host when g was made (its setup, group_chan.c, recorded each
 * rank's host leader then) and it got one; else -1. */
static int group_host_chan(const struct enc_group *g, const int *local, int n)
{
    int lead, ch;

    if (!g->setup || n < 1)
        return -1;
    lead = g->lead_of[local[0]];
    ch = g->chan_of[local[0]];
    for (int i = 1; i < n; i++)
        if (g->lead_of[local[i]] != lead)
            return -1; /* a rank came here from another host */
    return ch >= 1 && ch == g->chan.index ? ch : -1;
}

static void find_local(struct enc_hier *h, const struct enc_group *g, int n, int me)
{
    bool shm = true;

    h->my_host = h->host_of[me];
    h->nlocal = 0;
    for (int r = 0; r < n; r++) {
        if (h->host_of[r] != h->my_host)
            continue;
        if (r == me)
            h->my_local = h->nlocal;
        h->wlocal[h->nlocal] = world_of(g, r);
        h->local[h->nlocal++] = r;
        shm &= enc_shm_has(&enc_eng.shm, world_of(g, r));
    }
    /* a rank alone on its host only meets the leaders */
    h->chan = -1;
    if (shm && h->nlocal > 1)
        h->chan = g ? group_host_chan(g, h->local, h->nlocal) : 0;
}

static struct enc_hier *hier_build(const struct enc_group *g)
{
    int n = g ? g->size : enc_eng.size, me = g ? g->rank : enc_eng.rank;
    size_t sz = (size_t)n * sizeof(int);
    struct enc_hier *h = calloc(1, sizeof(*h));

    if (h == NULL || (h->host_of = malloc(sz)) == NULL || (h->leaders = malloc(sz)) == NULL ||
        (h->wleaders = malloc(sz)) == NULL || (h->hosts = malloc(sz)) == NULL ||
        (h->local = malloc(sz)) == NULL || (h->wlocal = malloc(sz)) == NULL) {
        enc_hier_free(h);
        return NULL;
    }
    group_hosts(h, g, n);
    find_local(h, g, n, me);
    h->epoch = enc_eng.epoch;
    h->on = h->nhosts > 1 && h->nhosts < n;
    if (h->on && g == NULL)
        ENC_DEBUG("shm", "world collectives are hierarchical: %d hosts, this host %d ranks "
                  "through %s", h->nhosts, h->nlocal, h->chan >= 0 ? "shared memory" : "TCP");
    else if (h->on)
        ENC_DEBUG("shm", "collectives on communicator %016llx are hierarchical: %d hosts, "
                  "this host %d ranks through %s", (unsigned long long)g->cid, h->nhosts,
                  h->nlocal, h->chan >= 0 ? "shared memory" : "TCP");
    return h;
}

const struct enc_hier *enc_coll_hosts(struct enc_group *g)
{
    struct enc_hier **slot = g ? &g->hier : &world_hier;

    if (enc_eng.peers == NULL)
        return NULL;
    if (*slot == NULL || (*slot)->epoch != enc_eng.epoch) {
        enc_hier_free(*slot);
        *slot = hier_build(g);
    }
    return *slot;
}

bool enc_coll_hosts_one(const struct enc_hier *h)
{
    return h != NULL && h->nhosts == 1;
}

int enc_coll_hosts_chan(const struct enc_hier *h)
{
    return h ? h->chan : -1;
}

static uint64_t ticket(const struct enc_coll *co, unsigned step)
{
    return enc_shm_ticket(enc_eng.epoch, co->ctx.seq, step);
}

static enc_status_t wait_local(const struct enc_coll *co, unsigned step)
{
    const struct enc_hier *h = co->hier;

    return enc_coll_shm_wait(h->chan, h->wlocal, h->nlocal, ticket(co, step), false);
}

/* Waits for world rank w of this host. */
static enc_status_t wait_rank(const struct enc_coll *co, int w, unsigned step)
{
    return enc_coll_shm_wait(co->hier->chan, &w, 1, ticket(co, step), false);
}

static void post(const struct enc_coll *co, unsigned step)
{
    enc_shm_post(&enc_eng.shm, co->hier->chan, ticket(co, step));
}

static uint8_t *slot_in(const struct enc_coll *co, int w)
{
    return enc_shm_in(&enc_eng.shm, co->hier->chan, w, 0);
}

/* co seen by the leaders only (phase 2), or by this host's ranks only. */
static struct enc_coll leaders_view(const struct enc_coll *co)
{
    const struct enc_hier *h = co->hier;
    struct enc_coll v = *co;

    v.n = h->nhosts;
    v.me = h->my_host;
    v.locality = v.order = h->hosts;
    v.ctx.peers = h->wleaders;
    v.sendbuf = NULL;
    v.root = co->root >= 0 ? h->host_of[co->root] : -1;
    return v;
}

static struct enc_coll local_view(const struct enc_coll *co, int root)
{
    const struct enc_hier *h = co->hier;
    struct enc_coll v = *co;

    v.n = h->nlocal;
    v.me = h->my_local;
    v.locality = v.order = enc_eng.identity; /* 0..nlocal-1 */
    v.ctx.peers = h->wlocal;
    v.sendbuf = NULL;
    v.root = root;
    return v;
}

static bool leader(const struct enc_coll *co)
{
    return co->hier->my_local == 0;
}

static enc_status_t leaders_allreduce(struct enc_coll *co)
{
    struct enc_coll v = leaders_view(co);

    if (!leader(co))
        return ENC_OK;
    if (co->bytes > enc_eng.tree_max_bytes && co->count >= (size_t)v.n * enc_eng.ring_min_count)
        return enc_allreduce_ring(&v);
    return enc_allreduce_tree(&v);
}

/* ---- within the host, through the segment ---- */

/* Chunk k (1-based): the others post 2k - 1 once their chunk is staged in
 * their slot; the leader combines it into its result and posts 2k, after
 * which they stage the next. */
static enc_status_t shm_reduce(struct enc_coll *co, const uint8_t *src, unsigned *step)
{
    const struct enc_hier *h = co->hier;
    size_t esz = co->r->elem_size, per = enc_eng.shm.chunk / esz;
    uint8_t *acc = co->recvbuf;
    enc_status_t rv;

    for (size_t off = 0; off < co->count; off += per) {
        size_t c = ENC_MIN(per, co->count - off);

        if (!leader(co)) {
            if (off > 0 && (rv = wait_rank(co, h->wlocal[0], *step)) != ENC_OK)
                return rv;
            memcpy(slot_in(co, enc_eng.rank), src + off * esz, c * esz);
            post(co, ++*step);
            ++*step;
            continue;
        }
        if ((rv = wait_local(co, ++*step)) != ENC_OK)
            return rv;
        if (src != acc)
            memcpy(acc + off * esz, src + off * esz, c * esz);
        for (int j = 1; j < h->nlocal; j++) /* commutative: any order */
            co->r->apply(co->r, slot_in(co, h->wlocal[j]), acc + off * esz, c);
        post(co, ++*step);
    }
    return ENC_OK;
}

/* From world rank root to the host's other ranks, chunk k: the root posts
 * base + 2k - 1 once it staged it, the others base + 2k once they copied
 * it; the root stages chunk k + 1 once every one of them copied chunk k. */
static enc_status_t shm_bcast_from(struct enc_coll *co, int root, unsigned *step)
{
    size_t chunk = enc_eng.shm.chunk;
    uint8_t *buf = co->recvbuf;
    enc_status_t rv;

    for (size_t off = 0; off < co->bytes; off += chunk) {
        size_t c = ENC_MIN(chunk, co->bytes - off);

        if (enc_eng.rank == root) {
            if (off > 0 && (rv = wait_local(co, *step)) != ENC_OK)
                return rv;
            memcpy(slot_in(co, root), buf + off, c);
            post(co, ++*step);
            ++*step;
        } else {
            if ((rv = wait_rank(co, root, ++*step)) != ENC_OK)
                return rv;
            memcpy(buf + off, slot_in(co, root), c);
            post(co, ++*step);
        }
    }
    return ENC_OK;
}

/* Phase 3 through the result buffer: everyone meets once, so that every rank of
 * the host sees the place the leader took for the entry and the oldest
 * entry each keeps (and meets again if entries had to be copied out of the
 * way); then
 * `from` (a world rank) writes the result into the entry chunk by chunk and the others
 * copy each chunk as soon as it is posted. */
static enc_status_t resbuf_bcast_from(struct enc_coll *co, int from, unsigned *step)
{
    const struct enc_hier *h = co->hier;
    const struct enc_shm *s = &enc_eng.shm;
    uint8_t *buf = co->recvbuf;
    enc_status_t rv;

    post(co, ++*step);
    if ((rv = wait_local(co, *step)) != ENC_OK)
        return rv;
    if (enc_coll_shm_resbuf_place(co, h->wlocal, h->nlocal)) {
        post(co, ++*step);
        if ((rv = wait_local(co, *step)) != ENC_OK)
            return rv;
    }
    for (size_t off = 0; off < co->bytes; off += s->chunk) {
        size_t c = ENC_MIN(s->chunk, co->bytes - off);

        if (enc_eng.rank == from) {
            enc_coll_shm_resbuf_put(co, off, buf + off, c);
            post(co, ++*step);
        } else {
            if ((rv = wait_rank(co, from, ++*step)) != ENC_OK)
                return rv;
            enc_coll_shm_resbuf_get(co, off, buf + off, c);
        }
    }
    return ENC_OK;
}

/* The host's last phase: from `from` to the others, through the result buffer
 * when the result is to be kept there. */
static enc_status_t local_bcast_from(struct enc_coll *co, int from, unsigned *step)
{
    if (enc_coll_shm_resbuf_wanted(co, co->hier->wlocal, co->hier->nlocal))
        return resbuf_bcast_from(co, from, step);
    return shm_bcast_from(co, from, step);
}

/* The end of a collective that staged data in the slots. */
static void shm_done(const struct enc_coll *co)
{
    post(co, ENC_SHM_STEP_DONE);
    enc_coll_shm_staged(co, ENC_SHM_STEP_DONE);
}

static enc_status_t allreduce_shm(struct enc_coll *co)
{
    const struct enc_hier *h = co->hier;
    const uint8_t *src = co->sendbuf ? co->sendbuf : co->recvbuf;
    unsigned step = 0;
    enc_status_t rv;

    if ((rv = enc_coll_shm_slot_free(co, h->wlocal, h->nlocal)) != ENC_OK)
        return rv;
    enc_coll_shm_resbuf_publish(co, h->wlocal, h->nlocal);
    if ((rv = shm_reduce(co, src, &step)) != ENC_OK || (rv = leaders_allreduce(co)) != ENC_OK ||
        (rv = local_bcast_from(co, h->wlocal[0], &step)) != ENC_OK)
        return rv;
    shm_done(co);
    return ENC_OK;
}

static enc_status_t bcast_shm(struct enc_coll *co, bool root_host)
{
    const struct enc_hier *h = co->hier;
    struct enc_coll v = leaders_view(co);
    unsigned step = 0;
    enc_status_t rv;

    if ((rv = enc_coll_shm_slot_free(co, h->wlocal, h->nlocal)) != ENC_OK)
        return rv;
    enc_coll_shm_resbuf_publish(co, h->wlocal, h->nlocal);
    if (root_host && (rv = local_bcast_from(co, co->ctx.peers ? co->ctx.peers[co->root]
                                                              : co->root, &step)) != ENC_OK)
        return rv;
    if (leader(co) && (rv = enc_bcast_tree(&v)) != ENC_OK)
        return rv;
    if (!root_host && (rv = local_bcast_from(co, h->wlocal[0], &step)) != ENC_OK)
        return rv;
    shm_done(co);
    return ENC_OK;
}

/* Everyone posts 1, the leader waits for them, meets the other leaders,
 * and posts 2 for them to leave. */
static enc_status_t barrier_shm(struct enc_coll *co)
{
    struct enc_coll v = leaders_view(co);
    enc_status_t rv;

    post(co, 1);
    if (!leader(co))
        return wait_rank(co, co->hier->wlocal[0], 2);
    if ((rv = wait_local(co, 1)) != ENC_OK || (rv = enc_allreduce_tree(&v)) != ENC_OK)
        return rv;
    post(co, 2);
    return ENC_OK;
}

/* ---- within the host, over TCP ---- */

/* Barrier too: its release is a second meeting of the host after the
 * leader's. */
static enc_status_t allreduce_tcp(struct enc_coll *co)
{
    struct enc_coll l = local_view(co, 0);
    bool alone = co->hier->nlocal == 1;
    enc_status_t rv;

    if (co->sendbuf != NULL && co->sendbuf != co->recvbuf)
        memcpy(co->recvbuf, co->sendbuf, co->bytes);
    if ((!alone && (rv = enc_allreduce_tree(&l)) != ENC_OK) ||
        (rv = leaders_allreduce(co)) != ENC_OK || alone)
        return rv;
    return co->sig->kind == ENC_COLL_BARRIER ? enc_allreduce_tree(&l) : enc_bcast_tree(&l);
}

static enc_status_t bcast_tcp(struct enc_coll *co, bool root_host)
{
    const struct enc_hier *h = co->hier;
    struct enc_coll v = leaders_view(co);
    struct enc_coll l = local_view(co, 0);
    enc_status_t rv;

    if (root_host && h->nlocal > 1) {
        for (l.root = 0; h->local[l.root] != co->root; l.root++)
            ;
        if ((rv = enc_bcast_tree(&l)) != ENC_OK)
            return rv;
    }
    if (leader(co) && (rv = enc_bcast_tree(&v)) != ENC_OK)
        return rv;
    return root_host || h->nlocal == 1 ? ENC_OK : enc_bcast_tree(&l);
}

/* ---- the choice ---- */

static enc_status_t hier_allreduce(struct enc_coll *co)
{
    return co->hier->chan >= 0 ? allreduce_shm(co) : allreduce_tcp(co);
}

static enc_status_t hier_bcast(struct enc_coll *co)
{
    const struct enc_hier *h = co->hier;
    bool root_host = h->host_of[co->root] == h->my_host;

    return h->chan >= 0 ? bcast_shm(co, root_host) : bcast_tcp(co, root_host);
}

static enc_status_t hier_barrier(struct enc_coll *co)
{
    return co->hier->chan >= 0 ? barrier_shm(co) : allreduce_tcp(co);
}

/* Depends only on the call, the job's settings, the epoch's hosts and (for
 * a derived communicator) what its creation recorded: the same answer on
 * every rank. */
enc_algo_fn enc_coll_hier_algo(struct enc_coll *co)
{
    struct enc_group *g = (struct enc_group *)co->sig->grp;
    const struct enc_hier *h;

    if (!enc_eng.shm_on || co->bytes / ENC_SHM_CHUNK_MIN >= MAX_CHUNKS ||
        (h = enc_coll_hosts(g)) == NULL || !h->on)
        return NULL;
    co->hier = h;
    switch (co->sig->kind) {
    case ENC_COLL_ALLREDUCE:
    case ENC_COLL_REDUCE:
        /* non-commutative ops keep the flat rank-order tree */
        return co->r->commutative && co->r->elem_size <= ENC_SHM_CHUNK_MIN ? hier_allreduce
                                                                         : NULL;
    case ENC_COLL_BCAST:
        /* On a derived communicator nobody may finish before everyone
         * entered (group_coll.c); the hierarchical broadcast lets a root
         * leave first, so those keep bcast_sync. */
        return g == NULL ? hier_bcast : NULL;
    case ENC_COLL_BARRIER:
        return hier_barrier;
    default:
        return NULL;
    }
}
