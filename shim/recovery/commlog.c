/*
 * commlog.c - the result log of collectives on communicators derived from
 * the world, keyed by (context id, sequence number on that communicator).
 *
 * Every member keeps every result of its communicators for the job's
 * lifetime (a replication factor of the group size; not capped by
 * ENCORE_LOG_MEM_MAX, not truncated by checkpoints).  A member whose
 * communicator is uncertain after a failure asks the other members for the
 * next entry (group_coll.c says why that is consistent); the answer is
 * checked against this call's signature like any replay.
 */
#include "enc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/coll.h"
#include "engine/scratch.h"
#include "engine/layer.h"
#include "recovery/logreq.h"
#include "recovery/reclog.h"
#include "recovery/recovery.h"

struct centry {
    uint64_t ctx, seq;
    struct enc_sigrec sig;
    void *data;
};

static struct {
    struct centry *e;       /* open addressing, cap a power of two */
    size_t n, cap;
} comm_log;

static size_t hash(uint64_t ctx, uint64_t seq)
{
    uint64_t h = (ctx ^ (seq * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;

    return (size_t)(h ^ (h >> 29));
}

static struct centry *probe(struct centry *e, size_t cap, uint64_t ctx, uint64_t seq)
{
    for (size_t i = hash(ctx, seq) & (cap - 1);; i = (i + 1) & (cap - 1))
        if (e[i].ctx == 0 || (e[i].ctx == ctx && e[i].seq == seq))
            return &e[i];
}

static enc_status_t grow(void)
{
    size_t cap = comm_log.cap ? comm_log.cap * 2 : 1024;
    struct centry *e = calloc(cap, sizeof(*e));

    if (e == NULL)
        return ENC_ERR_NOMEM;
    for (size_t i = 0; i < comm_log.cap; i++)
        if (comm_log.e[i].ctx != 0)
            *probe(e, cap, comm_log.e[i].ctx, comm_log.e[i].seq) = comm_log.e[i];
    free(comm_log.e);
    comm_log.e = e;
    comm_log.cap = cap;
    return ENC_OK;
}

enc_status_t enc_commlog_record(void *rc, const struct enc_coll *co, uint64_t ctx,
                                uint64_t seq)
{
    struct centry *x;

    (void)rc;
    if (2 * (comm_log.n + 1) > comm_log.cap && grow() != ENC_OK)
        return ENC_ERR_NOMEM;
    x = probe(comm_log.e, comm_log.cap, ctx, seq);
    if (x->ctx == 0) {
        comm_log.n++;
    } else {
        free(x->data);
    }
    x->ctx = ctx;
    x->seq = seq;
    enc_sigrec_from_coll(&x->sig, co, &enc_rec.cur, co->bytes);
    if ((x->data = malloc(co->bytes ? co->bytes : 1)) == NULL)
        return ENC_ERR_NOMEM;
    if (co->sig->kind == ENC_COLL_ALLGATHERV)
        enc_coll_result_pack(co, x->data);
    else if (co->bytes > 0)
        memcpy(x->data, co->result, co->bytes);
    return ENC_OK;
}

enc_status_t enc_commlog_find(uint64_t ctx, uint64_t seq, struct enc_sigrec *sig, const void **data,
                     size_t *len)
{
    struct centry *x;

    if (comm_log.cap == 0 || (x = probe(comm_log.e, comm_log.cap, ctx, seq))->ctx == 0)
        return ENC_ERR_NOT_FOUND;
    *sig = x->sig;
    *data = x->data;
    *len = x->sig.len;
    return ENC_OK;
}

void enc_commlog_fini(void)
{
    for (size_t i = 0; i < comm_log.cap; i++)
        free(comm_log.e[i].data);
    free(comm_log.e);
    memset(&comm_log, 0, sizeof(comm_log));
}

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

/* Asks every other member; ENC_ERR_NOT_FOUND when all answered that they
 * do not have it, a peer failure when one could not answer. */
static enc_status_t ask_members(const struct enc_coll *co, const struct enc_logreq *q, uint8_t *dst,
                       struct enc_sigrec *sig)
{
    int unreachable = 0;
    enc_status_t rv;

    for (int i = 0; i < co->n; i++) {
        if (i == co->me)
            continue;
        rv = enc_log_fetch(co->ctx.peers[i], q, sig, dst, co->bytes, NULL);
        if (rv == ENC_OK || rv == ENC_ERR_EPOCH || rv == ENC_ERR_DIVERGED)
            return rv;
        if (rv == ENC_ERR_PEER_RESET)
            unreachable++;
        else if (rv != ENC_ERR_LOST)
            return rv;
    }
    return unreachable ? ENC_ERR_PEER_RESET : ENC_ERR_NOT_FOUND;
}

enc_status_t enc_commlog_replay(void *rc, struct enc_coll *co, uint64_t ctx, uint64_t seq)
{
    struct enc_logreq q = {.what = ENC_LOGREQ_COMM, .seq = seq, .site_off = ctx};
    int gather = co->sig->kind == ENC_COLL_ALLGATHERV;
    uint8_t *dst = gather ? enc_scratch_get(ENC_SCRATCH_ALGO, co->bytes) : co->result;
    struct enc_sigrec mine, logged;
    enc_status_t rv;

    (void)rc;
    if (gather && dst == NULL)
        return ENC_ERR_NOMEM;
    memset(&logged, 0, sizeof(logged));
    rv = ask_members(co, &q, dst, &logged);
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
