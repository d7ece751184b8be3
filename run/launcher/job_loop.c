/*
 * job_loop.c - encore-run's event loop: start the tracker, the agents and
 * the ranks, then poll the tracker, the signalfd, the output pipes, the
 * agents and the parked snapshots until every rank is done, and end with
 * the summary.  The rank state machine it drives is job.c.
 */
#include "enc.h"
#include "core/tmpdir.h"
#include "launcher/job.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>

/* Every host is another one: no rank directory is ever made here, so the
 * job directory goes at once (its name stays, for the snapshot socket's)
 * and a SIGKILL of encore-run leaves nothing behind in TMPDIR. */
static void drop_unused_jobdir(struct job *j)
{
    if (j->hl == NULL)
        return;
    for (int h = 0; h < j->hl->n; h++)
        if (j->hl->h[h].local)
            return;
    if (enc_rmtree(j->jobdir) != ENC_OK)
        ENC_WARN("run", "cannot remove the unused job directory %s: %m", j->jobdir);
}

/* The segment of the local ranks: every one is added before the first
 * spawns, so each learns every local peer's eventfd. */
static void create_shm(struct job *j)
{
    enc_shm_host_create(&j->shm, j->o->np);
    for (int i = 0; i < j->o->np; i++)
        if (!job_remote(j, i) && enc_shm_host_add_rank(&j->shm, i) != ENC_OK)
            break; /* the segment is gone (warned): TCP */
}

static void reap(struct job *j)
{
    int status, rank;
    pid_t pid;

    /* A rank's last frames (FINALIZE) were written before it exited: read
     * them before judging its exit. */
    enc_tracker_poll(j->t, 0, NULL, 0);
    while (job_wait_rank(j, -1, &status, &pid, &rank) == ENC_OK)
        if (rank >= 0)
            job_rank_exited(j, rank, status);
        else
            enc_run_snaps_reaped(j->snaps, pid); /* an image, or a program's orphan */
}

/* Once no rank runs or waits for a restart, the images end (they hold
 * the ranks' output pipes open); then the streams drain. */
static bool finished(struct job *j)
{
    for (int i = 0; i < j->o->np; i++) {
        const struct rank_proc *p = &j->r[i];

        if (p->pid > 0 || p->remote_live || p->waiting || p->phase == R_RESTART)
            return false;
    }
    enc_run_snaps_end(j->snaps);
    for (int i = 0; i < j->o->np; i++)
        if (j->r[i].out.fd >= 0 || j->r[i].err.fd >= 0)
            return false;
    return true;
}

static void trim_comm(void *arg, uint64_t cid, uint64_t floor)
{
    struct job *j = arg;

    enc_tracker_trim(j->t, cid, floor);
}

/* The same on every other communicator, by the positions the images of its
 * members announced. */
static void trim_comm_logs(struct job *j)
{
    bool done[ENC_MAX_RANKS];

    if (j->snaps == NULL || j->failing)
        return;
    for (int i = 0; i < j->o->np; i++)
        done[i] = j->r[i].finalized;
    enc_run_snaps_comm_floors(j->snaps, done, trim_comm, j);
}

/* Every rank still running has a parked snapshot past seq s: no rank will
 * ask for a result below the lowest s + 1 again (a rank that passed
 * MPI_Finalize asks for none), and the ranks release them. */
static void trim_logs(struct job *j)
{
    uint64_t floor = UINT64_MAX, seq;

    trim_comm_logs(j);

    for (int i = 0; i < j->o->np && j->snaps != NULL; i++) {
        if (j->r[i].finalized)
            continue;
        if (!enc_run_snaps_newest(j->snaps, i, &seq))
            return;
        floor = ENC_MIN(floor, seq + 1);
    }
    if (j->snaps == NULL || floor == UINT64_MAX || floor <= j->log_floor || j->failing)
        return;
    j->log_floor = floor;
    enc_tracker_trim(j->t, 0, floor);
}

/* One round: poll the tracker, the signalfd and the output pipes. */
static enc_status_t step(struct job *j)
{
    struct pollfd pf[1 + 2 * ENC_MAX_RANKS + 2 * ENC_RUN_MAX_HOSTS + 1 + ENC_MAX_RANKS];
    struct enc_run_stream *st[1 + 2 * ENC_MAX_RANKS];
    enc_status_t rv;
    int n = 1, nr = 0, ns;

    pf[0] = (struct pollfd){.fd = j->sfd, .events = POLLIN};
    for (int i = 0; i < j->o->np; i++) {
        struct enc_run_stream *s2[2] = {&j->r[i].out, &j->r[i].err};

        for (int k = 0; k < 2; k++)
            if (s2[k]->fd >= 0) {
                st[n] = s2[k];
                pf[n++] = (struct pollfd){.fd = s2[k]->fd, .events = POLLIN};
            }
    }
    if (j->rm != NULL)
        nr = enc_run_remote_fds(j->rm, pf + n, 2 * ENC_RUN_MAX_HOSTS);
    ns = enc_run_snaps_pollfds(j->snaps, pf + n + nr, 1 + ENC_MAX_RANKS);
    if ((rv = enc_tracker_poll(j->t, enc_ms_left(job_next_timer(j)), pf, n + nr + ns)) != ENC_OK)
        return rv;
    enc_run_snaps_serve(j->snaps, pf + n + nr, ns, job_snap_wanted, j);
    trim_logs(j);
    for (int i = 1; i < n; i++)
        if (pf[i].revents)
            enc_run_stream_pump(st[i]);
    if (j->rm != NULL) {
        enc_run_remote_events(j->rm, pf + n, nr);
        enc_run_remote_timers(j->rm);
    }
    if (pf[0].revents & POLLIN)
        job_read_signals(j);
    reap(j);
    job_timers(j);
    return ENC_OK;
}

int enc_run_job(const struct enc_run_opts *o, const char *path)
{
    struct job j = {.o = o, .path = path, .sfd = -1, .rng = o->random_seed, .hl = o->hosts,
                    .shm = {.memfd = -1}};
    struct enc_secret s;
    enc_status_t rv;
    int status = 1;

    if ((j.r = calloc((size_t)o->np, sizeof(*j.r))) == NULL ||
        (j.host_of = calloc((size_t)o->np, sizeof(int))) == NULL ||
        (j.hl != NULL && (j.host_mem = calloc((size_t)j.hl->n, sizeof(*j.host_mem))) == NULL) ||
        (j.hl != NULL && enc_run_map(j.hl, o->np, o->map_by_node, o->oversubscribe,
                                     j.host_of) != ENC_OK))
        goto out;
    for (int i = 0; i < o->np; i++)
        j.r[i].host = j.host_of[i];
    for (int i = 0; i < o->np; i++) {
        j.r[i].out.fd = j.r[i].err.fd = -1;
        j.r[i].private_kb = -1;
    }
    for (int h = 0; j.hl != NULL && h < j.hl->n; h++)
        j.host_mem[h] = (struct enc_agent_mem){-1, -1, -1};
    j.deadline = o->timeout_s > 0 ? enc_deadline_ms((int64_t)(o->timeout_s * 1000)) : ENC_NEVER;
    j.next_random = enc_deadline_ms((int64_t)(o->random_every_s * 1000));
    if ((rv = enc_run_signalfd(&j.sfd)) != ENC_OK ||
        (rv = enc_run_jobdir_create(j.jobdir, sizeof(j.jobdir))) != ENC_OK ||
        (rv = job_start_tracker(&j, &s)) != ENC_OK)
        goto out;
    drop_unused_jobdir(&j);
    if (j.hl != NULL && (rv = job_start_agents(&j, &s)) != ENC_OK)
        goto out;
    memset(&s, 0, sizeof(s));
    create_shm(&j);
    /* Serve the tracker between spawns: with hundreds of ranks the first
     * ones register (and must be answered) long before the last starts. */
    for (int i = 0; i < o->np && !j.failing; i++) {
        if (job_spawn(&j, i) != ENC_OK)
            job_fail(&j, 1, 0, "cannot start rank %d", i);
        enc_tracker_poll(j.t, 0, NULL, 0);
    }
    while (!finished(&j) && (rv = step(&j)) == ENC_OK)
        ;
    if (rv == ENC_OK)
        status = job_finish(&j);
out:
    enc_shm_host_close(&j.shm);
    enc_run_snaps_close(j.snaps);
    enc_run_remote_destroy(j.rm);
    enc_run_jobdir_remove(j.jobdir);
    enc_tracker_destroy(j.t);
    enc_run_env_free(j.env);
    free(j.r);
    free(j.host_of);
    free(j.host_mem);
    return status;
}

