/*
 * trk.h - internals of the tracker shared by its files (conn.c,
 * rendezvous.c, tracker.c, summary.c).  Not for the launcher.
 */
#ifndef ENC_TRACKER_TRK_H
#define ENC_TRACKER_TRK_H

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

struct trk_rank {
    struct trk_conn *conn;          /* NULL when not registered */
    uint32_t incarnation;           /* of the last registration */
    uint32_t min_inc;               /* lowest incarnation still accepted (fencing) */
    int ever;                       /* registered at least once */
    int fresh;                      /* registered since the last WORLD */
    int finalized;
    int has_status;
    uint32_t status_epoch;
    uint64_t completed;
    uint64_t last_seen;
    struct enc_msg_register reg;
    int has_stats;
    struct enc_msg_stats stats;
};

struct enc_tracker {
    struct enc_tracker_config cfg;
    struct enc_secret secret;
    int lfd;
    uint16_t port;
    uint32_t epoch;
    int world_formed;
    int pending;                    /* a rendezvous (WORLD not yet sent) is open */
    uint64_t reg_deadline;
    uint64_t recovery_start;        /* 0: no recovery in progress */
    int recovery_rank;
    int aborted;
    struct trk_rank *ranks;
    struct trk_conn **conns;
    int nconns;
    int capconns;
    struct enc_tracker_recovery *recov;
    int nrecov;
    uint64_t hb_timeout_ns;
    int64_t connect_timeout_ms;
    int64_t register_timeout_ms;
};

/* conn.c */
int enc_trk_accept(struct enc_tracker *t);
void enc_trk_conn_drop(struct enc_tracker *t, struct trk_conn *c);
int enc_trk_conn_input(struct enc_tracker *t, struct trk_conn *c);
int enc_trk_send(struct enc_tracker *t, struct trk_conn *c, uint8_t type, const void *p,
                 size_t len);
void enc_trk_sweep(struct enc_tracker *t);

/* rendezvous.c */
int enc_trk_on_register(struct enc_tracker *t, struct trk_conn *c, const void *p, size_t len);
int enc_trk_on_frame(struct enc_tracker *t, struct trk_conn *c);
void enc_trk_rank_lost(struct enc_tracker *t, int rank, const char *why);
void enc_trk_check_ready(struct enc_tracker *t);
void enc_trk_open_rendezvous(struct enc_tracker *t);

#endif
