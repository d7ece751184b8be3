/*
 * p2p_int.h - state shared by the point-to-point layer's files (private
 * to shim/p2p), and what state.c (the lock, the wake-ups) and p2p.c
 * (matching, sends) define for the other files.  Each of the transport's
 * files has its own header: conn.h (lifecycle), conn_tx.h (writing),
 * conn_rx.h (reading, and the delivery the layer above registers),
 * progress.h (the progress thread), conn_trim.h (the payload log's trims
 * and releases), conn_spill.h (its spill file), tcp_lead.h (who reads the TCP connections); the waits'
 * are shm_wait.h and tcp_wait.h.
 */
#ifndef ENC_P2P_P2P_INT_H
#define ENC_P2P_P2P_INT_H

#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "p2p/chanseq.h"
#include "p2p/match.h"
#include "p2p/p2p.h"
#include "p2p/wire.h"

/* A frame waiting to be written. */
struct p2p_frame {
    struct p2p_frame *next;
    uint64_t key, seq;      /* DATA: its channel (enc_p2p_chan_key) and number */
    bool spilled;           /* only the header is here; the payload at spill_off */
    off_t spill_off;
    size_t len;             /* header and payload, spilled or not */
    uint32_t inc;           /* a held ACK: the peer's incarnation it is for */
    uint8_t buf[];          /* header, then payload */
};

/* A channel's position a restored peer sent (POSITIONS): its image had
 * every message of the channel below pos. */
struct p2p_skip {
    uint64_t key, pos;
};

/* This rank's connection to a peer.  Every DATA frame sent to the peer
 * stays in its log, in send order (the sender-based payload log), until
 * the peer's newest parked snapshot image has received it (a TRIM of its
 * channel key, conn_trim.c): a new connection, after the peer was
 * restored, writes the log again from the positions its image had
 * (skip), and the peer drops what it had by channel number.  ACKs are
 * control frames, written once. */
struct p2p_out {
    int fd;                 /* -1: not connected */
    bool down;              /* the peer was lost: wait for its RESUME */
    struct p2p_frame *log, *log_tail;
    struct p2p_frame *cursor; /* the next log frame to write, NULL: all written */
    size_t off;             /* bytes of cursor already written */
    struct p2p_frame *ctrl, *ctrl_tail;
    size_t ctrl_off;
    /* ACKs for messages of a newer incarnation than the one this
     * connection reaches (read from its ring before its RESUME came on
     * TCP): they go once the RESUME connected us to it (a RESUME drops
     * the control frames queued for the incarnation before). */
    struct p2p_frame *held, *held_tail;
    uint64_t logged;        /* bytes in the log */
    /* The spill's walks (conn_spill.c): the last frame of the log's prefix
     * that holds nothing to spill, where the next early spill starts (written
     * payloads to a peer on another host), both NULL: at the head; the
     * payload bytes written since the last early spill was queued, and
     * whether one is queued. */
    struct p2p_frame *spilled_to, *early_at;
    size_t early_bytes;
    bool early_queued;
    uint32_t inc;           /* the incarnation it reaches (0 until a RESUME) */
    /* A peer of this host: DATA frames go through the ring to it (control
     * frames stay on TCP), once the peer reset the ring for this
     * connection (its `resets` moved past shm_base, read before connecting). */
    bool shm, shm_ready;
    uint64_t shm_base;
    struct p2p_skip *skip;  /* the restored peer's positions: frames below are not sent */
    size_t nskip;
    /* The cursor's frame as written into the ring when its payload is read
     * by the peer from the log (REMOTE: header, then locator). */
    uint8_t remote[ENC_P2P_HDR_BYTES + ENC_P2P_LOC_BYTES]; /* remote.h */
    /* A payload of the program lent to the peer (lend.h): the last ticket
     * given, and whether a sending thread waits for the peer to read it
     * (one lend at a time: other sends take the log's way meanwhile). */
    uint64_t lend_ticket;
    bool lending;
};

/* A stream of frames being read: the frame at hand. */
struct p2p_rx {
    uint8_t hdr[ENC_P2P_HDR_BYTES];
    size_t hgot;            /* header bytes read */
    struct enc_p2p_msg *msg; /* DATA being read, payload got bytes so far */
    size_t got;
    bool remote;            /* REMOTE DATA: its locator, lgot bytes so far, then the copy */
    uint8_t loc[ENC_P2P_LOC_BYTES];
    size_t lgot;
};

/* The connection a peer made to us, and its ring to us (a peer of this
 * host: read while the connection is installed). */
struct p2p_in {
    int fd;                 /* -1: none */
    uint8_t *stage;         /* bytes read from fd ahead (conn_rx.c tcp_rx): slen, spos used */
    size_t slen, spos;
    bool drained;           /* the last recv emptied fd (conn_rx.c tcp_rx) */
    struct p2p_rx tcp, ring;
    bool ring_on;           /* the ring was reset for this connection */
    uint32_t inc;           /* the incarnation that made it */
};

/* One communicator's queues. */
struct p2p_comm {
    uint64_t cid;
    struct enc_match m;
    struct p2p_comm *next;
};

struct enc_p2p_delivery; /* conn.h */

struct p2p_state {
    pthread_mutex_t mu;
    pthread_cond_t cv;      /* something arrived, was delivered or written */
    bool started, finishing, stop;
    bool announced;         /* a restored rank's RESUME went to every peer */
    int rank, size;         /* world */
    struct p2p_out *out;
    struct p2p_in *in;
    struct p2p_comm *comms;
    struct enc_chanseq chans;
    struct enc_p2p_sync *syncs; /* waiting for their ACK */
    uint64_t next_sync;
    uint64_t events;        /* enc_p2p_wake_waiters calls: a spinning wait's signal */
    uint64_t shm_sent, shm_recvd; /* messages through the rings (the finalize line) */
    uint64_t shm_bells;      /* BELL frames sent to readers of our rings (the same) */
    uint64_t shm_remote;          /* of those received, copied out of the sender's process */
    uint64_t shm_lent;            /* of those, the payload from its lent buffer (lend.h) */
    int wake_fd;            /* eventfd: the progress thread polls anew */
    /* Who reads the peers' TCP connections (tcp_wait.c, tcp_lead.c): a thread that
     * waits reads them itself while it leads (tcp_led; the progress
     * thread leaves them out of its poll set), and keeps the lead after
     * its wait until the progress thread finds it idle for
     * ENC_P2P_TCP_HOLD_NS. */
    bool tcp_led;
    bool tcp_leading;       /* the leader is inside its wait now */
    bool tcp_polling;       /* it sleeps in poll: wait_fd wakes it */
    int tcp_followers;      /* other threads waiting on cv meanwhile */
    uint64_t tcp_left_ns;   /* when the leader's last wait ended */
    uint64_t tcp_fds_gen;   /* connections installed: a leader's poll set is stale */
    int wait_fd;            /* eventfd: the leader polls anew */
    pthread_t thread;
    int tid;
    /* The progress thread's (progress.c), the lock's.  shm_retry: it
     * sleeps at most SHM_RETRY_MS, so a ring waiting for room needs no
     * wake-up either.  rings_behind: a look at a ring stopped at its
     * turn's end with frames left in it: nothing else would bring the
     * reader back to them (their writer found the bell set, rung for an
     * earlier frame, and this look cleared it), so the progress thread
     * looks again without sleeping. */
    bool shm_retry;
    bool rings_behind;
    /* p2p.c's, called by the transport (conn_rx.h; enc_p2p_conn_listen) */
    const struct enc_p2p_delivery *up;
};

extern struct p2p_state enc_p2p;

/* state.c: a message (zeroed) with room for its payload inline when it
 * is small (at most ENC_P2P_INLINE_MAX bytes: then data points there),
 * freed by enc_p2p_msg_free. */
#define ENC_P2P_INLINE_MAX 256
struct enc_p2p_msg *enc_p2p_msg_new(size_t bytes);

/* state.c: true on the progress thread (progress.c sets it). */
extern ENC_HOT_TLS bool enc_p2p_on_progress_thread;
/* state.c: the progress thread polls anew (its eventfd); _conn_wake only
 * once the eventfd exists (any thread). */
void enc_p2p_wake_thread(void);
void enc_p2p_conn_wake(void);
/* Ends the job with one line: a peer's connection broke outside finalize. */
void enc_p2p_peer_lost(int peer, const char *what) __attribute__((noreturn));

/* p2p.c (the lock held) */
enc_status_t enc_p2p_make_state(void);
enc_status_t enc_p2p_start_locked(void);

#endif
