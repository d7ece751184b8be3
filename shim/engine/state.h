/*
 * state.h - the engine's per-process state (private to shim/engine and
 * shim/recovery).  One encore world per process, so one global.
 */
#ifndef ENC_ENGINE_STATE_H
#define ENC_ENGINE_STATE_H

#include <pthread.h>

#include "engine/engine.h"
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
    pthread_mutex_t lock;
    struct enc_accepted *queue;
    size_t nqueue, capqueue;
    int running;
};

struct enc_engine {
    int active;
    int rank, size;
    uint32_t incarnation;
    uint32_t epoch;           /* epoch of the current world */
    uint32_t latest_epoch;    /* newest epoch announced by the tracker */
    struct enc_secret secret;
    struct enc_tclient *tc;
    struct enc_listener lst;

    struct enc_world_peer *peers; /* size entries, current epoch */
    int *ring;                /* ring[pos] = rank, locality order */
    int *identity;            /* identity[pos] = pos, rank order */
    int *link_fd;             /* data link per peer rank, -1 if none */
    int *log_fd;              /* log-service connection to peer, -1 if none */
    int *serve_fd;            /* log-service connections accepted from peers */
    struct enc_accepted *future; /* links of an epoch we have not reached */
    size_t nfuture, capfuture;

    struct enc_msg_world pending_world;   /* newest WORLD not adopted yet */
    int have_world;
    struct enc_msg_resume pending_resume; /* newest RESUME not applied yet */
    int have_resume;

    uint64_t seq;             /* collectives completed = seqno of the next */
    uint64_t replay_until;    /* collectives below this are answered from the log */
    uint64_t *peer_completed; /* per rank, from the last RESUME */
    uint64_t replayed;        /* collectives answered from the log */
    uint64_t replayed_bytes;  /* result bytes they carried */
    double replay_s;          /* time spent fetching them */
    double recovery_s;        /* time spent waiting in recovery */

    /* tunables, read once */
    size_t tree_max_bytes;
    size_t ring_min_count;    /* elements per rank the ring needs */
    size_t bcast_segment;
    int coll_timeout_ms;
    uint64_t spin_ns;         /* busy-poll before sleeping in poll(2) */
    int connect_timeout_ms;
    int recovery;             /* result log on */

    int inject_kind;          /* 0 none, 'k' SIGKILL, 's' SIGSTOP */
    uint64_t inject_at;       /* at this 1-based collective */
};

extern struct enc_engine enc_eng;

/* listener.c: a thread accepts and authenticates incoming connections so
 * handshakes never wait for the application to enter MPI. */
int enc_listener_start(struct enc_listener *l, const struct enc_secret *s);
void enc_listener_stop(struct enc_listener *l);
/* Moves queued connections out; returns how many (<= max). */
size_t enc_listener_drain(struct enc_listener *l, struct enc_accepted *out, size_t max);

/* links.c */
int enc_links_alloc(int size);
/* Installs accepted connections (drains the listener). */
void enc_links_poll_accepted(void);
/* fd of the data link to peer; connects if we are the higher rank, else
 * returns -1 with ENC_OK and the caller waits for the peer to connect. */
int enc_link_fd(int peer, int *fd);
void enc_links_close_all(void);
void enc_links_promote_future(void);
/* Connects a log-service connection to peer (blocking, bounded). */
int enc_log_conn(int peer, int *fd);

/* world.c: adopt the pending WORLD (peers, ring) as the current epoch. */
int enc_world_adopt(void);
/* Handle one tracker event; ENC_ERR_EPOCH when a new epoch began.  WORLD
 * and RESUME are kept as pending until the engine adopts them. */
int enc_engine_handle_event(struct enc_tclient_event *ev);
/* Drains queued tracker events without blocking. */
int enc_engine_poll_tracker(void);
/* Waits (bounded) for a WORLD, and a RESUME when want_resume, of the newest
 * epoch; a newer DEAD on the way makes it return ENC_ERR_EPOCH. */
int enc_world_wait(int want_resume, uint64_t deadline);


/* inject.c: fault injection (ENCORE_INJECT) at collective entry. */
void enc_inject_parse(void);
void enc_inject_check(void);

/* callsite.c: "kmeans.c:88 main" or "libfoo.so+0x1234" for a return address. */
void enc_callsite_format(const void *site, char *out, size_t cap);
/* The module (basename) holding site and site's offset in it, stable across
 * ASLR; 0 (with "?" and the raw address) when the dynamic linker does not
 * know it.  *sym, when not NULL, receives the nearest exported symbol. */
int enc_callsite_module(const void *site, char *mod, size_t cap, uint64_t *off,
                        const char **sym);

#endif
