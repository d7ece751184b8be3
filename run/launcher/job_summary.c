/*
 * job_summary.c - the job's end as encore-run reports it: the summary
 * (printed with --summary, after a restart, or when results were dropped),
 * the snapshot counts, the one failure line, and the exit status; and the
 * ranks' private memory, sampled while they run for it.
 */
#include "enc.h"
#include "core/procmem.h"
#include "launcher/job.h"

#include <stdio.h>

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

void job_sample_memory(struct job *j, int rank)
{
    int lo = rank >= 0 ? rank : 0, hi = rank >= 0 ? rank + 1 : j->o->np;

    for (int i = lo; i < hi; i++)
        if (!job_remote(j, i) && j->r[i].phase == R_RUNNING)
            enc_proc_sample_private_rss(j->r[i].pid, &j->r[i].private_kb);
}

/* The segment this process owns, for this host (h) of the job. */
static void local_segment(const struct job *j, int h, long *used_kb, long *alloc_kb)
{
    uint64_t used, alloc;

    *used_kb = *alloc_kb = -1;
    if (enc_shm_host_usage(&j->shm, &used, &alloc) != ENC_OK)
        return;
    if (j->hl != NULL && !j->hl->h[h].local)
        return;
    *used_kb = (long)(used / 1024);
    *alloc_kb = (long)(alloc / 1024);
}

/* The summary with each rank's private memory and each host's segment. */
static void print_summary(const struct job *j, const int *restarts)
{
    long priv[ENC_MAX_RANKS], used[ENC_RUN_MAX_HOSTS], alloc[ENC_RUN_MAX_HOSTS];
    const char *name[ENC_RUN_MAX_HOSTS];
    struct enc_tracker_memory mem = {.private_kb = priv, .nhosts = j->hl ? j->hl->n : 1,
                                     .host = j->hl ? name : NULL, .shm_used_kb = used,
                                     .shm_alloc_kb = alloc};

    for (int i = 0; i < j->o->np; i++)
        priv[i] = j->r[i].private_kb;
    for (int h = 0; h < mem.nhosts; h++) {
        local_segment(j, h, &used[h], &alloc[h]);
        if (j->hl == NULL)
            continue;
        name[h] = j->hl->h[h].name;
        if (!j->hl->h[h].local) {
            used[h] = j->host_mem[h].shm_used_kb;
            alloc[h] = j->host_mem[h].shm_alloc_kb;
        }
    }
    enc_tracker_print_summary(j->t, restarts, &mem, stderr);
}

/* encore-run's exit status, after the summary and the one failure line. */
int job_finish(struct job *j)
{
    int restarts[ENC_MAX_RANKS];
    bool any = j->o->summary;
    const struct enc_tracker_recovery *rec;
    uint64_t first, last;

    any |= enc_tracker_dropped(j->t, &first, &last); /* the final range */
    for (int i = 0; i < j->o->np; i++)
        any |= (restarts[i] = j->r[i].restarts) != 0;
    if (any || enc_tracker_recoveries(j->t, &rec) > 0 || enc_log_level() >= ENC_LOG_INFO) {
        print_summary(j, restarts);
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
