/*
 * holders.h - which ranks hold an entry of the log, and whom to ask for it
 * (holders.c).  One rule for every communicator, the world included.
 */
#ifndef ENC_RECOVERY_LOG_HOLDERS_H
#define ENC_RECOVERY_LOG_HOLDERS_H

#include <stdbool.h>
#include <stdint.h>

/* Runs of this many consecutive entries of a communicator share their
 * holders, so a replaying rank can fetch a run with one request. */
#define ENC_HOLDER_RUN 64

/* A communicator as the log sees it: its id (0: the world) and members. */
struct enc_log_comm {
    uint64_t cid;
    int n;                   /* members */
    const int *members;      /* world rank of each member; NULL: member i is rank i */
};

struct enc_coll;
/* The world of the current epoch. */
struct enc_log_comm enc_log_world(void);
/* The communicator co runs on, as id cid (co->n members at co->ctx.peers). */
struct enc_log_comm enc_log_comm_of(const struct enc_coll *co, uint64_t cid);
/* World rank of member i. */
int enc_log_member(const struct enc_log_comm *c, int i);
/* The root that places an entry (a broadcast's root, in c's ranks, so a
 * root that finished early still holds what it sent), else -1. */
int enc_log_root(const struct enc_coll *co);
/* Is member `member` of c a holder of entry seq?  ENCORE_REPLICAS members
 * on distinct hosts first (when c spans that many), walking from the root
 * or from (seq / ENC_HOLDER_RUN) mod n. */
bool enc_log_is_holder(const struct enc_log_comm *c, uint64_t seq, int root, int member);

/* Whom a rank asks for an entry: the members of comm but `me`, holders
 * first, each holder run walked from its first member so the nearest
 * copies come first.  With completed (per world rank, NULL: none), only
 * members that completed more than need collectives. */
struct enc_log_ask {
    struct enc_log_comm comm;
    int me;                  /* this rank's place in comm, never asked */
    int root;                /* as enc_log_root */
    const uint64_t *completed;
    uint64_t need;
};
/* The world ranks to ask for entry seq, in order; returns how many. */
int enc_log_candidates(const struct enc_log_ask *a, uint64_t seq, int *peers);

#endif
