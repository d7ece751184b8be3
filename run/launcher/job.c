/*
 * job.c - encore-run's event loop: the embedded tracker, the rank
 * processes (SIGCHLD through a signalfd), their output, restart timers,
 * random fault injection, and the job's end with exactly one line saying
 * why it failed.
 */
#include "enc.h"
#include "core/tmpdir.h"
#include "launcher/launcher.h"
#include "launcher/remote.h"
#include "shm/shm.h"
#include "proto/auth.h"
#include "proto/msgs.h"

#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum rank_phase { R_RUNNING = 0, R_RESTART, R_DONE };

struct rank_proc {
    pid_t pid;                    /* 0 when no process */
    uint32_t incarnation;
    int restarts;
    enum rank_phase phase;
    bool registered;              /* this incarnation registered with the tracker */
    bool finalized;
    int host;                     /* index in the host list (0 in a local job) */
    bool remote_live;             /* a SPAWN went to its agent and no EXITED came back */
    bool waiting;                 /* to spawn once every agent is up */
    bool from_image;              /* this incarnation is a restored snapshot image */
    char lost[160];               /* why the tracker gave up on it, if it did */
    uint64_t restart_at;
    uint64_t stopped_since;       /* first seen stopped while unwatched (0: not) */
    long maxrss_kb;               /* peak RSS over its incarnations (wait4) */
    struct enc_run_stream out, err;
};

struct job {
    const struct enc_run_opts *o;
    const char *path;
    struct enc_tracker *t;
    char **env;
    struct rank_proc *r;
    int sfd;
    bool failing;                 /* the job is ending; no more restarts */
    int status;                   /* exit status once failing */
    char line[600];
    uint64_t kill_at;             /* SIGKILL stragglers at this time (0: not set) */
    uint64_t deadline;            /* --timeout */
    uint64_t next_random;
    uint64_t random_kills;        /* sent so far (--inject random:...:count=N) */
    uint64_t rng;
    int after_final_status;       /* exit status of a rank that failed after MPI_Finalize */
    char final_line[400];         /* what happened to it (the line if nothing worse does) */
    char jobdir[4096];            /* private directory under TMPDIR (jobdir.c) */
    struct enc_run_snaps *snaps;  /* parked snapshot images, NULL when off */
    uint64_t log_floor;           /* the last EVENT TRIM sent */
    struct enc_run_hostlist *hl;  /* NULL: a local job */
    struct enc_run_remote *rm;    /* agents of a multi-host job */
    struct enc_shm_host shm;      /* the segment of the ranks encore-run spawns itself */
    int *host_of;
    bool agents_up;
    uint16_t tracker_port;
};

static bool remote(const struct job *j, int rank)
{
    return j->hl != NULL && !j->hl->h[j->host_of[rank]].local;
}

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

static void kill_rank(struct job *j, struct rank_proc *p, int sig)
{
    int rank = (int)(p - j->r);

    if (remote(j, rank) && p->remote_live)
        enc_run_remote_kill(j->rm, j->host_of[rank], rank, p->incarnation, sig);
    else if (!remote(j, rank) && p->pid > 0)
        kill(p->pid, sig);
}

static void kill_all(struct job *j, int sig)
{
    for (int i = 0; i < j->o->np; i++)
        kill_rank(j, &j->r[i], sig);
}

/* Ends the job: one line, EVENT ABORT to the ranks, SIGKILL after a grace. */
static void fail(struct job *j, int status, uint64_t grace_ms, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void fail(struct job *j, int status, uint64_t grace_ms, const char *fmt, ...)
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
        kill_all(j, SIGKILL);
}

static bool snap_wanted(void *arg, int rank, uint32_t inc);

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

    enc_run_snaps_drain(j->snaps, rank, p->from_image ? SPARE_WAIT_MS : 0, snap_wanted, j);
    enc_run_inject_value(j->o, rank, p->incarnation, inj, sizeof(inj));
    if (enc_run_snaps_activate(j->snaps, rank, p->incarnation, inj, &pid, &seq) != ENC_OK)
        return false;
    p->from_image = true;
    p->pid = pid;
    p->phase = R_RUNNING;
    p->registered = false;
    p->lost[0] = '\0';
    ENC_INFO("run", "rank %d incarnation %u restored from its snapshot at seq %llu (pid %d)",
             rank, p->incarnation, (unsigned long long)seq, (int)pid);
    return true;
}

/* The segment of the local ranks: every one is added before the first
 * spawns, so each learns every local peer's eventfd. */
static void create_shm(struct job *j)
{
    enc_shm_host_create(&j->shm, j->o->np);
    for (int i = 0; i < j->o->np; i++)
        if (!remote(j, i) && enc_shm_host_add_rank(&j->shm, i) != ENC_OK)
            break; /* the segment is gone (warned): TCP */
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

static enc_status_t spawn(struct job *j, int rank)
{
    struct rank_proc *p = &j->r[rank];
    char **env, dir[4200];
    enc_status_t rv;

    if (p->incarnation > 0 && !remote(j, rank) && restore(j, rank))
        return ENC_OK;
    p->from_image = false;
    if (p->incarnation > 0 && j->log_floor > 0 && !j->o->fail_all)
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
    if (!remote(j, rank) &&
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
        rv = enc_run_spawn(j->path, j->o->argv, env, j->o->bind_to, rank, j->o->tag_output,
                           &p->out, &p->err, &p->pid);
    p->remote_live = rv == ENC_OK && remote(j, rank);
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
            fail(j, 1, 0, "rank %d %s; restart budget (%d) of rank %d spent", dead, why,
                 j->o->max_restarts, i);
            return;
        }
    }
    ENC_WARN("run", "rank %d %s; restarting all ranks (fail-all)", dead, why);
    enc_tracker_restart_all(j->t);
    for (int i = 0; i < j->o->np; i++) {
        kill_rank(j, &j->r[i], SIGKILL);
        enc_run_snaps_forget(j->snaps, i); /* everyone starts from scratch */
        j->r[i].finalized = false;
        schedule_restart(j, i);
    }
}

/* SIGINT/SIGTERM/SIGHUP to encore-run end the job: forwarded to the ranks,
 * SIGKILL for those still there after a grace.  Read them before deciding
 * about a dead rank: a signal sent to the whole process group kills the
 * ranks too, and those deaths are not faults to recover from. */
static void read_signals(struct job *j)
{
    struct signalfd_siginfo si;

    while (read(j->sfd, &si, sizeof(si)) == sizeof(si)) {
        int sig = (int)si.ssi_signo;

        if (sig == SIGCHLD)
            continue;
        fail(j, 128 + sig, ENC_RUN_ABORT_GRACE_MS,
             "interrupted by signal %d (%s); forwarded to the ranks", sig, strsignal(sig));
        kill_all(j, sig);
    }
}

/* A rank died before MPI_Finalize (its process is gone or being killed). */
static void rank_died(struct job *j, int rank, const char *why)
{
    struct rank_proc *p = &j->r[rank];

    read_signals(j);
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
            fail(j, 1, 0, "rank %d %s; not restarted: %s, the results it kept are lost", rank,
                 why, j->final_line);
        else
            fail(j, 1, 0, "rank %d %s; restart budget (%d) spent", rank, why,
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
        fail(j, j->after_final_status, ENC_RUN_ABORT_GRACE_MS,
             "%s while rank %d was replaying; the results it kept are lost", j->final_line,
             other);
}

static void rank_exited(struct job *j, int rank, int status)
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
    if (remote(j, rank))
        snprintf(what + strlen(what), sizeof(what) - strlen(what), " on host %s",
                 j->hl->h[j->host_of[rank]].name);
    if (p->lost[0] != '\0' && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        snprintf(why, sizeof(why), "(pid %d) %s; killed", (int)pid, p->lost);
    else if (WIFSIGNALED(status))
        snprintf(why, sizeof(why), "(pid %d) %s", (int)pid, what);
    else
        snprintf(why, sizeof(why), "%s before MPI_Finalize", what);
    rank_died(j, rank, why);
}

/* The local rank whose process is pid (a remote rank's pid is its host's). */
static enc_status_t rank_of_pid(const struct job *j, pid_t pid, int *rank)
{
    for (int i = 0; i < j->o->np; i++) {
        if (j->r[i].pid == pid && !remote(j, i)) {
            *rank = i;
            return ENC_OK;
        }
    }
    return ENC_ERR_NOT_FOUND;
}

/* waitpid(pid, WNOHANG) that keeps the rank's peak RSS: ENC_OK when a
 * child was reaped (*reaped), *rank being its rank or -1 for another child
 * (an agent's rsh or srun, judged by remote.c, a snapshot image, or a
 * program's orphan); ENC_INPROGRESS when none has exited. */
static enc_status_t wait_rank(struct job *j, pid_t pid, int *status, pid_t *reaped, int *rank)
{
    struct rusage ru;

    *rank = -1;
    if ((pid = *reaped = wait4(pid, status, WNOHANG, &ru)) <= 0)
        return ENC_INPROGRESS;
    if (j->rm != NULL && enc_run_remote_child_exited(j->rm, pid, *status))
        return ENC_OK;
    if (rank_of_pid(j, pid, rank) != ENC_OK)
        return ENC_OK;
    j->r[*rank].maxrss_kb = ENC_MAX(j->r[*rank].maxrss_kb, ru.ru_maxrss);
    return ENC_OK;
}

static void reap(struct job *j)
{
    int status, rank;
    pid_t pid;

    /* A rank's last frames (FINALIZE) were written before it exited: read
     * them before judging its exit. */
    enc_tracker_poll(j->t, 0, NULL, 0);
    while (wait_rank(j, -1, &status, &pid, &rank) == ENC_OK)
        if (rank >= 0)
            rank_exited(j, rank, status);
        else
            enc_run_snaps_reaped(j->snaps, pid); /* an image, or a program's orphan */
}

/* Gives a rank whose connection just closed a moment to finish exiting,
 * so the line can say what really happened (exit status, signal). */
static void settle(struct job *j, struct rank_proc *p, bool silent)
{
    int status, rank;
    pid_t pid;

    for (int i = 0; i < (silent ? 0 : 50); i++) {
        if (wait_rank(j, p->pid, &status, &pid, &rank) == ENC_OK && rank >= 0) {
            p->lost[0] = '\0'; /* it ended by itself: its status says more */
            rank_exited(j, (int)(p - j->r), status);
            return;
        }
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    kill_rank(j, p, SIGKILL); /* hung, stopped or confused: reaped by the loop */
}

static void hook_lost(void *arg, int rank, uint32_t inc, const char *why)
{
    struct job *j = arg;
    struct rank_proc *p = &j->r[rank];

    if (p->incarnation != inc || p->pid <= 0 || p->phase != R_RUNNING) {
        enc_tracker_rank_dead(j->t, rank, inc, false);
        return;
    }
    snprintf(p->lost, sizeof(p->lost), "%s", why);
    if (remote(j, rank))
        kill_rank(j, p, SIGKILL); /* its agent reports the exit */
    else
        settle(j, p, strncmp(why, "silent", 6) == 0);
}

static void hook_registered(void *arg, int rank, uint32_t inc, uint32_t pid)
{
    struct job *j = arg;

    if (j->r[rank].incarnation == inc)
        j->r[rank].registered = true;
}

static void hook_finalized(void *arg, int rank)
{
    struct job *j = arg;

    j->r[rank].finalized = true;
}

static void hook_aborted(void *arg, int rank, int32_t code, const char *reason)
{
    struct job *j = arg;

    fail(j, code >= 1 && code <= 255 ? code : 1, ENC_RUN_ABORT_GRACE_MS,
         "rank %d called MPI_Abort (errorcode %d): %s", rank, code, reason);
}

static void hook_failed(void *arg, const char *why)
{
    struct job *j = arg;

    fail(j, 1, ENC_RUN_ABORT_GRACE_MS, "%s", why);
}

static void agent_up(void *arg, int host)
{
    struct job *j = arg;

    ENC_DEBUG("run", "agent of host %s is up", j->hl->h[host].name);
    if (j->agents_up || !enc_run_remote_all_up(j->rm))
        return;
    j->agents_up = true;
    enc_run_env_local_tracker(j->env, enc_run_remote_local_addr(j->rm), j->tracker_port);
    for (int i = 0; i < j->o->np && !j->failing; i++)
        if (j->r[i].waiting && spawn(j, i) != ENC_OK)
            fail(j, 1, 0, "cannot start rank %d", i);
}

static void agent_started(void *arg, int rank, uint32_t inc, pid_t pid)
{
    struct job *j = arg;

    if (rank >= 0 && rank < j->o->np && j->r[rank].incarnation == inc && j->r[rank].remote_live)
        j->r[rank].pid = pid;
}

static void agent_exited(void *arg, int rank, uint32_t inc, int status, long maxrss_kb)
{
    struct job *j = arg;

    if (rank < 0 || rank >= j->o->np || j->r[rank].incarnation != inc || !j->r[rank].remote_live)
        return;
    j->r[rank].remote_live = false;
    j->r[rank].maxrss_kb = ENC_MAX(j->r[rank].maxrss_kb, ENC_MIN(ENC_MAX(maxrss_kb, 0), 1L << 40));
    rank_exited(j, rank, status);
}

static void agent_failed(void *arg, int host, int rank, uint32_t inc, const char *why)
{
    struct job *j = arg;

    if (rank >= 0 && rank < j->o->np && j->r[rank].incarnation == inc)
        j->r[rank].remote_live = false;
    fail(j, 1, 0, "cannot start rank %d on host %s: %s", rank, j->hl->h[host].name, why);
}

static void agent_never_up(void *arg, int host, const char *why)
{
    struct job *j = arg;

    for (int i = 0; i < j->o->np; i++)
        j->r[i].waiting = false;
    fail(j, 1, 0, "%s", why);
}

/* Every rank of a lost host dies with it and moves to a host with a free slot. */
static void host_lost(void *arg, int host, const char *why)
{
    struct job *j = arg;
    char what[200];
    int to;

    j->hl->h[host].lost = true;
    ENC_WARN("run", "host %s lost: %s; it is excluded for the rest of the job",
             j->hl->h[host].name, why);
    for (int i = 0; i < j->o->np; i++) /* nothing of that host will report again */
        if (j->host_of[i] == host) {
            j->r[i].remote_live = false;
            j->r[i].pid = 0;
        }
    for (int i = 0; i < j->o->np; i++) {
        struct rank_proc *p = &j->r[i];

        if (j->host_of[i] != host || p->phase == R_DONE || p->finalized)
            continue;
        if (enc_run_free_host(j->hl, j->host_of, j->o->np, &to) != ENC_OK) {
            fail(j, 1, 0, "host %s lost (%s) and no free slot is left for its rank %d",
                 j->hl->h[host].name, why, i);
            return;
        }
        j->host_of[i] = p->host = to;
        if (p->phase == R_RESTART)
            continue; /* already on its way back, now elsewhere */
        snprintf(what, sizeof(what), "was lost with host %s; moving it to host %s",
                 j->hl->h[host].name, j->hl->h[to].name);
        rank_died(j, i, what);
    }
}

static enc_status_t start_agents(struct job *j, const struct enc_secret *s)
{
    struct enc_run_remote_config cfg = {.hosts = j->hl, .rsh = j->o->rsh, .secret = s,
        .tracker_port = j->tracker_port, .np = j->o->np, .host_of = j->host_of,
        .hooks = {.arg = j, .up = agent_up, .started = agent_started, .failed = agent_failed,
                  .exited = agent_exited, .lost = host_lost, .never_up = agent_never_up}};
    enc_status_t rv;

    enc_run_hosts_mark_local(j->hl);
    if ((rv = enc_run_remote_start(&j->rm, &cfg)) != ENC_OK) {
        fprintf(stderr, "encore-run: cannot start the agents: %s\n", encore_strerror(rv));
        return rv;
    }
    if (enc_run_remote_all_up(j->rm))
        agent_up(j, 0);
    return ENC_OK;
}

static void random_kill(struct job *j)
{
    int cand[ENC_MAX_RANKS], n = 0;

    j->next_random = enc_deadline_ms((int64_t)(j->o->random_every_s * 1000));
    for (int i = 0; i < j->o->np; i++)
        if (j->r[i].pid > 0 && j->r[i].phase == R_RUNNING && j->r[i].registered &&
            !j->r[i].finalized)
            cand[n++] = i;
    if (n == 0)
        return;
    int v = cand[enc_run_rand(&j->rng) % (uint64_t)n];
    ENC_WARN("run", "inject: killing rank %d (pid %d)", v, (int)j->r[v].pid);
    kill_rank(j, &j->r[v], SIGKILL);
    if (j->o->random_count > 0 && ++j->random_kills >= j->o->random_count)
        j->next_random = ENC_NEVER; /* count=N reached */
}

/* Heartbeats watch a rank from its registration to MPI_Finalize.  One
 * stopped outside that window (before it registered, or after it finalized
 * while it still serves its log) is killed once it stayed stopped for the
 * heartbeat timeout: restarted in the first case, a failure in the second. */
static void check_unwatched(struct job *j, uint64_t now)
{
    uint64_t limit = (uint64_t)enc_tunable_ll(ENC_TUNE_HEARTBEAT_TIMEOUT_MS) * 1000000ull;

    for (int i = 0; i < j->o->np; i++) {
        struct rank_proc *p = &j->r[i];

        if (p->pid <= 0 || remote(j, i) || p->phase != R_RUNNING ||
            (p->registered && !p->finalized) || p->lost[0] != '\0' ||
            !enc_run_pid_stopped(p->pid)) {
            p->stopped_since = 0;
            continue;
        }
        if (p->stopped_since == 0)
            p->stopped_since = now;
        if (now - p->stopped_since < limit)
            continue;
        snprintf(p->lost, sizeof(p->lost), "stopped %s",
                 p->finalized ? "after MPI_Finalize" : "before it registered");
        kill_rank(j, p, SIGKILL);
    }
}

static void timers(struct job *j)
{
    uint64_t now = enc_now_ns();

    check_unwatched(j, now);

    for (int i = 0; i < j->o->np && !j->failing; i++) {
        struct rank_proc *p = &j->r[i];

        if (p->phase == R_RESTART && p->pid == 0 && now >= p->restart_at &&
            spawn(j, i) != ENC_OK)
            fail(j, 1, 0, "cannot restart rank %d", i);
    }
    if (j->kill_at != 0 && now >= j->kill_at) {
        kill_all(j, SIGKILL);
        j->kill_at = 0;
    }
    if (j->deadline != ENC_NEVER && now >= j->deadline && !j->failing)
        fail(j, 1, 0, "job timed out after %g s (--timeout); killed all ranks", j->o->timeout_s);
    if (j->o->random_every_s > 0 && !j->failing && now >= j->next_random)
        random_kill(j);
}

static uint64_t next_timer(const struct job *j)
{
    uint64_t next = j->deadline;

    for (int i = 0; i < j->o->np; i++)
        if (j->r[i].phase == R_RESTART && j->r[i].pid == 0)
            next = ENC_MIN(next, j->r[i].restart_at);
    if (j->kill_at != 0)
        next = ENC_MIN(next, j->kill_at);
    if (j->o->random_every_s > 0 && !j->failing)
        next = ENC_MIN(next, j->next_random);
    if (j->rm != NULL)
        next = ENC_MIN(next, enc_run_remote_next_timer(j->rm));
    for (int i = 0; i < j->o->np; i++) /* check_unwatched, every heartbeat */
        if (j->r[i].pid > 0 && !remote(j, i) && (!j->r[i].registered || j->r[i].finalized))
            next = ENC_MIN(next, enc_deadline_ms(enc_tunable_ll(ENC_TUNE_HEARTBEAT_MS)));
    return next;
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

static bool snap_wanted(void *arg, int rank, uint32_t inc)
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

/* Every rank still running has a parked snapshot past seq s: no rank will
 * ask for a result below the lowest s + 1 again (a rank that passed
 * MPI_Finalize asks for none), and the ranks release them. */
static void trim_logs(struct job *j)
{
    uint64_t floor = UINT64_MAX, seq;

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
    enc_tracker_trim(j->t, floor);
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
    if ((rv = enc_tracker_poll(j->t, enc_ms_left(next_timer(j)), pf, n + nr + ns)) != ENC_OK)
        return rv;
    enc_run_snaps_serve(j->snaps, pf + n + nr, ns, snap_wanted, j);
    trim_logs(j);
    for (int i = 1; i < n; i++)
        if (pf[i].revents)
            enc_run_stream_pump(st[i]);
    if (j->rm != NULL) {
        enc_run_remote_events(j->rm, pf + n, nr);
        enc_run_remote_timers(j->rm);
    }
    if (pf[0].revents & POLLIN)
        read_signals(j);
    reap(j);
    timers(j);
    return ENC_OK;
}

static void hook_dropped(void *arg, int rank, uint64_t first, uint64_t last)
{
    (void)arg;
    enc_tracker_print_dropped("encore-run", rank, first, last, stderr);
}

static enc_status_t start_tracker(struct job *j, struct enc_secret *s)
{
    struct enc_tracker_config cfg = {.size = j->o->np, .secret = s,
                                     .bind_host = j->hl != NULL ? NULL : "127.0.0.1"};
    char hex[2 * ENC_SECRET_LEN + 1], addr[64], lib[4096];
    const char *preload = NULL;
    enc_status_t rv;

    cfg.hooks = (struct enc_tracker_hooks){.arg = j, .lost = hook_lost,
        .registered = hook_registered, .finalized = hook_finalized,
        .aborted = hook_aborted, .failed = hook_failed, .dropped = hook_dropped};
    if ((rv = enc_secret_generate(s)) != ENC_OK ||
        (rv = enc_tracker_create(&j->t, &cfg)) != ENC_OK) {
        fprintf(stderr, "encore-run: cannot start the tracker: %s\n", encore_strerror(rv));
        return rv;
    }
    if (!enc_run_elf_needs_libencore(j->path) &&
        (preload = enc_run_find_libencore(lib, sizeof(lib))) == NULL)
        ENC_WARN("run", "libencore.so not found (set ENCORE_LIB); running without it");
    enc_secret_to_hex(s, hex);
    j->tracker_port = enc_tracker_port(j->t);
    snprintf(addr, sizeof(addr), "127.0.0.1:%u", enc_tracker_port(j->t));
    rv = enc_run_env_base(j->o, addr, hex, preload, &j->env);
    memset(hex, 0, sizeof(hex));
    if (rv == ENC_OK)
        rv = enc_run_snaps_open(&j->snaps, j->o->np, j->jobdir, &j->env);
    return rv;
}

static void print_snapshots(const struct job *j)
{
    unsigned taken, used, tt = 0, tu = 0;

    if (j->snaps == NULL)
        return;
    for (int i = 0; i < j->o->np; i++) {
        enc_run_snaps_counts(j->snaps, i, &taken, &used);
        tt += taken;
        tu += used;
    }
    fprintf(stderr, "encore: snapshots: %u taken, %u used\n", tt, tu);
    for (int i = 0; i < j->o->np; i++) {
        enc_run_snaps_counts(j->snaps, i, &taken, &used);
        fprintf(stderr, "  rank %-5d snapshots taken %-6u used %u\n", i, taken, used);
    }
}

/* encore-run's exit status, after the summary and the one failure line. */
static int finish(struct job *j)
{
    int restarts[ENC_MAX_RANKS];
    bool any = j->o->summary;
    long rss[ENC_MAX_RANKS];
    const struct enc_tracker_recovery *rec;
    uint64_t first, last;

    any |= enc_tracker_dropped(j->t, &first, &last); /* the final range */
    for (int i = 0; i < j->o->np; i++) {
        any |= (restarts[i] = j->r[i].restarts) != 0;
        rss[i] = j->r[i].maxrss_kb;
    }
    if (any || enc_tracker_recoveries(j->t, &rec) > 0 || enc_log_level() >= ENC_LOG_INFO) {
        enc_tracker_print_summary(j->t, restarts, rss, stderr);
        print_snapshots(j);
    }
    if (j->failing) {
        fprintf(stderr, "encore-run: %s\n", j->line);
        return j->status;
    }
    if (j->after_final_status != 0)
        fprintf(stderr, "encore-run: %s\n", j->final_line);
    return j->after_final_status;
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
        (j.hl != NULL && enc_run_map(j.hl, o->np, o->map_by_node, o->oversubscribe,
                                     j.host_of) != ENC_OK))
        goto out;
    for (int i = 0; i < o->np; i++)
        j.r[i].host = j.host_of[i];
    for (int i = 0; i < o->np; i++)
        j.r[i].out.fd = j.r[i].err.fd = -1;
    j.deadline = o->timeout_s > 0 ? enc_deadline_ms((int64_t)(o->timeout_s * 1000)) : ENC_NEVER;
    j.next_random = enc_deadline_ms((int64_t)(o->random_every_s * 1000));
    if ((rv = enc_run_signalfd(&j.sfd)) != ENC_OK ||
        (rv = enc_run_jobdir_create(j.jobdir, sizeof(j.jobdir))) != ENC_OK ||
        (rv = start_tracker(&j, &s)) != ENC_OK)
        goto out;
    drop_unused_jobdir(&j);
    if (j.hl != NULL && (rv = start_agents(&j, &s)) != ENC_OK)
        goto out;
    memset(&s, 0, sizeof(s));
    create_shm(&j);
    /* Serve the tracker between spawns: with hundreds of ranks the first
     * ones register (and must be answered) long before the last starts. */
    for (int i = 0; i < o->np && !j.failing; i++) {
        if (spawn(&j, i) != ENC_OK)
            fail(&j, 1, 0, "cannot start rank %d", i);
        enc_tracker_poll(j.t, 0, NULL, 0);
    }
    while (!finished(&j) && (rv = step(&j)) == ENC_OK)
        ;
    if (rv == ENC_OK)
        status = finish(&j);
out:
    enc_shm_host_close(&j.shm);
    enc_run_snaps_close(j.snaps);
    enc_run_remote_destroy(j.rm);
    enc_run_jobdir_remove(j.jobdir);
    enc_tracker_destroy(j.t);
    enc_run_env_free(j.env);
    free(j.r);
    free(j.host_of);
    return status;
}
