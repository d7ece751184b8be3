/*
 * detmsg.h - determinant records between a rank and encore-run (the
 * tracker), on the rank's control connection (docs/p2p.md 5.3, S2).
 *
 * A rank not on encore-run's host ships the bytes of its determinant file
 * (p2p/det_store.h: fixed 40-byte records) from some record on, with the
 * store's version (DET_PUT); encore-run writes them at that offset into
 * its copy of the file and answers the version (DET_ACK).  Writing at an
 * offset makes a resent record (a NONE run that grew) replace the older
 * copy.  A rank restarted on another host asks for its copy (DET_GET, no
 * payload) and receives it in chunks (DET_DATA), each naming the copy's
 * whole length, the last one reaching it.
 *
 *   DET_PUT, DET_DATA: u64 version (PUT) or total bytes (DATA), u64 off,
 *                      u32 n, n bytes (off and n multiples of 40)
 *   DET_ACK:           u64 version
 */
#ifndef ENC_PROTO_DETMSG_H
#define ENC_PROTO_DETMSG_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

#define ENC_DETMSG_REC 40                       /* = ENC_DET_WIRE (p2p/chanseq.h) */
#define ENC_DETMSG_HDR 20                       /* the fixed part of PUT/DATA */
#define ENC_DETMSG_MAX_BYTES ((uint64_t)1 << 32) /* one rank's copy, at most */
/* Record bytes in one frame: a multiple of the record size under the
 * control frame's limit. */
#define ENC_DETMSG_CHUNK ((size_t)(((1u << 20) - ENC_DETMSG_HDR) / ENC_DETMSG_REC * ENC_DETMSG_REC))

struct enc_msg_det {
    uint64_t word;          /* PUT: the store's version; DATA: the copy's length */
    uint64_t off;           /* where bytes start in the file */
    const uint8_t *bytes;   /* decode: points into the payload */
    uint32_t n;
};

/* Payload length, or a negative status when cap is too small or m is
 * malformed (offsets or lengths not whole records, past the limit). */
int enc_msg_det_encode(const struct enc_msg_det *m, void *buf, size_t cap);
/* ENC_OK, or ENC_ERR_PROTO for anything encode would not make. */
enc_status_t enc_msg_det_decode(struct enc_msg_det *m, const void *buf, size_t len);
int enc_msg_det_ack_encode(uint64_t version, void *buf, size_t cap);
enc_status_t enc_msg_det_ack_decode(uint64_t *version, const void *buf, size_t len);

#endif
