/*
 * job_hooks.c - what the embedded tracker and the agents of a multi-host
 * job tell encore-run, turned into rank state (job.c): a rank lost,
 * registered, finalized or aborting; an agent up, a rank started or exited
 * on it, a host lost; and starting both (the agents' word on snapshot
 * images: job_images.c).
 */
#include "enc.h"
#include "launcher/job.h"
#include "proto/auth.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Gives a rank whose connection just closed a moment to finish exiting,
 * so the line can say what really happened (exit status, signal). */
static void settle(struct job *j, struct rank_proc *p, bool silent)
{
    int status, rank;
    pid_t pid;

    for (int i = 0; i < (silent ? 0 : 50); i++) {
        if (job_wait_rank(j, p->pid, &status, &pid, &rank) == ENC_OK && rank >= 0) {
            p->lost[0] = '\0'; /* it ended by itself: its status says more */
            job_rank_exited(j, (int)(p - j->r), status);
            return;
        }
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    job_kill_rank(j, p, SIGKILL); /* hung, stopped or confused: reaped by the loop */
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
    if (job_remote(j, rank))
        job_kill_rank(j, p, SIGKILL); /* its agent reports the exit */
    else
        settle(j, p, strncmp(why, "silent", 6) == 0);
}

static void hook_registered(void *arg, int rank, uint32_t inc, uint32_t pid)
{
    struct job *j = arg;

    if (j->r[rank].incarnation == inc)
        j->r[rank].registered = true;
    job_sample_memory(j, rank);
}

static void hook_finalized(void *arg, int rank)
{
    struct job *j = arg;

    j->r[rank].finalized = true;
    job_sample_memory(j, rank); /* about its largest: its work is done */
    if (job_remote(j, rank))
        job_forget_images(j, rank); /* here, job_snap_wanted refuses them */
}

static void hook_aborted(void *arg, int rank, int32_t code, const char *reason)
{
    struct job *j = arg;

    job_fail(j, code >= 1 && code <= 255 ? code : 1, ENC_RUN_ABORT_GRACE_MS,
         "rank %d called MPI_Abort (errorcode %d): %s", rank, code, reason);
}

static void hook_failed(void *arg, const char *why)
{
    struct job *j = arg;

    job_fail(j, 1, ENC_RUN_ABORT_GRACE_MS, "%s", why);
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
        if (j->r[i].waiting && job_spawn(j, i) != ENC_OK)
            job_fail(j, 1, 0, "cannot start rank %d", i);
}

static void agent_started(void *arg, int rank, uint32_t inc, pid_t pid)
{
    struct job *j = arg;

    if (rank >= 0 && rank < j->o->np && j->r[rank].incarnation == inc && j->r[rank].remote_live)
        j->r[rank].pid = pid;
}

static void agent_exited(void *arg, int rank, uint32_t inc, int status,
                         const struct enc_agent_mem *mem)
{
    struct job *j = arg;
    struct rank_proc *p;

    if (rank < 0 || rank >= j->o->np || !j->r[rank].remote_live)
        return;
    p = &j->r[rank];
    /* the incarnation before, killed by fail-all: its restart (or the
     * job's end) waits for its end (job_rank_exited clears pid) */
    if (p->incarnation != inc && !(inc + 1 == p->incarnation && p->phase != R_RUNNING))
        return;
    p->remote_live = false;
    p->private_kb = ENC_MAX(p->private_kb, mem->private_kb);
    if (mem->shm_alloc_kb >= 0) /* the segment only grows: the last word is the largest */
        j->host_mem[j->host_of[rank]] = *mem;
    job_rank_exited(j, rank, status);
}

static void agent_failed(void *arg, int host, int rank, uint32_t inc, const char *why)
{
    struct job *j = arg;

    if (rank >= 0 && rank < j->o->np && j->r[rank].incarnation == inc)
        j->r[rank].remote_live = false;
    job_fail(j, 1, 0, "cannot start rank %d on host %s: %s", rank, j->hl->h[host].name, why);
}

static void agent_never_up(void *arg, int host, const char *why)
{
    struct job *j = arg;

    for (int i = 0; i < j->o->np; i++)
        j->r[i].waiting = false;
    job_fail(j, 1, 0, "%s", why);
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
    job_host_images_lost(j, host);
    for (int i = 0; i < j->o->np; i++) /* nothing of that host will report again */
        if (j->host_of[i] == host) {
            j->r[i].remote_live = false;
            j->r[i].pid = 0;
        }
    for (int i = 0; i < j->o->np; i++) {
        struct rank_proc *p = &j->r[i];

        if (j->host_of[i] != host || p->phase == R_DONE || p->finalized)
            continue;
        /* Its determinants (which message a wildcard receive matched, what
         * a Test found) lived on that host only (ENCORE_P2P_DET_REPLICA=0;
         * otherwise a rank off this host copies them to the tracker and
         * reports no NONDET): re-executed elsewhere it would choose afresh,
         * and the other ranks may hold messages that depend on its first
         * choices (docs/p2p.md 5.3).  A clear end, not a silent divergence. */
        if (enc_tracker_rank_nondet(j->t, i)) {
            job_fail(j, 1, 0, "host %s lost (%s) with rank %d, whose nondeterministic outcomes "
                     "(wildcard matches, Test/Iprobe/Waitany results) were kept only on that "
                     "host: re-executed elsewhere it could contradict messages the other ranks "
                     "received; not recoverable", j->hl->h[host].name, why, i);
            return;
        }
        if (enc_run_free_host(j->hl, j->host_of, j->o->np, &to) != ENC_OK) {
            job_fail(j, 1, 0, "host %s lost (%s) and no free slot is left for its rank %d",
                 j->hl->h[host].name, why, i);
            return;
        }
        j->host_of[i] = p->host = to;
        if (p->phase == R_RESTART)
            continue; /* already on its way back, now elsewhere */
        snprintf(what, sizeof(what), "was lost with host %s; moving it to host %s",
                 j->hl->h[host].name, j->hl->h[to].name);
        job_rank_died(j, i, what);
    }
}

enc_status_t job_start_agents(struct job *j, const struct enc_secret *s)
{
    struct enc_run_remote_config cfg = {.hosts = j->hl, .rsh = j->o->rsh, .secret = s,
        .tracker_port = j->tracker_port, .np = j->o->np, .host_of = j->host_of,
        .hooks = {.arg = j, .up = agent_up, .started = agent_started, .failed = agent_failed,
                  .exited = agent_exited, .lost = host_lost, .never_up = agent_never_up}};
    enc_status_t rv;

    job_image_hooks(j, &cfg);
    enc_run_hosts_mark_local(j->hl);
    if ((rv = enc_run_remote_start(&j->rm, &cfg)) != ENC_OK) {
        fprintf(stderr, "encore-run: cannot start the agents: %s\n", encore_strerror(rv));
        return rv;
    }
    if (enc_run_remote_all_up(j->rm))
        agent_up(j, 0);
    return ENC_OK;
}


static void hook_dropped(void *arg, int rank, uint64_t first, uint64_t last)
{
    (void)arg;
    enc_tracker_print_dropped("encore-run", rank, first, last, stderr);
}

enc_status_t job_start_tracker(struct job *j, struct enc_secret *s)
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
        rv = enc_run_snaps_open(&j->snaps, j->o->np, j->jobdir, NULL, NULL);
    if (rv == ENC_OK && j->snaps != NULL)
        rv = enc_run_env_add(&j->env, "ENCORE_SNAPSHOT_SOCK", enc_run_snaps_sock(j->snaps));
    return rv;
}

