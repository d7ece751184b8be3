/*
 * conn_trim.h - the payload logs' trims and releases, and the channels'
 * keys (conn_trim.c); their spill is conn_spill.h's.
 */
#ifndef ENC_P2P_CONN_TRIM_H
#define ENC_P2P_CONN_TRIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "p2p/p2p_int.h"

/* The channel key of (cid, src, world rank dst) (p2p.h). */
uint64_t enc_p2p_key(uint64_t cid, int src, int dst_world);
/* The lock held: the frames of the log to peer that the peer's positions
 * say it has (the cursor skips them); frees the log's frames below floor
 * on channel key, or on several hosts spills them (the lock released while
 * it writes) (false: no channel of this rank's has that key); payload log
 * bytes held now and at most. */
bool enc_p2p_skipped(const struct p2p_out *o, const struct p2p_frame *f);
void enc_p2p_set_skip(int peer, const uint8_t *pairs, size_t bytes);
bool enc_p2p_conn_trim(uint64_t key, uint64_t floor);
/* Frees the written frames of channel key below floor from every log,
 * spilled or not (a committed checkpoint covers them): bytes freed. */
size_t enc_p2p_conn_release(uint64_t key, uint64_t floor);
void enc_p2p_log_added(const struct p2p_frame *f);
/* A frame left the log without a trim (ENCORE_RECOVERY=0 keeps none). */
void enc_p2p_log_removed(const struct p2p_frame *f);

#endif
