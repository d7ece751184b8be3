/*
 * tcp_wait.c - a point-to-point wait on peers of other hosts reads their
 * connections itself (tcp_wait.h: enc_p2p_tcp_wait, enc_p2p_tcp_poll; the
 * progress thread's part, and the lead's state it shares with the
 * transport, are tcp_lead.c's).
 *
 * The progress thread used to read every socket and signal the layer's
 * condition variable: a message woke two threads, the progress thread
 * from poll and then the waiting one, on the way to every reply (an
 * 8-byte ping-pong across two namespace hosts took twice native Open
 * MPI's time, whose waiting thread reads the socket itself).  Now the
 * thread that waits *leads*: it polls the connections (spinning with
 * poll(0) for an adaptive while, spin_adapt.h, then sleeping in poll)
 * and reads what arrived, under the layer's lock as the progress thread
 * did.  One thread reads the sockets at a time: while a thread leads
 * (enc_p2p.tcp_led) the progress thread leaves them out of its poll set
 * (it still writes what the sockets could not take, and installs new
 * connections, after which it wakes the leader to poll them too).
 *
 * The lead outlives the wait: a program that waits again soon (a
 * ping-pong, a halo exchange) keeps it without telling the progress
 * thread anything.  The progress thread, woken every ENC_P2P_TCP_HOLD_MS
 * while a thread leads, takes the reads back once no wait ran for
 * ENC_P2P_TCP_HOLD_NS: a rank that computes still gets its messages read
 * (a synchronous send to it acknowledged) within a few milliseconds, as
 * with the rings' held count (shm_link.h).  A leader that leaves while
 * other threads wait on the condition variable gives the reads back at
 * once.  The first message after the progress thread took them back
 * wakes both threads once (the progress thread then polls without them).
 */
#include "enc.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/tunables.h"
#include "engine/engine.h"
#include "engine/layer.h"
#include "p2p/conn_rx.h"
#include "p2p/conn_spill.h"
#include "p2p/p2p_int.h"
#include "p2p/spin_adapt.h"
#include "p2p/tcp_wait.h"

/* The spin that paid lately, and the leader's poll set (one leader at a
 * time: the lock's). */
static struct enc_spin_adapt tw;
static struct {
    struct pollfd *p;       /* p[0]: wait_fd, then the connections */
    int *who;
    int n, cap;
    uint64_t gen;           /* enc_p2p.tcp_fds_gen it was made at */
} ls;

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ENCORE_SPIN_US for TCP waits: auto is 50 us when this host has a core
 * for each of its ranks, else 0 (a spinning rank would take its peer's
 * core). */
static uint64_t spin_ns(void)
{
    static int64_t ns = -1;

    if (ns < 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        const char *mine = enc_engine_peer_host(enc_engine_rank());
        int local = 0;

        for (int r = 0; r < enc_engine_size(); r++)
            local += strcmp(enc_engine_peer_host(r), mine) == 0;
        if (strcmp(enc_tunable_str(ENC_TUNE_SPIN_US), "auto") == 0)
            ns = cores > 0 && local <= cores ? 50000 : 0;
        else
            ns = (int64_t)ENC_MAX(enc_tunable_ll(ENC_TUNE_SPIN_US), 0) * 1000;
    }
    return (uint64_t)ns;
}

/* The leader's poll set, made anew when connections changed. */
static bool leader_set(void)
{
    if (ls.p != NULL && ls.gen == enc_p2p.tcp_fds_gen)
        return true;
    if (ls.cap < 1 + enc_p2p.size) {
        struct pollfd *p = realloc(ls.p, (size_t)(1 + enc_p2p.size) * sizeof(*p));
        int *who = p != NULL ? realloc(ls.who, (size_t)(1 + enc_p2p.size) * sizeof(int)) : NULL;

        if (p != NULL)
            ls.p = p;
        if (who == NULL)
            return false;
        ls.who = who;
        ls.cap = 1 + enc_p2p.size;
    }
    ls.p[0] = (struct pollfd){.fd = enc_p2p.wait_fd, .events = POLLIN};
    ls.n = 1 + enc_p2p_conn_in_set(ls.p + 1, ls.who + 1);
    ls.gen = enc_p2p.tcp_fds_gen;
    return true;
}

/* Reads the connections poll found ready (the lock held); true when bytes
 * were read or the eventfd was. */
static bool serve_ready(void)
{
    bool any = false;

    if (ls.p[0].revents) {
        uint64_t v;

        (void)!read(enc_p2p.wait_fd, &v, sizeof(v));
        any = true;
    }
    for (int i = 1; i < ls.n; i++)
        if (ls.p[i].revents) {
            enc_p2p_conn_read_peer(ls.who[i], ls.p[i].fd);
            any = true;
        }
    return any;
}

/* One look (timeout_ms 0) or one sleep in poll, the lock released
 * meanwhile; true when something was read. */
static bool look(int timeout_ms)
{
    int k;

    if (!leader_set())
        return false;
    enc_p2p.tcp_polling = timeout_ms != 0;
    enc_p2p_unlock();
    k = poll(ls.p + (timeout_ms == 0), (nfds_t)(ls.n - (timeout_ms == 0)), timeout_ms);
    enc_p2p_lock();
    enc_p2p.tcp_polling = false;
    if (k <= 0) {
        if (k < 0 && errno != EINTR)
            ENC_WARN("p2p", "poll: %m");
        return false;
    }
    if (timeout_ms == 0)
        ls.p[0].revents = 0;
    return serve_ready();
}

/* Spins with looks until a message completed something (events moved) or
 * the adaptive spin ran out; true when it did. */
static bool spin(uint64_t events)
{
    uint64_t budget = enc_spin_adapt_budget(&tw, spin_ns()), t0, t;
    bool preempted = false;

    if (budget == 0)
        return false;
    t0 = t = now_ns();
    while (enc_p2p.events == events && t - t0 < budget) {
        uint64_t was = t;

        (void)look(0);
        t = now_ns();
        if (t - was > ENC_SPIN_PREEMPTED_NS) {
            preempted = true;
            break;
        }
    }
    enc_spin_adapt_learn(&tw, spin_ns(), true, enc_p2p.events != events, preempted);
    return enc_p2p.events != events;
}

/* Sleeps on the condition variable (another thread leads). */
static enc_status_t cv_wait(uint64_t deadline)
{
    struct timespec ts;

    enc_p2p.tcp_followers++;
    if (deadline == ENC_NEVER) {
        pthread_cond_wait(&enc_p2p.cv, &enc_p2p.mu);
    } else {
        ts.tv_sec = (time_t)(deadline / 1000000000u);
        ts.tv_nsec = (long)(deadline % 1000000000u);
        pthread_cond_timedwait(&enc_p2p.cv, &enc_p2p.mu, &ts);
    }
    enc_p2p.tcp_followers--;
    return ENC_OK;
}

/* The leader's wait: a look, the spin, then one sleep in poll. */
static void lead(uint64_t deadline)
{
    uint64_t events = enc_p2p.events;
    int ms;

    if (look(0) && enc_p2p.events != events)
        return;
    /* nothing came: time to spill payloads written to another host
     * (conn_spill.h), a short batch without the lock; the caller waits on,
     * with a poll set made again (connections may have changed meanwhile) */
    if (enc_p2p_spill_idle_step())
        return;
    if (spin(events))
        return;
    while (enc_p2p.events == events) {
        ms = deadline == ENC_NEVER ? -1 : enc_ms_left(deadline);
        if (ms == 0)
            return;
        if (look(ms) && enc_p2p.events == events)
            continue; /* part of a frame: read on */
        return;
    }
}

enc_status_t enc_p2p_tcp_wait(uint64_t deadline)
{
    if (deadline != ENC_NEVER && enc_ms_left(deadline) == 0)
        return ENC_ERR_TIMEOUT;
    if (enc_p2p.tcp_leading || enc_p2p.wait_fd < 0 || enc_p2p.in == NULL)
        return cv_wait(deadline);
    if (!leader_set()) { /* no memory for a poll set: the progress thread reads */
        if (enc_p2p.tcp_led) {
            enc_p2p.tcp_led = false;
            enc_p2p_conn_wake();
        }
        return cv_wait(deadline);
    }
    enc_p2p.tcp_led = enc_p2p.tcp_leading = true;
    lead(deadline);
    enc_p2p.tcp_leading = false;
    enc_p2p.tcp_left_ns = now_ns();
    if (enc_p2p.tcp_followers > 0) { /* they need a reader: the progress thread's again */
        enc_p2p.tcp_led = false;
        enc_p2p_conn_wake();
    }
    return ENC_OK;
}

void enc_p2p_tcp_poll(void)
{
    if (!__atomic_load_n(&enc_p2p.tcp_led, __ATOMIC_RELAXED)) /* the progress thread reads */
        return;
    enc_p2p_lock();
    if (enc_p2p.tcp_led && !enc_p2p.tcp_leading && enc_p2p.wait_fd >= 0)
        (void)look(0);
    enc_p2p_unlock();
}
