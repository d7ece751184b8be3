/*
 * ckpt.h - checkpoints kept in memory for retry-one recovery (private to
 * shim/recovery).
 *
 * Every rank keeps the committed checkpoint: the global state (identical on
 * all ranks), its own local state, and replicas of its two locality
 * neighbours' local states, so a restarted rank can load both from
 * survivors.
 */
#ifndef ENC_RECOVERY_CKPT_H
#define ENC_RECOVERY_CKPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

struct enc_ckpt {
    uint32_t version;
    uint64_t seq_after;       /* sequence number of the first collective after it */
    void *global;
    size_t glen;
    void *local;
    size_t llen;
    int rep_rank[2];          /* whose local states we replicate (-1: none) */
    void *rep[2];
    size_t rep_len[2];
    bool replicas_in;         /* both swaps of phase one finished */
};

void enc_ckpt_free(struct enc_ckpt *c);
/* rank's local state in c (our own, or a replica of a neighbour's), or NULL. */
const void *enc_ckpt_replica(const struct enc_ckpt *c, int rank, size_t *len);

/* ckpt_fetch.c: a restarted rank loads the newest checkpoint any survivor
 * committed; ENC_OK with *out filled (version 0 when there is none). */
enc_status_t enc_ckpt_fetch(struct enc_ckpt *out);
/* ckpt_exchange.c: the checkpoint's collective part (the exchange op). */
struct enc_coll;
enc_status_t enc_ckpt_exchange(void *arg, struct enc_coll *co);

/* reclog.c: drop logged results below seq, except bootstrap ones. */
void enc_reclog_truncate_below(uint64_t seq);

/* bootstrap.c: occurrence number of the next collective from site (counted
 * until the first encore_load_checkpoint of this process). */
uint32_t enc_bootstrap_occurrence(const char *mod, uint64_t off);
bool enc_bootstrap_active(void);
void enc_bootstrap_end(void);

#endif
