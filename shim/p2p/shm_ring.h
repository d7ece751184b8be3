/*
 * shm_ring.h - one point-to-point ring of the host's segment: a
 * single-producer, single-consumer byte stream from one rank to another
 * (docs/p2p.md section 0).  The writer copies frames (the same header and
 * payload as on TCP) in as far as they fit and publishes them by
 * advancing wpos with release order; the reader copies out up to wpos and
 * frees the room by advancing rpos.  A frame is used only once it is all
 * read, so a dead writer's half-written frame is never delivered.
 *
 * Only the reader resets a ring (both positions to zero, `resets` up by
 * one), when it installs a new connection from the writer, and the writer
 * writes into a ring only once it has seen `resets` move past the value
 * it read before making that connection: so a ring's bytes always belong
 * to one connection, and a restarted rank (either side) starts clean.
 */
#ifndef ENC_P2P_SHM_RING_H
#define ENC_P2P_SHM_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENC_P2P_RING_HDR 256

struct enc_p2p_ring {
    _Atomic uint64_t wpos;        /* the writer's: bytes published */
    /* The writer's own: rpos as it last read it.  The room it left stays
     * free until the writer fills it, so the writer reads rpos (a line
     * the reader writes: a cache miss per message) only when that room
     * is short. */
    uint64_t rpos_seen;
    uint8_t pad0[48];
    _Atomic uint64_t rpos;        /* the reader's: bytes consumed */
    _Atomic uint64_t resets;      /* the reader's: connections installed */
    uint8_t pad1[48];
    _Atomic uint32_t room_wanted; /* the writer waits for room (the reader rings it) */
    uint8_t pad2[60];
    _Atomic uint64_t lent;        /* the writer's buffer lent to the reader (lend.h) */
    uint8_t pad3[56];
    uint8_t data[];               /* cap bytes, a power of two */
};
_Static_assert(sizeof(struct enc_p2p_ring) == ENC_P2P_RING_HDR, "the ring's header");

/* Copies up to n bytes of src in: the bytes written (0: full). */
size_t enc_p2p_ring_put(struct enc_p2p_ring *r, size_t cap, const void *src, size_t n);
/* Copies all na bytes of a, then all nb bytes of b, in and publishes
 * them at once, or nothing when they do not fit: true when written. */
bool enc_p2p_ring_put_all2(struct enc_p2p_ring *r, size_t cap, const void *a, size_t na,
                           const void *b, size_t nb);
/* Copies up to n published bytes out into dst: the bytes read (0: none). */
size_t enc_p2p_ring_get(struct enc_p2p_ring *r, size_t cap, void *dst, size_t n);
/* Published bytes not read yet. */
size_t enc_p2p_ring_used(struct enc_p2p_ring *r);
/* The reader: empties the ring for a new connection. */
void enc_p2p_ring_reset(struct enc_p2p_ring *r);

#endif
