/*
 * job_images.c - what the agents say about the snapshot images of their
 * hosts' ranks, turned into encore-run's view of every rank's newest
 * image (common/parking.h's remote records: the log is trimmed and the
 * summary counts by them, as for the images parked here) and into rank
 * state: a rank restored on its host, or started afresh when its agent
 * had no image left.
 */
#include "enc.h"
#include "launcher/job.h"

#include <stdio.h>

static void image_parked(void *arg, int host, int rank, const struct enc_run_snap_info *img)
{
    struct job *j = arg;

    if (j->host_of[rank] != host)
        return; /* the rank moved away: whatever it left there is no use */
    /* the dying incarnation's last image, come in while the agent is asked
     * to activate: the one it will activate */
    if (img != NULL && !job_snap_wanted(j, rank, img->incarnation) &&
        !(j->r[rank].activating && img->incarnation + 1 == j->r[rank].incarnation))
        return;
    enc_run_snaps_note_remote(j->snaps, rank, img);
    if (img != NULL)
        ENC_DEBUG("run", "rank %d: snapshot at seq %llu parked on host %s", rank,
                  (unsigned long long)img->seq, j->hl->h[host].name);
}

static void image_restored(void *arg, int host, int rank, uint32_t inc, pid_t pid, uint64_t seq)
{
    struct job *j = arg;
    struct rank_proc *p = &j->r[rank];

    if (p->incarnation != inc || !p->activating || j->host_of[rank] != host)
        return;
    p->activating = false;
    p->from_image = true;
    p->pid = pid;
    enc_run_snaps_used_remote(j->snaps, rank);
    ENC_INFO("run", "rank %d incarnation %u restored from its snapshot at seq %lld on host %s "
             "(pid %d)", rank, inc, (long long)seq, j->hl->h[host].name, (int)pid);
}

static void image_none(void *arg, int rank, uint32_t inc)
{
    struct job *j = arg;
    struct rank_proc *p = &j->r[rank];

    if (p->incarnation != inc || !p->activating || j->failing)
        return;
    p->activating = p->remote_live = false;
    enc_run_snaps_forget(j->snaps, rank);
    if (job_spawn_fresh(j, rank) != ENC_OK)
        job_fail(j, 1, 0, "cannot start rank %d", rank);
}

void job_image_hooks(struct job *j, struct enc_run_remote_config *cfg)
{
    cfg->snapshots = j->snaps != NULL;
    cfg->hooks.parked = image_parked;
    cfg->hooks.restored = image_restored;
    cfg->hooks.noimage = image_none;
}

void job_host_images_lost(struct job *j, int host)
{
    for (int i = 0; i < j->o->np; i++)
        if (j->host_of[i] == host)
            enc_run_snaps_forget(j->snaps, i); /* they died with it */
}
