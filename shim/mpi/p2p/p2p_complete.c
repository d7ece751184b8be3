/*
 * p2p_complete.c - the completion calls once point-to-point is in use or
 * while a nonblocking collective's request is held (arrays as the real
 * MPI understands them: p2p_persist.c has swapped persistent shells for
 * their inner requests): where they sleep, and the determinants of their
 * outcomes.
 *
 * Sleeping.  The real MPI's waits spin in its progress loop, which on an
 * oversubscribed host starves the threads that complete encore's requests
 * (point-to-point matches, nonblocking collectives' workers).  So the
 * waits sleep on the point-to-point layer's condition variable, and every
 * completion of an encore request, point-to-point (enc_mpi_preq_finish) or
 * nonblocking collective (icoll.c's finish_job), counts one event and
 * wakes it (enc_mpi_complete_event).  A waiter reads the count before it
 * looks at its requests and sleeps only while it is unchanged, so no
 * event is missed; only requests of the real MPI's own (neither kind)
 * make it look again every millisecond.  Every wait is bounded by
 * ENCORE_COLL_TIMEOUT_MS without progress.
 *
 * Determinants (docs/p2p.md, 5.1).  Which requests a Test, Testany,
 * Testall, Testsome, Request_get_status, Waitany or Waitsome found
 * complete depends on timing, and the program may act on it.  Each such
 * call takes a clock; a call that found nothing extends a NONE run, one
 * that found something records DONE with the indices (det_store.h), before
 * it returns.  A restarted incarnation replaying its clocks returns
 * "nothing" for a NONE, and for a DONE waits for exactly those requests
 * and reports exactly them, whatever else completed meanwhile.
 */
#include "enc.h"

#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "engine/engine.h"
#include "engine/layer.h"
#include "mpi/coll/icoll.h"
#include "mpi/p2p/p2p_mpi.h"
#include "p2p/det_store.h"

#define OTHER_TICK_MS 1 /* requests of the real MPI's own: looked at this often */


/* h is pending and neither point-to-point nor a nonblocking collective
 * of encore's (no lock held). */
static bool foreign(MPI_Request h)
{
    bool p2p;

    if (h == MPI_REQUEST_NULL || enc_mpi_icoll_owns(h))
        return false;
    enc_p2p_lock();
    p2p = enc_mpi_preq_find(h) != NULL;
    enc_p2p_unlock();
    return !p2p;
}

static uint64_t seen_now(void) { return enc_mpi_complete_events(); }

/* Sleeps until an event after seen (a tick at most when a foreign request
 * is among the n): ENC_OK, or ENC_ERR_TIMEOUT once deadline passed. */
static enc_status_t sleep_after(uint64_t seen, int n, const MPI_Request *reqs, uint64_t deadline)
{
    uint64_t until = deadline, tick = enc_deadline_ms(OTHER_TICK_MS);
    enc_status_t rv = ENC_OK;

    if (enc_ms_left(deadline) == 0)
        return ENC_ERR_TIMEOUT;
    if (seen_now() != seen)
        return ENC_OK;
    for (int i = 0; i < n; i++)
        if (foreign(reqs[i])) {
            until = tick < deadline ? tick : deadline;
            break;
        }
    enc_p2p_lock();
    if (seen_now() == seen)
        rv = enc_mpi_p2p_sleep(until);
    enc_p2p_unlock();
    return rv == ENC_ERR_TIMEOUT && enc_ms_left(deadline) > 0 ? ENC_OK : rv;
}

static uint64_t wait_deadline(void) { return enc_deadline_ms(enc_engine_coll_timeout_ms()); }

static int timed_out(const char *fn)
{
    return enc_mpi_raise(MPI_ERR_OTHER, "%s: no request completed within "
                         "ENCORE_COLL_TIMEOUT_MS (%d ms)", fn, enc_engine_coll_timeout_ms());
}

/* Ends an attending wait (enc_p2p_attend_begin) that began. */
static void attend_end(bool began)
{
    if (!began)
        return;
    enc_p2p_lock();
    enc_p2p_attend_end();
    enc_p2p_unlock();
}

/* Sleeps until every one of the n requests is complete (left for the
 * real call to complete).  Foreign requests are left to the real call
 * too (it makes their progress) unless foreign_too. */
static int settle(const char *fn, int n, const MPI_Request *reqs, bool foreign_too)
{
    uint64_t deadline = wait_deadline();
    bool attending = false;

    for (int i = 0; i < n; i++) {
        if (!foreign_too && foreign(reqs[i]))
            continue;
        bool icoll = enc_mpi_icoll_owns(reqs[i]); /* sleeps where its worker wakes it */

        for (;;) {
            uint64_t seen = seen_now(), ended = enc_mpi_icoll_ended();
            int flag = 1;

            if (reqs[i] == MPI_REQUEST_NULL ||
                enc_real_Request_get_status(reqs[i], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
                flag)
                break;
            if (icoll) { /* not attending: its worker wakes it, no peer's ring */
                attend_end(attending);
                attending = false;
                if (enc_ms_left(deadline) == 0)
                    return timed_out(fn);
                enc_mpi_icoll_sleep(ended, deadline);
                continue;
            }
            if (!attending && enc_p2p_started()) {
                enc_p2p_attend_begin();
                attending = true;
            }
            if (sleep_after(seen, 1, &reqs[i], deadline) != ENC_OK) {
                attend_end(attending);
                return timed_out(fn);
            }
        }
    }
    attend_end(attending);
    return MPI_SUCCESS;
}

/* ---- determinants ---- */

/* The clock of a completion call, 0 when none is taken (the rank has not
 * used point-to-point yet: no determinant store). */
static uint64_t tick(void) { return enc_det_store_on() ? enc_det_store_tick() : 0; }

static void diverged(const char *fn, const struct enc_det *d) __attribute__((noreturn));
static void diverged(const char *fn, const struct enc_det *d)
{
    char rec[128], msg[300];

    enc_det_format(d, rec, sizeof(rec));
    snprintf(msg, sizeof(msg), "%s: replay divergence: this call was recorded as %s", fn, rec);
    ENC_ERROR("p2p", "%s", msg);
    enc_engine_abort(1, msg);
}

/* The indices a DONE set names (ENC_DET_ALL alone: "every one"). */
#define SMALLSET 8
struct set {
    uint32_t small[SMALLSET], *idx;
    int n;
};

static void set_fini(struct set *s)
{
    if (s->idx != s->small)
        free(s->idx);
}

/* What an earlier incarnation saw at clock: 0 nothing recorded (live),
 * 1 NONE, 2 DONE (the indices in *s: set_fini it). */
static int recorded(const char *fn, uint64_t clock, struct set *s)
{
    struct enc_det one, *d;
    size_t n;

    s->idx = s->small;
    s->n = 0;
    if (clock == 0 || !enc_det_store_find(clock, &one))
        return 0;
    if (one.kind == ENC_DET_NONE)
        return 1;
    if (one.kind != ENC_DET_DONE)
        diverged(fn, &one);
    n = enc_det_store_find_all(clock, &one, 1);
    if ((d = malloc(n * sizeof(*d))) == NULL ||
        (n > SMALLSET && (s->idx = malloc(n * sizeof(*s->idx))) == NULL))
        enc_engine_abort(1, "out of memory replaying a determinant");
    n = enc_det_store_find_all(clock, d, n);
    for (size_t i = 0; i < n; i++)
        s->idx[i] = d[i].idx;
    s->n = (int)n;
    if (!(d[n - 1].flags & ENC_DET_LAST)) /* never written so: the file was damaged */
        diverged(fn, &d[n - 1]);
    free(d);
    return 2;
}

static void record_done(uint64_t clock, const uint32_t *idx, int n)
{
    struct enc_det small[SMALLSET] = {{0}}, *d = small;

    if (clock == 0 || n <= 0)
        return;
    if (n > SMALLSET && (d = malloc((size_t)n * sizeof(*d))) == NULL)
        enc_engine_abort(1, "out of memory recording a determinant");
    for (int i = 0; i < n; i++)
        d[i] = (struct enc_det){.kind = ENC_DET_DONE, .clock = clock, .idx = idx[i],
                                .flags = i == n - 1 ? ENC_DET_LAST : 0};
    enc_det_store_record_n(d, (size_t)n);
    if (d != small)
        free(d);
}

/* Replays a DONE set on reqs: waits for those requests and completes
 * exactly them (statuses at positions 0.. in the order recorded). */
static int replay_set(const char *fn, int n, MPI_Request *reqs, const struct set *set,
                      int *indices, MPI_Status *statuses)
{
    int rv = MPI_SUCCESS, flag;

    for (int k = 0; k < set->n && rv == MPI_SUCCESS; k++) {
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE || statuses == MPI_STATUS_IGNORE
                              ? MPI_STATUS_IGNORE
                              : &statuses[k];
        uint32_t i = set->idx[k];

        if (i >= (uint32_t)n) {
            struct enc_det d = {.kind = ENC_DET_DONE, .idx = i};

            diverged(fn, &d);
        }
        if ((rv = settle(fn, 1, &reqs[i], true)) == MPI_SUCCESS)
            rv = enc_real_Test(&reqs[i], &flag, st);
        indices[k] = (int)i;
    }
    return rv;
}

/* A Wait* that replays a NONE: the recorded run does not fit this call. */
static void none_in_wait(const char *fn, uint64_t clock)
{
    struct enc_det d = {.kind = ENC_DET_NONE, .clock = clock, .seq = 1};

    diverged(fn, &d);
}

/* ---- the calls ---- */

int enc_mpi_complete_wait(MPI_Request *request, MPI_Status *status)
{
    int rv = settle("MPI_Wait", 1, request, false);

    return rv != MPI_SUCCESS ? rv : enc_real_Wait(request, status);
}

int enc_mpi_complete_waitall(int n, MPI_Request *reqs, MPI_Status *statuses)
{
    int rv = settle("MPI_Waitall", n, reqs, false);

    return rv != MPI_SUCCESS ? rv : enc_real_Waitall(n, reqs, statuses);
}

#define IDLE_FOLLOW_NS 10000000

void enc_mpi_complete_idle(void)
{
    static __thread uint64_t next, calls;
    uint64_t now;

    enc_p2p_poll(); /* what peers of this host wrote meanwhile */
    if (++calls % 64 != 0) /* the clock is read every 64th empty poll */
        return;
    if ((now = enc_now_ns()) < next)
        return;
    next = now + IDLE_FOLLOW_NS;
    enc_p2p_lock();
    enc_mpi_p2p_follow();
    enc_p2p_unlock();
}

/* The outcome of a one-flag call (Test, Request_get_status, Testall):
 * recorded after a live call (DONE 0 or ALL, or a NONE run). */
static void record_flag(uint64_t clock, int rv, int flag, uint32_t idx)
{
    if (rv == MPI_SUCCESS && flag)
        record_done(clock, &idx, 1);
    else if (rv == MPI_SUCCESS && clock != 0)
        enc_det_store_none(clock);
    if (rv == MPI_SUCCESS && !flag) {
        enc_mpi_icoll_polled();
        enc_mpi_complete_idle();
    }
}

int enc_mpi_complete_test(MPI_Request *request, int *flag, MPI_Status *status)
{
    uint64_t clock = tick();
    struct set set;
    int rv;

    switch (recorded("MPI_Test", clock, &set)) {
    case 1:
        *flag = 0;
        enc_mpi_complete_idle();
        return MPI_SUCCESS;
    case 2:
        set_fini(&set);
        if ((rv = settle("MPI_Test", 1, request, true)) != MPI_SUCCESS)
            return rv;
        return enc_real_Test(request, flag, status);
    }
    rv = enc_real_Test(request, flag, status);
    record_flag(clock, rv, *flag, 0);
    return rv;
}

int enc_mpi_complete_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    uint64_t clock = tick();
    struct set set;
    int rv;

    switch (recorded("MPI_Request_get_status", clock, &set)) {
    case 1:
        *flag = 0;
        enc_mpi_complete_idle();
        return MPI_SUCCESS;
    case 2:
        set_fini(&set);
        if ((rv = settle("MPI_Request_get_status", 1, &request, true)) != MPI_SUCCESS)
            return rv;
        return enc_real_Request_get_status(request, flag, status);
    }
    rv = enc_real_Request_get_status(request, flag, status);
    record_flag(clock, rv, *flag, 0);
    return rv;
}

int enc_mpi_complete_testall(int n, MPI_Request *reqs, int *flag, MPI_Status *statuses)
{
    uint64_t clock = tick();
    struct set set;
    int rv;

    switch (recorded("MPI_Testall", clock, &set)) {
    case 1:
        *flag = 0;
        enc_mpi_complete_idle();
        return MPI_SUCCESS;
    case 2:
        set_fini(&set);
        if ((rv = settle("MPI_Testall", n, reqs, true)) != MPI_SUCCESS)
            return rv;
        return enc_real_Testall(n, reqs, flag, statuses);
    }
    rv = enc_real_Testall(n, reqs, flag, statuses);
    record_flag(clock, rv, *flag, ENC_DET_ALL);
    return rv;
}

/* One look for Testany (one) or Testsome: *count MPI_UNDEFINED (no active
 * request), 0 (none complete) or how many completed, their indices in
 * indices. */
static int look(bool one, int n, MPI_Request *reqs, int *count, int *indices,
                MPI_Status *statuses)
{
    int flag = 0, rv;

    if (!one)
        return enc_real_Testsome(n, reqs, count, indices, statuses);
    rv = enc_real_Testany(n, reqs, &indices[0], &flag, statuses);
    *count = !flag ? 0 : indices[0] == MPI_UNDEFINED ? MPI_UNDEFINED : 1;
    return rv;
}

/* Testany, Waitany (one), Testsome and Waitsome: the indices completed,
 * or ENC_DET_ALL alone for "no active request". */
static int pick(const char *fn, bool wait, bool one, int n, MPI_Request *reqs, int *count,
                int *indices, MPI_Status *statuses)
{
    uint64_t clock = tick(), deadline = wait_deadline();
    struct set set;
    int rv;

    switch (recorded(fn, clock, &set)) {
    case 1:
        if (wait)
            none_in_wait(fn, clock);
        *count = 0;
        enc_mpi_complete_idle();
        return MPI_SUCCESS;
    case 2:
        if (set.n == 1 && set.idx[0] == ENC_DET_ALL) {
            rv = look(one, n, reqs, count, indices, statuses);
        } else {
            *count = set.n;
            rv = replay_set(fn, n, reqs, &set, indices, statuses);
        }
        set_fini(&set);
        return rv;
    }
    for (bool attending = false;;) {
        uint64_t seen = seen_now();

        if ((rv = look(one, n, reqs, count, indices, statuses)) != MPI_SUCCESS ||
            *count != 0 || !wait) {
            attend_end(attending);
            break;
        }
        if (!attending && enc_p2p_started()) {
            enc_p2p_attend_begin();
            attending = true;
        }
        if (sleep_after(seen, n, reqs, deadline) != ENC_OK) {
            attend_end(attending);
            return timed_out(fn);
        }
    }
    if (rv != MPI_SUCCESS || *count == 0 || *count == MPI_UNDEFINED)
        record_flag(clock, rv, *count != 0, ENC_DET_ALL);
    else
        record_done(clock, (const uint32_t *)indices, *count); /* int and u32 alike */
    return rv;
}

static int any(const char *fn, bool wait, int n, MPI_Request *reqs, int *index, int *flag,
               MPI_Status *status)
{
    int count = 0, rv = pick(fn, wait, true, n, reqs, &count, index, status);

    *flag = count != 0;
    if (count != 1)
        *index = MPI_UNDEFINED;
    return rv;
}

int enc_mpi_complete_testany(int n, MPI_Request *reqs, int *index, int *flag,
                             MPI_Status *status)
{
    return any("MPI_Testany", false, n, reqs, index, flag, status);
}

int enc_mpi_complete_waitany(int n, MPI_Request *reqs, int *index, MPI_Status *status)
{
    int flag;

    return any("MPI_Waitany", true, n, reqs, index, &flag, status);
}

int enc_mpi_complete_testsome(int n, MPI_Request *reqs, int *outcount, int *indices,
                              MPI_Status *statuses)
{
    return pick("MPI_Testsome", false, false, n, reqs, outcount, indices, statuses);
}

int enc_mpi_complete_waitsome(int n, MPI_Request *reqs, int *outcount, int *indices,
                              MPI_Status *statuses)
{
    return pick("MPI_Waitsome", true, false, n, reqs, outcount, indices, statuses);
}
