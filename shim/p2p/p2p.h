/*
 * p2p.h - point-to-point messages between the ranks of the encore world
 * (MPI-free; the MPI layer's shim/mpi/p2p/p2p_*.c turn MPI calls into these).
 *
 * Transport: each rank sends to a peer on its own TCP connection to it
 * (role P2P, made on the first message) and reads the peer's messages on
 * the connection the peer made; between ranks of one host the messages
 * themselves go through a ring in the host's segment (shm_link.h), the
 * connection carrying control frames only (ENCORE_P2P_SHM=0: TCP too).
 * Every send is buffered: its payload is copied into the connection's
 * queue and the send is complete (a synchronous send waits for the
 * receiver's ACK).  One progress thread sleeps in poll on every
 * connection: it writes what the sockets could not take at once and
 * reads every arriving message into the matching (p2p/match.h) of its
 * communicator, as an unexpected message or straight into the posted
 * receive it matches.  So two ranks that send each other large messages
 * never deadlock, and no thread spins.
 *
 * Every function below except enc_p2p_start, enc_p2p_lock and
 * enc_p2p_finalize is called with the lock held.  Callbacks (deliver,
 * acked) run with the lock held, on the thread that made the match or
 * read the ACK.
 */
#ifndef ENC_P2P_P2P_H
#define ENC_P2P_P2P_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "p2p/match.h"

/* An arrived message. */
struct enc_p2p_msg {
    struct enc_match_msg mm;   /* src (rank in the communicator), tag, seq */
    uint64_t cid;
    int from;                  /* the sender's world rank */
    uint32_t inc;              /* its incarnation (the connection it came on): the one an
                                * ACK is for */
    bool sync;                 /* the sender waits for an ACK at the match */
    bool resume;               /* a RESUME frame (conn_rx.c's), not a message */
    bool positions;            /* a POSITIONS frame (conn_rx.c's), not a message */
    uint64_t ack;
    uint64_t chain;            /* the channel's chain with it (chanseq.h) */
    size_t bytes;
    uint8_t *data;             /* the packed payload (NULL when bytes is 0) */
    /* data is this posted receive's own buffer, read straight into it
     * (p2p.c's direct_target); NULL: data is the message's */
    struct enc_p2p_recv *direct_to;
};

struct enc_p2p_recv;
/* A receive matched m: the callee owns m (enc_p2p_msg_free). */
typedef void (*enc_p2p_deliver_fn)(struct enc_p2p_recv *r, struct enc_p2p_msg *m);

struct enc_p2p_recv {
    struct enc_match_recv mr;  /* src, tag (ENC_MATCH_ANY allowed) */
    uint64_t cid;
    enc_p2p_deliver_fn deliver;
    /* The buffer a contiguous receive unpacks into, direct_cap bytes
     * (NULL: a derived type): a message that will match it is read
     * straight into it; deliver then finds m->direct_to == this. */
    void *direct;
    size_t direct_cap;
};

/* A synchronous send waiting for its ACK. */
struct enc_p2p_sync {
    uint64_t id;               /* set by enc_p2p_send */
    void (*acked)(struct enc_p2p_sync *s);
    struct enc_p2p_sync *next;
};

/* At MPI_Init, before the engine's listener starts: peers' connections
 * are taken from then on (a peer may send before this rank's first
 * point-to-point call). */
void enc_p2p_listen(void);
/* Starts the layer (connections, progress thread) on first use, from the
 * program's first point-to-point call (a restored rank then tells its
 * peers where it is).  Idempotent.  ENC_OK or an error logged once. */
enc_status_t enc_p2p_start(void);
/* The layer runs (a peer's connection may have started it). */
bool enc_p2p_started(void);
/* enc_p2p_start was called. */
bool enc_p2p_announced(void);
void enc_p2p_lock(void);
void enc_p2p_unlock(void);

/* Sends bytes of data (copied) from rank src of communicator cid to its
 * rank dst, world rank dst_world; s (NULL: none) makes it synchronous:
 * s->acked is called when the receiver matched it; blocking: the caller
 * waits for the send anyway (it may then wait for a rank of this host to
 * read data, conn_tx.h).  A message to oneself goes straight to the
 * matching. */
enc_status_t enc_p2p_send(uint64_t cid, int src, int dst, int dst_world, int tag,
                          const void *data, size_t bytes, struct enc_p2p_sync *s, bool blocking);
/* The program was granted MPI_THREAD_MULTIPLE: enc_p2p_post refuses (one
 * line, ENC_ERR_STATE) a receive from a thread while another thread has
 * receives posted and unmatched. */
void enc_p2p_set_thread_multiple(bool on);
/* Posts a receive; r->deliver may run before this returns. */
enc_status_t enc_p2p_post(struct enc_p2p_recv *r);
/* The message a receive of (src, tag) posted now would take, left queued. */
const struct enc_p2p_msg *enc_p2p_probe(uint64_t cid, int src, int tag);
/* The same, taken (MPI_Mprobe: the caller owns it, it counts as matched). */
struct enc_p2p_msg *enc_p2p_mprobe(uint64_t cid, int src, int tag);
/* Removes a posted receive that has not matched: true when it had not. */
bool enc_p2p_cancel(struct enc_p2p_recv *r);
void enc_p2p_msg_free(struct enc_p2p_msg *m);

/* Sleeps (the lock released meanwhile) until something arrives or is
 * delivered, or deadline (enc_deadline_ms) passes: ENC_OK, or
 * ENC_ERR_TIMEOUT. */
enc_status_t enc_p2p_wait(uint64_t deadline);
/* A blocking wait, from its first sleep to its return: it looks at the
 * rings of this host's peers before every sleep (announced on the futex)
 * and once more at its end (enc_p2p_attend_end, the lock held), so a
 * writer meanwhile need not ring it on TCP (a reply that lands between
 * two looks of a ping-pong's receive).  No lock needed to begin. */
void enc_p2p_attend_begin(void);
void enc_p2p_attend_end(void);
/* A nonblocking call (Test*, Iprobe) found nothing (no lock held): the
 * rings are read when they hold bytes, so a program that polls needs no
 * bell (a rank whose attentive count is held gets none, shm_link.h). */
void enc_p2p_poll(void);
/* Wakes every thread in enc_p2p_wait (a delivery callback calls it). */
void enc_p2p_wake_waiters(void);

/* MPI_Finalize, before its barrier: every queued byte written (bounded by
 * the collective timeout), and from now on a closed connection is a peer
 * that finished. */
enc_status_t enc_p2p_flush(void);
/* After the barrier: connections closed, the thread stopped. */
void enc_p2p_finalize(void);
/* The progress thread's id (0: none), so snapshots count it as ours. */
int enc_p2p_thread_id(void);

/*
 * Snapshots at any call boundary (docs/p2p.md, 7).  The fork copies the
 * layer's whole state: queues, pending receives and synchronous sends,
 * channel positions, the payload log, the determinant clock.  Around the
 * fork the forking thread holds the lock (prepare; parent releases it).
 * The image (child) closes the layer's descriptors; restored, the layer
 * starts its thread again and tells every peer the positions the image
 * had received (POSITIONS, RESUME): each re-sends from there.
 */
bool enc_p2p_fork_prepare(void);
void enc_p2p_fork_parent(void);
void enc_p2p_fork_child(void);
void enc_p2p_restored(void);
/* A trim floor on a channel key (enc_p2p_each_received): the log's
 * messages on that channel below floor are released; false when this
 * rank sends on no channel of that key.  Not with the lock held. */
bool enc_p2p_trim(uint64_t key, uint64_t floor);
/* Calls fn with the key and the received position (the next number
 * needed) of every channel this rank received on; no allocation, no lock
 * (a snapshot image, alone in its process, lists them). */
void enc_p2p_each_received(void (*fn)(void *arg, uint64_t key, uint64_t pos), void *arg);

/*
 * Checkpoints (checkpoint.c): taken only when no message is in flight.
 * counts: c[0] messages sent, c[1] arrived (by channel number), c[2]
 * arrived and unmatched, c[3] receives and synchronous sends pending; it marks the
 * end of every payload log, which release frees once the checkpoint is
 * committed.  save: this rank's channel positions and determinant clock
 * (malloc'd; none before the layer started), which load sets again in a
 * rank restarted from that checkpoint, before its first message.
 */
void enc_p2p_ckpt_counts(uint64_t c[4]);
void enc_p2p_ckpt_release(void);
enc_status_t enc_p2p_ckpt_save(void **blob, size_t *len);
enc_status_t enc_p2p_ckpt_load(const void *blob, size_t len);

#endif
