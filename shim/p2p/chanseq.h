/*
 * chanseq.h - point-to-point channels' sequence numbers, the rule that
 * suppresses re-sent messages, and the record of a determinant
 * (MPI-free; docs/p2p.md is the design they serve).
 *
 * A channel is (communicator id, sender, receiver).  The sender numbers
 * its messages on a channel 0, 1, 2, ... in the order the program sends
 * them; the receiver delivers them in that order only.  After a rank is
 * restored, its re-executed sends carry the numbers they had the first
 * time, so a survivor tells a re-sent message (already delivered: dropped)
 * from a new one by the number alone, and a number past the next expected
 * one means a message went missing: a fault, never data.
 *
 * One enc_chanseq per rank holds the state of every channel it is an end
 * of, keyed by (communicator id, the peer's rank in it).
 */
#ifndef ENC_P2P_CHANSEQ_H
#define ENC_P2P_CHANSEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

/* Both directions of the channels between this rank and one peer on one
 * communicator. */
struct enc_chan_pos {
    uint64_t send;              /* the number of the next message sent */
    uint64_t recv;              /* the number of the next message to deliver */
    uint64_t send_chain;        /* the chain after the last message sent */
    uint64_t recv_chain;        /* the chain after the last message delivered */
};

/*
 * A channel's chain is a digest of every message on it so far: each
 * message's (tag, payload bytes, synchronous or not) folded into the
 * chain of the ones before.  The sender puts the chain after each message
 * on its frame; the receiver folds the same fields of what it delivers
 * and compares.  A restored sender re-executes its sends and its re-sends
 * below the receiver's position are dropped unseen, but the last of them
 * carries the chain of all of them: a re-execution that sent another tag,
 * length or mode shows there (and at the next new message), never
 * silently (docs/p2p.md, 12.8).
 */
uint64_t enc_chan_link(uint64_t chain, int tag, uint64_t bytes, bool sync);

struct enc_chanseq_slot;

struct enc_chanseq {
    struct enc_chanseq_slot *slot; /* open addressing, cap a power of two */
    size_t n, cap;
    struct enc_chanseq_slot *last; /* the slot used last (NULL: none), looked at first */
};

/* What to do with a message that arrives with a given number. */
enum enc_chan_verdict {
    ENC_CHAN_DELIVER = 0,       /* the next one: deliver it (the position moved on) */
    ENC_CHAN_DUPLICATE,         /* delivered before (a restored sender's re-send): drop it */
    ENC_CHAN_GAP,               /* past the next one: a message is missing */
};

void enc_chanseq_init(struct enc_chanseq *cs);
void enc_chanseq_fini(struct enc_chanseq *cs);

/* The number for the next message to peer on communicator cid, in *seq,
 * and the channel moves on; *chain (may be NULL) is the channel's chain
 * with this message, of tag, bytes and sync, linked.  ENC_OK or
 * ENC_ERR_NOMEM (a first message on a new channel makes its entry). */
enc_status_t enc_chanseq_next_send(struct enc_chanseq *cs, uint64_t cid, int peer,
                                   uint64_t *seq);
enc_status_t enc_chanseq_next_send_linked(struct enc_chanseq *cs, uint64_t cid, int peer,
                                          int tag, uint64_t bytes, bool sync, uint64_t *seq,
                                          uint64_t *chain);
/* A message from peer on cid carrying seq arrived: the verdict, and on
 * ENC_CHAN_DELIVER the channel moves on.  *expected (may be NULL) is the
 * number the channel waited for.  A channel never seen before waits for 0;
 * a failure to make its entry is reported as ENC_CHAN_GAP with
 * *expected = UINT64_MAX. */
enum enc_chan_verdict enc_chanseq_accept(struct enc_chanseq *cs, uint64_t cid, int peer,
                                         uint64_t seq, uint64_t *expected);
/* The chain check of a message from peer on cid carrying seq and chain
 * (with tag, bytes, sync), after enc_chanseq_accept's verdict: a delivered
 * message's chain must be the channel's chain with it linked (then it is
 * the channel's chain), and the re-send of the last message delivered
 * must carry the channel's chain; other re-sends are not checked.  False
 * on a mismatch. */
bool enc_chanseq_chain_ok(struct enc_chanseq *cs, uint64_t cid, int peer, uint64_t seq,
                          enum enc_chan_verdict v, int tag, uint64_t bytes, bool sync,
                          uint64_t chain);
/* The channel's position (zeros for a channel never used). */
struct enc_chan_pos enc_chanseq_pos(const struct enc_chanseq *cs, uint64_t cid, int peer);
/* Sets a channel's position: a rank restored from a checkpoint takes the
 * positions recorded with it.  ENC_OK or ENC_ERR_NOMEM. */
enc_status_t enc_chanseq_set(struct enc_chanseq *cs, uint64_t cid, int peer,
                             struct enc_chan_pos pos);
/* The communicator is freed: its channels go (their numbers are never
 * reused: a communicator id is never reused either). */
void enc_chanseq_drop_comm(struct enc_chanseq *cs, uint64_t cid);
/* Channels held. */
size_t enc_chanseq_count(const struct enc_chanseq *cs);
/* Calls fn for every channel held, in no particular order (no allocation:
 * a snapshot image lists its positions with it). */
void enc_chanseq_each(const struct enc_chanseq *cs,
                      void (*fn)(void *arg, uint64_t cid, int peer, struct enc_chan_pos pos),
                      void *arg);

/*
 * Determinants: the outcome of one call whose result the program could
 * act on and that another run could see differently.  Each one is keyed by
 * the rank's clock: the number of such calls it made so far, counted in
 * program order, which a re-execution repeats exactly as long as every
 * outcome before it is replayed.  The record is fixed-size so that a ring
 * of them in the host's shared segment has fixed slots.
 */
enum enc_det_kind {
    /* A receive or probe naming MPI_ANY_SOURCE (or any receive on a
     * communicator whose receives raced between threads) got the message
     * (src, seq) whose tag was tag.  Replay: the receive names src and must
     * get exactly seq. */
    ENC_DET_MATCH = 1,
    /* seq consecutive calls from clock on (Iprobe, Improbe, Test, Testany,
     * Testsome, Testall) found nothing. */
    ENC_DET_NONE = 2,
    /* The call at clock (Test*, Waitany, Waitsome) completed the request
     * at index idx of its array (ENC_DET_ALL: every one, Testall); several
     * indices of one call are consecutive records, the last one flagged
     * ENC_DET_LAST. */
    ENC_DET_DONE = 3,
    /* MPI_Cancel of a receive at clock: seq 1 it was cancelled, 0 it had
     * matched already. */
    ENC_DET_CANCEL = 4,
    /* A send on a communicator whose sends raced between threads took
     * number seq on the channel to rank src (its destination).  Replay:
     * the send takes exactly that number. */
    ENC_DET_SEND = 5,
};

#define ENC_DET_LAST 0x01u        /* flags: the last index of a DONE set */
#define ENC_DET_ALL UINT32_MAX     /* DONE: every request of the call */
#define ENC_DET_WIRE 40

struct enc_det {
    enum enc_det_kind kind;
    uint8_t flags;
    uint32_t creator;           /* world rank whose call it was */
    uint64_t clock;             /* its nondeterministic-call number */
    uint64_t cid;               /* MATCH, CANCEL, SEND: the communicator */
    int32_t src;                /* MATCH: the sender's rank in cid; SEND: the destination's */
    int32_t tag;                /* MATCH, SEND: the message's tag (checked on replay) */
    uint64_t seq;               /* MATCH, SEND: channel number; NONE: calls; CANCEL: 1/0 */
    uint32_t idx;               /* DONE: the request's index */
};

/* Big-endian, ENC_DET_WIRE bytes:
 *   u8 kind, u8 flags, u16 0, u32 creator, u64 clock, u64 cid,
 *   i32 src, i32 tag, u64 seq (DONE: u32 0, u32 idx). */
void enc_det_encode(const struct enc_det *d, uint8_t out[ENC_DET_WIRE]);
/* ENC_OK, or ENC_ERR_PROTO for a record no encoder makes (wrong length,
 * kind, flags, reserved bits, or fields out of range for the kind). */
enc_status_t enc_det_decode(struct enc_det *d, const uint8_t *in, size_t len);
/* "match clock=12 cid=3 src=2 tag=7 seq=40" and the like, for logs and
 * divergence reports. */
void enc_det_format(const struct enc_det *d, char *out, size_t cap);

#endif
