/*
 * images.h - the snapshot images of an agent's host (images.c): parked
 * with the agent (common/parking.h), announced to encore-run (PARKED,
 * UNPARKED), activated on its ACTIVATE (RESTORED, or NOIMAGE when none is
 * left), ended when it says FORGET or the agent exits.
 */
#ifndef ENC_AGENT_IMAGES_H
#define ENC_AGENT_IMAGES_H

#include <stdint.h>
#include <sys/types.h>

#include "core/status.h"

struct agent_images;
struct pollfd;

/* NULL in *out when snapshots are off (ENCORE_SNAPSHOT_S=0) or cannot be
 * parked here (said once); run_fd: the connection to encore-run. */
enc_status_t agent_images_open(struct agent_images **out, int np, const char *jobdir,
                               int run_fd);
/* ENCORE_SNAPSHOT_SOCK for this host's ranks (NULL: off). */
const char *agent_images_sock(const struct agent_images *im);
int agent_images_pollfds(const struct agent_images *im, struct pollfd *p, int cap);
void agent_images_serve(struct agent_images *im, const struct pollfd *p, int n);
/* Incarnation inc of rank starts here: its images are the ones wanted. */
void agent_images_spawned(struct agent_images *im, int rank, uint32_t inc);
/* ACTIVATE: rank's newest image becomes incarnation inc (*pid, RESTORED
 * sent); ENC_ERR_NOT_FOUND when there is none (the caller says NOIMAGE). */
enc_status_t agent_images_activate(struct agent_images *im, int rank, uint32_t inc,
                                   const char *inject, pid_t *pid);
/* FORGET: rank's image ends and no later one is wanted until it starts
 * again here. */
void agent_images_forget(struct agent_images *im, int rank);
/* A child was reaped: true when it was a parked image. */
bool agent_images_reaped(struct agent_images *im, pid_t pid);
/* Ends every image, closes the socket. */
void agent_images_close(struct agent_images *im);

#endif
