/*
 * coll_live.c - what the world's dispatcher (coll.c) and the groups'
 * (group_coll.c) share: running one collective live in the current epoch
 * (input in place, trivial cases, the choice of algorithm), the call's
 * digest, the "finished" log line, and the decision to recover or end the
 * job after a failure.
 */
#include "enc.h"

#include <stdio.h>
#include <string.h>

#include "core/tunables.h"
#include "engine/coll.h"
#include "engine/dispatch.h"
#include "engine/group.h"
#include "engine/hier.h"
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
        [ENC_COLL_COMM_SETUP] = "comm_setup", [ENC_COLL_COMM_TOPO] = "comm_topo",
        [ENC_COLL_NEIGHBOR] = "neighbor",   [ENC_COLL_INTERCOMM] = "intercomm",
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
        if (co->sendbuf && co->recvbuf)
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

/* Collectives through the hosts' segments: flat when every rank of the
 * communicator shares this host's (coll_shm.c), hierarchical when its
 * ranks span hosts (coll_hier.c, built on coll_shm.c's waits and result
 * buffer); NULL for TCP.  A derived communicator uses them once its
 * creation set up its channels (group_chan.c); the same answer on every
 * rank of it. */
static enc_algo_fn host_algo(struct enc_coll *co)
{
    struct enc_group *g = (struct enc_group *)co->sig->grp;
    const struct enc_hier *h;

    if (co->n <= 1 || co->layer)
        return NULL;
    if (g == NULL)
        return enc_eng.shm_world ? enc_coll_shm_algo(co) : enc_coll_hier_algo(co);
    if (!g->setup || !enc_eng.shm_on || (h = enc_coll_hosts(g)) == NULL)
        return NULL;
    if (enc_coll_hosts_one(h))
        return enc_coll_hosts_chan(h) >= 1 ? enc_coll_shm_algo(co) : NULL;
    return enc_coll_hier_algo(co);
}

/* An alltoall whose algorithm gathers every row gets scratch for them
 * (its result, to log), and its column is taken from there afterwards;
 * the shared-memory one through the result buffer reads only the column. */
static enc_status_t rows_prepare(struct enc_coll *co, enc_algo_fn shm)
{
    if (co->column == NULL)
        return ENC_OK;
    if (shm != NULL && co->n > 1 && enc_coll_shm_reads_column(co, shm)) {
        co->recvbuf = co->result = NULL;
        return ENC_OK;
    }
    co->recvbuf = co->result = enc_scratch_get(ENC_SCRATCH_ROWS, co->bytes);
    return co->recvbuf != NULL ? ENC_OK : ENC_ERR_NOMEM;
}

static enc_status_t run_algo(struct enc_coll *co, enc_algo_fn shm)
{
    if (co->n == 1 || (co->bytes == 0 && co->sig->kind != ENC_COLL_BARRIER &&
                              co->sig->kind != ENC_COLL_FINALIZE && !co->layer))
        return ENC_OK;
    if (co->layer)
        return enc_eng.ops->exchange(enc_eng.ops_arg, co);
    return (shm ? shm : choose(co))(co);
}

enc_status_t enc_coll_live(struct enc_coll *co)
{
    enc_algo_fn shm = host_algo(co);
    enc_status_t rv;

    if ((rv = rows_prepare(co, shm)) != ENC_OK)
        return rv;
    /* the shared-memory allreduce stages its input from sendbuf itself, and
     * mostly needs no saved copy of an in-place one */
    if ((shm == NULL || (co->sendbuf == NULL && !enc_coll_shm_keeps_input(co, shm)) ||
         co->sig->kind == ENC_COLL_ALLGATHERV) &&
        (rv = prepare(co)) != ENC_OK)
        return rv;
    rv = run_algo(co, shm);
    if (rv == ENC_OK && co->column != NULL && co->recvbuf != NULL && co->bytes > 0)
        enc_coll_column_take(co, co->recvbuf);
    return rv;
}

static uint32_t layer_version(void)
{
    const struct enc_engine_ops *ops = enc_eng.ops;

    return ops && ops->version ? ops->version(enc_eng.ops_arg) : 0;
}

/* "seq 12" on the world, "seq 12 on communicator 0123..." on another
 * (its frames' sequence numbers carry part of its id, group_coll.c). */
static const char *seq_text(const struct enc_coll *co, char *buf, size_t cap)
{
    const struct enc_group *g = co->sig->grp;

    if (g == NULL)
        snprintf(buf, cap, "seq %llu", (unsigned long long)co->ctx.seq);
    else
        snprintf(buf, cap, "seq %llu on communicator %016llx",
                 (unsigned long long)(co->ctx.seq & ((1ull << 40) - 1)),
                 (unsigned long long)g->cid);
    return buf;
}

void enc_coll_log_finished(const struct enc_coll *co, double t0, bool replayed)
{
    char site[160], seq[64];

    if (enc_log_level() < ENC_LOG_INFO)
        return;
    enc_callsite_format(co->sig->site, site, sizeof(site));
    ENC_INFO("coll", "%s (%s#%llux%s) %s version %u, %s, %.6f s",
             enc_coll_kind_name(enc_coll_what(co->sig)), site,
             (unsigned long long)co->sig->count,
             co->sig->dtype < ENC_T_COUNT ? enc_type_name((enum enc_type)co->sig->dtype)
                                          : "B",
             replayed ? "replayed" : "finished", layer_version(),
             seq_text(co, seq, sizeof(seq)), enc_now_s() - t0);
}

__attribute__((noreturn)) static void fail(const struct enc_coll *co, enc_status_t rv)
{
    char msg[320], site[160], seq[64];

    enc_callsite_format(co->sig->site, site, sizeof(site));
    snprintf(msg, sizeof(msg), "%s (%s) %s failed on rank %d: %s",
             enc_coll_kind_name(enc_coll_what(co->sig)), site, seq_text(co, seq, sizeof(seq)),
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
    if (co->epoch != enc_eng.epoch)
        return; /* another collective of this process regrouped while this
                 * one waited for its turn: run it again in the new epoch */
    enc_eng.regrouping = true;
    rv = ops->recover(enc_eng.ops_arg);
    enc_eng.regrouping = false;
    if (rv != ENC_OK)
        fail(co, rv);
}
