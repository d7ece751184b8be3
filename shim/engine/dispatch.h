/*
 * dispatch.h - what the engine's dispatchers share, private to the
 * engine: the world's (coll.c), the derived communicators' (group_coll.c)
 * and the live run with its choice of algorithm (coll_live.c), which picks
 * among the shared-memory (coll_shm.c) and hierarchical (coll_hier.c) ones
 * and the TCP ones of coll.h.
 */
#ifndef ENC_ENGINE_DISPATCH_H
#define ENC_ENGINE_DISPATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"
#include "engine/coll.h"

/* Runs co live in the current epoch: input in place, trivial cases, then
 * the algorithm (coll_live.c). */
enc_status_t enc_coll_live(struct enc_coll *co);
/* Collectives on communicators derived from the world (group_coll.c). */
enc_status_t enc_group_run(struct enc_coll *co);
/* "allreduce (site) ... finished" at ENCORE_LOG=info. */
void enc_coll_log_finished(const struct enc_coll *co, double t0, bool replayed);
/* A peer failure the layer can regroup from; anything else ends the job
 * with one line. */
void enc_coll_recover_or_fail(const struct enc_coll *co, enc_status_t rv);
/* 32-bit digest of the arguments every rank must agree on. */
uint32_t enc_callsig_check(const struct enc_callsig *sig);

/* coll_shm.c: the shared-memory algorithm for co once its caller found
 * every rank of co's communicator on this host's segment with a channel
 * (co->chan), else NULL; and whether that algorithm fn leaves an in-place
 * input intact until nothing can fail any more (no saved copy needed for
 * a re-run). */
enc_algo_fn enc_coll_shm_algo(const struct enc_coll *co);
bool enc_coll_shm_keeps_input(const struct enc_coll *co, enc_algo_fn fn);
/* Whether fn serves an alltoall (co->column) reading only this rank's
 * column, with no buffer for every row (co->recvbuf NULL). */
bool enc_coll_shm_reads_column(const struct enc_coll *co, enc_algo_fn fn);
/* len bytes of co's result from byte off, wherever its run left them:
 * in the host's result buffer (co->in_resbuf), else in co->result. */
void enc_coll_result_read(const struct enc_coll *co, size_t off, void *dst, size_t len);
/* coll_hier.c: the hierarchical algorithm for co when the ranks of its
 * communicator span hosts and co is a collective it serves (sets
 * co->hier), else NULL. */
enc_algo_fn enc_coll_hier_algo(struct enc_coll *co);

#endif
