/*
 * p2p_mpi.h - the MPI layer's point-to-point (private to shim/mpi):
 * p2p_ops.c (checks, packing, requests and their completion),
 * p2p_send.c and p2p_recv.c (the entry points).
 */
#ifndef ENC_MPI_P2P_MPI_H
#define ENC_MPI_P2P_MPI_H

#include <stdbool.h>

#include <mpi.h>

#include "mpi/mpi_layer.h"
#include "p2p/p2p.h"

/* The communicator of a call, as point-to-point needs it.  On an
 * intercommunicator the messages travel on its union (mpi/inter.h): rank
 * is this rank's in the union, and a peer named by the application (a
 * rank of the remote group, peers of them) is union rank peer_off + it;
 * on an intracommunicator peers is size and peer_off 0. */
struct enc_mpi_pcomm {
    MPI_Comm h;
    const struct enc_group *g;   /* NULL: the world */
    uint64_t cid;
    int rank, size;
    int peers, peer_off;
};

/* A receive or synchronous send in progress; also a finished one's status. */
struct enc_mpi_preq {
    struct enc_p2p_recv recv;
    struct enc_p2p_sync sync;
    const char *fn;
    MPI_Comm comm;
    MPI_Request greq;            /* MPI_REQUEST_NULL: a blocking call's */
    void *buf;
    int count;
    MPI_Datatype type, user_type; /* type: held for the operation */
    bool is_recv;
    bool done, cancelled;
    bool detached;               /* MPI_Request_free'd before it ended */
    uint64_t clock;              /* an MPI_ANY_SOURCE receive's clock, 0: none */
    bool nonblocking;            /* may be cancelled: takes a clock for MPI_Cancel */
    uint64_t cancel_clock;       /* that clock (the wildcard one when both), 0: none */
    struct enc_mpi_preq *prev, *next; /* exposed and not ended (the p2p lock) */
    int refs;                    /* atomic: the operation, the request handle */
    int source, tag, error;
    int peer_off;                /* union rank of source 0 (intercommunicator), else 0 */
    size_t bytes;                /* received */
    struct enc_mpi_layout layout; /* of (type, count), asked once per receive */
    bool has_layout;
};

/* Checks shared by every point-to-point entry: the world is up, this
 * incarnation may use point-to-point, the layer is started; fills *c. */
int enc_mpi_p2p_enter(const char *fn, MPI_Comm comm, struct enc_mpi_pcomm *c);
/* Entries between hold(true) and hold(false) on this thread are not
 * snapshot boundaries (docs/p2p.md, 7): MPI_Start(all)'s inner calls. */
void enc_mpi_p2p_hold_boundary(bool hold);
/* A destination (send: PROC_NULL allowed) or source (recv: ANY_SOURCE
 * too) rank, and a tag (recv: ANY_TAG too). */
int enc_mpi_p2p_check_peer(const char *fn, const struct enc_mpi_pcomm *c, int peer, bool recv);
int enc_mpi_p2p_check_tag(const char *fn, int tag, bool recv);
/* Packs count elements of type at buf: *data points into buf (contiguous)
 * or to *owned (free it); *bytes is the packed length. */
int enc_mpi_p2p_pack(const char *fn, const void *buf, int count, MPI_Datatype type,
                     const void **data, void **owned, size_t *bytes);

/* A receive or probe naming MPI_ANY_SOURCE (the pattern mr, on
 * communicator cid): takes the next clock into *clock and, when an earlier
 * incarnation of this rank recorded the outcome at that clock, narrows
 * mr to the recorded source.  MPI_SUCCESS, or a divergence (raised). */
int enc_mpi_p2p_wildcard(const char *fn, struct enc_match_recv *mr, uint64_t cid,
                         uint64_t *clock);
/* The clocks of receive r (its pattern set): a wildcard one takes one
 * (enc_mpi_p2p_wildcard), a nonblocking one one for a later MPI_Cancel
 * (the same); a receive recorded as cancelled by an earlier incarnation
 * is held (it never matches: its Cancel replays the outcome). */
int enc_mpi_p2p_recv_clock(struct enc_mpi_preq *r, uint64_t cid);
/* The wildcard call at clock matched m: recorded before the call returns
 * or its request completes, or checked against the record; a different
 * match in a replay ends the job with both printed. */
void enc_mpi_p2p_matched(const char *fn, uint64_t clock, uint64_t cid,
                         const struct enc_p2p_msg *m);

/* p2p_types.c: enc_mpi_type_layout, kept for the common predefined
 * types after their first use; whether t is one of them. */
int enc_mpi_p2p_layout(const char *fn, MPI_Datatype t, int count, struct enc_mpi_layout *l);
bool enc_mpi_p2p_type_predefined(MPI_Datatype t);

/* A derived datatype duplicated (the application may free its handle
 * while an operation or a persistent request uses it); others as they are. */
int enc_mpi_p2p_hold_type(MPI_Datatype t, MPI_Datatype *held);
/* A new request (refs 1: the operation), its type held. */
struct enc_mpi_preq *enc_mpi_preq_new(const char *fn, MPI_Comm comm, void *buf, int count,
                                      MPI_Datatype type);
/* Makes its generalized request (second reference: the handle); the p2p
 * lock held. */
int enc_mpi_preq_expose(struct enc_mpi_preq *r, MPI_Request *request);
/* The operation ended (the p2p lock held): completes the handle, drops
 * the operation's reference. */
void enc_mpi_preq_finish(struct enc_mpi_preq *r);
void enc_mpi_preq_unref(struct enc_mpi_preq *r);
/* Receives m into r (the p2p lock held): the deliver callback. */
void enc_mpi_preq_deliver(struct enc_p2p_recv *rv, struct enc_p2p_msg *m);
/* The exposed request not yet ended whose handle is h (the p2p lock
 * held), or NULL. */
struct enc_mpi_preq *enc_mpi_preq_find(MPI_Request h);
/* MPI_Request_free of a point-to-point request: 1 when it was one not yet
 * ended (now detached: it ends by itself), 0 when not one of them. */
int enc_mpi_preq_detach(MPI_Request *request);
/* Writes r's outcome into status (MPI_STATUS_IGNORE allowed; MPI_ERROR
 * left as it was, as single completions do); returns r->error. */
int enc_mpi_preq_status(const struct enc_mpi_preq *r, MPI_Status *status);
/* The status of a receive from MPI_PROC_NULL. */
void enc_mpi_p2p_null_status(MPI_Status *status);
/* Sleeps (the p2p lock held, released meanwhile) until a point-to-point
 * event, a slice of 50 ms or deadline, and follows the tracker's news of
 * a death or a restart into the new epoch: ENC_OK, or ENC_ERR_TIMEOUT once
 * deadline passed.  Every point-to-point wait sleeps here. */
enc_status_t enc_mpi_p2p_sleep(uint64_t deadline);
/* What enc_mpi_p2p_sleep does after each sleep (the p2p lock held): follow
 * the tracker's news into a new epoch and serve the log service. */
void enc_mpi_p2p_follow(void);
/* A nonblocking call (Iprobe, Test*) found nothing (no lock held): a
 * program polling in a loop never waits, so every 10 ms such a call
 * follows the tracker as a wait would (p2p_complete.c). */
void enc_mpi_complete_idle(void);
/* Waits (the p2p lock held) until r is done, bounded by the collective
 * timeout; the error names fn and what it waited for. */
int enc_mpi_preq_wait(struct enc_mpi_preq *r);

/* p2p_send.c: MPI_Send, its errors naming fn (MPI_Sendrecv's). */
int enc_mpi_p2p_send_blocking(const char *fn, const void *buf, int count, MPI_Datatype type,
                              int dest, int tag, MPI_Comm comm);
/* p2p_ops.c: a receive of a contiguous datatype offers its buffer to be
 * read into straight (enc_p2p_recv.direct). */
void enc_mpi_p2p_direct(struct enc_mpi_preq *r);
/* p2p_recv.c: what r receives from source with tag on c (a wildcard
 * receive takes its clock and may be narrowed, enc_mpi_p2p_wildcard). */
int enc_mpi_p2p_target(struct enc_mpi_preq *r, const struct enc_mpi_pcomm *c, int source,
                       int tag);
/* p2p_recv.c: a receive's or probe's checks (count, source, tag). */
int enc_mpi_p2p_recv_checks(const char *fn, int count, int source, int tag, MPI_Comm comm,
                            struct enc_mpi_pcomm *c);
/* p2p_probe.c: probes and their waits.  The message a receive of
 * (source, tag) would take now, described in status, taken when take
 * (MPI_Mprobe); wait: block until there is one (bounded). */
int enc_mpi_p2p_probe(const char *fn, int source, int tag, MPI_Comm comm, bool take,
                      bool wait, int *flag, MPI_Message *message, MPI_Status *status);

/* p2p_complete.c: the completion calls on arrays the real MPI understands
 * (p2p_persist.c swapped the shells out), once point-to-point is in use:
 * they sleep until an encore request completes, and record or replay
 * their outcomes (determinants). */
int enc_mpi_complete_wait(MPI_Request *request, MPI_Status *status);
int enc_mpi_complete_waitall(int n, MPI_Request *reqs, MPI_Status *statuses);
int enc_mpi_complete_waitany(int n, MPI_Request *reqs, int *index, MPI_Status *status);
int enc_mpi_complete_waitsome(int n, MPI_Request *reqs, int *outcount, int *indices,
                              MPI_Status *statuses);
int enc_mpi_complete_test(MPI_Request *request, int *flag, MPI_Status *status);
int enc_mpi_complete_testany(int n, MPI_Request *reqs, int *index, int *flag,
                             MPI_Status *status);
int enc_mpi_complete_testall(int n, MPI_Request *reqs, int *flag, MPI_Status *statuses);
int enc_mpi_complete_testsome(int n, MPI_Request *reqs, int *outcount, int *indices,
                              MPI_Status *statuses);
int enc_mpi_complete_get_status(MPI_Request request, int *flag, MPI_Status *status);
/* An encore request completed: wakes the completion waits (any thread, no
 * lock held; _locked: the p2p lock held). */
void enc_mpi_complete_event(void);
void enc_mpi_complete_event_locked(void);
/* Events so far (complete_event.c): a wait compares it before it sleeps. */
uint64_t enc_mpi_complete_events(void);

#endif
