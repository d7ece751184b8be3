/*
 * channels.c - the channel table: which communicator holds which channel
 * of the host's segment (shm/shm.h).
 *
 * A channel is claimed by one rank (the lowest of the communicator's ranks
 * on this host) before the others hear of it, so claiming needs nothing
 * but a compare-and-swap of the entry's communicator id; the others attach
 * the index they were told.  Each rank that uses a channel has its bit in
 * the entry's mask; the rank that clears the last bit frees the entry.
 * The pages of a freed channel stay allocated for its next holder, so a
 * program that creates and frees communicators in a loop keeps the host's
 * memory flat (at most every channel's pages of the ranks that used it).
 */
#include "enc.h"

#include <string.h>

#include "shm/shm.h"

static bool mask_empty(struct enc_shm_chan_entry *e)
{
    for (int w = 0; w < 4; w++)
        if (atomic_load(&e->mask[w]) != 0)
            return false;
    return true;
}

static void set_bit(struct enc_shm_chan_entry *e, int rank)
{
    atomic_fetch_or(&e->mask[rank / 64], 1ull << (rank % 64));
}

/* Clears rank's bit; true when it was the last. */
static bool clear_bit(struct enc_shm_chan_entry *e, int rank)
{
    atomic_fetch_and(&e->mask[rank / 64], ~(1ull << (rank % 64)));
    return mask_empty(e);
}

int enc_shm_chan_claim(struct enc_shm *s, uint64_t cid)
{
    for (int ch = 1; s->base != NULL && ch <= s->nchan; ch++) {
        struct enc_shm_chan_entry *e = &s->table[ch - 1];
        uint64_t free_id = 0;

        if (!atomic_compare_exchange_strong(&e->cid, &free_id, cid))
            continue;
        /* tickets of the channel's last holder must not count for cid */
        memset(enc_shm_lines(s, ch), 0, (size_t)s->nslots * sizeof(struct enc_shm_flags));
        atomic_thread_fence(memory_order_release);
        set_bit(e, s->me);
        return ch;
    }
    return -1;
}

bool enc_shm_chan_attach(struct enc_shm *s, int ch, uint64_t cid)
{
    struct enc_shm_chan_entry *e;

    if (s->base == NULL || ch < 1 || ch > s->nchan)
        return false;
    e = &s->table[ch - 1];
    set_bit(e, s->me);
    if (atomic_load(&e->cid) == cid)
        return true;
    (void)clear_bit(e, s->me);
    return false;
}

void enc_shm_chan_release(struct enc_shm *s, int ch, uint64_t cid)
{
    struct enc_shm_chan_entry *e;

    if (s->base == NULL || ch < 1 || ch > s->nchan)
        return;
    e = &s->table[ch - 1];
    if (atomic_load(&e->cid) != cid)
        return;
    if (clear_bit(e, s->me))
        (void)atomic_compare_exchange_strong(&e->cid, &cid, 0);
}

void enc_shm_chan_drop_rank(struct enc_shm *s, int rank)
{
    for (int ch = 1; ch <= s->nchan; ch++) {
        struct enc_shm_chan_entry *e = &s->table[ch - 1];
        uint64_t cid = atomic_load(&e->cid);

        if (cid != 0 && (atomic_load(&e->mask[rank / 64]) & (1ull << (rank % 64))) &&
            clear_bit(e, rank))
            (void)atomic_compare_exchange_strong(&e->cid, &cid, 0);
    }
}

int enc_shm_chan_used(const struct enc_shm *s)
{
    int n = 0;

    for (int ch = 1; s->base != NULL && ch <= s->nchan; ch++)
        n += atomic_load(&s->table[ch - 1].cid) != 0;
    return n;
}
