/*
 * ops.c - recovery's ops table on the engine (engine/layer.h) and its
 * registration: the one place where the engine's calls enter recovery
 * (ops.h).
 */
#include "enc.h"

#include <stdlib.h>

#include "engine/coll.h"
#include "engine/layer.h"
#include "p2p/det_replica.h"
#include "proto/msgs.h"
#include "recovery/channels.h"
#include "recovery/checkpoint/ckpt.h"
#include "recovery/checkpoint/exchange.h"
#include "recovery/checkpoint/positions.h"
#include "recovery/log/log.h"
#include "recovery/log/logreq.h"
#include "recovery/log/serve.h"
#include "recovery/ops.h"
#include "recovery/recover.h"
#include "recovery/recovery.h"
#include "recovery/replay.h"
#include "recovery/snapshot/image.h"
#include "recovery/snapshot/snapshot.h"
#include "recovery/snapshot/threads.h"

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

    /* a contribution may depend on this rank's determinants: copied first */
    enc_det_replica_flush("a collective");
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

static void pack_gather(const void *co, void *dst)
{
    enc_coll_result_pack(co, dst);
}

/* Entry seq of communicator cid (the world: 0) is co's result; then what
 * the trim floors allow goes. */
static enc_status_t record_entry(const struct enc_coll *co, uint64_t cid, uint64_t seq,
                                 bool everyone_entered)
{
    struct enc_log_comm c = enc_log_comm_of(co, cid);
    struct enc_sigrec sig;
    struct enc_log_put p = {.seq = seq, .sig = &sig, .me = co->me, .root = enc_log_root(co),
                            .data = co->result, .in_resbuf = co->in_resbuf,
                            .resbuf_at = co->resbuf_at, .everyone_entered = everyone_entered};
    enc_status_t rv;

    enc_sigrec_from_coll(&sig, co, &enc_rec.cur, co->bytes);
    if (co->sig->kind == ENC_COLL_ALLGATHERV) {
        p.pack = pack_gather; /* its blocks sit at the caller's displacements */
        p.pack_arg = co;
    }
    rv = enc_log_record(&c, &p);
    enc_log_trim(enc_rec.committed.version > 0);
    return rv;
}

/* A replayed result re-fills this rank's share.  A world collective that
 * ran live proves every rank entered it (a broadcast's root may finish
 * alone). */
static enc_status_t record(void *arg, const struct enc_coll *co, bool replayed)
{
    (void)arg;
    return record_entry(co, 0, co->ctx.seq, !replayed && co->sig->kind != ENC_COLL_BCAST);
}

/* On other communicators every algorithm lets no member finish before all
 * entered (engine/group_coll.c). */
static enc_status_t group_record(void *arg, const struct enc_coll *co, uint64_t cid,
                                 uint64_t seq)
{
    (void)arg;
    return record_entry(co, cid, seq, !co->replayed);
}

/* A floor on a communicator, or on a point-to-point channel (its key,
 * p2p/conn_trim.c: the receiver's parked image had the messages below). */
static void trim(void *arg, uint64_t cid, uint64_t seq)
{
    (void)arg;
    if (!enc_channels_trim(cid, seq))
        enc_log_set_floor(cid, seq);
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
    st->log_peak = enc_log_peak_bytes();
    st->spill_peak = enc_log_spill_peak();
    st->comm_completed = enc_log_comm_completed();
    enc_log_report_drops(true); /* the final range, before FINALIZE */
    return true;
}

static void fini(void *arg)
{
    struct enc_recovery *rc = arg;

    enc_log_fini();
    free(rc->peer_completed);
    rc->peer_completed = NULL;
}

static uint64_t resbuf_keep(void *arg)
{
    (void)arg;
    return enc_log_resbuf_keep();
}

static void resbuf_evict(void *arg, uint64_t below)
{
    (void)arg;
    enc_log_resbuf_evict(below);
}

static const struct enc_engine_ops recovery_ops = {
    .name = "recovery",
    .join = join,
    .begin = begin,
    .behind = behind,
    .replay = replay,
    .record = record,
    .group_replay = enc_replay_comm,
    .group_record = group_record,
    .trim = trim,
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

/* Log-service requests that are not for log entries. */
static void answer_checkpoints(void)
{
    enc_serve_answer(ENC_LOGREQ_CKPT_INFO, enc_ckpt_answer);
    enc_serve_answer(ENC_LOGREQ_CKPT_GLOBAL, enc_ckpt_answer);
    enc_serve_answer(ENC_LOGREQ_CKPT_LOCAL, enc_ckpt_answer);
    enc_serve_answer(ENC_LOGREQ_COMM_POS, enc_ckpt_position_answer);
}

enc_status_t enc_recovery_register(void)
{
    enc_status_t rv;

    if (enc_tunable_ll(ENC_TUNE_RECOVERY) == 0)
        return ENC_OK; /* the plain engine */
    if ((rv = enc_snapshot_init()) != ENC_OK || (rv = enc_log_init()) != ENC_OK)
        return rv;
    answer_checkpoints();
    enc_rec.on = true;
    return enc_engine_register(&recovery_ops, &enc_rec);
}

void enc_recovery_before_mpi_init(void) { enc_snap_threads_before_mpi(); }

bool enc_recovery_restored(void) { return enc_snapshot_restored(); }

void enc_recovery_set_fork_guard(const struct enc_fork_guard *g) { enc_snapshot_set_guard(g); }

bool enc_recovery_snapshot_due(void) { return enc_snapshot_due(); }
void enc_recovery_call_boundary(void) { enc_snapshot_point(); }

void enc_recovery_note_buffer(const void *p, size_t len)
{
    if (enc_rec.on)
        enc_snapshot_note_buffer(p, len);
}
