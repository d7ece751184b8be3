/*
 * tcp_wait.h - a point-to-point wait that reads the TCP connections itself
 * (tcp_wait.c).
 */
#ifndef ENC_P2P_TCP_WAIT_H
#define ENC_P2P_TCP_WAIT_H

#include <stdint.h>

#include "core/status.h"

/* The lock held: a wait on TCP peers (enc_p2p_wait without peers of this
 * host). */
enc_status_t enc_p2p_tcp_wait(uint64_t deadline);
/* A call that polls (Test, Iprobe: enc_p2p_poll; the lock not held): one
 * look at the connections while this rank's reads are a leader's. */
void enc_p2p_tcp_poll(void);

#endif
