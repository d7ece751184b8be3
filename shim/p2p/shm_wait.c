/*
 * shm_wait.c - how a point-to-point wait waits (p2p.h: enc_p2p_wait,
 * enc_p2p_poll, the attentive calls; shm_wait.h: enc_p2p_conn_spin,
 * enc_p2p_conn_sleep): for peers of its host it polls
 * their rings a while, then sleeps on its futex in the segment
 * (shm_link.h); otherwise it reads its TCP connections itself
 * (tcp_wait.c).
 *
 * Spinning pays only while the peer runs at the same time on another
 * core; on a loaded host a spinning rank burns the time slice its peer
 * needs, and a sleeper woken by the futex runs sooner than a spinner that
 * was preempted (measured on this 2-core machine at load 15: 8-byte
 * ping-pong 5 us sleeping at once, 70-150 us spinning 50 us first).  So
 * the spin adapts: it doubles after a spin that saw its message, halves
 * after one that did not or that was preempted, and stops below
 * ENC_SPIN_MIN_NS; once stopped, every ENC_SPIN_PROBE_EVERY-th wait spins
 * the whole ENCORE_SPIN_US again (spin_adapt.h) to find out whether the host got quiet.  (It used
 * to stop after a single preemption: on this VM one comes every few
 * hundred waits even on a quiet host, so a 200000-message 8-byte
 * ping-pong slept on the futex at 3.8 us a message instead of spinning
 * at 1.65 us.)  The yield phase
 * (ENCORE_SHM_YIELD_US, oversubscribed hosts) is kept as it is.
 */
#include "enc.h"

#include <sched.h>
#include <time.h>

#include "p2p/conn_rx.h"
#include "p2p/p2p_int.h"
#include "p2p/shm_link.h"
#include "p2p/shm_wait.h"
#include "p2p/spin_adapt.h"
#include "p2p/tcp_wait.h"

/* A gap this long between two looks: we did not run (spin_adapt.h). */
#define PREEMPTED_NS ENC_SPIN_PREEMPTED_NS
/* The same gap in time-stamp counter ticks, PREEMPTED_NS at a counter of
 * 1 GHz (less at a faster counter, still far above a look's length): a
 * look that found a message reads the counter, several times cheaper than
 * the clock, before the return. */
#define PREEMPTED_TICKS 20000u

/* The spin that paid lately (the layer's lock held). */
static struct enc_spin_adapt sw;

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* This thread's attentive calls, nested (a blocking receive's post and
 * its wait, a send inside a wait's follow): only the outermost one marks
 * the rank's line (a fetch-and-add and a full fence on a line the
 * writers read), or takes over the count an earlier call left held
 * (shm_link.h), and leaves it held when it ends. */
static ENC_HOT_TLS unsigned attending;

static void attend_up(void)
{
    if (attending++ == 0 && !enc_p2p_shm_take_held())
        enc_p2p_shm_attend(1);
}

/* true when this thread is no longer attentive, its count held or taken
 * away: look once more (writers that need a read ring from now on; what
 * one wrote before is read by that look) */
static bool attend_down(void)
{
    if (attending == 0 || --attending > 0)
        return false;
    if (!enc_p2p_shm_leave_held())
        enc_p2p_shm_attend(-1);
    return true;
}

/* Between two looks under the layer's lock, a spinning wait watches the
 * rings' write positions without it (enc_p2p_shm_unread), up to this many
 * pauses: a look under the lock (the lock, a scan of every ring to and
 * from the peers, the clock) is several times as long as a pause, and a
 * message arriving meanwhile waited for it. */
#define WATCH_PAUSES 32

/* Pauses until a ring to this rank has unread bytes, this rank's events
 * moved (a completion elsewhere), or WATCH_PAUSES passed (then the caller
 * looks under the lock anyway: a ring to a peer may wait for room). */
static void watch_rings(uint64_t events)
{
    for (int i = 0; i < WATCH_PAUSES; i++) {
        if (enc_p2p_shm_unread() || __atomic_load_n(&enc_p2p.events, __ATOMIC_RELAXED) != events)
            return;
        __builtin_ia32_pause();
    }
}

bool enc_p2p_conn_spin(void)
{
    uint64_t spin, limit, t0, t, events;
    bool moved = false, preempted = false;

    if (!enc_p2p_shm_any() || enc_p2p.out == NULL)
        return false;
    if (enc_p2p_conn_shm_progress())
        return true;
    spin = enc_spin_adapt_budget(&sw, enc_p2p_shm_spin_ns());
    limit = spin + enc_p2p_shm_yield_ns();
    if (limit == 0) /* sleep at once: writers wake us */
        return false;
    t0 = t = now_ns();
    events = enc_p2p.events; /* a completion elsewhere (icoll.c) ends the spin too */
    attend_up();
    while (!moved && t - t0 < limit && enc_p2p.events == events) {
        uint64_t was = t, tick = __builtin_ia32_rdtsc();

        enc_p2p_unlock();
        if (t - t0 < spin)
            watch_rings(events);
        else
            sched_yield();
        enc_p2p_lock();
        /* the gap is measured before the look: a look that found a large
         * message copies it (a cross-memory read of 32 KiB takes longer
         * than PREEMPTED_TICKS), and counted as preempted it halved the
         * spin after each one, until every large message slept on the
         * futex (a wake-up per message: a 32 KiB ping-pong at 2-3 times
         * its spinning latency) */
        tick = __builtin_ia32_rdtsc() - tick;
        if ((moved = enc_p2p_conn_shm_progress())) {
            preempted = t - t0 < spin && tick > PREEMPTED_TICKS;
            break;
        }
        t = now_ns();
        if (t - t0 < spin && t - was > PREEMPTED_NS) {
            preempted = true;
            break;
        }
    }
    (void)attend_down(); /* writers may ring from now on: look once more (below) */
    enc_spin_adapt_learn(&sw, enc_p2p_shm_spin_ns(), spin > 0, moved, preempted);
    return moved || enc_p2p.events != events || enc_p2p_conn_shm_progress();
}

enc_status_t enc_p2p_conn_sleep(uint64_t deadline)
{
    uint32_t seen;

    if (deadline != ENC_NEVER && enc_ms_left(deadline) == 0)
        return ENC_ERR_TIMEOUT;
    seen = enc_p2p_shm_sleep_begin();
    if (!enc_p2p_conn_shm_progress()) {
        enc_p2p_unlock();
        enc_p2p_shm_sleep(seen, deadline);
        enc_p2p_lock();
    }
    enc_p2p_shm_sleep_end();
    (void)enc_p2p_conn_shm_progress();
    return ENC_OK;
}

void enc_p2p_attend_begin(void)
{
    if (enc_p2p_shm_any())
        attend_up();
}

void enc_p2p_attend_end(void)
{
    /* writers ring from now on: look once more (a full look only when a
     * ring holds something or the bell is set: the usual call just read
     * its message) */
    if (enc_p2p_shm_any() && attend_down() && enc_p2p_shm_look_needed())
        (void)enc_p2p_conn_shm_progress();
}

void enc_p2p_poll(void)
{
    if (!enc_p2p_shm_any()) {
        enc_p2p_tcp_poll();
        return;
    }
    if (!enc_p2p_shm_look_needed())
        return;
    enc_p2p_lock();
    (void)enc_p2p_conn_shm_progress();
    enc_p2p_unlock();
}

/* The layer's lock held: peers of this host are polled a while, then the
 * wait sleeps where their writes wake it (the futex), else on the layer's
 * condition variable (TCP peers, completions), at most until deadline. */
enc_status_t enc_p2p_wait(uint64_t deadline)
{
    /* peers of this host: poll their rings a while before sleeping */
    if (enc_p2p_conn_spin())
        return ENC_OK;
    if (enc_p2p_shm_any()) /* sleep where peers' writes wake us */
        return enc_p2p_conn_sleep(deadline);
    return enc_p2p_tcp_wait(deadline); /* read the sockets ourselves */
}
