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
/* Every rank has completed every collective below seq. */
void enc_reclog_all_done_below(uint64_t seq);

#endif
