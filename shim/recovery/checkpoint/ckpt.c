/*
 * ckpt.c - the checkpoint record (recovery/checkpoint/ckpt.h): freeing one and finding
 * a rank's local state in it.  Shared by the public API (checkpoint.c), the
 * exchange and the restarted rank's fetch (ckpt_fetch.c).
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include "engine/layer.h"
#include "recovery/checkpoint/ckpt.h"

void enc_ckpt_free(struct enc_ckpt *c)
{
    free(c->global);
    free(c->local);
    free(c->rep[0]);
    free(c->rep[1]);
    memset(c, 0, sizeof(*c));
    c->rep_rank[0] = c->rep_rank[1] = -1;
}

const void *enc_ckpt_replica(const struct enc_ckpt *c, int rank, size_t *len)
{
    if (rank == enc_engine_rank() && c->local != NULL) {
        *len = c->llen; /* our own: a restarted neighbour restores its replica */
        return c->local;
    }
    for (int i = 0; i < 2; i++) {
        if (c->rep_rank[i] == rank) {
            *len = c->rep_len[i];
            return c->rep[i];
        }
    }
    return NULL;
}
