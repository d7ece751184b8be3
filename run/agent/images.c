/*
 * images.c - the agent owns its host's snapshot images (images.h), as
 * encore-run owns those of its own host: the same parking
 * (common/parking.c), with encore-run told of each image that parks or
 * dies, so that it trims the log by every rank's newest image and counts
 * them.  Images die with the host: when it is lost, encore-run forgets
 * them and the host's ranks re-execute elsewhere.
 */
#include "enc.h"
#include "agent/images.h"
#include "common/agent_proto.h"
#include "common/parking.h"
#include "proto/frame.h"

#include <stdio.h>
#include <stdlib.h>

/* A restored image leaves a spare copy of itself parked before it goes
 * on; killed right after its activation, the rank may die before the
 * spare registered: wait that long for it (as encore-run does). */
#define SPARE_WAIT_MS 500

struct rank_images {
    bool live;                    /* runs here (spawned or activated), not forgotten */
    bool from_image;              /* its live incarnation is a restored image */
    uint32_t inc;                 /* the newest incarnation started here */
};

struct agent_images {
    struct enc_run_snaps *snaps;
    struct rank_images *r;
    int np, run_fd;
};

static void announce(void *arg, int rank, const struct enc_run_snap_info *img)
{
    struct agent_images *im = arg;
    struct enc_agent_note gone = {.rank = (uint32_t)rank};
    struct enc_agent_image m;
    enc_status_t rv;

    if (img == NULL) {
        rv = enc_agent_send_note(im->run_fd, ENC_MSG_AGENT_UNPARKED, &gone);
    } else {
        m = (struct enc_agent_image){.rank = (uint32_t)rank, .inc = img->incarnation,
                                     .seq = img->seq, .ncomms = img->ncomms,
                                     .comms = (struct enc_snap_comm *)img->comms};
        rv = enc_agent_send_image(im->run_fd, ENC_MSG_AGENT_PARKED, &m);
    }
    if (rv != ENC_OK)
        ENC_DEBUG("agent", "cannot tell encore-run about rank %d's image: %s", rank,
                  encore_strerror(rv));
}

/* An image of the incarnation that runs here, or of the one that just died
 * (encore-run has not said what comes next yet). */
static bool wanted(void *arg, int rank, uint32_t inc)
{
    const struct agent_images *im = arg;

    return im->r[rank].live && inc >= im->r[rank].inc;
}

enc_status_t agent_images_open(struct agent_images **out, int np, const char *jobdir,
                               int run_fd)
{
    struct agent_images *im;
    enc_status_t rv;

    *out = NULL;
    if ((im = calloc(1, sizeof(*im))) == NULL ||
        (im->r = calloc((size_t)np, sizeof(*im->r))) == NULL) {
        free(im);
        return ENC_ERR_NOMEM;
    }
    im->np = np;
    im->run_fd = run_fd;
    if ((rv = enc_run_snaps_open(&im->snaps, np, jobdir, announce, im)) != ENC_OK ||
        im->snaps == NULL) {
        free(im->r);
        free(im);
        return rv;
    }
    *out = im;
    return ENC_OK;
}

const char *agent_images_sock(const struct agent_images *im)
{
    return im ? enc_run_snaps_sock(im->snaps) : NULL;
}

int agent_images_pollfds(const struct agent_images *im, struct pollfd *p, int cap)
{
    return im ? enc_run_snaps_pollfds(im->snaps, p, cap) : 0;
}

void agent_images_serve(struct agent_images *im, const struct pollfd *p, int n)
{
    if (im != NULL)
        enc_run_snaps_serve(im->snaps, p, n, wanted, im);
}

void agent_images_spawned(struct agent_images *im, int rank, uint32_t inc)
{
    if (im == NULL || rank < 0 || rank >= im->np)
        return;
    im->r[rank] = (struct rank_images){.live = true, .inc = inc};
}

enc_status_t agent_images_activate(struct agent_images *im, int rank, uint32_t inc,
                                   const char *inject, pid_t *pid)
{
    struct enc_agent_image m = {.rank = (uint32_t)rank, .inc = inc};
    uint64_t seq;

    if (im == NULL || rank < 0 || rank >= im->np)
        return ENC_ERR_NOT_FOUND;
    /* the dying incarnation's image (or its spare) may still be queued */
    enc_run_snaps_drain(im->snaps, rank, im->r[rank].from_image ? SPARE_WAIT_MS : 0, wanted, im);
    if (enc_run_snaps_activate(im->snaps, rank, inc, inject, pid, &seq) != ENC_OK)
        return ENC_ERR_NOT_FOUND;
    im->r[rank] = (struct rank_images){.live = true, .from_image = true, .inc = inc};
    m.pid = (uint32_t)*pid;
    m.seq = seq;
    (void)enc_agent_send_image(im->run_fd, ENC_MSG_AGENT_RESTORED, &m);
    ENC_DEBUG("agent", "rank %d incarnation %u restored from its snapshot at seq %llu (pid %d)",
              rank, inc, (unsigned long long)seq, (int)*pid);
    return ENC_OK;
}

void agent_images_forget(struct agent_images *im, int rank)
{
    if (im == NULL || rank < 0 || rank >= im->np)
        return;
    im->r[rank].live = false;
    enc_run_snaps_forget(im->snaps, rank);
}

bool agent_images_reaped(struct agent_images *im, pid_t pid)
{
    return im != NULL && enc_run_snaps_reaped(im->snaps, pid);
}

void agent_images_close(struct agent_images *im)
{
    if (im == NULL)
        return;
    enc_run_snaps_close(im->snaps);
    free(im->r);
    free(im);
}
