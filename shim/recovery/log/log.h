/*
 * log.h - the result log (store.c): every logged entry, whichever
 * communicator made it, keyed by (communicator id, sequence number on that
 * communicator) with the caller signature that made it.  The world is
 * communicator 0.  One holder rule (holders.h), one memory budget
 * (ENCORE_LOG_MEM_MAX) and one spill file (spill.h) for all of them, and
 * one way to trim them: by the floors snapshots set and by checkpoints.
 *
 * A rank keeps each entry it holds until no rank can ask for it again, and
 * every other entry until every member of its communicator is known to
 * have completed it, so whichever ranks survive a failure can answer a
 * restarted or lagging rank.
 *
 * Nothing here is particular to collectives: an origin of entries names
 * its streams by 64-bit ids with their members (holders.h), numbers its
 * entries, and hands over their bytes (struct enc_log_put).  Collective
 * results are the origin today (recovery/ops.c); point-to-point payloads,
 * one stream per channel, are the next.
 */
#ifndef ENC_RECOVERY_LOG_LOG_H
#define ENC_RECOVERY_LOG_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "recovery/log/holders.h"
#include "recovery/log/sigrec.h"

enc_status_t enc_log_init(void);
void enc_log_fini(void);

/* An entry to record: its key on its communicator, its signature, and its
 * sig->len bytes. */
struct enc_log_put {
    uint64_t seq;
    const struct enc_sigrec *sig;
    int me;                  /* this rank's place among the members */
    int root;                /* places the entry (holders.h), -1: its seq does */
    const void *data;        /* the bytes, or NULL when pack writes them */
    void (*pack)(const void *arg, void *dst);
    const void *pack_arg;
    bool in_resbuf;          /* they stay in the host's result buffer at resbuf_at */
    uint64_t resbuf_at;
    /* every member completed the entries of c below seq (a collective that
     * ran live and that no member can finish before all entered): the
     * members that do not hold them release them */
    bool everyone_entered;
};
/* Records entry p->seq of c (replacing one recorded before, as a replay
 * does): ENC_OK, or ENC_ERR_NOMEM. */
enc_status_t enc_log_record(const struct enc_log_comm *c, const struct enc_log_put *p);

/* Entry (cid, seq): ENC_OK with *sig, *data and *len (data stays the log's,
 * valid until the next lookup), or ENC_ERR_NOT_FOUND. */
enc_status_t enc_log_find(uint64_t cid, uint64_t seq, struct enc_sigrec *sig,
                          const void **data, size_t *len);
/* The world's bootstrap entry made at (site, occurrence), wherever its seq. */
enc_status_t enc_log_find_bootstrap(const char *mod, uint64_t off, uint32_t occ,
                                    struct enc_sigrec *sig, const void **data, size_t *len);

/* Why this rank lacks an entry (the log service says so to the asker). */
enum enc_log_absence {
    ENC_LOG_NOT_YET = 0,     /* not completed here (or never made) */
    ENC_LOG_RELEASED = 1,    /* completed, and not kept: not a holder, or trimmed */
    ENC_LOG_DROPPED = 2,     /* memory and spill budget full: *first..*last dropped */
};
enum enc_log_absence enc_log_absence(uint64_t cid, uint64_t seq, uint64_t *first,
                                     uint64_t *last);

/* No member of communicator cid will ask for its entries below seq again
 * (each can be restored from a snapshot past them): noted, and released by
 * the next enc_log_trim. */
void enc_log_set_floor(uint64_t cid, uint64_t seq);
uint64_t enc_log_floor(uint64_t cid);
/* Releases what the floors allow; bootstrap entries are kept aside when
 * keep_boot (a checkpoint-restarted rank asks for them by call site). */
void enc_log_trim(bool keep_boot);
/* A checkpoint committed: releases the world's entries below world_below
 * and every entry of the other communicators, bootstrap ones kept aside;
 * says what the communicators' part was. */
struct enc_log_cut {
    size_t dropped;          /* communicator entries released */
    size_t kept, kept_bytes; /* communicator entries kept (bootstrap ones) */
    size_t comms;            /* communicators the log still knows */
};
void enc_log_checkpoint(uint64_t world_below, struct enc_log_cut *cut);
/* This rank loaded a checkpoint: communicator c continues at entry seq. */
void enc_log_rebase(const struct enc_log_comm *c, uint64_t seq);

/* Where this rank stands on each communicator but the world, for its
 * snapshot image: writes up to cap, returns how many. */
struct enc_snap_comm;
int enc_log_positions(struct enc_snap_comm *out, int cap);
/* Collectives completed on communicators other than the world. */
uint64_t enc_log_comm_completed(void);

/* The third origin: point-to-point payloads, which the sender keeps in
 * its connections' logs (p2p/conn_trim.c) until the receiver's snapshot
 * covers them (on several hosts: then spilled, within the one spill
 * budget).  Their bytes in memory (delta: added or released; fresh: newly
 * logged, not read back from the spill file) count in the one
 * memory budget: they raise the peak reported below, push the oldest
 * collective results to the spill file while memory is over
 * ENCORE_LOG_MEM_MAX, and (fresh) count as recorded bytes (a snapshot is
 * due once ENCORE_LOG_MEM_MAX / 8 more were logged). */
void enc_log_payload_bytes(int64_t delta, bool fresh);
/* A payload of bytes was received: only the receiver's snapshot lets its
 * sender release it, so the receiver counts it as recorded (the sender
 * logs with fresh false: its own snapshots would release none of it). */
void enc_log_payload_received(uint64_t bytes);

/* The most bytes held in memory at once (own memory, the tables of
 * entries included, plus the host result buffer entries used), and on
 * disk. */
size_t enc_log_peak_bytes(void);
uint64_t enc_log_spill_peak(void);
/* Bytes recorded so far (running totals): results copied into this rank's
 * own memory with their entries' table slots (a small collective's slot
 * outweighs its result: counted, a snapshot comes due by what the log
 * really holds), and kept by reference in the host's result buffer. */
uint64_t enc_log_recorded(void);
uint64_t enc_log_resbuf_recorded(void);
/* Reports the world entries dropped so far (neither in memory nor spilled)
 * to the tracker; without force at most four times a second. */
void enc_log_report_drops(bool force);

/* Around a snapshot's fork (bufpool.h): entries not yet completed by every
 * member are kept in the image as they are, the others' large buffers are
 * wiped there. */
void enc_log_fork_prepare(void);
void enc_log_fork_parent(void);
/* In the image: forgets the entries the fork wiped (returns how many);
 * those it holds are to be fetched again from their other holders. */
size_t enc_log_forget_wiped(void);
/* The next forgotten held entry from cursor *at on (false: none left):
 * its key, signature, communicator, this rank's place there and root. */
struct enc_log_cursor {
    size_t comm;
    uint64_t seq;
};
struct enc_log_forgotten {
    uint64_t cid, seq;
    struct enc_sigrec sig;
    struct enc_log_comm comm;
    int me, root;
};
bool enc_log_next_forgotten(struct enc_log_cursor *at, struct enc_log_forgotten *f);
/* A buffer for forgotten entry (cid, seq) (NULL: not one, or no memory),
 * and giving it back: filled (ok) or not, the entry is no longer wanted. */
void *enc_log_refill_buf(uint64_t cid, uint64_t seq, size_t *cap);
void enc_log_refilled(uint64_t cid, uint64_t seq, void *buf, size_t cap, bool ok);

/* The host's result buffer (engine/layer.h resbuf_keep, resbuf_evict): the
 * oldest position the log still uses, and copying out entries below one. */
uint64_t enc_log_resbuf_keep(void);
void enc_log_resbuf_evict(uint64_t below);

#endif
