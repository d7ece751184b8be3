/*
 * parking.h - where a host's snapshot images wait (parking.c): an abstract
 * Unix socket of the process that owns them (encore-run on its own host,
 * encore-agent on every other), at most one image parked per rank, its
 * activation when the rank dies, the end of all of them with the job.
 * The owner is a child subreaper, so the images (orphaned at birth) are
 * its children.  encore-run also keeps here, for the ranks of other hosts,
 * what their agents said they have parked ("remote" records: no process
 * here), so that the log is trimmed by every rank's newest image and the
 * summary counts them, whatever the host.
 */
#ifndef ENC_COMMON_PARKING_H
#define ENC_COMMON_PARKING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/status.h"
#include "proto/snapmsg.h"

struct enc_run_snaps;
struct pollfd;

/* A parked image as its owner knows it: taken by incarnation, after
 * world collective seq, standing at comms[] on the other communicators. */
struct enc_run_snap_info {
    uint32_t incarnation;
    uint64_t seq;
    const struct enc_snap_comm *comms;
    uint32_t ncomms;
};

/* Is incarnation inc the live incarnation of rank (an image of it is useful)? */
typedef bool (*enc_run_snap_wanted_fn)(void *arg, int rank, uint32_t inc);
/* An image of rank parked here (img), or the parked one died (img NULL). */
typedef void (*enc_run_snap_note_fn)(void *arg, int rank, const struct enc_run_snap_info *img);

/* NULL in *out when ENCORE_SNAPSHOT_S=0 turns snapshots off; else an
 * abstract socket named after jobdir and this process (the ranks find it
 * as ENCORE_SNAPSHOT_SOCK=enc_run_snaps_sock(s)).  note (may be NULL) hears
 * of every image that parks or dies. */
enc_status_t enc_run_snaps_open(struct enc_run_snaps **out, int np, const char *jobdir,
                                enc_run_snap_note_fn note, void *note_arg);
const char *enc_run_snaps_sock(const struct enc_run_snaps *s);
int enc_run_snaps_pollfds(const struct enc_run_snaps *s, struct pollfd *p, int cap);
void enc_run_snaps_serve(struct enc_run_snaps *s, const struct pollfd *p, int n,
                         enc_run_snap_wanted_fn wanted, void *arg);
/* Reads registrations queued on the socket, waiting up to wait_ms for
 * one of rank (none waited for once it has one parked). */
void enc_run_snaps_drain(struct enc_run_snaps *s, int rank, int wait_ms,
                         enc_run_snap_wanted_fn wanted, void *arg);
/* True when pid was a parked image (now gone). */
bool enc_run_snaps_reaped(struct enc_run_snaps *s, pid_t pid);
/* Makes rank's parked image incarnation inc: ENC_OK with its *pid and the
 * *seq it was taken at; ENC_ERR_NOT_FOUND when there is none here (or it
 * died, or it is remote). */
enc_status_t enc_run_snaps_activate(struct enc_run_snaps *s, int rank, uint32_t inc,
                                    const char *inject, pid_t *pid, uint64_t *seq);
/* The seq of rank's parked image, here or remote (false: none parked). */
bool enc_run_snaps_newest(const struct enc_run_snaps *s, int rank, uint64_t *seq);
/* What rank's agent said: an image parked on its host (img), or gone
 * (NULL); counted as taken like one parked here. */
void enc_run_snaps_note_remote(struct enc_run_snaps *s, int rank,
                               const struct enc_run_snap_info *img);
/* rank's agent activated its remote image: no longer parked, one used. */
void enc_run_snaps_used_remote(struct enc_run_snaps *s, int rank);
/* After an image registered: for each communicator but the world on which
 * every member's parked image stands (none of them taken before it
 * existed), fn(arg, cid, floor) with the lowest position among the ranks
 * not done, when it rose. */
typedef void (*enc_run_floor_fn)(void *arg, uint64_t cid, uint64_t floor);
void enc_run_snaps_comm_floors(struct enc_run_snaps *s, const bool *done, enc_run_floor_fn fn,
                               void *arg);
/* The rank's parked image is no use any more (it exits). */
void enc_run_snaps_forget(struct enc_run_snaps *s, int rank);
/* Every parked image ends (SIGKILL, reaped). */
void enc_run_snaps_end(struct enc_run_snaps *s);
void enc_run_snaps_counts(const struct enc_run_snaps *s, int rank, unsigned *taken,
                          unsigned *used);
/* Ends them, closes the socket. */
void enc_run_snaps_close(struct enc_run_snaps *s);

#endif
