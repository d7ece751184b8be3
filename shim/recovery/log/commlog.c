/*
 * commlog.c - the result log of collectives on communicators derived from
 * the world, keyed by (communicator id, sequence number on that communicator).
 *
 * Trimmed like the world's log (reclog.c): result s of a communicator of n
 * members is held by ENCORE_REPLICAS consecutive members starting at
 * (s / ENC_HOLDER_RUN) mod n; the others drop it once every member is known
 * to have completed it (a later collective on it ran live).  A committed
 * checkpoint drops every result but the bootstrap ones, and remembers each
 * communicator's position, which a restarted rank loading that checkpoint
 * asks its fellow members for (enc_commlog_rebase).  A member whose
 * communicator is uncertain after a failure asks the other members, holders
 * first, for the next entry (engine/group_coll.c says why that is
 * consistent); a member that dropped it says so, so "nobody has it" (run it
 * live) is never confused with "its holders died" (lost, a clear error).
 */
#include "enc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec.h"
#include "engine/coll.h"
#include "engine/group.h"
#include "engine/scratch.h"
#include "engine/layer.h"
#include "recovery/log/logreq.h"
#include "recovery/log/log.h"
#include "recovery/recovery.h"

struct centry {
    uint64_t cid, seq;          /* cid 0: a free slot */
    struct enc_sigrec sig;
    void *data;
    bool holder;
};

/* What this rank knows of one communicator's log. */
struct cgroup {
    uint64_t cid;
    uint64_t lo;                /* below: dropped by a checkpoint (bootstrap ones aside) */
    uint64_t done;              /* below: every member completed them */
    uint64_t end;               /* one past the newest recorded */
    bool bootstrap;             /* has bootstrap results (kept by checkpoints) */
};

/* A communicator's position at the committed checkpoint. */
struct cpos {
    uint64_t cid, seq;
};

static struct {
    struct centry *e;           /* open addressing, linear probing, cap a power of two */
    size_t n, cap;
    struct cgroup *g;
    size_t ng, capg;
    struct cpos *pos;           /* at checkpoint pos_version */
    size_t npos, cappos;
    uint32_t pos_version;
    int replicas;
} comm_log;

static size_t hash(uint64_t cid, uint64_t seq)
{
    uint64_t h = (cid ^ (seq * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;

    return (size_t)(h ^ (h >> 29));
}

static struct centry *probe(struct centry *e, size_t cap, uint64_t cid, uint64_t seq)
{
    for (size_t i = hash(cid, seq) & (cap - 1);; i = (i + 1) & (cap - 1))
        if (e[i].cid == 0 || (e[i].cid == cid && e[i].seq == seq))
            return &e[i];
}

static struct centry *find(uint64_t cid, uint64_t seq)
{
    struct centry *x;

    if (comm_log.cap == 0 || (x = probe(comm_log.e, comm_log.cap, cid, seq))->cid == 0)
        return NULL;
    return x;
}

static enc_status_t grow(void)
{
    size_t cap = comm_log.cap ? comm_log.cap * 2 : 1024;
    struct centry *e = calloc(cap, sizeof(*e));

    if (e == NULL)
        return ENC_ERR_NOMEM;
    for (size_t i = 0; i < comm_log.cap; i++)
        if (comm_log.e[i].cid != 0)
            *probe(e, cap, comm_log.e[i].cid, comm_log.e[i].seq) = comm_log.e[i];
    free(comm_log.e);
    comm_log.e = e;
    comm_log.cap = cap;
    return ENC_OK;
}

/* Removes x, moving later entries of its probe chain back (no tombstones,
 * so the table stays as small as what it holds). */
static void drop(struct centry *x)
{
    size_t mask = comm_log.cap - 1, i = (size_t)(x - comm_log.e), j = i;

    free(x->data);
    for (;;) {
        j = (j + 1) & mask;
        if (comm_log.e[j].cid == 0)
            break;
        size_t k = hash(comm_log.e[j].cid, comm_log.e[j].seq) & mask;

        if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
            continue; /* its home lies after the hole: it stays */
        comm_log.e[i] = comm_log.e[j];
        i = j;
    }
    memset(&comm_log.e[i], 0, sizeof(comm_log.e[i]));
    comm_log.n--;
}

static struct cgroup *group_of(uint64_t cid, bool make)
{
    for (size_t i = 0; i < comm_log.ng; i++)
        if (comm_log.g[i].cid == cid)
            return &comm_log.g[i];
    if (!make)
        return NULL;
    if (ENC_VEC_RESERVE(comm_log.g, comm_log.capg, comm_log.ng + 1) != ENC_OK)
        return NULL;
    comm_log.g[comm_log.ng] = (struct cgroup){.cid = cid};
    return &comm_log.g[comm_log.ng++];
}

/* Is member `me` of n a holder of result seq? */
static bool is_holder(uint64_t seq, int me, int n)
{
    int first = (int)((seq / ENC_HOLDER_RUN) % (uint64_t)n);

    if (comm_log.replicas == 0)
        comm_log.replicas = (int)ENC_MAX(1, enc_tunable_ll(ENC_TUNE_REPLICAS));
    return ((me - first) % n + n) % n < ENC_MIN(comm_log.replicas, n);
}

/* Every member completed every collective of g below seq: non-holders
 * drop those results. */
static void all_done_below(struct cgroup *g, uint64_t seq)
{
    for (uint64_t s = ENC_MAX(g->done, g->lo); s < seq; s++) {
        struct centry *x = find(g->cid, s);

        if (x != NULL && !x->holder)
            drop(x);
    }
    g->done = ENC_MAX(g->done, seq);
}

static enc_status_t store(struct cgroup *g, struct centry *x, const struct enc_coll *co)
{
    enc_sigrec_from_coll(&x->sig, co, &enc_rec.cur, co->bytes);
    g->bootstrap |= x->sig.bootstrap;
    x->holder = is_holder(x->seq, co->me, co->n);
    if ((x->data = malloc(co->bytes ? co->bytes : 1)) == NULL)
        return ENC_ERR_NOMEM;
    if (co->sig->kind == ENC_COLL_ALLGATHERV)
        enc_coll_result_pack(co, x->data);
    else if (co->bytes > 0)
        memcpy(x->data, co->result, co->bytes);
    return ENC_OK;
}

enc_status_t enc_commlog_record(void *rc, const struct enc_coll *co, uint64_t cid,
                                uint64_t seq)
{
    struct cgroup *g = group_of(cid, true);
    struct centry *x;

    (void)rc;
    if (g == NULL || (2 * (comm_log.n + 1) > comm_log.cap && grow() != ENC_OK))
        return ENC_ERR_NOMEM;
    x = probe(comm_log.e, comm_log.cap, cid, seq);
    if (x->cid == 0)
        comm_log.n++;
    else
        free(x->data);
    x->cid = cid;
    x->seq = seq;
    g->end = ENC_MAX(g->end, seq + 1);
    if (!co->replayed) /* it ran live: every member entered it */
        all_done_below(g, seq);
    return store(g, x, co);
}

enc_status_t enc_commlog_find(uint64_t cid, uint64_t seq, struct enc_sigrec *sig, const void **data,
                     size_t *len)
{
    const struct cgroup *g = group_of(cid, false);
    struct centry *x = find(cid, seq);

    if (x != NULL) {
        *sig = x->sig;
        *data = x->data;
        *len = x->sig.len;
        return ENC_OK;
    }
    if (g == NULL || (seq >= g->lo && seq >= g->done))
        return ENC_ERR_NOT_FOUND; /* not completed here (or never made) */
    memset(sig, 0, sizeof(*sig)); /* completed by everyone, and dropped here */
    sig->kind = ENC_COLL_CHECKPOINT;
    *data = NULL;
    *len = 0;
    return ENC_OK;
}

/* ---- checkpoints ---- */

static void add_pos(void *arg, struct enc_group *g)
{
    enc_status_t *rv = arg;

    if (ENC_VEC_RESERVE(comm_log.pos, comm_log.cappos, comm_log.npos + 1) != ENC_OK) {
        *rv = ENC_ERR_NOMEM;
        return;
    }
    comm_log.pos[comm_log.npos++] = (struct cpos){enc_group_cid(g), enc_group_seq(g)};
}

/* Remembers where every live communicator stands at checkpoint version. */
static enc_status_t note_positions(uint32_t version)
{
    enc_status_t rv = ENC_OK;

    comm_log.npos = 0;
    enc_group_each(add_pos, &rv);
    comm_log.pos_version = version;
    return rv;
}

static bool is_live(uint64_t cid)
{
    for (size_t i = 0; i < comm_log.npos; i++)
        if (comm_log.pos[i].cid == cid)
            return true;
    return false;
}

/* Drops g's results but the bootstrap ones; false when nothing of g is
 * worth keeping (freed, and no bootstrap result left). */
static bool trim_group(struct cgroup *g, size_t *dropped)
{
    for (uint64_t s = g->lo; s < g->end; s++) {
        struct centry *x = find(g->cid, s);

        if (x != NULL && !x->sig.bootstrap) {
            drop(x);
            ++*dropped;
        }
    }
    g->lo = g->done = g->end;
    return g->bootstrap || is_live(g->cid);
}

void enc_commlog_checkpoint(uint32_t version)
{
    size_t dropped = 0, k = 0, bytes = 0;

    if (note_positions(version) != ENC_OK)
        ENC_WARN("commlog", "out of memory noting communicator positions at checkpoint %u: "
                 "a rank restarted from it may not find its communicators' results", version);
    for (size_t i = 0; i < comm_log.ng; i++)
        if (trim_group(&comm_log.g[i], &dropped))
            comm_log.g[k++] = comm_log.g[i];
    comm_log.ng = k;
    if (comm_log.ng == 0 && dropped == 0)
        return; /* a program on the world alone */
    for (size_t i = 0; i < comm_log.cap; i++)
        bytes += comm_log.e[i].cid ? comm_log.e[i].sig.len : 0;
    ENC_INFO("commlog", "checkpoint %u: dropped %zu communicator results, kept %zu "
             "(%zu bytes) on %zu communicators", version, dropped, comm_log.n, bytes,
             comm_log.ng);
}

enc_status_t enc_commlog_position(uint64_t cid, uint32_t version, struct enc_sigrec *sig)
{
    if (version == 0 || version != comm_log.pos_version)
        return ENC_ERR_NOT_FOUND;
    for (size_t i = 0; i < comm_log.npos; i++) {
        if (comm_log.pos[i].cid == cid) {
            memset(sig, 0, sizeof(*sig));
            sig->kind = ENC_COLL_CHECKPOINT;
            sig->count = comm_log.pos[i].seq;
            return ENC_OK;
        }
    }
    return ENC_ERR_NOT_FOUND;
}

/* g's position at checkpoint version, from any other member. */
static void rebase_one(void *arg, struct enc_group *g)
{
    const uint32_t *version = arg;
    struct enc_logreq q = {.what = ENC_LOGREQ_COMM_POS, .site_off = enc_group_cid(g),
                           .version = *version};
    struct enc_sigrec sig;

    for (int i = 0; i < enc_group_my_size(g); i++) {
        int peer = enc_group_world_rank(g, i);

        if (peer == enc_engine_rank() ||
            enc_log_fetch(peer, &q, &sig, NULL, 0, NULL) != ENC_OK)
            continue;
        ENC_INFO("commlog", "communicator %016llx resumes at its collective %llu (checkpoint "
                 "%u)", (unsigned long long)q.site_off, (unsigned long long)sig.count,
                 *version);
        enc_group_skip_to(g, sig.count);
        return;
    }
    ENC_DEBUG("commlog", "no other member of communicator %016llx knows it at checkpoint %u",
              (unsigned long long)q.site_off, *version);
}

void enc_commlog_rebase(uint32_t version)
{
    enc_group_each(rebase_one, &version);
    if (note_positions(version) != ENC_OK)
        ENC_WARN("commlog", "out of memory noting communicator positions at checkpoint %u",
                 version);
}

void enc_commlog_fini(void)
{
    for (size_t i = 0; i < comm_log.cap; i++)
        free(comm_log.e[i].data);
    free(comm_log.e);
    free(comm_log.g);
    free(comm_log.pos);
    memset(&comm_log, 0, sizeof(comm_log));
}

/* ---- replay ---- */

static void diverged(const struct enc_coll *co, const struct enc_sigrec *logged)
{
    char a[200], b[200], msg[700];
    struct enc_sigrec mine;

    enc_sigrec_from_coll(&mine, co, &enc_rec.cur, co->bytes);
    enc_sigrec_format(&mine, a, sizeof(a));
    enc_sigrec_format(logged, b, sizeof(b));
    snprintf(msg, sizeof(msg), "replay divergence on a communicator (rank %d of %d, its "
             "collective #%llu) on world rank %d: this call is %s; the log has %s", co->me,
             co->n, (unsigned long long)(co->ctx.seq & ((1ull << 40) - 1)), enc_engine_rank(), a, b);
    ENC_ERROR("replay", "%s", msg);
    enc_engine_abort(1, msg);
}

/* Asks every other member, holders first; ENC_ERR_NOT_FOUND when all
 * answered that they never completed it, ENC_ERR_LOST when some dropped it
 * and no holder answered, a peer failure when one could not answer. */
static enc_status_t ask_members(const struct enc_coll *co, const struct enc_logreq *q, uint8_t *dst,
                       struct enc_sigrec *sig)
{
    int first = (int)((q->seq / ENC_HOLDER_RUN) % (uint64_t)co->n);
    int unreachable = 0, dropped = 0;
    enc_status_t rv;

    for (int k = 0; k < co->n; k++) {
        int i = (first + k) % co->n;

        if (i == co->me)
            continue;
        rv = enc_log_fetch(co->ctx.peers[i], q, sig, dst, co->bytes, NULL);
        if ((rv == ENC_OK || rv == ENC_ERR_DIVERGED) && sig->kind == ENC_COLL_CHECKPOINT &&
            sig->len == 0) {
            dropped++; /* completed by every member; this one did not keep it */
            continue;
        }
        if (rv == ENC_OK || rv == ENC_ERR_EPOCH || rv == ENC_ERR_DIVERGED)
            return rv;
        if (rv == ENC_ERR_PEER_RESET)
            unreachable++;
        else if (rv != ENC_ERR_LOST)
            return rv;
    }
    if (unreachable)
        return ENC_ERR_PEER_RESET;
    return dropped ? ENC_ERR_LOST : ENC_ERR_NOT_FOUND;
}

static enc_status_t lost(const struct enc_coll *co, uint64_t cid, uint64_t seq)
{
    ENC_ERROR("replay", "the result of collective #%llu on communicator %016llx (rank %d of "
              "%d) is lost: every member that kept it died, and the others dropped it (set "
              "ENCORE_REPLICAS higher, or checkpoint)", (unsigned long long)seq,
              (unsigned long long)cid, co->me, co->n);
    return ENC_ERR_LOST;
}

enc_status_t enc_commlog_replay(void *rc, struct enc_coll *co, uint64_t cid, uint64_t seq)
{
    struct enc_logreq q = {.what = ENC_LOGREQ_COMM, .seq = seq, .site_off = cid};
    int gather = co->sig->kind == ENC_COLL_ALLGATHERV;
    uint8_t *dst = gather ? enc_scratch_get(ENC_SCRATCH_ALGO, co->bytes) : co->result;
    struct enc_sigrec mine, logged;
    enc_status_t rv;

    (void)rc;
    if (gather && dst == NULL)
        return ENC_ERR_NOMEM;
    memset(&logged, 0, sizeof(logged));
    rv = ask_members(co, &q, dst, &logged);
    if (rv == ENC_ERR_LOST)
        return lost(co, cid, seq);
    enc_sigrec_from_coll(&mine, co, &enc_rec.cur, co->bytes);
    if (rv == ENC_ERR_DIVERGED || (rv == ENC_OK && !enc_sigrec_same_call(&mine, &logged)))
        diverged(co, &logged);
    if (rv != ENC_OK)
        return rv;
    if (gather)
        enc_coll_result_unpack(co, dst);
    enc_rec.replayed++;
    enc_rec.replayed_bytes += co->bytes;
    return ENC_OK;
}
