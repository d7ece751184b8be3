/*
 * conn_tx.h - the write side of the point-to-point connections
 * (conn_tx.c): frames queued and written, the payload log's cursor, our
 * connection to a peer made, a lost peer marked down.  All with the lock
 * held.
 */
#ifndef ENC_P2P_CONN_TX_H
#define ENC_P2P_CONN_TX_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"
#include "p2p/p2p_int.h"
#include "p2p/wire.h"

/* Queues a frame of header h and payload to world rank peer (connecting
 * first) and writes what the socket takes now. */
enc_status_t enc_p2p_conn_queue(int peer, const struct enc_p2p_hdr *h, const void *payload);
/* A DATA frame as enc_p2p_conn_queue; lend: the caller waits for it anyway
 * (a blocking send), so a large payload to a peer of this host may be
 * read from the caller's buffer while it is logged (lend.h), this call
 * then returning once the peer has read it. */
enc_status_t enc_p2p_conn_send_data(int peer, const struct enc_p2p_hdr *h, const void *payload,
                                    bool lend);
/* The same for an ACK of a message from the peer's incarnation inc:
 * held until a connection to that incarnation exists. */
enc_status_t enc_p2p_conn_queue_ack(int peer, uint32_t inc, const struct enc_p2p_hdr *h);
/* Writes what peer's connection or ring takes now; marks the peer down
 * when its connection broke. */
void enc_p2p_conn_push(int peer);
/* The peer's incarnation inc is gone: its log waits for its next
 * incarnation's RESUME. */
void enc_p2p_conn_mark_down(int peer, uint32_t inc);
/* Connects to peer unless connected or down: its whole log goes again. */
enc_status_t enc_p2p_conn_connect(int peer, struct p2p_out *o);
/* Rings peer's bell on our TCP connection to it (connected already). */
enc_status_t enc_p2p_conn_ring_bell(int peer, struct p2p_out *o);
/* RESUME m from a peer's new incarnation: connect to it, send the log. */
void enc_p2p_conn_resume_peer(int peer, const struct enc_p2p_msg *m);
/* Nothing queued on any connection (enc_p2p_flush waits for it). */
bool enc_p2p_conn_queues_empty(void);

#endif
