/*
 * lend.h - a large message to a rank of this host read from the sender's
 * own buffer while the sender copies it into its log (private to
 * shim/p2p; docs/p2p.md section 0).
 *
 * A sender-based log copies every payload once more.  Read out of the log
 * (remote.h), a large message cost the two copies one after the other:
 * into the log, then out by the receiver.  So the sender lends its buffer
 * first: the ring carries the locator of its log frame and the address of
 * the payload in the program's buffer with a ticket, the sender copies
 * the payload into the log meanwhile, and the receiver, if it comes
 * first, reads the program's buffer; the two copies overlap.  The lend's
 * state is one word in the ring's header, (ticket << 2) | state:
 *
 *   sender  lend_open        LENT        before the locator goes out
 *   reader  lend_claim       LENT -> READING, then reads the lent buffer
 *   reader  lend_return      READING -> RETURNED once read (or failed)
 *   sender  lend_withdraw    LENT -> 0 once its log copy is whole: the
 *                            reader finds the word moved and reads the log
 *
 * A sender whose withdraw finds the reader reading waits until the word
 * no longer says READING its ticket (returned, the ring reset for a new
 * connection), or the reader is lost: its buffer is the program's again
 * only then.  One lend per ring at a time (p2p_out.lending).
 */
#ifndef ENC_P2P_LEND_H
#define ENC_P2P_LEND_H

#include <stdbool.h>
#include <stdint.h>

#include "p2p/shm_ring.h"

/* The sender: its buffer under ticket is lent to the reader of r. */
void enc_p2p_lend_open(struct enc_p2p_ring *r, uint64_t ticket);
/* The sender, its log copy whole: true when the lend ended unread (the
 * reader will read the log); false when the reader claimed it. */
bool enc_p2p_lend_withdraw(struct enc_p2p_ring *r, uint64_t ticket);
/* The sender after a withdraw that failed: is the reader still reading? */
bool enc_p2p_lend_reading(struct enc_p2p_ring *r, uint64_t ticket);
/* The reader: true when it may read the lent buffer (then it must call
 * lend_return once done, whatever the read gave); false: read the log. */
bool enc_p2p_lend_claim(struct enc_p2p_ring *r, uint64_t ticket);
void enc_p2p_lend_return(struct enc_p2p_ring *r, uint64_t ticket);

#endif
