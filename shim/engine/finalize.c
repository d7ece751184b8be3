/*
 * finalize.c - leaving the encore world.
 *
 * MPI_Finalize is a collective (a barrier), but passing it is not the end:
 * a rank can die after its peers passed the barrier and before it told the
 * tracker, and its restarted incarnation then replays the whole program
 * from the others' logs.  So after FINALIZE every rank keeps serving its
 * log, following new epochs, until the tracker says every rank is done.
 */
#include "enc.h"

#include <errno.h>
#include <poll.h>

#include "engine/scratch.h"
#include "engine/state.h"
#include "recovery/recovery.h"
#include "recovery/serve.h"

/* One tracker event while waiting: 1 when the job is done. */
static int on_event(struct enc_tclient_event *ev)
{
    if (ev->type == ENC_MSG_EVENT && ev->u.ev.kind == ENC_EV_DONE)
        return 1;
    enc_engine_handle_event(ev); /* DEAD, WORLD, RESUME kept; ABORT exits */
    if (enc_eng.have_resume) {
        enc_msg_resume_free(&enc_eng.pending_resume);
        enc_eng.have_resume = 0;
    }
    if (enc_eng.have_world && enc_eng.pending_world.epoch == enc_eng.latest_epoch &&
        enc_eng.pending_world.epoch > enc_eng.epoch) {
        enc_links_close_all(); /* the new epoch's replaying ranks reconnect */
        enc_world_adopt();
    }
    return 0;
}

static int drain_tracker(void)
{
    struct enc_tclient_event ev;
    int got;

    while ((got = enc_tclient_poll_event(enc_eng.tc, &ev)) == ENC_OK)
        if (on_event(&ev))
            return 1;
    return got < 0 ? 1 : 0; /* tracker gone: the job is over for us */
}

/* Serves log requests until the tracker's DONE; bounded by the collective
 * timeout without any activity. */
static int wait_done(void)
{
    uint64_t deadline = enc_deadline_ms(enc_eng.coll_timeout_ms);
    struct pollfd p[2 + ENC_MAX_RANKS];

    for (;;) {
        int n = 0;

        p[n++] = (struct pollfd){.fd = enc_tclient_event_fd(enc_eng.tc), .events = POLLIN};
        p[n++] = (struct pollfd){.fd = enc_eng.lst.wake_fd, .events = POLLIN};
        n = enc_serve_add_pollfds(p, n);
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
        enc_serve_handle_pollfds(p + 2, n - 2);
    }
}

int enc_engine_finalize(void)
{
    struct enc_callsig sig = {.kind = ENC_COLL_FINALIZE, .root = -1, .op = ENC_SIG_OP_NONE,
                              .site = __builtin_return_address(0)};
    struct enc_msg_stats st;
    int rv;

    if (!enc_eng.active)
        return ENC_ERR_STATE;
    rv = enc_barrier(&sig);
    /* one more injection point: after the finalize barrier, before the
     * tracker hears of it (--inject kill:op=<collectives + 2>) */
    enc_inject_check();
    st = (struct enc_msg_stats){.completed = enc_eng.seq, .replayed = enc_eng.replayed,
                                .recovery_s = enc_eng.recovery_s};
    enc_tclient_send_finalize(enc_eng.tc, &st);
    if (enc_eng.recovery)
        wait_done();
    enc_eng.active = 0;
    enc_listener_stop(&enc_eng.lst);
    enc_links_close_all();
    enc_tclient_close(enc_eng.tc);
    enc_recovery_fini();
    enc_scratch_release_all();
    return rv;
}
