/*
 * finalize.c - leaving the encore world.
 *
 * MPI_Finalize is a collective (a barrier), but passing it is not the end:
 * a rank can die after its peers passed the barrier and before it told the
 * tracker, and its restarted incarnation then replays the whole program
 * from the others' logs.  So when the layer above asks for it (its
 * finalize op), every rank keeps serving the layer's connections after
 * FINALIZE, following new epochs, until the tracker says every rank is
 * done.
 */
#include "enc.h"

#include <errno.h>
#include <poll.h>

#include "core/procmem.h"
#include "engine/layer.h"
#include "engine/scratch.h"
#include "engine/state.h"
#include "proto/frame.h"
#include "proto/msgs.h"

/* One tracker event while waiting: true when the job is done. */
static bool on_event(struct enc_tclient_event *ev)
{
    if (ev->type == ENC_MSG_EVENT && ev->u.ev.kind == ENC_EV_DONE)
        return true;
    enc_engine_handle_event(ev); /* DEAD, WORLD, RESUME kept; ABORT exits */
    if (enc_eng.have_resume) {
        enc_msg_resume_free(&enc_eng.pending_resume);
        enc_eng.have_resume = false;
    }
    if (enc_eng.have_world && enc_eng.pending_world.epoch == enc_eng.latest_epoch &&
        enc_eng.pending_world.epoch > enc_eng.epoch) {
        enc_links_close_all(); /* the new epoch's replaying ranks reconnect */
        enc_world_adopt();
    }
    return false;
}

/* True when the job is over for us (DONE, or the tracker is gone). */
static bool drain_tracker(void)
{
    struct enc_tclient_event ev;
    int got;

    while ((got = enc_tclient_poll_event(enc_eng.tc, &ev)) == ENC_OK)
        if (on_event(&ev))
            return true;
    return got < 0;
}

/* Serves the layer's connections until the tracker's DONE; bounded by the
 * collective timeout without any activity. */
static enc_status_t wait_done(void)
{
    uint64_t deadline = enc_deadline_ms(enc_eng.coll_timeout_ms);
    struct pollfd p[2 + ENC_MAX_RANKS];

    for (;;) {
        int n = 0;

        p[n++] = (struct pollfd){.fd = enc_tclient_event_fd(enc_eng.tc), .events = POLLIN};
        p[n++] = (struct pollfd){.fd = enc_eng.lst.wake_fd, .events = POLLIN};
        n += enc_layer_pollfds(p + n, ENC_MAX_RANKS);
        if (poll(p, (nfds_t)n, enc_ms_left(deadline)) < 0 && errno != EINTR)
            return ENC_ERR_SYS;
        if (enc_ms_left(deadline) == 0) {
            ENC_WARN("engine", "no word from the tracker that every rank finalized; leaving");
            return ENC_ERR_TIMEOUT;
        }
        for (int i = 0; i < n; i++)
            if (p[i].revents)
                deadline = enc_deadline_ms(enc_eng.coll_timeout_ms);
        if (p[0].revents && drain_tracker())
            return ENC_OK;
        if (p[1].revents)
            enc_links_poll_accepted();
        (void)enc_layer_serve(p + 2, n - 2);
    }
}

enc_status_t enc_engine_finalize(void)
{
    const struct enc_engine_ops *ops = enc_eng.ops;
    struct enc_callsig sig = {.kind = ENC_COLL_FINALIZE, .root = -1, .op = ENC_SIG_OP_NONE,
                              .site = __builtin_return_address(0)};
    struct enc_msg_stats st;
    bool serve = false;
    enc_status_t rv;
    long kb;

    if (!enc_eng.active)
        return ENC_ERR_STATE;
    rv = enc_barrier(&sig);
    /* one more injection point: after the finalize barrier, before the
     * tracker hears of it (--inject kill:op=<collectives + 2>) */
    enc_inject_check();
    st = (struct enc_msg_stats){.completed = enc_eng.seq};
    if (enc_proc_private_rss(0, &kb) == ENC_OK) /* for the job summary */
        st.private_rss = (uint64_t)kb * 1024;
    if (ops && ops->finalize)
        serve = ops->finalize(enc_eng.ops_arg, &st);
    enc_tclient_send_finalize(enc_eng.tc, &st);
    if (serve)
        wait_done();
    enc_eng.active = false;
    enc_listener_stop(&enc_eng.lst);
    enc_links_close_all();
    enc_tclient_close(enc_eng.tc);
    if (ops && ops->fini)
        ops->fini(enc_eng.ops_arg);
    enc_scratch_release_all();
    return rv;
}
