/*
 * complete_event.c - "an encore request completed": the one event the
 * completion waits (p2p_complete.c) sleep on, whoever completes it (a
 * point-to-point match, a nonblocking collective's worker in icoll.c).
 * A counter a waiter reads before it sleeps, so no completion is missed,
 * and the point-to-point layer's condition variable (p2p_mpi.h).
 */
#include "enc.h"

#include <mpi.h>

#include "mpi/p2p/p2p_mpi.h"

static uint64_t events; /* atomic: encore requests completed */

uint64_t enc_mpi_complete_events(void) { return __atomic_load_n(&events, __ATOMIC_ACQUIRE); }

void enc_mpi_complete_event_locked(void)
{
    __atomic_add_fetch(&events, 1, __ATOMIC_ACQ_REL);
    enc_p2p_wake_waiters();
}

void enc_mpi_complete_event(void)
{
    __atomic_add_fetch(&events, 1, __ATOMIC_ACQ_REL);
    enc_p2p_lock(); /* a waiter between its check and its sleep holds it */
    enc_p2p_wake_waiters();
    enc_p2p_unlock();
}
