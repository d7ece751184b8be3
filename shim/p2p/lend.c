/* lend.c - the lend word of a ring's header (lend.h). */
#include "p2p/lend.h"

enum { LENT = 1, READING = 2, RETURNED = 3 };

static uint64_t word(uint64_t ticket, unsigned state) { return ticket << 2 | state; }

void enc_p2p_lend_open(struct enc_p2p_ring *r, uint64_t ticket)
{
    atomic_store_explicit(&r->lent, word(ticket, LENT), memory_order_release);
}

bool enc_p2p_lend_withdraw(struct enc_p2p_ring *r, uint64_t ticket)
{
    uint64_t want = word(ticket, LENT);

    /* release: the log copy is seen whole by a reader that finds 0 */
    return atomic_compare_exchange_strong_explicit(&r->lent, &want, 0, memory_order_acq_rel,
                                                   memory_order_acquire);
}

bool enc_p2p_lend_reading(struct enc_p2p_ring *r, uint64_t ticket)
{
    return atomic_load_explicit(&r->lent, memory_order_acquire) == word(ticket, READING);
}

bool enc_p2p_lend_claim(struct enc_p2p_ring *r, uint64_t ticket)
{
    uint64_t want = word(ticket, LENT);

    return atomic_compare_exchange_strong_explicit(&r->lent, &want, word(ticket, READING),
                                                   memory_order_acq_rel, memory_order_acquire);
}

bool enc_p2p_lend_return(struct enc_p2p_ring *r, uint64_t ticket)
{
    uint64_t want = word(ticket, READING);

    /* only its own claim: a revoke or a ring reset in between leaves the
     * word alone, and what was read is not to be trusted */
    return atomic_compare_exchange_strong_explicit(&r->lent, &want, word(ticket, RETURNED),
                                                   memory_order_acq_rel, memory_order_acquire);
}

bool enc_p2p_lend_revoke(struct enc_p2p_ring *r, uint64_t ticket)
{
    uint64_t want = word(ticket, READING);

    return atomic_compare_exchange_strong_explicit(&r->lent, &want, 0, memory_order_acq_rel,
                                                   memory_order_acquire);
}
