/*
 * coll.c - the collective entry points and the world's dispatcher.
 *
 * Every collective, on every rank, gets the next sequence number and runs
 * here (collectives on derived communicators go to group_coll.c): fault
 * injection, tracker events, then the live run (coll_live.c: count 0 and
 * one rank are handled before any algorithm), and re-run after a peer
 * failure.  The registered layer (engine/layer.h) wraps each call: replay
 * while behind, regroup after a failure, record after the result.
 * Algorithms only move and combine bytes.
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include "engine/coll.h"
#include "engine/dispatch.h"
#include "engine/group.h"
#include "engine/scratch.h"
#include "engine/state.h"
#include "reduce/reduce.h"

static enc_status_t run_once(struct enc_coll *co, bool replaying)
{
    enc_status_t rv;

    /* set again by a live run that leaves it in the result buffer */
    co->in_resbuf = false;
    if ((rv = enc_engine_poll_tracker()) != ENC_OK)
        return rv;
    if (replaying)
        return enc_eng.ops->replay(enc_eng.ops_arg, co);
    return enc_coll_live(co);
}

/* Runs one collective to completion, re-running it after peer failures. */
enc_status_t enc_coll_run(struct enc_coll *co)
{
    const struct enc_engine_ops *ops = enc_eng.ops;
    /* the clock only for the "finished" line */
    double t0 = enc_log_level() >= ENC_LOG_INFO ? enc_now_s() : 0;
    enc_status_t rv;
    bool replayed;

    if (!enc_eng.active && co->sig->kind != ENC_COLL_FINALIZE)
        return ENC_ERR_STATE;
    if (co->sig->grp)
        return enc_group_run(co);
    co->n = enc_eng.size;
    co->me = enc_eng.rank;
    co->locality = enc_eng.locality;
    co->order = enc_eng.identity;
    co->chan = &enc_eng.chan;
    enc_inject_check();
    co->ctx.check = enc_callsig_check(co->sig);
    if (ops && ops->begin)
        ops->begin(enc_eng.ops_arg, co);
    for (;;) {
        co->ctx.seq = enc_eng.seq;
        co->epoch = enc_eng.epoch;
        co->replayed = replayed = enc_coll_behind(enc_eng.seq);
        if ((rv = run_once(co, replayed)) == ENC_OK)
            break;
        enc_coll_recover_or_fail(co, rv);
    }
    if (ops && ops->record)
        (void)ops->record(enc_eng.ops_arg, co, replayed);
    enc_eng.seq++;
    enc_tclient_set_progress(enc_eng.tc, enc_eng.seq);
    enc_coll_log_finished(co, t0, replayed);
    if (ops && ops->after && co->sig->kind != ENC_COLL_FINALIZE)
        ops->after(enc_eng.ops_arg, co);
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

enc_status_t enc_reduce_scatter(const void *sendbuf, void *recvbuf, size_t count, size_t lo,
                                size_t len, const struct enc_reducer *r,
                                const struct enc_callsig *sig)
{
    size_t esz = r->elem_size;
    struct enc_coll co = {.sig = sig, .sendbuf = sendbuf, .count = count, .bytes = count * esz,
                          .r = r, .root = -1, .part = true};
    enc_status_t rv;

    if (sendbuf == NULL || lo > count || len > count - lo)
        return ENC_ERR_INVAL;
    /* the whole result, when it does not stay in the result buffer */
    if ((co.recvbuf = enc_scratch_get(ENC_SCRATCH_RESULT, co.bytes)) == NULL)
        return ENC_ERR_NOMEM;
    co.result = co.recvbuf;
    if ((rv = enc_coll_run(&co)) != ENC_OK)
        return rv;
    if (len > 0) /* recvbuf may be NULL then */
        enc_coll_result_read(&co, lo * esz, recvbuf, len * esz);
    return ENC_OK;
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

enc_status_t enc_alltoall(const void *sendbuf, void *recvbuf, size_t block,
                          const struct enc_callsig *sig)
{
    int n = enc_group_my_size(sig->grp);
    size_t *a = malloc(2 * sizeof(size_t) * (size_t)n);
    struct enc_coll co = {.sig = sig, .sendbuf = sendbuf, .recvbytes = a, .displs = a + n,
                          .root = -1, .column = recvbuf, .block = block,
                          .bytes = (size_t)n * (size_t)n * block};
    enc_status_t rv;

    if (a == NULL)
        return ENC_ERR_NOMEM;
    if (sendbuf == NULL || sig->kind != ENC_COLL_ALLGATHERV) {
        free(a);
        return ENC_ERR_INVAL;
    }
    for (int j = 0; j < n; j++) {
        a[j] = (size_t)n * block;
        a[n + j] = (size_t)j * (size_t)n * block;
    }
    rv = enc_coll_run(&co);
    free(a);
    return rv;
}

enc_status_t enc_layer_coll(const struct enc_callsig *sig)
{
    struct enc_coll co = {.sig = sig, .root = -1, .layer = true};

    if (enc_eng.ops == NULL || enc_eng.ops->exchange == NULL)
        return ENC_ERR_STATE;
    return enc_coll_run(&co);
}
