/*
 * replay.h - collectives answered from the log instead of run (replay.c).
 */
#ifndef ENC_RECOVERY_REPLAY_H
#define ENC_RECOVERY_REPLAY_H

#include <stdint.h>

#include "core/status.h"

struct enc_coll;
/* The replay op: world collective co, this rank being behind. */
enc_status_t enc_replay(struct enc_coll *co);
/* The group_replay op: collective seq of communicator cid, uncertain
 * after a failure, from another member's log; ENC_ERR_NOT_FOUND when no
 * member completed it (it then runs live). */
enc_status_t enc_replay_comm(void *arg, struct enc_coll *co, uint64_t cid, uint64_t seq);

#endif
