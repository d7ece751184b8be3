/*
 * match.h - MPI's matching of messages to receives on one communicator
 * (MPI-free; docs/p2p.md is the design it serves).
 *
 * Two queues: receives posted and not yet matched, and messages arrived
 * and not yet received (unexpected).  The rules are MPI's:
 *   - a receive names a source or ENC_MATCH_ANY and a tag or
 *     ENC_MATCH_ANY; a message matches it when both agree;
 *   - an arriving message goes to the earliest posted receive it matches;
 *   - a receive being posted takes the earliest arrived message it
 *     matches;
 *   - so messages from one sender are received in the order they arrive,
 *     which the caller makes their channel order (non-overtaking: the
 *     caller delivers a channel's messages to enc_match_arrive in sequence
 *     order, chanseq.h);
 *   - a probe sees the message a receive posted now would take, and
 *     leaves it queued; a matched probe (MPI_Mprobe) removes it, and the
 *     message is then received only through its handle.
 *
 * Every queue operation is O(1) for every pattern, wildcards included:
 * a posted receive sits in the one list of its pattern, (src, tag),
 * (src, any), (any, tag) or (any, any), each in post order; an arriving
 * message compares the heads of the four lists it could match and takes
 * the earliest.  An unexpected message sits in the four lists of the
 * patterns it matches, each in arrival order, so a receive of any pattern
 * finds the earliest match at the head of one list.  Lists are found by a
 * hash of (pattern, src, tag) and freed when empty, so a program that uses
 * a new tag per iteration keeps the tables flat.
 *
 * Elements are the caller's (embedded in its requests and message
 * descriptors); the engine only links them.  Not thread-safe: the caller
 * serialises the calls on one communicator.
 *
 * Replay.  Matching is deterministic except where a receive or probe
 * names ENC_MATCH_ANY as source: with one sender, channel order and post
 * order alone decide which receive gets which message, whatever the tags
 * and the timing (test_p2p_match checks it over every interleaving).  So a
 * wildcard-source match is recorded (enc_match_det) and replayed by
 * narrowing the receive to the recorded source (enc_match_replay), which
 * provably yields the same match; enc_match_replayed_ok then checks it
 * got the recorded message.  Receives posted by racing threads are
 * replayed pinned to the recorded message (enc_match_recv.pin).
 */
#ifndef ENC_P2P_MATCH_H
#define ENC_P2P_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "p2p/chanseq.h"

#define ENC_MATCH_ANY (-1)           /* a receive's source or tag: any */
#define ENC_MATCH_MAX_SRC ((1 << 27) - 1)

struct enc_match_list;               /* one pattern's FIFO (private) */

struct enc_match_link {
    struct enc_match_link *prev, *next;
    struct enc_match_list *list;     /* NULL: not queued */
};

/* A message's envelope as the matching sees it. */
struct enc_match_msg {
    int32_t src;                     /* the sender's rank in the communicator */
    int32_t tag;                     /* >= 0 */
    uint64_t seq;                    /* its number on the channel (chanseq.h) */
    uint64_t arrival;                /* out: arrival order on the communicator */
    /* in the unexpected queue: lists (src, tag), (src, any), (any, tag), (any, any) */
    struct enc_match_link link[4];
};

/* A posted receive (also a probe's pattern). */
struct enc_match_recv {
    int32_t src;                     /* a rank or ENC_MATCH_ANY */
    int32_t tag;                     /* >= 0 or ENC_MATCH_ANY */
    /* Replay of a receive whose post raced with another thread's: seq + 1
     * of the one message (from src, a rank) it must take; 0: none. */
    uint64_t pin;
    uint64_t order;                  /* out: post order on the communicator */
    struct enc_match_link link;
};

struct enc_match_table {
    struct enc_match_list **bucket;  /* chains, cap a power of two */
    size_t cap, n;
    struct enc_match_list *spare;    /* emptied lists, reused */
};

struct enc_match {
    struct enc_match_table posted, unexpected;
    struct enc_match_list *pinned;   /* pinned receives (replay only, short) */
    uint64_t next_order, next_arrival;
    size_t nposted, nunexpected;
    /* posted receives (not pinned) per pattern, (src, tag), (src, any),
     * (any, tag), (any, any): an arrival looks only where there are some */
    size_t nposted_pat[4];
};

void enc_match_init(struct enc_match *m);
/* Frees the engine's lists; the queued elements stay the caller's. */
void enc_match_fini(struct enc_match *m);

/* A message arrives (its channel's next one).  *r is the posted receive
 * it matched, now removed from the queue, or NULL when the message was
 * queued as unexpected.  ENC_OK, ENC_ERR_INVAL (src or tag out of range),
 * or ENC_ERR_NOMEM with nothing changed. */
enc_status_t enc_match_arrive(struct enc_match *m, struct enc_match_msg *msg,
                              struct enc_match_recv **r);
/* The posted receive msg would match if it arrived now (nothing
 * changes), or NULL. */
struct enc_match_recv *enc_match_peek(const struct enc_match *m, const struct enc_match_msg *msg);
/* A receive is posted.  *msg is the unexpected message it takes, now
 * removed, or NULL when the receive was queued.  ENC_OK, ENC_ERR_INVAL
 * (bad pattern: a tag below ENC_MATCH_ANY, a pin without a source), or
 * ENC_ERR_NOMEM with nothing changed. */
enc_status_t enc_match_post(struct enc_match *m, struct enc_match_recv *r,
                            struct enc_match_msg **msg);
/* MPI_Probe / MPI_Iprobe: the message a receive of (src, tag) posted now
 * would take, left queued; NULL when none. */
struct enc_match_msg *enc_match_probe(const struct enc_match *m, int src, int tag);
/* MPI_Mprobe / MPI_Improbe: the same, removed from the queue (the caller
 * keeps it as the matched-message handle); NULL when none. */
struct enc_match_msg *enc_match_mprobe(struct enc_match *m, int src, int tag);
/* MPI_Cancel of a receive: true when it was still queued (now removed),
 * false when it had matched already. */
bool enc_match_cancel(struct enc_match *m, struct enc_match_recv *r);

/* Does a match of this receive (or probe pattern) need a determinant? */
static inline bool enc_match_wants_det(const struct enc_match_recv *r)
{
    return r->src == ENC_MATCH_ANY;
}
/* The determinant of msg matching a receive: the creator's call clock on
 * communicator cid. */
void enc_match_det(struct enc_det *d, uint32_t creator, uint64_t clock, uint64_t cid,
                   const struct enc_match_msg *msg);
/* Replays determinant d for receive r before it is posted: r names the
 * recorded source (pinned to the recorded message when pin).  ENC_OK, or
 * ENC_ERR_DIVERGED when d is not a match this receive could have made. */
enc_status_t enc_match_replay(struct enc_match_recv *r, const struct enc_det *d, bool pin);
/* After the replayed receive matched msg: was it the recorded message? */
bool enc_match_replayed_ok(const struct enc_det *d, const struct enc_match_msg *msg);

#endif
