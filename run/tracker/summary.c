/*
 * summary.c - the end-of-job summary: what recovery cost, per rank and per
 * recovery, so a user can see that encore did something and how long it took.
 */
#include "enc.h"
#include "tracker/tracker_int.h"

static void rank_line(const struct enc_tracker *t, int i, const int *restarts, FILE *out)
{
    const struct trk_rank *r = &t->ranks[i];
    int n = restarts != NULL ? restarts[i] : (int)r->incarnation;

    if (r->has_stats)
        fprintf(out, "  rank %-5d restarts %-3d collectives %-10llu replayed %llu\n", i, n,
                (unsigned long long)r->stats.completed,
                (unsigned long long)r->stats.replayed);
    else
        fprintf(out, "  rank %-5d restarts %-3d (no statistics: did not reach MPI_Finalize)\n",
                i, n);
}

void enc_tracker_print_summary(const struct enc_tracker *t, const int *restarts, FILE *out)
{
    int total = 0;

    for (int i = 0; i < t->cfg.size; i++)
        total += restarts != NULL ? restarts[i] : (int)t->ranks[i].incarnation;
    fprintf(out, "encore: job summary: %d ranks, %d restarts, %d recoveries, final epoch %u\n",
            t->cfg.size, total, t->nrecov, t->epoch);
    for (int i = 0; i < t->cfg.size; i++)
        rank_line(t, i, restarts, out);
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
