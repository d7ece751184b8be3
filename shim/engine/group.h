/*
 * group.h - communicators derived from the encore world, as the engine
 * sees them: members (world ranks in communicator rank order), this rank's
 * place, a communicator id (cid) and the communicator's own collective
 * sequence.
 *
 * Communicator ids are deterministic across ranks and incarnations: a
 * child's id is a hash of its parent's id, the parent's sequence number of the
 * creating collective and a salt (split colour, group digest), so a
 * restarted rank that replays the creating call gets the same id.  Every
 * data frame of a group collective carries (id, sequence), so traffic of
 * different communicators never mixes; the result log keys group results
 * by the same pair (recovery/log/log.h).
 */
#ifndef ENC_ENGINE_GROUP_H
#define ENC_ENGINE_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "engine/chan.h"

struct enc_group {
    uint64_t cid;          /* communicator id (never 0: 0 is the world) */
    int size;              /* members */
    int rank;              /* this rank's place, -1 when not a member */
    int *members;          /* members[i] = world rank of rank i */
    int *order;            /* 0 .. size-1 */
    int *locality;         /* ranks in the world's locality order */
    uint32_t locality_epoch; /* epoch locality was computed in */
    uint64_t seq;          /* collectives completed on this communicator */
    /* epoch in which this communicator's last collective ran live; any
     * other value (a new epoch, a replayed creation) means "ask the other
     * members whether the next one is already in their log" */
    uint32_t live_epoch;
    /* Shared memory (group_chan.c): this host's channel (index -1: none),
     * and what the communicator's first collective recorded of every rank:
     * the world rank of its host's leader then, and the channel that
     * leader claimed (-1: none). */
    struct enc_chan chan;
    bool setup;
    int *lead_of, *chan_of;
    struct enc_hier *hier; /* its hosts in the current epoch (engine/hier.h) */
    struct enc_group *prev, *next; /* every group this process holds */
};

#define ENC_GROUP_UNCERTAIN UINT32_MAX

/* New group of n world ranks (members[i] is rank i); live says whether
 * the creating collective ran live (else the group starts uncertain).
 * ENC_ERR_INVAL for an out-of-range or repeated rank. */
enc_status_t enc_group_new(uint64_t cid, const int *members, int n, int live,
                           struct enc_group **out);
void enc_group_free(struct enc_group *g); /* see enc_group_destroy */
/* fn(arg, g) for every group this rank is a member of (in creation order). */
void enc_group_each(void (*fn)(void *arg, struct enc_group *g), void *arg);
/* A rank that loaded a checkpoint: g continues at collective seq (the one
 * after the checkpoint); never goes back. */
void enc_group_skip_to(struct enc_group *g, uint64_t seq);
/* Whether the last collective on g (NULL: the world) ran live. */
int enc_group_last_live(const struct enc_group *g);
/* Rank and size on g; NULL is the world. */
int enc_group_my_rank(const struct enc_group *g);
int enc_group_my_size(const struct enc_group *g);
/* World rank of rank r of g. */
int enc_group_world_rank(const struct enc_group *g, int r);
/* Communicator id of a child: parent's id (0 for the world), the parent's
 * sequence number of the creating collective, and a salt. */
uint64_t enc_group_cid_derive(uint64_t parent, uint64_t seq, uint64_t salt);
/* Communicator id and collectives completed so far on g (NULL: the world). */
uint64_t enc_group_cid(const struct enc_group *g);
uint64_t enc_group_seq(const struct enc_group *g);
/* Members of g in the current epoch's locality order (refreshed per epoch). */
const int *enc_group_locality(struct enc_group *g);
/* Host identity of world rank r (the address the launcher registered). */
const char *enc_group_host(int world_rank);

/* group_chan.c.  A new communicator's first collective, run by every
 * member right after it is made (logged and replayed like any other):
 * the lowest member on each host claims a channel of the host's segment,
 * and every member learns which, so its collectives use shared memory
 * from then on. */
enc_status_t enc_group_setup(struct enc_group *g);
/* Frees g with what its collectives set up: its channel and its hosts
 * (enc_group_free frees the group alone). */
void enc_group_destroy(struct enc_group *g);

#endif
