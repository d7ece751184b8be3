/*
 * restart_policy.c - the restart policy of one rank: a budget of --max-restarts
 * restarts, spaced by an exponential backoff (100 ms doubling, capped at
 * 2 s) so a rank that dies at once does not spin the machine.
 */
#include "enc.h"
#include "launcher/launcher.h"

bool enc_run_can_restart(const struct enc_run_opts *o, int restarts)
{
    return restarts < o->max_restarts;
}

/* restarts: how many restarts this rank had before this one. */
int64_t enc_run_backoff_ms(int restarts)
{
    int64_t ms = ENC_RUN_BACKOFF_MIN_MS;

    for (int i = 0; i < restarts && ms < ENC_RUN_BACKOFF_MAX_MS; i++)
        ms *= 2;
    return ENC_MIN(ms, ENC_RUN_BACKOFF_MAX_MS);
}
