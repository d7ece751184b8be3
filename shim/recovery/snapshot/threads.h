/*
 * threads.h - the threads libencore accounts for, and whether a snapshot
 * is safe now (threads.c).
 */
#ifndef ENC_RECOVERY_SNAPSHOT_THREADS_H
#define ENC_RECOVERY_SNAPSHOT_THREADS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

/* Before the real MPI_Init (the program's own threads), after the engine
 * joined (the MPI library's and the engine's), and at a snapshot (any
 * other thread makes the snapshot unsafe: it would not exist in the
 * copy). */
void enc_snap_threads_before_mpi(void);
void enc_snap_threads_joined(void);
/* ENC_OK when safe, else ENC_ERR_STATE with a reason in why. */
enc_status_t enc_snap_threads_check(char *why, size_t cap);
/* The layer above's part in a fork (recovery.h; NULL: none): it agrees to
 * a fork now (its locks then held) or not, is told how the fork went, and
 * its threads count as libencore's. */
struct enc_fork_guard;
void enc_snapshot_set_guard(const struct enc_fork_guard *g);
bool enc_snap_guard_prepare(void);
void enc_snap_guard_forked(bool child);
/* The copy became the rank (rejoined): the layer above starts again. */
void enc_snap_guard_restored(void);
/* ENC_OK when MemAvailable covers this process's resident size. */
enc_status_t enc_snap_memory_check(char *why, size_t cap);

#endif
