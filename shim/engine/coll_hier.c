/*
 * coll_hier.c - world collectives when the ranks span hosts and at least
 * one host has two or more of them: allreduce (commutative ops), bcast and
 * barrier go in three phases.
 *
 *   1. within each host, to the host's leader (its lowest world rank):
 *      reduce (allreduce), the root's data (bcast, on the root's host
 *      only), arrival (barrier);
 *   2. between the leaders only, over TCP, with the world's algorithms
 *      (allreduce_tree/ring, bcast_tree) on a view whose ranks are the
 *      leaders (ctx.peers: view rank -> world rank, as group_coll.c does);
 *   3. within each host, from the leader to the others.
 *
 * Hosts are the data addresses the ranks published in the current WORLD
 * (one per host), so every rank of an epoch sees the same hosts and the
 * same leaders.  Within a host the phases go through the host's segment
 * (coll_shm.c's tickets and waits, over the host's ranks only) when every
 * rank of the host shares this rank's segment; the agent (or encore-run)
 * puts in a host's segment exactly the ranks that start there, so the
 * ranks of one host always agree.  A host where one does not (a rank moved
 * there from a lost host) uses TCP within the host as well.
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
#include "engine/shm_wait.h"
#include "engine/state.h"
#include "shm/shm.h"

#define MAX_CHUNKS 16000 /* 4 steps per chunk at most, below ENC_SHM_STEP_DONE */

/* The hosts of the current epoch, as this rank sees them. */
static struct {
    bool valid;
    uint32_t epoch;
    bool on;        /* hierarchical collectives in this epoch */
    int nhosts;
    int *host_of;   /* world rank -> host index (hosts by lowest rank) */
    int *leaders;   /* host index -> its leader; also the leaders' view */
    int *hosts;     /* 0..nhosts-1: the leaders' view in rank order */
    int *local;     /* this host's ranks, increasing (local[0]: leader) */
    int nlocal, my_local, my_host;
    bool shm;       /* this host's ranks all share this rank's segment */
} H;

static void hier_free(void)
{
    free(H.host_of);
    free(H.leaders);
    free(H.hosts);
    free(H.local);
    memset(&H, 0, sizeof(H));
}

/* Hosts in order of their lowest rank: rank r's host is that of the
 * first rank with r's address. */
static void group_hosts(void)
{
    int n = enc_eng.size;

    H.nhosts = 0;
    for (int r = 0; r < n; r++) {
        H.host_of[r] = -1;
        for (int q = 0; q < r && H.host_of[r] < 0; q++)
            if (strcmp(enc_eng.peers[q].addr, enc_eng.peers[r].addr) == 0)
                H.host_of[r] = H.host_of[q];
        if (H.host_of[r] < 0) {
            H.leaders[H.nhosts] = r;
            H.hosts[H.nhosts] = H.nhosts;
            H.host_of[r] = H.nhosts++;
        }
    }
}

static void find_local(void)
{
    H.my_host = H.host_of[enc_eng.rank];
    H.nlocal = 0;
    H.shm = true;
    for (int r = 0; r < enc_eng.size; r++) {
        if (H.host_of[r] != H.my_host)
            continue;
        if (r == enc_eng.rank)
            H.my_local = H.nlocal;
        H.local[H.nlocal++] = r;
        H.shm &= enc_shm_has(&enc_eng.shm, r);
    }
    H.shm &= H.nlocal > 1; /* a rank alone on its host only meets the leaders */
}

static enc_status_t hier_build(void)
{
    size_t n = (size_t)enc_eng.size;

    hier_free();
    if ((H.host_of = malloc(n * sizeof(int))) == NULL ||
        (H.leaders = malloc(n * sizeof(int))) == NULL ||
        (H.hosts = malloc(n * sizeof(int))) == NULL ||
        (H.local = malloc(n * sizeof(int))) == NULL) {
        hier_free();
        return ENC_ERR_NOMEM;
    }
    group_hosts();
    find_local();
    H.on = H.nhosts > 1 && H.nhosts < enc_eng.size;
    if (H.on)
        ENC_DEBUG("shm", "world collectives are hierarchical: %d hosts, this host %d ranks "
                  "through %s", H.nhosts, H.nlocal, H.shm ? "shared memory" : "TCP");
    return ENC_OK;
}

/* The hosts of the current epoch (the same on every rank of it). */
static bool hier_on(void)
{
    if (enc_eng.peers == NULL)
        return false;
    if (!H.valid || H.epoch != enc_eng.epoch) {
        if (hier_build() != ENC_OK)
            return false;
        H.valid = true;
        H.epoch = enc_eng.epoch;
    }
    return H.on;
}

static uint64_t ticket(const struct enc_coll *co, unsigned step)
{
    return enc_shm_ticket(enc_eng.epoch, co->ctx.seq, step);
}

static enc_status_t wait_local(const struct enc_coll *co, unsigned step)
{
    return enc_coll_shm_wait(H.local, H.nlocal, ticket(co, step), false);
}

static enc_status_t wait_rank(const struct enc_coll *co, int rank, unsigned step)
{
    return enc_coll_shm_wait(&rank, 1, ticket(co, step), false);
}

static void post(const struct enc_coll *co, unsigned step)
{
    enc_shm_post(&enc_eng.shm, ticket(co, step));
}

/* co seen by the leaders only (phase 2), or by this host's ranks only. */
static struct enc_coll leaders_view(const struct enc_coll *co)
{
    struct enc_coll v = *co;

    v.n = H.nhosts;
    v.me = H.my_host;
    v.locality = v.order = H.hosts;
    v.ctx.peers = H.leaders;
    v.sendbuf = NULL;
    v.root = co->root >= 0 ? H.host_of[co->root] : -1;
    return v;
}

static struct enc_coll local_view(const struct enc_coll *co, int root)
{
    struct enc_coll v = *co;

    v.n = H.nlocal;
    v.me = H.my_local;
    v.locality = v.order = enc_eng.identity; /* 0..nlocal-1 */
    v.ctx.peers = H.local;
    v.sendbuf = NULL;
    v.root = root;
    return v;
}

static bool leader(void)
{
    return H.my_local == 0;
}

static enc_status_t leaders_allreduce(struct enc_coll *co)
{
    struct enc_coll v = leaders_view(co);

    if (!leader())
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
    const struct enc_shm *s = &enc_eng.shm;
    size_t esz = co->r->elem_size, per = s->chunk / esz;
    uint8_t *acc = co->recvbuf;
    enc_status_t rv;

    for (size_t off = 0; off < co->count; off += per) {
        size_t c = ENC_MIN(per, co->count - off);

        if (!leader()) {
            if (off > 0 && (rv = wait_rank(co, H.local[0], *step)) != ENC_OK)
                return rv;
            memcpy(enc_shm_in(s, enc_eng.rank, 0), src + off * esz, c * esz);
            post(co, ++*step);
            ++*step;
            continue;
        }
        if ((rv = wait_local(co, ++*step)) != ENC_OK)
            return rv;
        if (src != acc)
            memcpy(acc + off * esz, src + off * esz, c * esz);
        for (int j = 1; j < H.nlocal; j++) /* commutative: any order */
            co->r->apply(co->r, enc_shm_in(s, H.local[j], 0), acc + off * esz, c);
        post(co, ++*step);
    }
    return ENC_OK;
}

/* From world rank root to the host's other ranks, chunk k: the root posts
 * base + 2k - 1 once it staged it, the others base + 2k once they copied
 * it; the root stages chunk k + 1 once every one of them copied chunk k. */
static enc_status_t shm_bcast_from(struct enc_coll *co, int root, unsigned *step)
{
    const struct enc_shm *s = &enc_eng.shm;
    uint8_t *buf = co->recvbuf;
    enc_status_t rv;

    for (size_t off = 0; off < co->bytes; off += s->chunk) {
        size_t c = ENC_MIN(s->chunk, co->bytes - off);

        if (enc_eng.rank == root) {
            if (off > 0 && (rv = wait_local(co, *step)) != ENC_OK)
                return rv;
            memcpy(enc_shm_in(s, root, 0), buf + off, c);
            post(co, ++*step);
            ++*step;
        } else {
            if ((rv = wait_rank(co, root, ++*step)) != ENC_OK)
                return rv;
            memcpy(buf + off, enc_shm_in(s, root, 0), c);
            post(co, ++*step);
        }
    }
    return ENC_OK;
}

/* Phase 3 through the result buffer: everyone meets once, so that every rank of
 * the host published where it would put the entry, agrees on its place
 * (and meets again if entries had to be copied out of the way); then
 * `from` writes the result into the entry chunk by chunk and the others
 * copy each chunk as soon as it is posted. */
static enc_status_t resbuf_bcast_from(struct enc_coll *co, int from, unsigned *step)
{
    const struct enc_shm *s = &enc_eng.shm;
    uint8_t *buf = co->recvbuf, *entry;
    enc_status_t rv;

    post(co, ++*step);
    if ((rv = wait_local(co, *step)) != ENC_OK)
        return rv;
    if (enc_coll_shm_resbuf_place(co, H.local, H.nlocal)) {
        post(co, ++*step);
        if ((rv = wait_local(co, *step)) != ENC_OK)
            return rv;
    }
    entry = enc_shm_resbuf_at(s, co->resbuf_at);
    for (size_t off = 0; off < co->bytes; off += s->chunk) {
        size_t c = ENC_MIN(s->chunk, co->bytes - off);

        if (enc_eng.rank == from) {
            memcpy(entry + off, buf + off, c);
            post(co, ++*step);
        } else {
            if ((rv = wait_rank(co, from, ++*step)) != ENC_OK)
                return rv;
            memcpy(buf + off, entry + off, c);
        }
    }
    return ENC_OK;
}

/* The host's last phase: from `from` to the others, through the result buffer
 * when the result is to be kept there. */
static enc_status_t local_bcast_from(struct enc_coll *co, int from, unsigned *step)
{
    if (enc_coll_shm_resbuf_wanted(co))
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
    const uint8_t *src = co->sendbuf ? co->sendbuf : co->recvbuf;
    unsigned step = 0;
    enc_status_t rv;

    if ((rv = enc_coll_shm_slot_free(H.local, H.nlocal)) != ENC_OK)
        return rv;
    enc_coll_shm_resbuf_publish(co);
    if ((rv = shm_reduce(co, src, &step)) != ENC_OK || (rv = leaders_allreduce(co)) != ENC_OK ||
        (rv = local_bcast_from(co, H.local[0], &step)) != ENC_OK)
        return rv;
    shm_done(co);
    return ENC_OK;
}

static enc_status_t bcast_shm(struct enc_coll *co, bool root_host)
{
    struct enc_coll v = leaders_view(co);
    unsigned step = 0;
    enc_status_t rv;

    if ((rv = enc_coll_shm_slot_free(H.local, H.nlocal)) != ENC_OK)
        return rv;
    enc_coll_shm_resbuf_publish(co);
    if (root_host && (rv = local_bcast_from(co, co->root, &step)) != ENC_OK)
        return rv;
    if (leader() && (rv = enc_bcast_tree(&v)) != ENC_OK)
        return rv;
    if (!root_host && (rv = local_bcast_from(co, H.local[0], &step)) != ENC_OK)
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
    if (!leader())
        return wait_rank(co, H.local[0], 2);
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
    bool alone = H.nlocal == 1;
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
    struct enc_coll v = leaders_view(co);
    struct enc_coll l = local_view(co, 0);
    enc_status_t rv;

    if (root_host && H.nlocal > 1) {
        for (l.root = 0; H.local[l.root] != co->root; l.root++)
            ;
        if ((rv = enc_bcast_tree(&l)) != ENC_OK)
            return rv;
    }
    if (leader() && (rv = enc_bcast_tree(&v)) != ENC_OK)
        return rv;
    return root_host || H.nlocal == 1 ? ENC_OK : enc_bcast_tree(&l);
}

/* ---- the choice ---- */

static enc_status_t hier_allreduce(struct enc_coll *co)
{
    return H.shm ? allreduce_shm(co) : allreduce_tcp(co);
}

static enc_status_t hier_bcast(struct enc_coll *co)
{
    bool root_host = H.host_of[co->root] == H.my_host;

    return H.shm ? bcast_shm(co, root_host) : bcast_tcp(co, root_host);
}

static enc_status_t hier_barrier(struct enc_coll *co)
{
    return H.shm ? barrier_shm(co) : allreduce_tcp(co);
}

/* Depends only on the call, the job's settings and the epoch's hosts:
 * the same answer on every rank. */
enc_algo_fn enc_coll_hier_algo(const struct enc_coll *co)
{
    if (!enc_tunable_bool(ENC_TUNE_SHM) || co->bytes / ENC_SHM_CHUNK_MIN >= MAX_CHUNKS ||
        !hier_on())
        return NULL;
    switch (co->sig->kind) {
    case ENC_COLL_ALLREDUCE:
    case ENC_COLL_REDUCE:
        /* non-commutative ops keep the flat rank-order tree */
        return co->r->commutative && co->r->elem_size <= ENC_SHM_CHUNK_MIN ? hier_allreduce
                                                                         : NULL;
    case ENC_COLL_BCAST:
        return hier_bcast;
    case ENC_COLL_BARRIER:
        return hier_barrier;
    default:
        return NULL;
    }
}
