/*
 * ckpt.h - a checkpoint kept in memory for retry-one recovery (ckpt.c).
 *
 * Every rank keeps the committed checkpoint: the global state (identical on
 * all ranks), its own local state, and replicas of its two locality
 * neighbours' local states, so a restarted rank can load both from
 * survivors.
 */
#ifndef ENC_RECOVERY_CHECKPOINT_CKPT_H
#define ENC_RECOVERY_CHECKPOINT_CKPT_H

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
    /* point-to-point messages over the world at phase one's barrier:
     * sent, arrived, arrived unmatched, pending (recovery/channels.h) */
    uint64_t p2p[4];
};

void enc_ckpt_free(struct enc_ckpt *c);
/* rank's local state in c (our own, or a replica of a neighbour's), or NULL. */
const void *enc_ckpt_replica(const struct enc_ckpt *c, int rank, size_t *len);

/* The log service's answer to the checkpoint requests (ENC_LOGREQ_CKPT_*,
 * serve.h), from the committed checkpoint or the one being taken. */
struct enc_logreq;
struct enc_sigrec;
enc_status_t enc_ckpt_answer(const struct enc_logreq *q, struct enc_sigrec *sig,
                             const void **data, size_t *len);

#endif
