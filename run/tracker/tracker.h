/*
 * tracker.h - the tracker (rendezvous) of one encore job, as a poll-driven
 * object.  encore-run embeds it next to its process management; the
 * standalone encore-tracker and the unit tests drive it alone.
 *
 * The tracker authenticates control connections, registers ranks, sends
 * WORLD when every rank of an epoch is present, announces deaths (EVENT
 * DEAD, new epoch), gathers STATUS from survivors and sends WORLD + RESUME.
 * Whether a lost rank comes back is the owner's decision (hooks.lost); the
 * tracker only keeps the rendezvous consistent.
 */
#ifndef ENC_TRACKER_TRACKER_H
#define ENC_TRACKER_TRACKER_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "proto/auth.h"
#include "proto/msgs.h"

struct enc_tracker;

/* Callbacks into the owner; all optional, all called from enc_tracker_poll. */
struct enc_tracker_hooks {
    void *arg;
    /* A registered rank was lost before FINALIZE (connection closed or
     * broken, silent, replaced).  The connection is already fenced.  The
     * owner then calls enc_tracker_rank_dead() (restart) or
     * enc_tracker_abort().  Without this hook the tracker assumes an
     * external launcher restarts the rank (enc_tracker_rank_dead(.., true)). */
    void (*lost)(void *arg, int rank, uint32_t incarnation, const char *why);
    void (*registered)(void *arg, int rank, uint32_t incarnation, uint32_t pid);
    void (*finalized)(void *arg, int rank);
    /* ABORT from a rank; the tracker has already sent EVENT ABORT to all. */
    void (*aborted)(void *arg, int rank, int32_t code, const char *reason);
    /* The job cannot go on (ranks missing at the register deadline); the
     * tracker has already sent EVENT ABORT to all.  why is one line. */
    void (*failed)(void *arg, const char *why);
    /* The first DROPPED of the job: rank dropped results first..last from
     * its log (called once per job; the summary has every rank's). */
    void (*dropped)(void *arg, int rank, uint64_t first, uint64_t last);
};

struct enc_tracker_config {
    int size;                     /* ranks in the job */
    const char *bind_host;        /* NULL: all addresses */
    uint16_t port;                /* 0: kernel's choice */
    const struct enc_secret *secret;
    /* <= 0: from the tunables (ENCORE_*_MS) */
    int64_t connect_timeout_ms;
    int64_t register_timeout_ms;
    int64_t heartbeat_timeout_ms;
    struct enc_tracker_hooks hooks;
};

/* One recovery: first DEAD event of a rendezvous -> RESUME sent. */
struct enc_tracker_recovery {
    uint32_t epoch;               /* epoch of the RESUME */
    int rank;                     /* the rank whose death started it */
    double seconds;
};

enum enc_tracker_rank_state {
    ENC_TRK_ABSENT = 0,           /* never registered, or lost */
    ENC_TRK_REGISTERED,
    ENC_TRK_FINALIZED,
};

enc_status_t enc_tracker_create(struct enc_tracker **out, const struct enc_tracker_config *cfg);
void enc_tracker_destroy(struct enc_tracker *t);
uint16_t enc_tracker_port(const struct enc_tracker *t);

/* Waits up to timeout_ms (-1: until the tracker's next deadline) for
 * tracker sockets and the owner's extra fds, handles tracker I/O and
 * timers, and returns with extra[i].revents filled.  ENC_OK or a status
 * for a failure of poll itself. */
enc_status_t enc_tracker_poll(struct enc_tracker *t, int timeout_ms, struct pollfd *extra,
                              int nextra);

/* The owner declares incarnation's rank dead (process gone).  Fences its
 * connection.  restart: a new incarnation will register, so a new epoch
 * begins (EVENT DEAD to the live ranks) once a world has formed.  Calls for
 * an older incarnation than the registered one are ignored. */
void enc_tracker_rank_dead(struct enc_tracker *t, int rank, uint32_t incarnation, bool restart);
/* --policy fail-all: every rank is being restarted; fences all, new epoch. */
void enc_tracker_restart_all(struct enc_tracker *t);
/* EVENT TRIM {cid, seq} to every registered rank: no rank will ask for a
 * result of communicator cid (0: the world) below seq again (each can be
 * restored from a snapshot past it). */
void enc_tracker_trim(struct enc_tracker *t, uint64_t cid, uint64_t seq);
/* EVENT ABORT {rank, code, reason} to every registered rank. */
void enc_tracker_abort(struct enc_tracker *t, int rank, int32_t code, const char *reason);

uint32_t enc_tracker_epoch(const struct enc_tracker *t);
enum enc_tracker_rank_state enc_tracker_rank_state(const struct enc_tracker *t, int rank);
/* Incarnation of the rank's registered (or last registered) connection. */
uint32_t enc_tracker_incarnation(const struct enc_tracker *t, int rank);
/* Last stats of a rank (FINALIZE or STATS); ENC_ERR_NOT_FOUND when it sent
 * none. */
enc_status_t enc_tracker_rank_stats(const struct enc_tracker *t, int rank, struct enc_msg_stats *st);
/* The results any rank reported dropped, the widest range over ranks;
 * false when none was. */
bool enc_tracker_dropped(const struct enc_tracker *t, uint64_t *first, uint64_t *last);
/* Whether an incarnation of rank recorded a determinant and said it keeps
 * it only on its host (NONDET: replication to the tracker is off). */
bool enc_tracker_rank_nondet(const struct enc_tracker *t, int rank);
/* Whether rank ships its determinants to the tracker (DET_PUT): they
 * survive its host's loss (docs/p2p.md 5.3, S2). */
bool enc_tracker_rank_det_kept(const struct enc_tracker *t, int rank);
/* How many recoveries; *out points at them. */
int enc_tracker_recoveries(const struct enc_tracker *t, const struct enc_tracker_recovery **out);
/* True once any WORLD was sent. */
bool enc_tracker_world_formed(const struct enc_tracker *t);

/* The one line about results first..last dropped by rank, for the
 * hooks.dropped of a program named prog. */
void enc_tracker_print_dropped(const char *prog, int rank, uint64_t first, uint64_t last,
                               FILE *out);

/* The memory a job summary shows, in KiB: each rank's private RSS (its
 * own pages, without the shared segment's) as the launcher sampled it
 * (< 0: never; the summary also takes what the rank reported at
 * MPI_Finalize, the larger of the two) and each
 * host's shared segment, counted once for the host (< 0: none, or not
 * known).  host: the hosts' names, NULL for a job on this host only. */
struct enc_tracker_memory {
    const long *private_kb;
    int nhosts;
    const char *const *host;
    const long *shm_used_kb;
    const long *shm_alloc_kb;
};

/* Job summary (ranks, restarts, replayed collectives, recovery times).
 * restarts: per-rank counts known by the launcher, or NULL to use the
 * registered incarnations; mem: NULL when not known. */
void enc_tracker_print_summary(const struct enc_tracker *t, const int *restarts,
                               const struct enc_tracker_memory *mem, FILE *out);

#endif
