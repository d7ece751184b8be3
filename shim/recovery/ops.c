/*
 * ops.c - recovery's ops table on the engine (engine/layer.h) and its
 * registration: the one place where the engine's calls enter recovery.
 */
#include "enc.h"

#include <stdlib.h>

#include "engine/layer.h"
#include "proto/msgs.h"
#include "recovery/checkpoint/ckpt.h"
#include "recovery/recovery.h"
#include "recovery/log/serve.h"
#include "recovery/snapshot/snapshot.h"

struct enc_recovery enc_rec = {.committed = {.rep_rank = {-1, -1}}};

static enc_status_t join(void *arg, const struct enc_msg_resume *resume)
{
    struct enc_recovery *rc = arg;

    free(rc->peer_completed); /* a restored snapshot joins again */
    rc->peer_completed = calloc((size_t)enc_engine_size(), sizeof(uint64_t));
    if (rc->peer_completed == NULL)
        return ENC_ERR_NOMEM;
    if (!enc_snapshot_restored())
        enc_snap_threads_joined();
    return resume ? enc_recovery_apply_resume(resume) : ENC_OK;
}

static void begin(void *arg, const struct enc_coll *co)
{
    struct enc_recovery *rc = arg;

    enc_sitekey_of(&rc->cur, co);
    enc_snapshot_begin(co);
}

static void after(void *arg, const struct enc_coll *co)
{
    (void)arg;
    enc_snapshot_after(co);
}

static bool behind(void *arg, uint64_t seq)
{
    const struct enc_recovery *rc = arg;

    return seq < rc->replay_until;
}

static enc_status_t replay(void *arg, struct enc_coll *co)
{
    (void)arg;
    return enc_replay(co);
}

static enc_status_t record(void *arg, const struct enc_coll *co, bool replayed)
{
    enc_status_t rv = enc_reclog_record(co); /* a replayed result re-fills this rank's share */

    (void)arg;
    if (!replayed && co->sig->kind != ENC_COLL_BCAST)
        enc_reclog_all_done_below(co->ctx.seq); /* everyone entered this one */
    enc_reclog_trim_below(enc_engine_log_floor(), enc_rec.committed.version > 0);
    return rv;
}

static enc_status_t recover(void *arg)
{
    (void)arg;
    return enc_recover();
}

static uint32_t version(void *arg)
{
    const struct enc_recovery *rc = arg;

    return rc->committed.version;
}

/* Survivors keep serving the log after MPI_Finalize: a rank that dies
 * now replays the whole program from it. */
static bool finalize(void *arg, struct enc_msg_stats *st)
{
    const struct enc_recovery *rc = arg;

    st->replayed = rc->replayed;
    st->recovery_s = rc->recovery_s;
    st->log_peak = enc_reclog_peak_bytes();
    st->spill_peak = enc_reclog_spill_peak();
    enc_reclog_report_drops(true); /* the final range, before FINALIZE */
    return true;
}

static void fini(void *arg)
{
    struct enc_recovery *rc = arg;

    enc_reclog_fini();
    enc_commlog_fini();
    free(rc->peer_completed);
    rc->peer_completed = NULL;
}

static uint64_t resbuf_keep(void *arg)
{
    (void)arg;
    return enc_reclog_resbuf_keep();
}

static void resbuf_evict(void *arg, uint64_t below)
{
    (void)arg;
    enc_reclog_resbuf_evict(below);
}

static const struct enc_engine_ops recovery_ops = {
    .name = "recovery",
    .join = join,
    .begin = begin,
    .behind = behind,
    .replay = replay,
    .record = record,
    .group_replay = enc_commlog_replay,
    .group_record = enc_commlog_record,
    .after = after,
    .recover = recover,
    .pollfds = enc_serve_pollfds,
    .serve = enc_serve_ready,
    .exchange = enc_ckpt_exchange,
    .resbuf_keep = resbuf_keep,
    .resbuf_evict = resbuf_evict,
    .version = version,
    .finalize = finalize,
    .fini = fini,
};

enc_status_t enc_recovery_register(void)
{
    enc_status_t rv;

    if (enc_tunable_ll(ENC_TUNE_RECOVERY) == 0)
        return ENC_OK; /* the plain engine */
    if ((rv = enc_snapshot_init()) != ENC_OK || (rv = enc_reclog_init()) != ENC_OK)
        return rv;
    enc_rec.on = true;
    return enc_engine_register(&recovery_ops, &enc_rec);
}

void enc_recovery_before_mpi_init(void) { enc_snap_threads_before_mpi(); }

bool enc_recovery_restored(void) { return enc_snapshot_restored(); }

void enc_recovery_set_fork_guard(const struct enc_fork_guard *g) { enc_snapshot_set_guard(g); }
