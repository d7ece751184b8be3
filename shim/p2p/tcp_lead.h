/*
 * tcp_lead.h - who reads the peers' TCP connections, the transport's part
 * (tcp_lead.c; the leader's wait is tcp_wait.h's).  The lock held.
 */
#ifndef ENC_P2P_TCP_LEAD_H
#define ENC_P2P_TCP_LEAD_H

#include <stdbool.h>

#include "core/status.h"

/* The leader's eventfd, made (at the start and in a restored image);
 * closed, and the lead given up, in a snapshot's image. */
enc_status_t enc_p2p_tcp_open(void);
void enc_p2p_tcp_fork_child(void);
/* Connections were installed: a leader polls anew. */
void enc_p2p_tcp_fds_changed(void);
/* The progress thread's part: whether it polls the connections, the
 * longest it may sleep (ms, -1: no bound); after a wake-up, it takes the
 * reads back from an idle leader. */
bool enc_p2p_tcp_progress_reads(int *timeout);
void enc_p2p_tcp_progress_woke(void);

#endif
