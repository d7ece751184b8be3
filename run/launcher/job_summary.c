/*
 * job_summary.c - the job's end as encore-run reports it: the summary
 * (printed with --summary, after a restart, or when results were dropped),
 * the snapshot counts, the one failure line, and the exit status.
 */
#include "enc.h"
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

/* encore-run's exit status, after the summary and the one failure line. */
int job_finish(struct job *j)
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

