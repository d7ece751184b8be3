/*
 * positions.h - where each communicator stands at the committed checkpoint
 * (positions.c): a restarted rank that loads the checkpoint asks the other
 * members, and its communicators continue there.
 */
#ifndef ENC_RECOVERY_CHECKPOINT_POSITIONS_H
#define ENC_RECOVERY_CHECKPOINT_POSITIONS_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

/* Checkpoint version committed: notes where every live communicator
 * stands, and releases the log's entries before the checkpoint (the
 * world's below world_below), bootstrap ones aside. */
void enc_ckpt_positions_commit(uint32_t version, uint64_t world_below);
/* This (restarted) rank loaded checkpoint version: each of its
 * communicators continues where the other members stood at it. */
void enc_ckpt_positions_rebase(uint32_t version);
/* The log service's answer to ENC_LOGREQ_COMM_POS (serve.h). */
struct enc_logreq;
struct enc_sigrec;
enc_status_t enc_ckpt_position_answer(const struct enc_logreq *q, struct enc_sigrec *sig,
                                      const void **data, size_t *len);

#endif
