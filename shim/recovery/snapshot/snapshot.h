/*
 * snapshot.h - transparent per-rank snapshots: when to take one, and the
 * fork itself (snapshot.c).
 *
 * At a collective boundary (recovery's after op) a rank fork()s a frozen
 * copy-on-write image of itself (image.h), which parks with encore-run
 * until the rank dies; encore-run then activates the newest one and it
 * replays the collectives after its own from the log.  Uncoordinated: the
 * log covers everything after any rank's snapshot.
 */
#ifndef ENC_RECOVERY_SNAPSHOT_SNAPSHOT_H
#define ENC_RECOVERY_SNAPSHOT_SNAPSHOT_H

#include <stdint.h>

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
/* At a call boundary outside collectives (a point-to-point call, on the
 * program's thread, holding no lock of libencore's): takes a snapshot when
 * one is due (enc_snapshot_due: cheap, a coarse clock).  The caller holds
 * the MPI layer's turn, as a collective does. */
bool enc_snapshot_due(void);
void enc_snapshot_point(void);
/* A buffer the program passed to an MPI call, for the next snapshot to
 * copy (precopy.h); nothing when snapshots are off. */
void enc_snapshot_note_buffer(const void *p, size_t len);
/* Snapshots taken by this process. */
uint64_t enc_snapshot_count(void);

#endif
