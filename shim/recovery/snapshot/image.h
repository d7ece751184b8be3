/*
 * image.h - the life of a snapshot image (image.c).
 *
 * The image is made a child of its host's owner (vfork + fork; encore-run,
 * or on another host its agent, is a child subreaper), closes every
 * descriptor libencore holds, records its regular files' offsets,
 * registers with that owner on ENCORE_SNAPSHOT_SOCK
 * (saying where it stands on every communicator) and blocks there without
 * using CPU.  When the rank dies, encore-run activates the newest one: it
 * restores the offsets and rejoins as the next incarnation
 * (enc_engine_rejoin); RESUME then makes it replay from the log.
 */
#ifndef ENC_RECOVERY_SNAPSHOT_IMAGE_H
#define ENC_RECOVERY_SNAPSHOT_IMAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* A parked image's process name (/proc/PID/comm), the rank's own again
 * once activated. */
#define ENC_SNAP_IMAGE_NAME "encore-image"

/* The image's life, in the copy just forked after world collective seq:
 * registers, parks, and on activation restores and rejoins (returns the
 * pid of the spare image it left parked, -1 none; the program goes on as
 * the rank); otherwise it _exits. */
pid_t enc_snap_child(uint64_t seq);
/* Whether an image of this rank could register where images are parked
 * (the socket of encore-run or of this host's agent). */
bool enc_snap_parking_reachable(void);
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

#endif
