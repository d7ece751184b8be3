/*
 * state.h - the engine's per-process state (private to shim/engine; the
 * layer above reads it through engine/layer.h).  One encore world per
 * process, so one global.
 */
#ifndef ENC_ENGINE_STATE_H
#define ENC_ENGINE_STATE_H

#include <poll.h>
#include <pthread.h>

#include "engine/coll.h"
#include "engine/engine.h"
#include "engine/layer.h"
#include "proto/auth.h"
#include "proto/msgs.h"
#include "engine/chan.h"
#include "shm/shm.h"
#include "tracker_client/tclient.h"

/* An authenticated connection handed from the listener thread. */
struct enc_accepted {
    int fd;
    struct enc_auth_id id;
};

struct enc_listener {
    int listen_fd;
    uint16_t port;
    int wake_fd;              /* eventfd: accepted connections queued */
    int stop_fd;              /* eventfd: ask the thread to stop */
    pthread_t thread;
    int tid;                  /* the thread's id (gettid), 0 until it runs */
    pthread_mutex_t lock;
    struct enc_accepted *queue;
    size_t nqueue, capqueue;
    bool running;
};

/* ENCORE_INJECT (inject.c): what a rank does to itself at its K-th
 * collective, or right after the fork of its K-th snapshot. */
enum enc_inject_kind {
    ENC_INJECT_NONE,
    ENC_INJECT_KILL,     /* kill:K, SIGKILL */
    ENC_INJECT_STOP,     /* stop:K, SIGSTOP */
    ENC_INJECT_SNAPKILL, /* snapkill:K */
};

struct enc_engine {
    bool active;
    int rank, size;
    uint32_t incarnation;
    uint32_t epoch;           /* epoch of the current world */
    uint32_t latest_epoch;    /* newest epoch announced by the tracker */
    uint64_t log_floor;       /* EVENT TRIM: no rank needs results below it */
    struct enc_secret secret;
    struct enc_tclient *tc;
    struct enc_listener lst;

    struct enc_world_peer *peers; /* size entries, current epoch */
    int *locality;            /* locality[pos] = rank, locality order */
    int *identity;            /* identity[pos] = pos, rank order */
    int *link_fd;             /* data link per peer rank, -1 if none */
    int *log_fd;              /* log-service connection to peer, -1 if none */
    int *serve_fd;            /* log-service connections accepted from peers */
    struct enc_accepted *future; /* links of an epoch we have not reached */
    size_t nfuture, capfuture;

    struct enc_msg_world pending_world;   /* newest WORLD not adopted yet */
    bool have_world;
    struct enc_msg_resume pending_resume; /* newest RESUME not handed on yet */
    bool have_resume;

    uint64_t seq;             /* collectives completed = seqno of the next */
    bool regrouping;          /* the layer regroups: no turn passes (turns.h) */

    /* the host's shared-memory segment (coll_shm.c) */
    struct enc_shm shm;
    bool shm_world;           /* every rank of the world is in it */
    struct enc_chan chan;     /* the world's channel in it (channel 0) */

    /* the layer above (recovery), NULL for the plain engine */
    const struct enc_engine_ops *ops;
    void *ops_arg;

    /* tunables, read once */
    size_t tree_max_bytes;
    size_t ring_min_count;    /* elements per rank the ring needs */
    size_t bcast_segment;
    int coll_timeout_ms;
    uint64_t spin_ns;         /* busy-poll before sleeping in poll(2) */
    uint64_t shm_spin_ns;     /* the same in shared-memory collective waits */
    uint64_t yield_ns;        /* then sched_yield() polls (shared memory) */
    double ranks_per_core;    /* this host's ranks / its online cores, >= 1 */
    int connect_timeout_ms;
    bool shm_on;              /* ENCORE_SHM (read per collective it cost a getenv) */

    enum enc_inject_kind inject_kind;
    uint64_t inject_at;       /* at this 1-based collective */
    uint64_t inject_calls;    /* collectives this incarnation entered */
};

extern struct enc_engine enc_eng;

/* coll.c: runs one collective to completion (replay, re-run after a
 * failure, recording included). */
enc_status_t enc_coll_run(struct enc_coll *co);

/* listener.c: a thread accepts and authenticates incoming connections so
 * handshakes never wait for the application to enter MPI. */
enc_status_t enc_listener_start(struct enc_listener *l, const struct enc_secret *s);
void enc_listener_stop(struct enc_listener *l);
/* Moves queued connections out; returns how many (<= max). */
size_t enc_listener_drain(struct enc_listener *l, struct enc_accepted *out, size_t max);
/* In a forked child (no thread): closes the listener's descriptors. */
void enc_listener_forget(struct enc_listener *l);

/* links.c */
enc_status_t enc_links_alloc(int size);
/* Installs accepted connections (drains the listener). */
void enc_links_poll_accepted(void);
/* fd of the data link to peer; connects if we are the higher rank, else
 * sets -1 with ENC_OK and the caller waits for the peer to connect. */
enc_status_t enc_link_fd(int peer, int *fd);
void enc_links_close_all(void);
void enc_links_promote_future(void);

/* membership.c: adopt the pending WORLD (peers, locality order) as the current epoch. */
enc_status_t enc_world_adopt(void);
/* Handle one tracker event; ENC_ERR_EPOCH when a new epoch began.  WORLD
 * and RESUME are kept as pending until the engine adopts them. */
enc_status_t enc_engine_handle_event(struct enc_tclient_event *ev);
/* Waits (bounded) for a WORLD, and a RESUME when want_resume, of the newest
 * epoch; a newer DEAD on the way makes it return ENC_ERR_EPOCH. */
enc_status_t enc_world_wait(bool want_resume, uint64_t deadline);

/* layer.c: the layer's poll entries (at most cap) and serving the ready
 * ones among the n it wrote. */
int enc_layer_pollfds(struct pollfd *p, int cap);
/* True while the layer answers world collective seq from its log. */
bool enc_coll_behind(uint64_t seq);
enc_status_t enc_layer_serve(const struct pollfd *p, int n);

/* regroup.c: at MPI_Init, wait for the world (and, for a later epoch,
 * RESUME), adopt it and hand RESUME to the layer's join op. */
enc_status_t enc_engine_join_world(void);

/* inject.c: fault injection (ENCORE_INJECT) at collective entry. */
void enc_inject_parse(void);
void enc_inject_check(void);

#endif
