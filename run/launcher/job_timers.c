/*
 * job_timers.c - encore-run's timers: restarts due, the SIGKILL of
 * stragglers, --timeout, random fault injection, and ranks stopped while
 * no heartbeat watches them; and when the next one is due.
 */
#include "enc.h"
#include "launcher/job.h"

#include <signal.h>
#include <stdio.h>

/* How often the local ranks' private RSS is sampled for the summary (and
 * when each registers and reaches MPI_Finalize). */
#define MEM_SAMPLE_MS 1000

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
    job_kill_rank(j, &j->r[v], SIGKILL);
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

        if (p->pid <= 0 || job_remote(j, i) || p->phase != R_RUNNING ||
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
        job_kill_rank(j, p, SIGKILL);
    }
}

void job_timers(struct job *j)
{
    uint64_t now = enc_now_ns();

    check_unwatched(j, now);

    for (int i = 0; i < j->o->np && !j->failing; i++) {
        struct rank_proc *p = &j->r[i];

        if (p->phase == R_RESTART && p->pid == 0 && now >= p->restart_at &&
            job_spawn(j, i) != ENC_OK)
            job_fail(j, 1, 0, "cannot restart rank %d", i);
    }
    if (j->kill_at != 0 && now >= j->kill_at) {
        job_kill_all(j, SIGKILL);
        j->kill_at = 0;
    }
    if (j->deadline != ENC_NEVER && now >= j->deadline && !j->failing)
        job_fail(j, 1, 0, "job timed out after %g s (--timeout); killed all ranks", j->o->timeout_s);
    if (j->o->random_every_s > 0 && !j->failing && now >= j->next_random)
        random_kill(j);
    if (now >= j->next_sample) {
        j->next_sample = enc_deadline_ms(MEM_SAMPLE_MS);
        job_sample_memory(j, -1);
    }
}

uint64_t job_next_timer(const struct job *j)
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
    next = ENC_MIN(next, j->next_sample);
    for (int i = 0; i < j->o->np; i++) /* check_unwatched, every heartbeat */
        if (j->r[i].pid > 0 && !job_remote(j, i) && (!j->r[i].registered || j->r[i].finalized))
            next = ENC_MIN(next, enc_deadline_ms(enc_tunable_ll(ENC_TUNE_HEARTBEAT_MS)));
    return next;
}

