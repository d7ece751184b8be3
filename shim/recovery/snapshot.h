/*
 * snapshot.h - transparent per-rank snapshots (private to shim/recovery).
 *
 * At a collective boundary (recovery's after op) a rank fork()s a frozen
 * copy-on-write image of itself.  The image is made a child of encore-run
 * (vfork + fork; encore-run is a child subreaper), closes every descriptor
 * libencore holds, records its regular files' offsets, registers with
 * encore-run on ENCORE_SNAPSHOT_SOCK and blocks there without using CPU.
 * When the rank dies, encore-run activates the newest one: it restores
 * the offsets and rejoins as the next incarnation (enc_engine_rejoin);
 * RESUME then makes it replay the collectives after its own from the log.
 * Uncoordinated: the log covers everything after any rank's snapshot.
 */
#ifndef ENC_RECOVERY_SNAPSHOT_H
#define ENC_RECOVERY_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/status.h"

struct enc_coll;

/* Reads ENCORE_SNAPSHOT_S and ENCORE_SNAPSHOT_SOCK (checked at MPI_Init). */
enc_status_t enc_snapshot_init(void);
/* The after op: takes a snapshot when the interval has elapsed (always
 * right after a checkpoint). */
void enc_snapshot_after(const struct enc_coll *co);
/* The begin op: a checkpoint is starting, and once any rank truncates its
 * log the parked snapshot is useless: it is killed first. */
void enc_snapshot_begin(const struct enc_coll *co);
/* Snapshots taken by this process. */
uint64_t enc_snapshot_count(void);

/* A parked image's process name (/proc/PID/comm), the rank's own again
 * once activated. */
#define ENC_SNAP_IMAGE_NAME "encore-image"

/* snap_child.c: the image's life: registers, parks, and on activation
 * restores and rejoins (returns the pid of the spare image it left parked,
 * -1 none; the program goes on as the rank); otherwise it _exits. */
pid_t enc_snap_child(uint64_t seq);
/* True in a process restored from a snapshot. */
bool enc_snapshot_restored(void);
/* fork() of a vfork() child, adopted by encore-run: 0 in the copy, its
 * pid here, -1 (errno) on failure. */
pid_t enc_snap_fork_orphan(void);
/* Notes every regular file's offset, in the rank right before the fork
 * (the rank goes on reading while the image starts), for the image to
 * restore; the rank then forgets them. */
void enc_snap_note_offsets(void);
void enc_snap_forget_offsets(void);

/* snap_threads.c: the threads libencore accounts for.  Before the real
 * MPI_Init (the program's own threads), after the engine joined (the MPI
 * library's and the engine's), and at a snapshot (a known library's pool
 * is made safe, core/thread_pools.h; any other thread makes the snapshot
 * unsafe: it would not exist in the copy). */
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
/* ENC_OK when MemAvailable covers this process's resident size. */
enc_status_t enc_snap_memory_check(char *why, size_t cap);

#endif
