/*
 * tracker_int.h - internals of the tracker shared by its files.  Not for
 * the launcher.  Calls go one way: tracker.c drives the rendezvous
 * (rendezvous.c), which announces worlds (world_announce.c), and both send
 * through the connection layer (conn.c); conn.c hands frames and broken
 * connections up only through the trk_conn_ops the rendezvous fills.
 */
#ifndef ENC_TRACKER_TRACKER_INT_H
#define ENC_TRACKER_TRACKER_INT_H

#include "proto/auth.h"
#include "proto/frame.h"
#include "proto/msgs.h"
#include "tracker/tracker.h"

/* How long one control message may take to leave; a rank that cannot take
 * a few hundred bytes in that time is treated as lost. */
#define TRK_SEND_TIMEOUT_MS 2000

enum trk_conn_state {
    TRK_AUTH = 0,       /* challenge sent, waiting for AUTH */
    TRK_WAIT_REGISTER,  /* authenticated, waiting for REGISTER */
    TRK_RANK,           /* the registered control connection of a rank */
};

struct trk_conn {
    int fd;
    int state;
    int rank;                       /* TRK_RANK only */
    struct enc_auth_server auth;
    struct enc_auth_id id;
    struct enc_frame_reader rd;
    uint64_t deadline;              /* before TRK_RANK: connect timeout */
    char peer[80];                  /* "addr:port" for messages */
    const char *broken;             /* set when a send failed; handled by the sweep */
    char why[160];                  /* reason for rejecting it, for the one warning */
};

struct enc_tracker;

/* What the connection layer hands up to the rendezvous. */
struct trk_conn_ops {
    /* The first frame of an authenticated connection, a REGISTER. */
    enc_status_t (*on_register)(struct enc_tracker *t, struct trk_conn *c, const void *p,
                                size_t len);
    /* A frame on a registered connection (c->rd holds it). */
    enc_status_t (*on_frame)(struct enc_tracker *t, struct trk_conn *c);
    /* A registered connection failed a send: its rank is lost. */
    void (*on_broken)(struct enc_tracker *t, struct trk_conn *c);
};

struct trk_rank {
    struct trk_conn *conn;          /* NULL when not registered */
    uint32_t incarnation;           /* of the last registration */
    uint32_t min_inc;               /* lowest incarnation still accepted (fencing) */
    bool ever;                      /* registered at least once */
    bool fresh;                     /* registered since the last WORLD */
    bool finalized;
    bool has_status;
    uint32_t status_epoch;
    uint64_t completed;
    uint64_t last_seen;
    struct enc_msg_register reg;
    bool has_stats;
    struct enc_msg_stats stats;
    bool dropped;                   /* DROPPED received: this rank's range */
    bool nondet;                    /* NONDET received from any incarnation */
    bool det_kept;                  /* DET_PUT received: its determinants are copied here */
    uint8_t *det;                   /* that copy (det_copy.c): the file's bytes */
    size_t det_len, det_cap;
    struct enc_msg_dropped drop;
};

struct enc_tracker {
    struct enc_tracker_config cfg;
    const struct trk_conn_ops *conn_ops;
    struct enc_secret secret;
    int lfd;
    uint16_t port;
    uint32_t epoch;
    bool world_formed;
    bool pending;                   /* a rendezvous (WORLD not yet sent) is open */
    uint64_t reg_deadline;
    uint64_t recovery_start;        /* 0: no recovery in progress */
    int recovery_rank;
    bool aborted;
    bool drop_reported;             /* hooks.dropped was called */
    struct trk_rank *ranks;
    struct trk_conn **conns;
    int nconns;
    size_t capconns;
    struct enc_tracker_recovery *recov;
    int nrecov;
    uint64_t hb_timeout_ns;
    int64_t connect_timeout_ms;
    int64_t register_timeout_ms;
};

/* conn.c: connections, below the rendezvous */
enc_status_t enc_trk_accept(struct enc_tracker *t);
/* Closes and forgets c; the rendezvous detaches it from its rank first. */
void enc_trk_conn_drop(struct enc_tracker *t, struct trk_conn *c);
/* Reads what the socket has: handshake, then frames.  A negative status
 * means the connection must go (the caller logs and drops it). */
enc_status_t enc_trk_conn_input(struct enc_tracker *t, struct trk_conn *c);
enc_status_t enc_trk_send(struct enc_tracker *t, struct trk_conn *c, uint8_t type,
                          const void *p, size_t len);
void enc_trk_sweep(struct enc_tracker *t);

/* rendezvous.c */
extern const struct trk_conn_ops enc_trk_rendezvous_ops;
void enc_trk_rank_lost(struct enc_tracker *t, int rank, const char *why);
void enc_trk_open_rendezvous(struct enc_tracker *t);

/* world_announce.c: sends WORLD (and RESUME) once the rendezvous is complete */
void enc_trk_check_ready(struct enc_tracker *t);
/* One frame to every registered rank (finalized ones too). */
void enc_trk_broadcast(struct enc_tracker *t, uint8_t type, const void *buf, size_t len);

/* det_copy.c: the ranks' determinant files, copied (DET_PUT, DET_GET) */
enc_status_t enc_trk_det_put(struct enc_tracker *t, struct trk_rank *r, struct trk_conn *c);
enc_status_t enc_trk_det_get(struct enc_tracker *t, const struct trk_rank *r, struct trk_conn *c);

/* topo_log.c: the ring and tree at ENCORE_LOG=debug */
struct enc_locality;
void enc_trk_log_topology(const struct enc_locality *locs, const int *order, int n);

#endif
