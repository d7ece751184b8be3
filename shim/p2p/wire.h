/*
 * wire.h - the frames of point-to-point connections (MPI-free).
 *
 * Each rank sends its messages to a peer on its own connection to that
 * peer (role P2P) and reads the peer's on the connection the peer opened,
 * so one direction has one writer and one reader.  A frame is a fixed
 * header, then `bytes` of payload for DATA:
 *   DATA  a message: communicator id, the sender's rank in it, tag,
 *         channel number, mode (SYNC: answer ACK with `ack` when it
 *         matches), payload length, and the channel's chain: a digest of
 *         the (tag, length, mode) of every message on the channel up to
 *         this one (chanseq.h), by which a receiver sees a re-executed
 *         sender's suppressed re-sends differ from the first ones;
 *   ACK   a synchronous message matched: `ack` is the id its DATA carried;
 *   RESUME  a restored rank's first frame to each peer: `ack` is its
 *         listener's port, the payload its address; the peer connects
 *         to it and sends its log to it again;
 *   POSITIONS  a restored rank's frame just before its RESUME: what its
 *         image had received on each channel, `bytes` / 16 pairs (u64
 *         channel key, p2p.h's enc_p2p_chan_key; u64 the number of the
 *         next message it needs), so the peer re-sends from there on;
 *   BELL  no payload: look at the sender's shared-memory ring to us (a
 *         peer of this host, whose DATA frames go through the ring).
 * A DATA frame in a ring may carry the flag REMOTE: then a locator
 * follows the header instead of the payload (u64 address, u32 pid, u32
 * 0, u64 lent address, u64 lend ticket), and the reader copies the frame
 * from that address of the sender's process (its log frame, conn_tx.c:
 * the same header without the flag, then the `bytes` of payload) by
 * cross-memory attach.  A lent address (ticket not 0, both or neither)
 * is the payload in the sender's own buffer, which the reader may read
 * instead while the sender lends it (lend.h).
 */
#ifndef ENC_P2P_WIRE_H
#define ENC_P2P_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

#define ENC_P2P_HDR_BYTES 56
#define ENC_P2P_MAGIC 0x454e5032u /* "ENP2" */
/* Largest payload a frame may announce (a message of 2^31 elements of 32
 * bytes fits; anything larger is a broken peer, never an allocation). */
#define ENC_P2P_MAX_BYTES (1ull << 40)
#define ENC_P2P_MAX_ADDR 255 /* a RESUME's address */
#define ENC_P2P_POS_BYTES 16 /* one POSITIONS pair */
#define ENC_P2P_MAX_POS (1u << 16) /* pairs in one POSITIONS frame */

enum enc_p2p_kind {
    ENC_P2P_DATA = 1,
    ENC_P2P_ACK = 2,
    ENC_P2P_RESUME = 3,
    ENC_P2P_POSITIONS = 4,
    ENC_P2P_BELL = 5, /* look at the sender's shared-memory ring (shm_link.h) */
};

/* Header flags. */
#define ENC_P2P_REMOTE 1u /* DATA through a ring: a locator, not the payload, follows */
#define ENC_P2P_LOC_BYTES 32
/* A lend ticket shares a 64-bit word with 2 bits of state (lend.h). */
#define ENC_P2P_LEND_TICKET_MAX ((1ull << 62) - 1)

enum enc_p2p_mode {
    ENC_P2P_STANDARD = 0, /* standard, buffered and ready sends */
    ENC_P2P_SYNC = 1,     /* MPI_Ssend: complete when the receiver matched it */
};

struct enc_p2p_hdr {
    enum enc_p2p_kind kind;
    enum enc_p2p_mode mode;
    uint16_t flags;   /* ENC_P2P_REMOTE or 0 */
    uint64_t cid;
    int32_t src;      /* the sender's rank in the communicator */
    int32_t tag;
    uint64_t seq;     /* channel number (p2p/chanseq.h) */
    uint64_t bytes;   /* payload length (DATA) */
    uint64_t ack;     /* SYNC DATA and ACK: the sender's id of the send */
    uint64_t chain;   /* DATA: the channel's chain after this message */
};

/* Big-endian: u32 magic, u8 kind, u8 mode, u16 flags, u64 cid, i32 src,
 * i32 tag, u64 seq, u64 bytes, u64 ack, u64 chain (0 but on DATA). */
void enc_p2p_hdr_encode(const struct enc_p2p_hdr *h, uint8_t out[ENC_P2P_HDR_BYTES]);
/* ENC_OK, or ENC_ERR_PROTO for a header no encoder makes (magic, kind,
 * mode, reserved bits, a negative source or tag, a payload on a frame
 * that has none, a payload above ENC_P2P_MAX_BYTES, POSITIONS that are not
 * whole pairs or more than ENC_P2P_MAX_POS of them). */
enc_status_t enc_p2p_hdr_decode(struct enc_p2p_hdr *h, const uint8_t *in, size_t len);
/* The mode of a header this rank encoded (a log frame's): one byte read,
 * no decode. */
enum enc_p2p_mode enc_p2p_hdr_mode(const uint8_t in[ENC_P2P_HDR_BYTES]);

/* Where a REMOTE frame is in its sender's log: an address in process pid;
 * and, when ticket is not 0, its payload at address lent of that process
 * under that lend ticket (lend.h). */
struct enc_p2p_loc {
    uint64_t addr;
    int32_t pid;
    uint64_t lent, ticket;
};
void enc_p2p_loc_encode(const struct enc_p2p_loc *l, uint8_t out[ENC_P2P_LOC_BYTES]);
/* ENC_OK, or ENC_ERR_PROTO (a null address, a pid that is not positive,
 * reserved bits set, a lent address without a ticket or the reverse). */
enc_status_t enc_p2p_loc_decode(struct enc_p2p_loc *l, const uint8_t in[ENC_P2P_LOC_BYTES]);

#endif
