/*
 * recovery.h - retry-one recovery, a layer above the engine: the calls the
 * MPI layer makes into it.
 *
 * Every completed collective's result is logged (log/log.h); a rank that
 * is behind after a failure is answered from the survivors' logs
 * (replay.h); snapshots (snapshot/) and checkpoints (checkpoint/) bound
 * what must be kept.  Recovery registers its ops with the engine
 * (engine/layer.h, ops.c).
 */
#ifndef ENC_RECOVERY_RECOVERY_H
#define ENC_RECOVERY_RECOVERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

/* With ENCORE_RECOVERY on (the default), sets up the result log and
 * registers recovery's ops with the engine; call before enc_engine_init. */
enc_status_t enc_recovery_register(void);
/* Before the real MPI_Init: notes the program's own threads (snapshots
 * are only safe with threads libencore accounts for). */
void enc_recovery_before_mpi_init(void);
/* True in a rank restored from a snapshot: the real MPI's progress thread
 * does not exist there, so the real MPI_Finalize must not run. */
bool enc_recovery_restored(void);

/* A call boundary outside collectives (the program's thread, no lock of
 * libencore's held, the MPI layer's turn held): a snapshot is taken when
 * one is due.  enc_recovery_snapshot_due is the cheap test before it. */
bool enc_recovery_snapshot_due(void);
void enc_recovery_call_boundary(void);
/* A buffer of a message the program sends or receives: a snapshot copies
 * it at its fork rather than sharing it copy-on-write (snapshot/precopy.h). */
void enc_recovery_note_buffer(const void *p, size_t len);

/* What a layer above must do around a snapshot's fork (only the forking
 * thread exists in the copy).  prepare: true when this thread may fork now
 * (it then holds the guard's locks until parent or child is called); false
 * skips the snapshot.  child: the copy makes its state consistent with
 * having only this thread.  thread_ids: that layer's own threads (not the
 * program's), up to cap. */
struct enc_fork_guard {
    bool (*prepare)(void);
    void (*parent)(void);
    void (*child)(void);
    int (*thread_ids)(int *tids, int cap);
    /* NULL, or: the copy became the rank (rejoined as a new incarnation) */
    void (*restored)(void);
};
/* Set once, before the engine joins (MPI_Init). */
void enc_recovery_set_fork_guard(const struct enc_fork_guard *g);

/* checkpoint/api.c: encore_checkpoint() and encore_load_checkpoint() (their
 * entry points are the MPI layer's: mpi/ckpt_api.c). */
int enc_recovery_checkpoint(const void *global, size_t global_len, const void *local,
                            size_t local_len);
int enc_recovery_load_checkpoint(void *global, size_t *global_len, void *local,
                                 size_t *local_len);

#endif
