/*
 * recovery.h - retry-one recovery: the result log, replay and the recovery
 * handshake with the tracker (private to libencore).
 *
 * Every completed collective's result is recorded under its sequence number
 * with its caller signature.  Each rank keeps the entries it is a holder of
 * (ENCORE_REPLICAS ranks per entry) for the job's lifetime, and every recent
 * entry until all ranks are known to have completed it, so whichever ranks
 * survive a failure can answer a restarted or lagging rank.
 */
#ifndef ENC_RECOVERY_RECOVERY_H
#define ENC_RECOVERY_RECOVERY_H

#include <stddef.h>
#include <stdint.h>

struct enc_coll;

int enc_recovery_init(void);
void enc_recovery_fini(void);
/* After registering: wait for the world (and, for a new epoch, RESUME). */
int enc_recovery_join(void);
/* After a peer failure or a death notice inside a collective: report where
 * this rank stands, wait for the new world, adopt it. */
int enc_recover(void);

/* Records the result of the collective that just completed. */
int enc_reclog_record(const struct enc_coll *co);
/* Answers the collective from the log (this rank is behind). */
int enc_replay(struct enc_coll *co);
struct enc_logreq;
struct enc_sigrec;
#define ENC_LOG_ANY_LEN UINT64_MAX
/* Asks peer for q on a log-service connection.  The answer's data (expect
 * bytes, or any length with ENC_LOG_ANY_LEN) lands in dst, or in a new
 * malloc'd buffer stored in *alloc when alloc is not NULL.  ENC_ERR_LOST
 * when the peer lacks it. */
int enc_log_fetch(int peer, const struct enc_logreq *q, struct enc_sigrec *sig, uint8_t *dst,
                  uint64_t expect, void **alloc);
/* Survivors to ask for seq, holders first, among those that completed more
 * than need collectives; returns how many were written to peers. */
int enc_log_candidates(uint64_t seq, int root, uint64_t need, int *peers);
/* Waits until fd is readable, or ENC_ERR_EPOCH when the tracker announces
 * a new epoch meanwhile. */
int enc_log_wait(int fd, uint64_t deadline);
/* Reads len bytes of DATA frames for seq. */
int enc_log_read_data(int fd, uint64_t seq, uint8_t *dst, uint64_t len, uint64_t deadline);
/* prefetch.c: the logged entry seq from a run fetched ahead (filling the
 * run from the survivors if needed); ENC_OK with *sig and *data, which stay
 * valid until the next call. */
int enc_prefetch_get(uint64_t seq, int root, const struct enc_sigrec **sig, const void **data);
void enc_prefetch_clear(void);

/* commlog.c: results of collectives on derived communicators, keyed by
 * (context id, sequence number on the communicator). */
int enc_commlog_record(const struct enc_coll *co, uint64_t ctx, uint64_t seq);
/* Answers co from another member's log; ENC_ERR_NOT_FOUND when no member
 * has it (it then runs live), a peer failure or ENC_ERR_EPOCH to recover
 * first.  A different logged call ends the job (replay divergence). */
int enc_commlog_replay(struct enc_coll *co, uint64_t ctx, uint64_t seq);
struct enc_sigrec;
int enc_commlog_find(uint64_t ctx, uint64_t seq, struct enc_sigrec *sig, const void **data,
                     size_t *len);
void enc_commlog_fini(void);

/* Every rank has completed every collective below seq. */
void enc_reclog_all_done_below(uint64_t seq);

#endif
