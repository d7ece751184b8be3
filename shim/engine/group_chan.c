/*
 * group_chan.c - a derived communicator's channels in the hosts'
 * shared-memory segments.
 *
 * Right after a communicator is made, its members run one collective on
 * it (an allgather over TCP, what = COMM_SETUP): on each host the lowest
 * member claims a free channel of the host's segment (shm/channels.c)
 * before it sends, and every member learns every host's leader and
 * channel.  The others of a host attach that channel.  Being a collective,
 * the setup is logged: a restarted member replays it, gets the same
 * answer and attaches the channel its survivors still hold, so the
 * members of a host always agree on whether they use shared memory (the
 * answer depends only on what the setup recorded, the epoch's hosts and
 * which ranks each host's segment holds).  When no channel is free the
 * host's members use TCP, as before; the communicator works either way.
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include "core/tunables.h"
#include "engine/group.h"
#include "engine/hier.h"
#include "engine/state.h"
#include "shm/shm.h"

/* The lowest member on this rank's host, and whether the members there
 * (two or more) all share this rank's segment. */
static int host_leader(const struct enc_group *g, bool *shm)
{
    const char *mine = enc_group_host(enc_eng.rank);
    int lead = -1, local = 0;

    *shm = true;
    for (int i = 0; i < g->size; i++) {
        int w = g->members[i];

        if (strcmp(enc_group_host(w), mine) != 0)
            continue;
        if (lead < 0 || w < lead)
            lead = w;
        local++;
        *shm &= enc_shm_has(&enc_eng.shm, w);
    }
    *shm &= local > 1;
    return lead;
}

/* Once per process: more communicators at once than channels. */
static void no_channel_warning(void)
{
    static bool said;

    if (said)
        return;
    said = true;
    ENC_WARN("shm", "all %d shared-memory channels of this host are taken (ENCORE_SHM_CHANNELS): "
             "communicators made now run their collectives over TCP, slower; raise "
             "ENCORE_SHM_CHANNELS or free communicators no longer used",
             enc_eng.shm.nchan);
}

static int member_of(const struct enc_group *g, int world_rank)
{
    for (int i = 0; i < g->size; i++)
        if (g->members[i] == world_rank)
            return i;
    return -1;
}

enc_status_t enc_group_setup(struct enc_group *g)
{
    struct enc_callsig sig = {.kind = ENC_COLL_ALLGATHERV, .what = ENC_COLL_COMM_SETUP,
                              .count = 8 * (uint64_t)g->size, .dtype = ENC_SIG_DTYPE_BYTES,
                              .op = ENC_SIG_OP_NONE, .root = -1,
                              .site = (const void *)enc_group_setup, .grp = g};
    size_t n = (size_t)g->size;
    int32_t mine[2], *all = malloc(8 * n);
    size_t *bytes = malloc(sizeof(size_t) * n), *displs = malloc(sizeof(size_t) * n);
    int claimed = -1, ch;
    enc_status_t rv = ENC_ERR_NOMEM;
    bool shm;

    if (g->rank < 0 || enc_eng.peers == NULL) {
        rv = ENC_OK;
        goto out;
    }
    if (all == NULL || bytes == NULL || displs == NULL)
        goto out;
    mine[0] = host_leader(g, &shm);
    if (mine[0] == enc_eng.rank && shm && enc_tunable_bool(ENC_TUNE_SHM) &&
        (claimed = enc_shm_chan_claim(&enc_eng.shm, g->cid)) < 0)
        no_channel_warning();
    mine[1] = claimed;
    for (size_t i = 0; i < n; i++) {
        bytes[i] = 8;
        displs[i] = 8 * i;
    }
    if ((rv = enc_allgatherv(mine, 8, all, bytes, displs, &sig)) != ENC_OK) {
        if (claimed >= 1)
            enc_shm_chan_release(&enc_eng.shm, claimed, g->cid);
        goto out;
    }
    for (int i = 0; i < g->size; i++) {
        int lead = member_of(g, all[2 * i]);

        g->lead_of[i] = all[2 * i];
        g->chan_of[i] = lead >= 0 ? all[2 * lead + 1] : -1;
    }
    /* a replayed setup recorded the channel its first run claimed */
    ch = g->chan_of[g->rank];
    if (claimed >= 1 && claimed != ch)
        enc_shm_chan_release(&enc_eng.shm, claimed, g->cid);
    if (ch >= 1)
        g->chan.index = claimed == ch || enc_shm_chan_attach(&enc_eng.shm, ch, g->cid) ? ch : -1;
    g->setup = true;
    ENC_INFO("shm", "communicator %016llx: channel %d on this host", (unsigned long long)g->cid,
             g->chan.index);
out:
    free(all);
    free(bytes);
    free(displs);
    return rv;
}

void enc_group_destroy(struct enc_group *g)
{
    if (g == NULL)
        return;
    if (g->chan.index >= 1)
        enc_shm_chan_release(&enc_eng.shm, g->chan.index, g->cid);
    enc_hier_free(g->hier);
    enc_group_free(g);
}
