/*
 * shm_link.h - this rank's view of the point-to-point rings of its host's
 * segment (shm_ring.h): which peers share the host, the ring of each
 * ordered pair, and the line each rank keeps there (docs/p2p.md section 0).
 *
 * A rank's line says whether one of its threads is polling its rings now
 * (`attentive`: a writer then needs to do nothing more) and whether a bell
 * is already on its way to it (`bell`).  A writer that needs the reader to
 * act while it computes or sits in a collective (a synchronous send waits
 * for its match, a large message's locator for its read, a full ring for
 * room) rings the reader's bell: a header-only BELL frame on its TCP
 * connection to it, which wakes the reader's progress thread from poll.
 * An eager message whose frame is all in the ring rings nothing: nothing
 * waits for its read, and the reader's next call reads it (a bell per
 * halo message preempted the stencil's computation to copy it early).
 * So nothing spins when no call waits, and what a sender waits for still
 * moves while its receiver computes.
 */
#ifndef ENC_P2P_SHM_LINK_H
#define ENC_P2P_SHM_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "p2p/shm_ring.h"

/* Maps the rings of the segment offered in the environment when there are
 * any and ENCORE_P2P_SHM is on; else (or on any doubt) every peer is
 * reached over TCP.  Resets this rank's line (a restarted incarnation). */
void enc_p2p_shm_open(int me, int size);
/* This rank's line as a new incarnation's (no thread polls or sleeps, no
 * bell on its way): at open, and when a snapshot's image is restored. */
void enc_p2p_shm_reset_line(void);
/* True when peer is reached through the rings. */
bool enc_p2p_shm_peer(int peer);
/* True when any peer is. */
bool enc_p2p_shm_any(void);

/* Ring from -> to; the bytes of its data. */
struct enc_p2p_ring *enc_p2p_shm_ring(int from, int to);
size_t enc_p2p_shm_cap(void);
/* Whether a ring to this rank holds bytes not read yet: one load of each
 * peer's write position, without the layer's lock (a spinning wait's
 * look; what it finds is read under the lock). */
bool enc_p2p_shm_unread(void);
/* Whether a look under the lock (enc_p2p_conn_shm_progress) has anything
 * to do for this rank's side: a ring to it holds unread bytes, or its
 * bell is set (a writer that watched it: only a look clears it, and
 * while it is set no writer rings). */
bool enc_p2p_shm_look_needed(void);

/* A thread of this rank starts (+1) or stops (-1) polling its rings. */
void enc_p2p_shm_attend(int delta);
/* The held count (shm_link.c): an attentive call that ends leaves its
 * count in the line (leave: true; false when one is held already, then
 * the caller takes its own away), and looks at the rings once more; the
 * next one takes it over (take: true when it did, no write to the count).
 * A writer that needs the reader to act does not count a held one as a
 * poll. */
bool enc_p2p_shm_take_held(void);
bool enc_p2p_shm_leave_held(void);
/* After writing into (or freeing room in) a ring of peer's: wakes its
 * sleeping threads, or true when a bell must go to it (nothing of it polls
 * or sleeps and no bell is on its way); the caller sends it.  grace: a
 * peer between two calls is watched a few microseconds first (not from
 * the progress thread, which holds the lock its own rank's calls need). */
bool enc_p2p_shm_bell_needed(int peer, bool grace);
/* After writing what peer need not read before its next call: wakes its
 * sleeping threads only (a waiting one may wait for it). */
void enc_p2p_shm_wake_sleepers(int peer);
/* A waiting thread sleeps (the layer's lock released) until a peer wrote
 * or freed room, this rank's enc_p2p_wake_waiters, or deadline_ns
 * (CLOCK_MONOTONIC, UINT64_MAX: none): begin (announce, then look at the
 * rings once more), sleep, end (then look once more). */
uint32_t enc_p2p_shm_sleep_begin(void);
void enc_p2p_shm_sleep(uint32_t seen, uint64_t deadline_ns);
void enc_p2p_shm_sleep_end(void);
/* Wakes this rank's threads asleep above (enc_p2p_wake_waiters). */
void enc_p2p_shm_wake_self(void);
/* This rank looks at its rings now (its progress thread heard its bell,
 * or a call polls them): before it reads them, so that a write after the
 * look rings again. */
void enc_p2p_shm_bell_heard(void);
/* The writer found the ring to peer full: asks the reader to ring when it
 * frees room; true when room appeared meanwhile (write again). */
bool enc_p2p_shm_want_room(int peer);
/* The reader freed room in peer's ring to us: true when peer asked for it
 * (the caller rings peer's bell). */
bool enc_p2p_shm_room_asked(int peer);

/* How long a waiting thread spins, then yields, polling its rings before
 * it sleeps (ENCORE_SPIN_US, ENCORE_SHM_YIELD_US: as shared-memory
 * collectives, shim/engine/membership.c). */
uint64_t enc_p2p_shm_spin_ns(void);
uint64_t enc_p2p_shm_yield_ns(void);

#endif
