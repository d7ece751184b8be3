/*
 * job.c - encore-run's rank state machine: each rank's process from its
 * spawn (or restore from a parked snapshot) through its death, restart or
 * end, and the job's end with exactly one line saying why it failed.  The
 * event loop that drives it is in job_loop.c, the tracker's and agents'
 * hooks in job_hooks.c, the timers in job_timers.c, the summary in
 * job_summary.c; each of them calls down into this file, never back.
 */
#include "enc.h"
#include "launcher/job.h"

#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void job_kill_rank(struct job *j, struct rank_proc *p, int sig)
{
    int rank = (int)(p - j->r);

    if (job_remote(j, rank) && p->remote_live)
        enc_run_remote_kill(j->rm, j->host_of[rank], rank, p->incarnation, sig);
    else if (!job_remote(j, rank) && p->pid > 0)
        kill(p->pid, sig);
}

void job_kill_all(struct job *j, int sig)
{
    for (int i = 0; i < j->o->np; i++)
        job_kill_rank(j, &j->r[i], sig);
}

/* Ends the job: one line, EVENT ABORT to the ranks, SIGKILL after a grace. */
void job_fail(struct job *j, int status, uint64_t grace_ms, const char *fmt, ...)
{
    va_list ap;

    if (j->failing)
        return;
    j->failing = true;
    j->status = status;
    va_start(ap, fmt);
    vsnprintf(j->line, sizeof(j->line), fmt, ap);
    va_end(ap);
    enc_tracker_abort(j->t, -1, status, j->line);
    j->kill_at = enc_deadline_ms((int64_t)grace_ms);
    for (int i = 0; i < j->o->np; i++)
        if (j->r[i].phase == R_RESTART)
            j->r[i].phase = R_DONE;
    if (grace_ms == 0)
        job_kill_all(j, SIGKILL);
}

/* A restored image leaves a spare copy of itself parked before it goes on
 * (snap_child.c).  Killed right after its activation, the rank may die
 * before the spare's registration is read: wait that long for it. */
#define SPARE_WAIT_MS 500

/* A restart from the rank's parked snapshot instead of from the start.
 * Registrations still queued on the snapshot socket are read first: the
 * incarnation that just died may have parked one as it died. */
static bool restore(struct job *j, int rank)
{
    struct rank_proc *p = &j->r[rank];
    char inj[64];
    uint64_t seq;
    pid_t pid;

    enc_run_snaps_drain(j->snaps, rank, p->from_image ? SPARE_WAIT_MS : 0, job_snap_wanted, j);
    enc_run_inject_value(j->o, rank, p->incarnation, inj, sizeof(inj));
    if (enc_run_snaps_activate(j->snaps, rank, p->incarnation, inj, &pid, &seq) != ENC_OK)
        return false;
    p->from_image = true;
    p->pid = pid;
    p->phase = R_RUNNING;
    p->registered = false;
    p->lost[0] = '\0';
    ENC_INFO("run", "rank %d incarnation %u restored from its snapshot at seq %lld (pid %d)",
             rank, p->incarnation, (long long)seq, (int)pid);
    return true;
}

static enc_status_t add_shm_env(struct job *j, char ***env)
{
    char fd[16], *evfds;
    enc_status_t rv;

    if (!enc_shm_host_env(&j->shm, fd, sizeof(fd), &evfds))
        return ENC_OK;
    if ((rv = enc_run_env_add(env, "ENCORE_SHM_FD", fd)) == ENC_OK)
        rv = enc_run_env_add(env, "ENCORE_SHM_EVENTFDS", evfds);
    free(evfds);
    return rv;
}

/* The same on another host: its agent owns the rank's images and answers
 * RESTORED (job_images.c) or NOIMAGE, and then the rank starts afresh. */
static bool restore_remote(struct job *j, int rank)
{
    struct rank_proc *p = &j->r[rank];
    char inj[64];

    if (j->snaps == NULL || !j->agents_up)
        return false;
    enc_run_inject_value(j->o, rank, p->incarnation, inj, sizeof(inj));
    if (enc_run_remote_activate(j->rm, j->host_of[rank], rank, p->incarnation, inj) != ENC_OK)
        return false;
    p->activating = p->remote_live = true;
    p->pid = 0;
    p->phase = R_RUNNING;
    p->stopped_since = 0;
    p->registered = false;
    p->lost[0] = '\0';
    return true;
}

void job_forget_images(struct job *j, int rank)
{
    enc_run_snaps_forget(j->snaps, rank);
    if (j->snaps != NULL && job_remote(j, rank))
        enc_run_remote_forget(j->rm, j->host_of[rank], rank);
}

enc_status_t job_spawn(struct job *j, int rank)
{
    struct rank_proc *p = &j->r[rank];

    if (p->incarnation > 0 && !job_remote(j, rank) && restore(j, rank))
        return ENC_OK;
    if (p->incarnation > 0 && job_remote(j, rank) && restore_remote(j, rank))
        return ENC_OK;
    return job_spawn_fresh(j, rank);
}

enc_status_t job_spawn_fresh(struct job *j, int rank)
{
    struct rank_proc *p = &j->r[rank];
    char **env, dir[4200];
    enc_status_t rv;

    p->from_image = p->activating = false;
    /* On several hosts the ranks spill what the floor passes instead of
     * releasing it (recovery/log/store.c), so a re-execution finds it. */
    if (p->incarnation > 0 && j->log_floor > 0 && !j->o->fail_all && j->hl == NULL)
        ENC_WARN("run", "rank %d has no snapshot image left: it re-executes from the start "
                 "(or its last checkpoint), but results below seq %llu were released when "
                 "every rank had a snapshot past them; its replay fails with \"lost\" unless "
                 "a checkpoint covers them", rank, (unsigned long long)j->log_floor);
    if (j->hl != NULL && !j->agents_up) {
        p->waiting = true;
        p->phase = R_RUNNING;
        return ENC_OK;
    }
    p->waiting = false;
    if ((rv = enc_run_env_for_rank(j->env, j->o, rank, p->incarnation, &env)) != ENC_OK)
        return rv;
    /* a remote rank's private directory is made by its agent, on its host */
    if (!job_remote(j, rank) &&
        ((rv = enc_run_rankdir(j->jobdir, rank, p->incarnation, dir, sizeof(dir))) != ENC_OK ||
         (rv = enc_run_env_rankdir(&env, dir)) != ENC_OK ||
         (rv = add_shm_env(j, &env)) != ENC_OK)) {
        enc_run_env_free(env);
        return rv;
    }
    if (j->hl != NULL)
        rv = enc_run_spawn_on_host(j->o, j->hl, j->host_of, j->rm, rank, p->incarnation, j->path,
                                   env, &p->out, &p->err, &p->pid);
    else
        rv = enc_run_spawn(j->path, j->o->argv, env,
                           enc_run_bind_policy(j->o, j->o->np, enc_run_local_cores()), rank,
                           j->o->tag_output,
                           &p->out, &p->err, &p->pid);
    p->remote_live = rv == ENC_OK && job_remote(j, rank);
    enc_run_env_free(env);
    p->phase = R_RUNNING;
    p->stopped_since = 0;
    p->registered = false;
    p->lost[0] = '\0';
    if (rv == ENC_OK)
        ENC_DEBUG("run", "rank %d incarnation %u started as pid %d", rank, p->incarnation,
                  (int)p->pid);
    return rv;
}

static void schedule_restart(struct job *j, int rank)
{
    struct rank_proc *p = &j->r[rank];
    int64_t ms = enc_run_backoff_ms(p->restarts);

    p->restarts++;
    p->incarnation++;
    p->phase = R_RESTART;
    p->restart_at = enc_deadline_ms(ms);
}

/* --policy fail-all: everyone goes down and comes back as a new incarnation. */
static void restart_everyone(struct job *j, int dead, const char *why)
{
    for (int i = 0; i < j->o->np; i++) {
        if (!enc_run_can_restart(j->o, j->r[i].restarts)) {
            job_fail(j, 1, 0, "rank %d %s; restart budget (%d) of rank %d spent", dead, why,
                 j->o->max_restarts, i);
            return;
        }
    }
    ENC_WARN("run", "rank %d %s; restarting all ranks (fail-all)", dead, why);
    enc_tracker_restart_all(j->t);
    for (int i = 0; i < j->o->np; i++) {
        job_kill_rank(j, &j->r[i], SIGKILL);
        job_forget_images(j, i); /* everyone starts from scratch */
        j->r[i].finalized = false;
        schedule_restart(j, i);
    }
}

/* SIGINT/SIGTERM/SIGHUP to encore-run end the job: forwarded to the ranks,
 * SIGKILL for those still there after a grace.  Read them before deciding
 * about a dead rank: a signal sent to the whole process group kills the
 * ranks too, and those deaths are not faults to recover from. */
void job_read_signals(struct job *j)
{
    struct signalfd_siginfo si;

    while (read(j->sfd, &si, sizeof(si)) == sizeof(si)) {
        int sig = (int)si.ssi_signo;

        if (sig == SIGCHLD)
            continue;
        job_fail(j, 128 + sig, ENC_RUN_ABORT_GRACE_MS,
             "interrupted by signal %d (%s); forwarded to the ranks", sig, strsignal(sig));
        job_kill_all(j, sig);
    }
}

/* A rank died before MPI_Finalize (its process is gone or being killed). */
void job_rank_died(struct job *j, int rank, const char *why)
{
    struct rank_proc *p = &j->r[rank];

    job_read_signals(j);
    if (j->failing) {
        p->phase = R_DONE;
        return;
    }
    if (j->o->fail_all) {
        restart_everyone(j, rank, why);
        return;
    }
    if (!enc_run_can_restart(j->o, p->restarts) || j->after_final_status != 0) {
        p->phase = R_DONE;
        enc_tracker_rank_dead(j->t, rank, p->incarnation, false);
        if (j->after_final_status != 0) /* its replay could need what that rank kept */
            job_fail(j, 1, 0, "rank %d %s; not restarted: %s, the results it kept are lost", rank,
                 why, j->final_line);
        else
            job_fail(j, 1, 0, "rank %d %s; restart budget (%d) spent", rank, why,
                 j->o->max_restarts);
        return;
    }
    ENC_WARN("run", "rank %d %s; restarting it (%d of %d)", rank, why, p->restarts + 1,
             j->o->max_restarts);
    enc_tracker_rank_dead(j->t, rank, p->incarnation, true);
    schedule_restart(j, rank);
}

/* A rank reaped right after MPI_Finalize may not have had its FINALIZE
 * frame delivered yet: under load the kernel hands loopback packets to
 * ksoftirqd, so the exit can overtake them.  The connection's end follows
 * that frame in the stream, so read until the tracker saw one or the other
 * (bounded: 1 s). */
static void await_last_frames(struct job *j, int rank)
{
    for (int i = 0; i < 100 && !j->r[rank].finalized &&
                    enc_tracker_rank_state(j->t, rank) == ENC_TRK_REGISTERED; i++)
        enc_tracker_poll(j->t, 10, NULL, 0);
}

/* A restarted rank that has not finalized yet (or is about to start): it
 * may still replay from the survivors' logs.  The rank or -1. */
static int replaying_rank(const struct job *j)
{
    if (j->o->fail_all)
        return -1; /* everyone starts from scratch: no log is read */
    for (int i = 0; i < j->o->np; i++)
        if (j->r[i].incarnation > 0 && !j->r[i].finalized && j->r[i].phase != R_DONE)
            return i;
    return -1;
}

/* The first rank that failed after MPI_Finalize (killed, or stopped and
 * killed) makes the job's status a failure and takes the results it kept
 * with it.  The others may finish, unless one is replaying: it could need
 * those results and would wait for them in vain, so the job ends now. */
static void failed_after_finalize(struct job *j, int rank, pid_t pid, int status,
                                  const char *what)
{
    const struct rank_proc *p = &j->r[rank];
    int other = replaying_rank(j);

    j->after_final_status = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    if (p->lost[0] != '\0')
        snprintf(j->final_line, sizeof(j->final_line), "rank %d (pid %d) %s; killed", rank,
                 (int)pid, p->lost);
    else
        snprintf(j->final_line, sizeof(j->final_line), "rank %d %s after MPI_Finalize", rank,
                 what);
    if (other >= 0)
        job_fail(j, j->after_final_status, ENC_RUN_ABORT_GRACE_MS,
             "%s while rank %d was replaying; the results it kept are lost", j->final_line,
             other);
}

void job_rank_exited(struct job *j, int rank, int status)
{
    struct rank_proc *p = &j->r[rank];
    char what[96], why[300];
    pid_t pid = p->pid;

    p->pid = 0;
    if (p->phase == R_RESTART || (j->failing && p->phase != R_RUNNING))
        return; /* killed on purpose (fail-all), already accounted for */
    enc_run_describe_status(status, what, sizeof(what));
    if (p->registered && !p->finalized && WIFEXITED(status))
        await_last_frames(j, rank);
    if (p->finalized) {
        p->phase = R_DONE;
        if (status != 0 && !j->after_final_status)
            failed_after_finalize(j, rank, pid, status, what);
        return;
    }
    if (!p->registered && status == 0 && p->incarnation == 0) {
        p->phase = R_DONE; /* never called MPI_Init: a plain program */
        return;
    }
    if (job_remote(j, rank))
        snprintf(what + strlen(what), sizeof(what) - strlen(what), " on host %s",
                 j->hl->h[j->host_of[rank]].name);
    if (p->lost[0] != '\0' && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        snprintf(why, sizeof(why), "(pid %d) %s; killed", (int)pid, p->lost);
    else if (WIFSIGNALED(status))
        snprintf(why, sizeof(why), "(pid %d) %s", (int)pid, what);
    else
        snprintf(why, sizeof(why), "%s before MPI_Finalize", what);
    job_rank_died(j, rank, why);
}

/* The local rank whose process is pid (a remote rank's pid is its host's). */
static enc_status_t rank_of_pid(const struct job *j, pid_t pid, int *rank)
{
    for (int i = 0; i < j->o->np; i++) {
        if (j->r[i].pid == pid && !job_remote(j, i)) {
            *rank = i;
            return ENC_OK;
        }
    }
    return ENC_ERR_NOT_FOUND;
}

/* waitpid(pid, WNOHANG): ENC_OK when a child was reaped (*reaped), *rank being its rank or -1 for another child
 * (an agent's rsh or srun, judged by remote.c, a snapshot image, or a
 * program's orphan); ENC_INPROGRESS when none has exited. */
enc_status_t job_wait_rank(struct job *j, pid_t pid, int *status, pid_t *reaped, int *rank)
{
    *rank = -1;
    if ((pid = *reaped = waitpid(pid, status, WNOHANG)) <= 0)
        return ENC_INPROGRESS;
    if (j->rm != NULL && enc_run_remote_child_exited(j->rm, pid, *status))
        return ENC_OK;
    (void)rank_of_pid(j, pid, rank); /* not found: *rank stays -1 */
    return ENC_OK;
}

bool job_snap_wanted(void *arg, int rank, uint32_t inc)
{
    const struct job *j = arg;
    const struct rank_proc *p = &j->r[rank];

    if (j->failing || p->finalized)
        return false;
    /* the incarnation that just died: its spare or newest snapshot was
     * still on its way, and it is what the restart wants */
    if (p->phase == R_RESTART && inc + 1 == p->incarnation)
        return true;
    return p->incarnation == inc && p->phase == R_RUNNING && p->pid > 0;
}
