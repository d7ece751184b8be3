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
 *   reader  lend_return      READING -> RETURNED once read: what it read
 *                            stands only if this succeeds
 *   sender  lend_withdraw    LENT -> 0 once its log copy is whole: the
 *                            reader finds the word moved and reads the log
 *   sender  lend_revoke      READING -> 0 when the reader took too long
 *
 * A sender whose withdraw finds the reader reading waits, a bounded time,
 * until the word no longer says READING its ticket (returned, or the ring
 * reset for a restored reader) or the reader is lost.  Then, if the word
 * still says READING, it revokes the lend and gives the buffer back to
 * the program all the same: a reader whose return fails (revoked, or the
 * ring reset) drops what it read and reads the payload again from the log
 * frame, which is whole before any withdraw or revoke.  So a reader
 * stopped or killed in the middle of its read never holds the sender.
 * One lend per ring at a time (p2p_out.lending).
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
/* The sender, after waiting its bound: true when it revoked the reader's
 * claim (the reader reads the log again), false when the reader was done. */
bool enc_p2p_lend_revoke(struct enc_p2p_ring *r, uint64_t ticket);
/* The reader: true when it may read the lent buffer (then it must call
 * lend_return once done, whatever the read gave); false: read the log. */
bool enc_p2p_lend_claim(struct enc_p2p_ring *r, uint64_t ticket);
/* True: what it read from the lent buffer stands; false: the lend was
 * revoked or the ring reset meanwhile, read the log frame instead. */
bool enc_p2p_lend_return(struct enc_p2p_ring *r, uint64_t ticket);

#endif
