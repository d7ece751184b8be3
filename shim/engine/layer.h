/*
 * layer.h - the engine's interface for the layer above it (recovery).
 *
 * The engine only moves and combines bytes.  A layer that wraps every
 * collective (replay while behind, record after, regroup after a death,
 * serve its own connections from the progress loop, an extra algorithm)
 * fills a const table of ops, designated initialisers, and registers it
 * with a context before enc_engine_init(); the engine calls the ops and
 * never a function of the layer by name.  Every op is optional.  With no
 * layer registered (ENCORE_RECOVERY=0) the engine is the plain engine: a
 * peer failure ends the job.
 *
 * The layer runs collectives only through engine.h and enc_layer_coll(),
 * and reads engine state only through the accessors below.
 */
#ifndef ENC_ENGINE_LAYER_H
#define ENC_ENGINE_LAYER_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "engine/coll.h"
#include "proto/msgs.h"

struct enc_engine_ops {
    const char *name;
    /* The world is adopted at MPI_Init; resume holds every rank's progress
     * when this rank joined a later epoch (a restart), else NULL. */
    enc_status_t (*join)(void *arg, const struct enc_msg_resume *resume);
    /* Once per collective call, before it runs (not again on a re-run). */
    void (*begin)(void *arg, const struct enc_coll *co);
    /* True while this rank is behind the others at collective seq. */
    bool (*behind)(void *arg, uint64_t seq);
    /* Answers co (co->ctx.seq) while behind, instead of running it. */
    enc_status_t (*replay)(void *arg, struct enc_coll *co);
    /* After every result; replayed when replay answered it.  A failure
     * only costs recoverability later (reported then), so the engine goes
     * on. */
    enc_status_t (*record)(void *arg, const struct enc_coll *co, bool replayed);
    /* Collectives on a communicator derived from the world (engine/group.h)
     * are numbered per communicator: cid identifies it, gseq is the
     * collective's number on it.  group_replay answers co from another
     * member's log when the communicator is uncertain after a failure
     * (ENC_ERR_NOT_FOUND: no member has it, run it live); group_record
     * keeps every result.  A failure of group_record ends the job. */
    enc_status_t (*group_replay)(void *arg, struct enc_coll *co, uint64_t cid, uint64_t gseq);
    enc_status_t (*group_record)(void *arg, const struct enc_coll *co, uint64_t cid,
                                 uint64_t gseq);
    /* The tracker's EVENT TRIM: no rank will ask for a result of
     * communicator cid (0: the world) below seq again.  Called from inside
     * the progress loop, so the layer only takes note. */
    void (*trim)(void *arg, uint64_t cid, uint64_t seq);
    /* After every collective but finalize (the world's and every derived
     * communicator's), its result recorded and seq advanced, just before it
     * returns to the program: the one point where the program's state is a
     * clean collective boundary (snapshots). */
    void (*after)(void *arg, const struct enc_coll *co);
    /* A peer failed or the tracker announced a death inside a collective:
     * regroup (enc_engine_regroup) so the collective can be run again. */
    enc_status_t (*recover)(void *arg);
    /* Poll entries the progress loop watches for the layer: at most cap,
     * returns how many were written. */
    int (*pollfds)(void *arg, struct pollfd *p, int cap);
    /* Serves the ready ones among the n entries pollfds wrote. */
    enc_status_t (*serve)(void *arg, const struct pollfd *p, int n);
    /* The algorithm of a layer collective (enc_layer_coll), such as
     * recovery's checkpoint exchange; it uses the algorithm interface of
     * engine/coll.h and engine/xfer.h. */
    enc_status_t (*exchange)(void *arg, struct enc_coll *co);
    /* The host's circular result buffer (shm/shm.h).  A layer that defines resbuf_keep
     * gets large shared-memory results left in the result buffer (co->resbuf_at) instead
     * of copying them: resbuf_keep returns the oldest result-buffer position it still
     * uses (UINT64_MAX: none), and resbuf_evict must copy out every entry it
     * keeps below position `below` before the result buffer is overwritten there. */
    uint64_t (*resbuf_keep)(void *arg);
    void (*resbuf_evict)(void *arg, uint64_t below);
    /* The number log lines print as "version" (0 without a layer). */
    uint32_t (*version)(void *arg);
    /* At MPI_Finalize: fills the layer's part of the statistics; true when
     * this rank must keep serving (pollfds) until every rank finished. */
    bool (*finalize)(void *arg, struct enc_msg_stats *st);
    /* Last call: release everything. */
    void (*fini)(void *arg);
};

/* Registers the layer (before enc_engine_init); ENC_ERR_STATE once joined. */
enc_status_t enc_engine_register(const struct enc_engine_ops *ops, void *arg);

/* Runs a collective of kind sig->kind whose algorithm is the layer's
 * exchange op, with the engine's sequencing, injection and re-run. */
enc_status_t enc_layer_coll(const struct enc_callsig *sig);

/* ENCORE_INJECT=snapkill:K: true for the K-th snapshot's fork (the caller
 * then SIGKILLs the rank, a test of a kill while a snapshot is taken). */
bool enc_inject_snapshot(uint64_t nth);

/* Collectives completed: the sequence number of the next one. */
uint64_t enc_engine_seq(void);
/* A rank that loaded a checkpoint jumps to the collective after it. */
void enc_engine_skip_to(uint64_t seq);
uint32_t enc_engine_epoch(void);
uint32_t enc_engine_incarnation(void);
/* The tracker's newest EVENT TRIM: no rank will ask for a result below it
 * (each can be restored from a snapshot past it); 0 before any. */
uint64_t enc_engine_log_floor(void);
int enc_engine_coll_timeout_ms(void);
/* This host's ranks per online core (1 when each has a core of its own). */
double enc_engine_ranks_per_core(void);
/* Tells the tracker that results first..last were dropped from the log. */
void enc_engine_report_dropped(uint64_t first, uint64_t last);
/* Tells the tracker that this rank recorded a determinant: an outcome kept
 * only on its host, so the loss of the host makes the rank unrecoverable. */
void enc_engine_report_nondeterminism(void);
/* The bytes at result-buffer position at (valid while the layer keeps it). */
const void *enc_engine_resbuf_data(uint64_t at);
/* Result-buffer positions below this may have been overwritten (a snapshot image's
 * references there are stale). */
uint64_t enc_engine_resbuf_low(void);
/* The result buffer's size in bytes (0: none). */
uint64_t enc_engine_resbuf_bytes(void);

/* This rank's neighbours in the locality order (which wraps around). */
void enc_engine_locality_neighbours(int *next, int *prev);
/* Those of any rank of the world. */
void enc_engine_locality_neighbours_of(int rank, int *next, int *prev);
/* peer_host.c: the host of a peer in the current world (its published
 * address; "" before the first world).  Equal strings: same host. */
const char *enc_engine_peer_host(int rank);

/* After a failure: drop every data link, wait (bounded) for the death
 * notice, report this rank's progress, wait for the new world and adopt it.
 * *resume receives every rank's progress (size 0 when the tracker sent
 * none); free it with enc_msg_resume_free(). */
enc_status_t enc_engine_regroup(struct enc_msg_resume *resume);
/* Drains tracker events; ENC_ERR_EPOCH when a new epoch began. */
enc_status_t enc_engine_poll_tracker(void);
/* Outside any collective (a point-to-point wait), the engine held: serves
 * the layer's connections that are ready (a replaying rank fetching logged
 * results), drains tracker events and, when a new epoch began, lets the
 * layer regroup, so that a restarted rank can join and catch up without
 * waiting for this rank's next collective.  Never blocks but in the
 * regroup.  ENC_OK, or a failure. */
enc_status_t enc_engine_follow_epoch(void);
/* Readable when the tracker has news (poll it with the above). */
int enc_engine_tracker_fd(void);

/* Waits (bounded by deadline) until fd is readable, meanwhile installing
 * accepted links and serving the layer's connections (members of a
 * communicator ask each other at the same time); ENC_ERR_EPOCH when the
 * tracker announces a new epoch. */
enc_status_t enc_engine_wait_readable(int fd, uint64_t deadline);

/* Layer connections (role LOG), fenced by epoch and incarnation like the
 * data links.  enc_log_conn connects to peer (blocking, bounded) or
 * returns the open one; served ones are those peers opened to us. */
enc_status_t enc_log_conn(int peer, int *fd);
void enc_log_conn_close(int peer);
/* fd of the connection peer opened to us, -1 if none. */
int enc_log_served_fd(int peer);
void enc_log_served_close(int peer);

/* Point-to-point connections (role P2P), one per direction of a pair:
 * enc_p2p_conn_open connects to peer (blocking, bounded) and the caller
 * owns the fd; connections peers open to us are handed to accept, on the
 * listener's thread, once authenticated (the receiver owns the fd). */
struct enc_auth_id;
enc_status_t enc_p2p_conn_open(int peer, int *fd);
/* The same to a peer's new incarnation at its address, before this rank
 * adopted the world it is in; and this rank's own address, for its peers. */
enc_status_t enc_p2p_conn_open_at(const char *addr, uint16_t port, int *fd);
void enc_p2p_self_addr(char *addr, size_t cap, uint16_t *port);
/* The incarnation of peer in the world this rank knows (enc_p2p_conn_open
 * reaches it). */
uint32_t enc_p2p_peer_incarnation(int peer);
void enc_engine_set_p2p_accept(void (*accept)(int fd, const struct enc_auth_id *id));

/* fork_child.c: in the child of a fork() made at a collective boundary
 * (the other threads do not exist there): closes every descriptor the
 * engine and its tracker client hold (data links, log connections, the
 * listener and connections it accepted, eventfds, the tracker connection)
 * without touching locks, so a dead rank's peers see its sockets close. */
void enc_engine_fork_child(void);
/* The engine's own threads (listener, tracker client): writes up to cap
 * thread ids, returns how many. */
int enc_engine_thread_ids(int *tids, int cap);
/* join.c: a forked copy of this rank takes its place as incarnation inc:
 * new listener and tracker connection, registration, WORLD and RESUME
 * (handed to the layer's join op), collectives numbered from where the
 * copy was made. */
enc_status_t enc_engine_rejoin(uint32_t inc);

/* callsite.c: "kmeans.c:88 main" or "libfoo.so+0x1234" for a return address. */
void enc_callsite_format(const void *site, char *out, size_t cap);
/* The module (basename) holding site and site's offset in it, stable across
 * ASLR; false (with "?" and the raw address) when the dynamic linker does
 * not know it.  *sym, when not NULL, receives the nearest exported symbol. */
bool enc_callsite_module(const void *site, char *mod, size_t cap, uint64_t *off,
                         const char **sym);

#endif
