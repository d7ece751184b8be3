/*
 * remote.h - large messages to a rank of this host, read by the receiver
 * straight out of the sender's log (cross-memory attach, process_vm_readv)
 * instead of being copied through the ring by both (docs/p2p.md 0;
 * private to shim/p2p).
 *
 * A ring holds 1 MiB at most, so a large message went through it in
 * pieces, each waiting for the reader to free room and ringing it, and
 * the sender copied every byte twice (into its log, then into the ring).
 * The log already holds the payload until the receiver's image has it
 * (a frame is trimmed, spilled or released only below that floor), and
 * MPI_Finalize's barrier comes after every receive the program matched:
 * so the ring carries the frame's header flagged REMOTE and a locator
 * (wire.h), and the receiver copies the frame out of the sender's log.
 */
#ifndef ENC_P2P_REMOTE_H
#define ENC_P2P_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2p/p2p_int.h"

#define ENC_P2P_REMOTE_WIRE (ENC_P2P_HDR_BYTES + ENC_P2P_LOC_BYTES)

/* The payload size from which a DATA frame to a peer of this host goes as
 * a locator: ENCORE_P2P_CMA_MIN when the log is kept and the kernel lets
 * this process be read (asked once), else 0 (never). */
size_t enc_p2p_remote_min(bool log_kept);
/* Whether a blocking send may lend its buffer (ENCORE_P2P_LEND, lend.h). */
bool enc_p2p_remote_lend(void);
/* Forgets that answer (in a snapshot image: asked again once restored). */
void enc_p2p_remote_forget(void);
/* What goes into the ring for log frame f: its header flagged REMOTE and
 * a locator naming f in this process.  ENC_OK, or ENC_ERR_PROTO for a
 * frame whose header is not one (never). */
enc_status_t enc_p2p_remote_encode(const struct p2p_frame *f, uint8_t out[ENC_P2P_REMOTE_WIRE]);
/* The same for a frame whose payload is also lent from address lent of
 * this process under ticket (lend.h). */
enc_status_t enc_p2p_remote_encode_lent(const struct p2p_frame *f, const void *lent,
                                        uint64_t ticket, uint8_t out[ENC_P2P_REMOTE_WIRE]);
/* A REMOTE frame's locator was read into in->loc (its header is in
 * in->hdr): copies the frame out of the writer's log, its header too,
 * which must be the ring's but for the flag (else the locator did not
 * lead into the writer's log, a rank in another pid namespace say, and
 * nothing is delivered: ENC_ERR_PROTO, with one line); the payload lands
 * in in->msg, complete: read from the sender's lent buffer when it can
 * still claim the lend, else from the log.  ENC_ERR_PEER_RESET: the writer is gone. */
enc_status_t enc_p2p_remote_fetch(int peer, struct p2p_rx *in);

#endif
