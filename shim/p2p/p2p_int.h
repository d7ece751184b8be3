/*
 * p2p_int.h - state shared by the point-to-point layer's files (private
 * to shim/p2p): state.c (the lock), p2p.c (matching, sends), conn.c
 * (connections, the progress thread).
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
    bool spilling;          /* its payload is being written to the spill file (conn_trim.c) */
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
    uint8_t *stage;         /* bytes read from fd ahead (conn.c tcp_rx): slen, spos used */
    size_t slen, spos;
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
    uint64_t shm_remote;          /* of those received, copied out of the sender's log */
    int wake_fd;            /* eventfd: the progress thread polls anew */
    /* Who reads the peers' TCP connections (tcp_wait.c): a thread that
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
    /* p2p.c's, called by conn.c (the lock held): a complete DATA frame
     * (the message's ownership passes), an ACK, the start on a peer's
     * first connection. */
    void (*on_data)(struct enc_p2p_msg *m);
    void (*on_ack)(uint64_t id);
    enc_status_t (*start_locked)(void);
};

extern struct p2p_state enc_p2p;

/* state.c: a message (zeroed) with room for its payload inline when it
 * is small (at most ENC_P2P_INLINE_MAX bytes: then data points there),
 * freed by enc_p2p_msg_free. */
#define ENC_P2P_INLINE_MAX 256
struct enc_p2p_msg *enc_p2p_msg_new(size_t bytes);

/* p2p.c (the lock held) */
enc_status_t enc_p2p_make_state(void);
enc_status_t enc_p2p_start_locked(void);

/* p2p.c: the posted receive a DATA frame now beginning will match, if
 * its payload can be read straight into that receive's buffer; NULL
 * otherwise.  conn.c: whether a frame is being read into r's buffer. */
struct enc_p2p_recv *enc_p2p_direct_target(uint64_t cid, int src, int tag, uint64_t seq,
                                           size_t bytes);
bool enc_p2p_conn_streaming_into(const struct enc_p2p_recv *r);

/* conn.c: the connection tables and the eventfd; the progress thread. */
enc_status_t enc_p2p_conn_alloc(void);
enc_status_t enc_p2p_conn_start(void);
/* The progress thread computes its poll set anew (any thread). */
void enc_p2p_conn_wake(void);
/* A restored rank tells every peer where it is now (RESUME): each sends
 * it its log again.  Once, from the program's thread (the world adopted). */
void enc_p2p_announce(void);
/* Peers' connections are handed to this layer from now on. */
void enc_p2p_conn_listen(void);
/* Queues a frame of header h and payload to world rank peer (connecting
 * first) and writes what the socket takes now. */
enc_status_t enc_p2p_conn_queue(int peer, const struct enc_p2p_hdr *h, const void *payload);
/* The same for an ACK of a message from the peer's incarnation inc:
 * held until a connection to that incarnation exists. */
enc_status_t enc_p2p_conn_queue_ack(int peer, uint32_t inc, const struct enc_p2p_hdr *h);
/* The peers' rings (the lock held): reads what arrived, writes what
 * waits; true when anything moved.  A wait spins on it (spin_wait). */
bool enc_p2p_conn_shm_progress(void);
/* A wait's first phase (the lock held, released while it spins): polls
 * the rings for ENCORE_SPIN_US, then yields for ENCORE_SHM_YIELD_US; true
 * when anything moved (the caller looks again instead of sleeping). */
bool enc_p2p_conn_spin(void);
/* The wait's second phase when peers of this host use rings: sleeps on
 * this rank's futex in the segment (woken by a peer's write, room freed,
 * or enc_p2p_wake_waiters) until deadline; as enc_p2p_wait. */
enc_status_t enc_p2p_conn_sleep(uint64_t deadline);
/* The channel key of (cid, src, world rank dst) (p2p.h). */
uint64_t enc_p2p_key(uint64_t cid, int src, int dst_world);
/* conn.c (the lock held): the peers' TCP connections to this rank as a
 * poll set (POLLIN), who[i] the peer of p[i], at most enc_p2p.size; and
 * what one of them brought, read (its end marks the peer down; fd: the
 * descriptor polled, ignored unless it is still the peer's). */
int enc_p2p_conn_in_set(struct pollfd *p, int *who);
void enc_p2p_conn_read_peer(int peer, int fd);
/* tcp_wait.c (the lock held): a wait on TCP peers (enc_p2p_wait without
 * peers of this host); connections were installed (a leader polls anew);
 * the progress thread's part: whether it polls the connections, the
 * longest it may sleep (ms, -1: no bound), after a wake-up; a snapshot's
 * image and its restart. */
enc_status_t enc_p2p_tcp_wait(uint64_t deadline);
void enc_p2p_tcp_fds_changed(void);
/* A call that polls (Test, Iprobe: enc_p2p_poll; the lock not held): one
 * look at the connections while this rank's reads are a leader's. */
void enc_p2p_tcp_poll(void);
bool enc_p2p_tcp_progress_reads(int *timeout);
void enc_p2p_tcp_progress_woke(void);
void enc_p2p_tcp_fork_child(void);
enc_status_t enc_p2p_tcp_open(void);
/* conn_trim.c (the lock held): the frames of the log to peer that the
 * peer's positions say it has (the cursor skips them); frees the log's
 * frames below floor on channel key, or on several hosts spills them (the
 * lock released while it writes) (false: no channel of this rank's has
 * that key); payload log bytes held now and at most. */
bool enc_p2p_skipped(const struct p2p_out *o, const struct p2p_frame *f);
void enc_p2p_set_skip(int peer, const uint8_t *pairs, size_t bytes);
bool enc_p2p_conn_trim(uint64_t key, uint64_t floor);
/* conn_trim.c: in a snapshot's image the frames a spill batch was
 * writing stay whole (enc_p2p_conn_trim writes a trim's payloads in
 * batches, the lock released during each). */
void enc_p2p_spill_fork_child(void);
/* Frees the written frames of channel key below floor from every log,
 * spilled or not (a committed checkpoint covers them): bytes freed. */
size_t enc_p2p_conn_release(uint64_t key, uint64_t floor);
/* The cursor's frame is spilled (a lost host's rank re-executes from the
 * start): its payload is read back into memory.  ENC_OK, or the job ends
 * with one line naming the message that was lost. */
enc_status_t enc_p2p_unspill_cursor(struct p2p_out *o);
void enc_p2p_log_added(const struct p2p_frame *f);
/* A frame left the log without a trim (ENCORE_RECOVERY=0 keeps none). */
void enc_p2p_log_removed(const struct p2p_frame *f);
/* conn.c: a snapshot's fork (the lock held by the forking thread): in the
 * image every descriptor of the layer is closed and frames half read are
 * forgotten; restored, the layer starts again (eventfd, progress thread). */
void enc_p2p_conn_fork_child(void);
enc_status_t enc_p2p_conn_restart(void);
/* Ends the job with one line: a peer's connection broke outside finalize. */
void enc_p2p_peer_lost(int peer, const char *what) __attribute__((noreturn));

#endif
