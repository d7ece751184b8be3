/*
 * det_replica.h - a rank's determinants copied to encore-run, so that its
 * host's loss loses none that another rank may depend on (S2 of
 * docs/p2p.md 5.3; docs/algorithms.md has the argument).
 *
 * The rule: before anything leaves a rank that is off encore-run's host (a
 * message of any send, a collective), every determinant it recorded is in
 * encore-run's copy (shipped over the tracker connection and acked).  A
 * rank on encore-run's host needs no copy (losing that host ends the job),
 * nor one with ENCORE_P2P_DET_REPLICA=0 (it then reports NONDET, and its
 * host's loss ends the job with one line).  A rank restarted on another
 * host reads the copy back and replays it as from its own file.
 */
#ifndef ENC_P2P_DET_REPLICA_H
#define ENC_P2P_DET_REPLICA_H

#include <stdint.h>

#include "core/status.h"

/* Decides whether this rank copies (once the tracker connection is up)
 * and installs the store's first-record hook. */
void enc_det_replica_init(void);
/* enc_det_store_open, with encore-run's copy for a restarted incarnation
 * (it may have moved from a lost host, even to encore-run's).  A copy
 * that cannot be read within the heartbeat bound ends the job. */
enc_status_t enc_det_replica_open(int rank, uint32_t incarnation);
/* Before what fn is about to send leaves the rank: waits (bounded) until
 * encore-run acked every record made so far.  Nothing to do in the common
 * case (no record since the last flush: two loads).  A copy not acked
 * within the heartbeat bound ends the job with one line naming fn. */
void enc_det_replica_flush(const char *fn);

#endif
