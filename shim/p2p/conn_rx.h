/*
 * conn_rx.h - the read side of the point-to-point connections
 * (conn_rx.c): frames read from peers' connections and rings and handed
 * up through the delivery the layer above registers.  All with the lock
 * held.
 */
#ifndef ENC_P2P_CONN_RX_H
#define ENC_P2P_CONN_RX_H

#include <poll.h>
#include <stdbool.h>

#include "p2p/p2p_int.h"

/* What the transport hands up to the layer above (p2p.c), called with the
 * lock held: a complete DATA frame (the message's ownership passes), an
 * ACK, the start on a peer's first connection, and the posted receive a
 * DATA frame now beginning will match, if its payload can be read
 * straight into that receive's buffer (NULL otherwise).  The transport
 * never names the layer's functions; conn.h's enc_p2p_conn_listen
 * registers it. */
struct enc_p2p_delivery {
    void (*data)(struct enc_p2p_msg *m);
    void (*ack)(uint64_t id);
    enc_status_t (*start_locked)(void);
    struct enc_p2p_recv *(*direct_target)(uint64_t cid, int src, int tag, uint64_t seq,
                                          size_t bytes);
};

/* Forgets the frames half read from a peer (they come again; a dead
 * writer's half-written frame in its ring is never delivered) and closes
 * its connection. */
void enc_p2p_conn_close_in(struct p2p_in *in);
/* Whether a frame is being read into r's buffer. */
bool enc_p2p_conn_streaming_into(const struct enc_p2p_recv *r);
/* The peers' rings: reads what arrived, writes what waits; true when
 * anything moved.  A wait spins on it (shm_wait.c). */
bool enc_p2p_conn_shm_progress(void);
/* The peers' TCP connections to this rank as a poll set (POLLIN), who[i]
 * the peer of p[i], at most enc_p2p.size; and what one of them brought,
 * read (its end marks the peer down; fd: the descriptor polled, ignored
 * unless it is still the peer's). */
int enc_p2p_conn_in_set(struct pollfd *p, int *who);
void enc_p2p_conn_read_peer(int peer, int fd);

#endif
