/*
 * holders.c - the holder rule (holders.h).
 *
 * Entry s of a communicator of n members lives on ENCORE_REPLICAS of them,
 * one per host while there are hosts to spare: a host loss then never
 * takes every copy of a result, whichever communicator made it.  The walk
 * starts at the root of a broadcast, else at (s / ENC_HOLDER_RUN) mod n,
 * so the load of holding spreads over the members run by run.  If the
 * communicator spans fewer hosts than replicas, the walk goes round again
 * taking the members it skipped; on one host this is simply the replicas
 * consecutive members from the first.
 */
#include "enc.h"

#include <string.h>

#include "engine/coll.h"
#include "engine/layer.h"
#include "recovery/log/holders.h"

static int replicas(void)
{
    static int r;

    if (r == 0)
        r = (int)ENC_MAX(1, enc_tunable_ll(ENC_TUNE_REPLICAS));
    return r;
}

struct enc_log_comm enc_log_world(void)
{
    return (struct enc_log_comm){.cid = 0, .n = enc_engine_size(), .members = NULL};
}

struct enc_log_comm enc_log_comm_of(const struct enc_coll *co, uint64_t cid)
{
    if (cid == 0)
        return enc_log_world();
    return (struct enc_log_comm){.cid = cid, .n = co->n, .members = co->ctx.peers};
}

int enc_log_member(const struct enc_log_comm *c, int i)
{
    return c->members != NULL ? c->members[i] : i;
}

int enc_log_root(const struct enc_coll *co)
{
    return co->sig->kind == ENC_COLL_BCAST ? co->sig->root : -1;
}

static const char *host_of(const struct enc_log_comm *c, int i)
{
    return enc_engine_peer_host(enc_log_member(c, i));
}

static bool host_taken(const struct enc_log_comm *c, const int *picked, int np, int i)
{
    for (int k = 0; k < np; k++)
        if (strcmp(host_of(c, picked[k]), host_of(c, i)) == 0)
            return true;
    return false;
}

static int first_of(const struct enc_log_comm *c, uint64_t seq, int root)
{
    return root >= 0 && root < c->n ? root : (int)((seq / ENC_HOLDER_RUN) % (uint64_t)c->n);
}

bool enc_log_is_holder(const struct enc_log_comm *c, uint64_t seq, int root, int member)
{
    int n = c->n, want = ENC_MIN(replicas(), n), np = 0, first;
    int picked[want > 0 ? want : 1];

    if (n <= 0)
        return false;
    first = first_of(c, seq, root);
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < n && np < want; k++) {
            int i = (first + k) % n;
            bool taken = false;

            for (int j = 0; j < np && !taken; j++)
                taken = picked[j] == i;
            if (taken || (pass == 0 && host_taken(c, picked, np, i)))
                continue;
            if (i == member)
                return true;
            picked[np++] = i;
        }
    }
    return false;
}

int enc_log_candidates(const struct enc_log_ask *a, uint64_t seq, int *peers)
{
    const struct enc_log_comm *c = &a->comm;
    int first = c->n > 0 ? first_of(c, seq, a->root) : 0, n = 0;

    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < c->n; k++) {
            int i = (first + k) % c->n, peer = enc_log_member(c, i);

            if (i == a->me || (a->completed != NULL && a->completed[peer] <= a->need) ||
                enc_log_is_holder(c, seq, a->root, i) != (pass == 0))
                continue;
            peers[n++] = peer;
        }
    }
    return n;
}
