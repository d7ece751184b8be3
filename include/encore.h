/*
 * encore.h - public API of libencore.
 *
 * An unmodified MPI program needs none of this: libencore serves
 * MPI_COMM_WORLD collectives fault-tolerantly on its own.  Programs that want
 * bounded recovery time (instead of replaying every collective since the
 * start) call the checkpoint API below.
 *
 * All functions return 0 on success or a negative ENCORE_ERR_* code;
 * encore_strerror() turns any code into a message.
 */
#ifndef ENCORE_H
#define ENCORE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ENCORE_VERSION_MAJOR 0
#define ENCORE_VERSION_MINOR 1

/* Status codes.  -100..-199 is reserved for peer / link failures so that
 * recovery can tell "a peer died" from "a bug". */
enum encore_status {
    ENCORE_OK = 0,
    ENCORE_ERR_INVAL = -1,       /* invalid argument */
    ENCORE_ERR_NOMEM = -2,       /* out of memory */
    ENCORE_ERR_PROTO = -3,       /* malformed or unexpected message */
    ENCORE_ERR_AUTH = -4,        /* authentication failed */
    ENCORE_ERR_TIMEOUT = -5,     /* a bounded wait expired */
    ENCORE_ERR_UNSUPPORTED = -6, /* not supported in encore mode */
    ENCORE_ERR_MISMATCH = -7,    /* ranks called a collective with different arguments */
    ENCORE_ERR_SYS = -8,         /* system call failed (see errno / log) */
    ENCORE_ERR_DIVERGED = -9,    /* replay divergence */
    ENCORE_ERR_LOST = -10,       /* logged results lost on too many ranks */
    ENCORE_ERR_ABORTED = -11,    /* the job is being torn down */
    ENCORE_ERR_STATE = -12,      /* call not valid in the current state */
    /* -13 is internal (not found); see the library's status.h */

    ENCORE_ERR_PEER_CLOSED = -100, /* peer closed the connection */
    ENCORE_ERR_PEER_RESET = -101,  /* connection reset / I/O error on a link */
    ENCORE_ERR_EPOCH = -102,       /* membership changed (a rank died or came back) */
};

#define ENCORE_IS_PEER_FAILURE(rv) ((rv) <= -100 && (rv) > -200)

/* Message for any status code; never NULL. */
const char *encore_strerror(int status);

/* 1 when the process runs under an encore tracker (encore-run or
 * encore-tracker), 0 in passthrough mode. */
int encore_active(void);

/*
 * Checkpoint API (bounded recovery).
 *
 * encore_checkpoint() records a new version of the program state.  global
 * is identical on every rank; local is this rank's own and is replicated to
 * its ring neighbours.  Either may be NULL/0.  It truncates the result log
 * (in two phases, so no rank drops a result a lagging rank still needs).
 * In a program that sends point-to-point messages it is taken only when
 * every message sent has been received (none in flight or unmatched, no
 * receive or synchronous send pending, summed over the job); otherwise
 * every rank returns ENCORE_ERR_STATE and none commits.
 *
 * encore_load_checkpoint() returns the version loaded (0 on a fresh start,
 * with the buffers untouched) and copies at most *len bytes of each state
 * into the caller's buffers, storing the true lengths in *len.  A rank
 * restarted from a checkpoint must call it before its first message.
 */
int encore_checkpoint(const void *global, size_t global_len,
                      const void *local, size_t local_len);
int encore_load_checkpoint(void *global, size_t *global_len,
                           void *local, size_t *local_len);
/* Number of checkpoints taken so far (the current version). */
int encore_version(void);
/* 1 while this (restarted) rank is answered from the result log. */
int encore_is_replaying(void);

#ifdef __cplusplus
}
#endif

#endif /* ENCORE_H */
