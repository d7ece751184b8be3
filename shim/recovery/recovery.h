/*
 * recovery.h - retry-one recovery, a layer above the engine (private to
 * shim/recovery; the MPI layer calls only enc_recovery_register(),
 * enc_recovery_before_mpi_init(), enc_recovery_restored() and
 * enc_recovery_set_fork_guard()).
 *
 * Every completed collective's result is recorded under its sequence number
 * with its caller signature.  Each rank keeps the entries it is a holder of
 * (ENCORE_REPLICAS ranks per entry) for the job's lifetime, and every recent
 * entry until all ranks are known to have completed it, so whichever ranks
 * survive a failure can answer a restarted or lagging rank.  Recovery
 * registers its ops with the engine (engine/layer.h) and keeps its own
 * state here.
 */
#ifndef ENC_RECOVERY_RECOVERY_H
#define ENC_RECOVERY_RECOVERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "proto/msgs.h"
#include "recovery/checkpoint/ckpt.h"

struct enc_coll;
struct enc_msg_resume;

/* A collective's call site as module + offset (stable across ASLR), and its
 * occurrence number while the bootstrap phase lasts. */
struct enc_sitekey {
    uint64_t off;
    char mod[40];
    uint32_t occ;
    bool bootstrap;
};

/* Recovery's own state, one per process. */
/* A LOG_MISSING with a payload: rank dropped results first..last. */
struct enc_log_drop {
    bool known;
    int rank;
    uint64_t first, last;
};

struct enc_recovery {
    bool on;                  /* registered with the engine */
    uint64_t replay_until;    /* collectives below this are answered from the log */
    uint64_t *peer_completed; /* per rank, from the last RESUME */
    uint64_t replayed;        /* collectives answered from the log */
    uint64_t replayed_bytes;  /* result bytes they carried */
    double replay_s;          /* time spent fetching them */
    double recovery_s;        /* time spent waiting in recovery */
    struct enc_sitekey cur;   /* key of the collective in progress */
    struct enc_ckpt committed;/* the newest committed checkpoint (its version) */
    struct enc_ckpt *taking;  /* checkpoint being exchanged, NULL outside one */
    struct enc_log_drop drop; /* a peer's answer that it dropped what we asked */
};

extern struct enc_recovery enc_rec;

/* With ENCORE_RECOVERY on (the default), sets up the result log and
 * registers recovery's ops with the engine; call before enc_engine_init. */
enc_status_t enc_recovery_register(void);
/* Before the real MPI_Init: notes the program's own threads (snapshots
 * are only safe with threads libencore accounts for). */
void enc_recovery_before_mpi_init(void);
/* True in a rank restored from a snapshot: the real MPI's progress thread
 * does not exist there, so the real MPI_Finalize must not run. */
bool enc_recovery_restored(void);

/* What a layer above must do around a snapshot's fork (only the forking
 * thread exists in the copy).  prepare: true when this thread may fork now
 * (it then holds the guard's locks until parent or child is called); false
 * skips the snapshot.  child: the copy makes its state consistent with
 * having only this thread.  thread_ids: that layer's own threads (not the
 * program's), up to cap. */
struct enc_fork_guard {
    bool (*prepare)(void);
    void (*parent)(void);
    void (*child)(void);
    int (*thread_ids)(int *tids, int cap);
};
/* Set once, before the engine joins (MPI_Init). */
void enc_recovery_set_fork_guard(const struct enc_fork_guard *g);

/* checkpoint.c: encore_checkpoint() and encore_load_checkpoint() (their
 * entry points are the MPI layer's: mpi/ckpt_api.c). */
int enc_recovery_checkpoint(const void *global, size_t global_len, const void *local,
                            size_t local_len);
int enc_recovery_load_checkpoint(void *global, size_t *global_len, void *local,
                                 size_t *local_len);

/* recover.c: every rank's progress from RESUME (what to replay), and the
 * recover op: regroup with the engine, then that. */
enc_status_t enc_recovery_apply_resume(const struct enc_msg_resume *r);
enc_status_t enc_recover(void);

/* reclog.c */
enc_status_t enc_reclog_init(void);
void enc_reclog_fini(void);
/* Records the result of the collective that just completed. */
enc_status_t enc_reclog_record(const struct enc_coll *co);
/* Every rank has completed every collective below seq. */
void enc_reclog_all_done_below(uint64_t seq);
/* No rank will ask for results below seq again (every rank can restore
 * from a snapshot past it): released, bootstrap entries aside kept when
 * keep_boot (a checkpoint-restarted rank asks for them by call site). */
void enc_reclog_trim_below(uint64_t seq, bool keep_boot);
/* The most bytes the log held in memory at once, and on disk (spilled). */
size_t enc_reclog_peak_bytes(void);
uint64_t enc_reclog_spill_peak(void);
/* Reports the range of results dropped so far (neither in memory nor
 * spilled) to the tracker; without force at most four times a second. */
void enc_reclog_report_drops(bool force);
/* That range in *lo..*hi; true when it holds seq. */
bool enc_reclog_dropped(uint64_t seq, uint64_t *lo, uint64_t *hi);
/* Result bytes recorded so far (running totals): copied into this rank's
 * own memory (result-buffer entries it had to copy out included), and kept by
 * reference in the host's result buffer. */
uint64_t enc_reclog_recorded(void);
uint64_t enc_reclog_resbuf_recorded(void);
/* Around a snapshot's fork (bufpool.h): entries not yet completed by every
 * rank are kept in the image as they are, the others' large buffers are
 * wiped there. */
void enc_reclog_fork_prepare(void);
void enc_reclog_fork_parent(void);
/* In the image: forgets the entries the fork wiped (how many); those it
 * holds are to be fetched again from their other holders. */
size_t enc_reclog_forget_wiped(void);
/* The host's result buffer (engine/layer.h resbuf_keep, resbuf_evict): the
 * oldest position the log still uses, and copying out entries below one. */
uint64_t enc_reclog_resbuf_keep(void);
void enc_reclog_resbuf_evict(uint64_t below);
/* The first forgotten held entry at or after from (false: none). */
struct enc_sigrec;
bool enc_reclog_forgotten(uint64_t from, uint64_t *seq, struct enc_sigrec *sig);
/* A buffer for forgotten entry seq (NULL: not one, or no memory), and
 * giving it back: filled (ok) or not, the entry is no longer wanted. */
void *enc_reclog_refill_buf(uint64_t seq, size_t *cap);
void enc_reclog_refilled(uint64_t seq, void *buf, size_t cap, bool ok);

/* refetch.c: a rank restored from a snapshot fetches again the results it
 * holds that the fork wiped (after it rejoined). */
void enc_refetch_forgotten(void);

/* replay.c: answers the collective from the log (this rank is behind). */
enc_status_t enc_replay(struct enc_coll *co);

/* sigrec.c: the key of the call site of co (occurrence counted). */
void enc_sitekey_of(struct enc_sitekey *k, const struct enc_coll *co);

struct enc_logreq;
struct enc_sigrec;
#define ENC_LOG_ANY_LEN UINT64_MAX
/* Asks peer for q on a log-service connection.  The answer's data (expect
 * bytes, or any length with ENC_LOG_ANY_LEN) lands in dst, or in a new
 * malloc'd buffer stored in *alloc when alloc is not NULL.  ENC_ERR_LOST
 * when the peer lacks it. */
enc_status_t enc_log_fetch(int peer, const struct enc_logreq *q, struct enc_sigrec *sig,
                           uint8_t *dst, uint64_t expect, void **alloc);
/* Survivors to ask for seq, holders first, among those that completed more
 * than need collectives; returns how many were written to peers. */
int enc_log_candidates(uint64_t seq, int root, uint64_t need, int *peers);
/* q from the candidates in turn, into dst (len bytes): ENC_OK, ENC_ERR_LOST
 * (none has it), ENC_ERR_PEER_RESET (some unreachable), ENC_ERR_EPOCH. */
enc_status_t enc_log_fetch_any(const struct enc_logreq *q, int root, struct enc_sigrec *sig,
                               uint8_t *dst, uint64_t len);
/* Waits until fd is readable, or ENC_ERR_EPOCH when the tracker announces
 * a new epoch meanwhile. */
enc_status_t enc_log_wait(int fd, uint64_t deadline);
/* Reads len bytes of DATA frames for seq. */
enc_status_t enc_log_read_data(int fd, uint64_t seq, uint8_t *dst, uint64_t len,
                               uint64_t deadline);
/* prefetch.c: the logged entry seq from a run fetched ahead (filling the
 * run from the survivors if needed); ENC_OK with *sig and *data, which stay
 * valid until the next call. */
enc_status_t enc_prefetch_get(uint64_t seq, int root, const struct enc_sigrec **sig,
                              const void **data);
void enc_prefetch_clear(void);

/* commlog.c: results of collectives on derived communicators, keyed by
 * (communicator id, sequence number on the communicator); the group_record and
 * group_replay ops. */
enc_status_t enc_commlog_record(void *arg, const struct enc_coll *co, uint64_t cid,
                                uint64_t gseq);
/* Answers co from another member's log; ENC_ERR_NOT_FOUND when no member
 * has it (it then runs live), a peer failure or ENC_ERR_EPOCH to recover
 * first.  A different logged call ends the job (replay divergence). */
enc_status_t enc_commlog_replay(void *arg, struct enc_coll *co, uint64_t cid, uint64_t gseq);
/* The entry, for the log service.  An entry every member completed and
 * this rank dropped is ENC_OK with a signature of kind ENC_COLL_CHECKPOINT
 * and no data (logreq.h). */
enc_status_t enc_commlog_find(uint64_t cid, uint64_t gseq, struct enc_sigrec *sig,
                              const void **data, size_t *len);
/* A checkpoint committed: drop every result but the bootstrap ones, and
 * note where each communicator stands. */
void enc_commlog_checkpoint(uint32_t version);
/* The position of communicator cid at checkpoint version (sig->count), for
 * the log service; ENC_ERR_NOT_FOUND when not known here. */
enc_status_t enc_commlog_position(uint64_t cid, uint32_t version, struct enc_sigrec *sig);
/* This (restarted) rank loaded checkpoint version: each of its
 * communicators continues where the other members stood at it. */
void enc_commlog_rebase(uint32_t version);
void enc_commlog_fini(void);

#endif
