/*
 * shm_wait.h - a point-to-point wait's phases for peers of this host
 * (shm_wait.c; enc_p2p_wait, enc_p2p_poll and the attentive calls are
 * p2p.h's).
 */
#ifndef ENC_P2P_SHM_WAIT_H
#define ENC_P2P_SHM_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"

/* A wait's first phase (the lock held, released while it spins): polls
 * the rings for ENCORE_SPIN_US, then yields for ENCORE_SHM_YIELD_US; true
 * when anything moved (the caller looks again instead of sleeping). */
bool enc_p2p_conn_spin(void);
/* The wait's second phase when peers of this host use rings: sleeps on
 * this rank's futex in the segment (woken by a peer's write, room freed,
 * or enc_p2p_wake_waiters) until deadline; as enc_p2p_wait. */
enc_status_t enc_p2p_conn_sleep(uint64_t deadline);

#endif
