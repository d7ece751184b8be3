/*
 * summary.c - the end-of-job summary: what recovery cost, per rank and per
 * recovery, so a user can see that encore did something and how long it took.
 */
#include "enc.h"
#include "tracker/tracker_int.h"

#define MIB(kb) ((double)(kb) / 1024.0)

/* A rank's private RSS: the largest of what the launcher sampled and what
 * the rank reported at MPI_Finalize (-1: neither). */
static long private_kb(const struct enc_tracker *t, const struct enc_tracker_memory *mem, int i)
{
    const struct trk_rank *r = &t->ranks[i];
    long kb = mem->private_kb[i];

    if (r->has_stats && r->stats.private_rss > 0)
        kb = ENC_MAX(kb, (long)(r->stats.private_rss / 1024));
    return kb;
}

static void rank_line(const struct enc_tracker *t, int i, const int *restarts,
                      const struct enc_tracker_memory *mem, FILE *out)
{
    const struct trk_rank *r = &t->ranks[i];
    int n = restarts != NULL ? restarts[i] : (int)r->incarnation;
    char rss[48] = "";

    if (mem != NULL && private_kb(t, mem, i) >= 0)
        snprintf(rss, sizeof(rss), "  private RSS %.1f MiB", MIB(private_kb(t, mem, i)));
    else if (mem != NULL)
        snprintf(rss, sizeof(rss), "  private RSS n/a");
    if (r->has_stats)
        fprintf(out, "  rank %-5d restarts %-3d collectives %-10llu replayed %llu  peak log "
                "%.1f MiB  peak spill %.1f MiB%s\n", i, n,
                (unsigned long long)(r->stats.completed + r->stats.comm_completed),
                (unsigned long long)r->stats.replayed, (double)r->stats.log_peak / 1048576.0,
                (double)r->stats.spill_peak / 1048576.0, rss);
    else
        fprintf(out, "  rank %-5d restarts %-3d (no statistics: did not reach MPI_Finalize)%s\n",
                i, n, rss);
}

/* Private RSS per rank: the largest, the mean and the sum of those sampled. */
static void private_line(const struct enc_tracker *t, const struct enc_tracker_memory *mem,
                         FILE *out)
{
    long max = 0, sum = 0, kb;
    int at = 0, known = 0, n = t->cfg.size;

    for (int i = 0; i < n; i++) {
        if ((kb = private_kb(t, mem, i)) < 0)
            continue;
        known++;
        sum += kb;
        if (kb > max) {
            max = kb;
            at = i;
        }
    }
    if (known == 0) {
        fprintf(out, "  private RSS per rank: not sampled\n");
        return;
    }
    fprintf(out, "  private RSS per rank: max %.1f MiB (rank %d), mean %.1f MiB, total %.1f MiB",
            MIB(max), at, MIB(sum) / known, MIB(sum));
    if (known < n)
        fprintf(out, " (%d of %d ranks sampled)", known, n);
    fputc('\n', out);
}

/* Each host's shared segment, once for the host whichever ranks map it. */
static void shared_lines(const struct enc_tracker_memory *mem, FILE *out)
{
    int shown = 0;

    for (int h = 0; h < mem->nhosts; h++) {
        if (mem->shm_alloc_kb[h] < 0)
            continue;
        if (mem->host == NULL)
            fprintf(out, "  shared segment on this host: ");
        else
            fprintf(out, "  shared segment on host %s: ", mem->host[h]);
        fprintf(out, "%.1f MiB in use, %.1f MiB allocated\n", MIB(ENC_MAX(mem->shm_used_kb[h], 0)),
                MIB(mem->shm_alloc_kb[h]));
        shown++;
    }
    if (shown == 0)
        fprintf(out, "  shared segment: none\n");
}

void enc_tracker_print_dropped(const char *prog, int rank, uint64_t first, uint64_t last,
                               FILE *out)
{
    fprintf(out, "%s: rank %d dropped the results of collectives %llu..%llu from its log "
            "(log memory ENCORE_LOG_MEM_MAX and spill budget ENCORE_SPILL_MAX full; the job "
            "summary has the final range): a rank lost now may not be recoverable; call "
            "encore_checkpoint, raise ENCORE_SPILL_MAX, or set ENCORE_SPILL_DIR to a larger "
            "disk\n", prog, rank, (unsigned long long)first, (unsigned long long)last);
    fflush(out);
}

/* Which results no rank can be recovered from any more. */
static void dropped_line(const struct enc_tracker *t, FILE *out)
{
    uint64_t first, last;
    int n = 0;

    if (!enc_tracker_dropped(t, &first, &last)) {
        fprintf(out, "  unrecoverable results: none\n");
        return;
    }
    for (int i = 0; i < t->cfg.size; i++)
        n += t->ranks[i].dropped;
    fprintf(out, "  unrecoverable results: collectives %llu..%llu (dropped by %d rank%s: "
            "ENCORE_LOG_MEM_MAX and ENCORE_SPILL_MAX full)\n", (unsigned long long)first,
            (unsigned long long)last, n, n == 1 ? "" : "s");
}

void enc_tracker_print_summary(const struct enc_tracker *t, const int *restarts,
                               const struct enc_tracker_memory *mem, FILE *out)
{
    int total = 0;

    for (int i = 0; i < t->cfg.size; i++)
        total += restarts != NULL ? restarts[i] : (int)t->ranks[i].incarnation;
    fprintf(out, "encore: job summary: %d ranks, %d restarts, %d recoveries, final epoch %u\n",
            t->cfg.size, total, t->nrecov, t->epoch);
    if (mem != NULL) {
        private_line(t, mem, out);
        shared_lines(mem, out);
    }
    dropped_line(t, out);
    for (int i = 0; i < t->cfg.size; i++)
        rank_line(t, i, restarts, mem, out);
    for (int i = 0; i < t->nrecov; i++) {
        if (t->recov[i].rank < 0)
            fprintf(out, "  recovery %d: every rank restarted (fail-all), epoch %u resumed "
                    "after %.3f s\n", i + 1, t->recov[i].epoch, t->recov[i].seconds);
        else
            fprintf(out, "  recovery %d: rank %d died, epoch %u resumed after %.3f s\n", i + 1,
                    t->recov[i].rank, t->recov[i].epoch, t->recov[i].seconds);
    }
    fflush(out);
}
