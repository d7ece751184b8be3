/*
 * coll.c - the collective dispatcher.
 *
 * Every collective, on every rank, gets the next sequence number and runs
 * here: fault injection, tracker events, the choice of algorithm (count 0
 * and one rank are handled before any algorithm), and re-run after a peer
 * failure.  The registered layer (engine/layer.h) wraps each call: replay
 * while behind, regroup after a failure, record after the result.
 * Algorithms only move and combine bytes.
 */
#include "enc.h"

#include <stdio.h>
#include <string.h>

#include "engine/coll.h"
#include "engine/group.h"
#include "engine/scratch.h"
#include "engine/state.h"
#include "reduce/reduce.h"

const char *enc_coll_kind_name(int kind)
{
    static const char *names[] = {
        [ENC_COLL_ALLREDUCE] = "allreduce", [ENC_COLL_REDUCE] = "reduce",
        [ENC_COLL_BCAST] = "bcast",         [ENC_COLL_BARRIER] = "barrier",
        [ENC_COLL_ALLGATHERV] = "allgatherv", [ENC_COLL_FINALIZE] = "finalize",
        [ENC_COLL_CHECKPOINT] = "checkpoint", [ENC_COLL_GATHER] = "gather",
        [ENC_COLL_SCATTER] = "scatter",     [ENC_COLL_ALLTOALL] = "alltoall",
        [ENC_COLL_REDUCE_SCATTER] = "reduce_scatter", [ENC_COLL_SCAN] = "scan",
        [ENC_COLL_EXSCAN] = "exscan",       [ENC_COLL_COMM_DUP] = "comm_dup",
        [ENC_COLL_COMM_SPLIT] = "comm_split", [ENC_COLL_COMM_CREATE] = "comm_create",
    };

    return kind > 0 && kind < (int)ENC_ARRAY_SIZE(names) ? names[kind] : "collective";
}

uint32_t enc_callsig_check(const struct enc_callsig *sig)
{
    uint64_t h = 1469598103934665603ull;
    uint64_t v[5] = {(uint64_t)enc_coll_what(sig), sig->count, sig->dtype, sig->op, (uint64_t)(int64_t)sig->root};

    for (size_t i = 0; i < ENC_ARRAY_SIZE(v); i++) {
        h ^= v[i];
        h *= 1099511628211ull;
    }
    return (uint32_t)(h ^ (h >> 32));
}

/* Puts this rank's input where the algorithm expects it; keeps in-place
 * input so the collective can be re-run after a failure. */
static enc_status_t prepare(struct enc_coll *co)
{
    void *save;

    if (co->sig->kind == ENC_COLL_ALLGATHERV) {
        if (co->sendbuf)
            memcpy((uint8_t *)co->recvbuf + co->displs[co->me], co->sendbuf,
                   co->recvbytes[co->me]);
        return ENC_OK;
    }
    if (co->sig->kind == ENC_COLL_BCAST || co->bytes == 0)
        return ENC_OK;
    if (co->sendbuf) {
        memcpy(co->recvbuf, co->sendbuf, co->bytes);
        return ENC_OK;
    }
    if (enc_eng.ops == NULL || enc_eng.ops->recover == NULL)
        return ENC_OK; /* no re-run without a layer to regroup */
    if ((save = enc_scratch_get(ENC_SCRATCH_SAVE, co->bytes)) == NULL)
        return ENC_ERR_NOMEM;
    memcpy(save, co->recvbuf, co->bytes);
    co->sendbuf = save; /* a re-run copies from here */
    return ENC_OK;
}

static enc_algo_fn choose(const struct enc_coll *co)
{
    switch (co->sig->kind) {
    case ENC_COLL_BCAST:
        /* on a group, nobody may finish before everyone entered (group_coll.c) */
        return co->sig->grp ? enc_bcast_sync : enc_bcast_tree;
    case ENC_COLL_ALLGATHERV:
        return enc_allgatherv_ring;
    case ENC_COLL_BARRIER:
    case ENC_COLL_FINALIZE:
        return enc_allreduce_tree;
    default:
        if (co->r->commutative && co->bytes > enc_eng.tree_max_bytes &&
            co->count >= (size_t)co->n * enc_eng.ring_min_count)
            return enc_allreduce_ring;
        return enc_allreduce_tree;
    }
}

static enc_status_t run_once(struct enc_coll *co, bool replaying)
{
    enc_status_t rv;

    if ((rv = enc_engine_poll_tracker()) != ENC_OK)
        return rv;
    if (replaying)
        return enc_eng.ops->replay(enc_eng.ops_ctx, co);
    return enc_coll_live(co);
}

enc_status_t enc_coll_live(struct enc_coll *co)
{
    enc_status_t rv;

    if ((rv = prepare(co)) != ENC_OK)
        return rv;
    if (co->n == 1 || (co->bytes == 0 && co->sig->kind != ENC_COLL_BARRIER &&
                              co->sig->kind != ENC_COLL_FINALIZE && !co->layer))
        return ENC_OK;
    if (co->layer)
        return enc_eng.ops->exchange(enc_eng.ops_ctx, co);
    return choose(co)(co);
}

static uint32_t layer_version(void)
{
    const struct enc_engine_ops *ops = enc_eng.ops;

    return ops && ops->version ? ops->version(enc_eng.ops_ctx) : 0;
}

void enc_coll_result_pack(const struct enc_coll *co, void *dst)
{
    uint8_t *p = dst;

    for (int i = 0; i < co->n; i++) {
        memcpy(p, (const uint8_t *)co->result + co->displs[i], co->recvbytes[i]);
        p += co->recvbytes[i];
    }
}

void enc_coll_result_unpack(struct enc_coll *co, const void *src)
{
    const uint8_t *p = src;

    for (int i = 0; i < co->n; i++) {
        memcpy((uint8_t *)co->recvbuf + co->displs[i], p, co->recvbytes[i]);
        p += co->recvbytes[i];
    }
}

void enc_coll_log_finished(const struct enc_coll *co, double t0, bool replayed)
{
    char site[160];

    if (enc_log_level() < ENC_LOG_INFO)
        return;
    enc_callsite_format(co->sig->site, site, sizeof(site));
    ENC_INFO("coll", "%s (%s#%llux%s) %s version %u, seq %llu, %.6f s",
             enc_coll_kind_name(enc_coll_what(co->sig)), site,
             (unsigned long long)co->sig->count,
             co->sig->dtype < ENC_T_COUNT ? enc_type_name((enum enc_type)co->sig->dtype)
                                          : "B",
             replayed ? "replayed" : "finished", layer_version(),
             (unsigned long long)co->ctx.seq, enc_now_s() - t0);
}

__attribute__((noreturn)) static void fail(const struct enc_coll *co, enc_status_t rv)
{
    char msg[256], site[160];

    enc_callsite_format(co->sig->site, site, sizeof(site));
    snprintf(msg, sizeof(msg), "%s (%s) seq %llu failed on rank %d: %s",
             enc_coll_kind_name(enc_coll_what(co->sig)), site, (unsigned long long)co->ctx.seq,
             enc_eng.rank, encore_strerror(rv));
    ENC_ERROR("coll", "%s", msg);
    enc_engine_abort(1, msg);
}

void enc_coll_recover_or_fail(const struct enc_coll *co, enc_status_t rv)
{
    const struct enc_engine_ops *ops = enc_eng.ops;

    if (!(ENC_IS_PEER_FAILURE(rv) || rv == ENC_ERR_PROTO) || ops == NULL ||
        ops->recover == NULL)
        fail(co, rv);
    if ((rv = ops->recover(enc_eng.ops_ctx)) != ENC_OK)
        fail(co, rv);
}

/* Runs one collective to completion, re-running it after peer failures. */
enc_status_t enc_coll_run(struct enc_coll *co)
{
    const struct enc_engine_ops *ops = enc_eng.ops;
    double t0 = enc_now_s();
    enc_status_t rv;
    bool replayed;

    if (!enc_eng.active && co->sig->kind != ENC_COLL_FINALIZE)
        return ENC_ERR_STATE;
    if (co->sig->grp)
        return enc_group_run(co);
    co->n = enc_eng.size;
    co->me = enc_eng.rank;
    co->ring = enc_eng.ring;
    co->order = enc_eng.identity;
    enc_inject_check();
    co->ctx.check = enc_callsig_check(co->sig);
    if (ops && ops->begin)
        ops->begin(enc_eng.ops_ctx, co);
    for (;;) {
        co->ctx.seq = enc_eng.seq;
        co->replayed = replayed = enc_coll_behind(enc_eng.seq);
        if ((rv = run_once(co, replayed)) == ENC_OK)
            break;
        enc_coll_recover_or_fail(co, rv);
    }
    if (ops && ops->record)
        (void)ops->record(enc_eng.ops_ctx, co, replayed);
    enc_eng.seq++;
    enc_tclient_set_progress(enc_eng.tc, enc_eng.seq);
    enc_coll_log_finished(co, t0, replayed);
    if (ops && ops->after && co->sig->kind != ENC_COLL_FINALIZE)
        ops->after(enc_eng.ops_ctx, co);
    return ENC_OK;
}

enc_status_t enc_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                           const struct enc_reducer *r, const struct enc_callsig *sig)
{
    struct enc_coll co = {.sig = sig, .sendbuf = sendbuf, .recvbuf = recvbuf, .count = count,
                          .bytes = count * r->elem_size, .r = r, .root = -1};

    co.result = recvbuf;
    return enc_coll_run(&co);
}

enc_status_t enc_reduce(const void *sendbuf, void *recvbuf, size_t count,
                        const struct enc_reducer *r, int root, const struct enc_callsig *sig)
{
    size_t bytes = count * r->elem_size;
    struct enc_coll co = {.sig = sig, .sendbuf = sendbuf, .count = count, .bytes = bytes,
                          .r = r, .root = root};

    /* Reduce runs as an allreduce so every rank holds (and logs) the
     * result: a restarted root can then be answered by any survivor. */
    if (enc_group_my_rank(sig->grp) == root) {
        co.recvbuf = recvbuf;
    } else {
        if ((co.recvbuf = enc_scratch_get(ENC_SCRATCH_RESULT, bytes)) == NULL)
            return ENC_ERR_NOMEM;
        if (sendbuf == NULL) /* MPI_IN_PLACE is only valid at the root */
            return ENC_ERR_INVAL;
    }
    co.result = co.recvbuf;
    return enc_coll_run(&co);
}

enc_status_t enc_bcast(void *buf, size_t bytes, int root, const struct enc_callsig *sig)
{
    struct enc_coll co = {.sig = sig, .recvbuf = buf, .bytes = bytes, .root = root,
                          .result = buf};

    return enc_coll_run(&co);
}

enc_status_t enc_barrier(const struct enc_callsig *sig)
{
    static const struct enc_reducer none = {.elem_size = 1, .commutative = true};
    struct enc_coll co = {.sig = sig, .r = &none, .root = -1};

    return enc_coll_run(&co);
}

enc_status_t enc_allgatherv(const void *sendbuf, size_t sendbytes, void *recvbuf,
                            const size_t *recvbytes, const size_t *displs,
                            const struct enc_callsig *sig)
{
    struct enc_coll co = {.sig = sig, .sendbuf = sendbuf, .recvbuf = recvbuf,
                          .recvbytes = recvbytes, .displs = displs, .root = -1,
                          .result = recvbuf};

    int me = enc_group_my_rank(sig->grp);

    if (sendbuf && sendbytes != recvbytes[me]) {
        ENC_ERROR("coll", "allgatherv: rank %d sends %zu bytes but the receive counts "
                  "give it %zu", me, sendbytes, recvbytes[me]);
        return ENC_ERR_INVAL;
    }
    for (int i = 0; i < enc_group_my_size(sig->grp); i++)
        co.bytes += recvbytes[i];
    return enc_coll_run(&co);
}

enc_status_t enc_layer_coll(const struct enc_callsig *sig)
{
    struct enc_coll co = {.sig = sig, .root = -1, .layer = true};

    if (enc_eng.ops == NULL || enc_eng.ops->exchange == NULL)
        return ENC_ERR_STATE;
    return enc_coll_run(&co);
}
