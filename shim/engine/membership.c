/*
 * membership.c - the rank's view of the world: tracker events, WORLD and
 * RESUME.
 *
 * The tracker announces deaths (a new epoch begins), then, once every rank
 * of that epoch is registered and has said where it stands, the new WORLD
 * (addresses, locality order) and RESUME (collectives completed per rank).
 */
#include "enc.h"
#include "core/tmpdir.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/layer.h"
#include "engine/state.h"
#include "proto/frame.h"
#include "proto/msgs.h"

static void keep_world(struct enc_msg_world *w)
{
    if (enc_eng.have_world)
        enc_msg_world_free(&enc_eng.pending_world);
    enc_eng.pending_world = *w;
    enc_eng.have_world = true;
    if (w->epoch > enc_eng.latest_epoch)
        enc_eng.latest_epoch = w->epoch;
}

static void keep_resume(struct enc_msg_resume *r)
{
    if (enc_eng.have_resume)
        enc_msg_resume_free(&enc_eng.pending_resume);
    enc_eng.pending_resume = *r;
    enc_eng.have_resume = true;
}

enc_status_t enc_engine_handle_event(struct enc_tclient_event *ev)
{
    switch (ev->type) {
    case ENC_MSG_WORLD:
        keep_world(&ev->u.world);
        return ENC_OK;
    case ENC_MSG_RESUME:
        keep_resume(&ev->u.resume);
        return ENC_OK;
    case ENC_MSG_EVENT:
        if (ev->u.ev.kind == ENC_EV_ABORT) {
            ENC_DEBUG("engine", "job aborted by the tracker: %s", ev->u.ev.reason);
            enc_rank_tmpdir_remove();
            _exit(1); /* encore-run prints the reason once */
        }
        if (ev->u.ev.kind == ENC_EV_TRIM) {
            if (ev->u.ev.cid == 0)
                enc_eng.log_floor = ENC_MAX(enc_eng.log_floor, ev->u.ev.seq);
            if (enc_eng.ops && enc_eng.ops->trim)
                enc_eng.ops->trim(enc_eng.ops_arg, ev->u.ev.cid, ev->u.ev.seq);
            return ENC_OK;
        }
        if (ev->u.ev.epoch > enc_eng.latest_epoch)
            enc_eng.latest_epoch = ev->u.ev.epoch;
        ENC_INFO("engine", "rank %u died; epoch %u begins", ev->u.ev.rank, ev->u.ev.epoch);
        return enc_eng.latest_epoch > enc_eng.epoch ? ENC_ERR_EPOCH : ENC_OK;
    default:
        return ENC_OK;
    }
}

enc_status_t enc_engine_poll_tracker(void)
{
    struct enc_tclient_event ev;
    enc_status_t rv = ENC_OK;
    int got;

    while ((got = enc_tclient_poll_event(enc_eng.tc, &ev)) == ENC_OK) {
        enc_status_t r = enc_engine_handle_event(&ev);

        if (r != ENC_OK)
            rv = r;
    }
    if (got < 0)
        return ENC_ERR_ABORTED;
    return rv != ENC_OK || enc_eng.latest_epoch > enc_eng.epoch ? ENC_ERR_EPOCH : ENC_OK;
}

static bool world_ready(bool want_resume)
{
    uint32_t e = enc_eng.latest_epoch;

    return enc_eng.have_world && enc_eng.pending_world.epoch == e &&
           (!want_resume || (enc_eng.have_resume && enc_eng.pending_resume.epoch == e));
}

enc_status_t enc_world_wait(bool want_resume, uint64_t deadline)
{
    uint32_t start_epoch = enc_eng.latest_epoch;

    while (!world_ready(want_resume)) {
        struct enc_tclient_event ev;
        int rv = enc_tclient_wait_event(enc_eng.tc, &ev, deadline);

        if (rv == ENC_ERR_TIMEOUT) {
            ENC_ERROR("engine", "no world from the tracker for epoch %u in time",
                      enc_eng.latest_epoch);
            return ENC_ERR_TIMEOUT;
        }
        if (rv < 0)
            return ENC_ERR_ABORTED;
        enc_engine_handle_event(&ev);
        if (enc_eng.latest_epoch != start_epoch && !world_ready(want_resume))
            return ENC_ERR_EPOCH; /* another death: report status again */
    }
    return ENC_OK;
}

/* A tunable in microseconds as nanoseconds, or auto_us when it is "auto". */
static uint64_t auto_us(enum enc_tunable_id id, uint64_t auto_value_us)
{
    if (strcmp(enc_tunable_str(id), "auto") == 0)
        return auto_value_us * 1000;
    return (uint64_t)ENC_MAX(enc_tunable_ll(id), 0) * 1000;
}

/* ENCORE_SPIN_US and ENCORE_SHM_YIELD_US, or auto: spin only when every
 * rank on this host can have a core of its own (spinning on an
 * oversubscribed host steals the CPU the peer we wait for needs); when it
 * cannot, yield for a millisecond before sleeping, so that the peer we
 * wait for runs at once instead of after our sleep and its wake-up (the
 * figures are in bench/README.md).
 * A job whose every rank has a core of this host spins longer in its
 * shared-memory collectives: a peer that is late there was mostly
 * preempted by another process, for a slice of a few milliseconds, and a
 * waiter that sleeps then gives its own core away and is woken behind that
 * process (IMB Barrier, 2 ranks on a loaded host: 10303 sleeps in 10000
 * barriers at 68 us each with a 50 us spin, 47 sleeps at 0.8-1.3 us with
 * 2 ms; bench/README.md, "IMB attribution").  Native Open MPI never sleeps. */
#define SHM_SPIN_ALONE_US 2000
static void spin_configure(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int local = 0;

    for (int i = 0; i < enc_eng.size; i++)
        local += strcmp(enc_eng.peers[i].addr, enc_eng.peers[enc_eng.rank].addr) == 0;
    bool oversubscribed = cores <= 0 || local > cores;
    bool alone = !oversubscribed && local == enc_eng.size;

    enc_eng.ranks_per_core = cores > 0 ? ENC_MAX((double)local / (double)cores, 1.0) : 1.0;

    enc_eng.spin_ns = auto_us(ENC_TUNE_SPIN_US, oversubscribed ? 0 : 50);
    enc_eng.shm_spin_ns =
        auto_us(ENC_TUNE_SPIN_US, oversubscribed ? 0 : alone ? SHM_SPIN_ALONE_US : 50);
    enc_eng.yield_ns = auto_us(ENC_TUNE_SHM_YIELD_US, oversubscribed ? 1000 : 0);
}

enc_status_t enc_world_adopt(void)
{
    struct enc_msg_world *w = &enc_eng.pending_world;

    if (!enc_eng.have_world || (int)w->size != enc_eng.size)
        return ENC_ERR_STATE;
    free(enc_eng.peers);
    enc_eng.peers = w->peers;
    w->peers = NULL;
    for (int i = 0; i < enc_eng.size; i++)
        enc_eng.locality[i] = (int)w->locality[i];
    enc_eng.epoch = w->epoch;
    spin_configure();
    enc_msg_world_free(w);
    enc_eng.have_world = false;
    enc_links_promote_future();
    return ENC_OK;
}
