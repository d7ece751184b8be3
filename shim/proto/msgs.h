/*
 * msgs.h - payloads of rank <-> tracker control messages.
 *
 * Each message has a struct, an encoder (returns payload length or a
 * negative status) and a validating decoder (ENC_ERR_PROTO on anything
 * malformed: short, trailing bytes, out-of-range rank, oversized strings).
 * The frame header carries type, src rank and epoch; payloads are below.
 */
#ifndef ENC_PROTO_MSGS_H
#define ENC_PROTO_MSGS_H

#include <stddef.h>
#include <stdint.h>

#include "core/limits.h"
#include "topo/topo.h"

#define ENC_REASON_MAX 512

/* rank -> tracker, first message after authentication. */
struct enc_msg_register {
    uint32_t rank;
    uint32_t size;
    uint32_t incarnation;
    uint32_t pid;
    uint16_t data_port;              /* the rank's listening port for links */
    char addr[ENC_HOST_MAX];         /* address peers should connect to */
    struct enc_locality loc;
    uint64_t completed;              /* collectives completed: 0 for a fresh
                                      * process, s + 1 for one restored from
                                      * a snapshot taken after seq s */
};

/* tracker -> rank: the world of the current epoch, sent once every rank of
 * the epoch has registered.  locality[pos] = rank: the locality order. */
struct enc_world_peer {
    uint32_t incarnation;
    uint16_t port;
    char addr[ENC_HOST_MAX];
};

struct enc_msg_world {
    uint32_t epoch;
    uint32_t size;
    struct enc_world_peer *peers;    /* size entries, malloc'd by the decoder */
    uint32_t *locality;              /* size entries, malloc'd by the decoder */
};

/* rank -> tracker, every ENCORE_HEARTBEAT_MS. */
struct enc_msg_heartbeat {
    uint64_t completed;              /* collectives completed so far */
};

enum enc_event_kind {
    ENC_EV_DEAD = 1,                 /* a rank died; a new epoch begins */
    ENC_EV_ABORT = 2,                /* the job ends; reason says why */
    ENC_EV_DONE = 3,                 /* every rank passed MPI_Finalize: leave */
    ENC_EV_TRIM = 4,                 /* no rank needs results of cid below seq again */
};

/* tracker -> rank. */
struct enc_msg_event {
    uint8_t kind;
    uint32_t rank;
    uint32_t epoch;                  /* the new epoch (DEAD) */
    int32_t code;                    /* exit code (ABORT) */
    uint64_t seq;                    /* TRIM: results below it are released */
    char reason[ENC_REASON_MAX];
    uint64_t cid;                    /* TRIM: of this communicator (0: the world) */
};

/* rank -> tracker: after noticing a new epoch, where this rank stands. */
struct enc_msg_status {
    uint32_t epoch;
    uint64_t completed;
};

/* tracker -> rank: every rank reported for epoch; completed[r] per rank. */
struct enc_msg_resume {
    uint32_t epoch;
    uint32_t size;
    uint64_t *completed;             /* size entries, malloc'd by the decoder */
};

/* rank -> tracker: MPI_Abort or a fatal error; ends the job. */
struct enc_msg_abort {
    int32_t code;
    char reason[ENC_REASON_MAX];
};

/* rank -> tracker at MPI_Finalize and at exit: counters for the summary. */
struct enc_msg_stats {
    uint64_t completed;
    uint64_t replayed;
    double recovery_s;
    uint64_t log_peak;               /* most result-log bytes held in memory */
    uint64_t spill_peak;             /* most result-log bytes spilled to disk */
    uint64_t private_rss;            /* its own resident bytes at MPI_Finalize, without
                                      * the shared segment's (0: not known) */
    uint64_t comm_completed;         /* collectives completed on communicators other
                                      * than the world */
};

/* rank -> tracker: results of collectives first..last were dropped from
 * this rank's log (memory cap and spill budget full); sent when it first
 * happens and again while the range grows. */
struct enc_msg_dropped {
    uint64_t first;
    uint64_t last;                   /* >= first */
};

int enc_msg_register_encode(const struct enc_msg_register *m, void *buf, size_t cap);
enc_status_t enc_msg_register_decode(struct enc_msg_register *m, const void *buf, size_t len);
int enc_msg_world_encode(const struct enc_msg_world *m, void *buf, size_t cap);
enc_status_t enc_msg_world_decode(struct enc_msg_world *m, const void *buf, size_t len);
void enc_msg_world_free(struct enc_msg_world *m);
int enc_msg_heartbeat_encode(const struct enc_msg_heartbeat *m, void *buf, size_t cap);
enc_status_t enc_msg_heartbeat_decode(struct enc_msg_heartbeat *m, const void *buf, size_t len);
int enc_msg_event_encode(const struct enc_msg_event *m, void *buf, size_t cap);
enc_status_t enc_msg_event_decode(struct enc_msg_event *m, const void *buf, size_t len);
int enc_msg_status_encode(const struct enc_msg_status *m, void *buf, size_t cap);
enc_status_t enc_msg_status_decode(struct enc_msg_status *m, const void *buf, size_t len);
int enc_msg_resume_encode(const struct enc_msg_resume *m, void *buf, size_t cap);
enc_status_t enc_msg_resume_decode(struct enc_msg_resume *m, const void *buf, size_t len);
void enc_msg_resume_free(struct enc_msg_resume *m);
int enc_msg_abort_encode(const struct enc_msg_abort *m, void *buf, size_t cap);
enc_status_t enc_msg_abort_decode(struct enc_msg_abort *m, const void *buf, size_t len);
int enc_msg_stats_encode(const struct enc_msg_stats *m, void *buf, size_t cap);
enc_status_t enc_msg_stats_decode(struct enc_msg_stats *m, const void *buf, size_t len);
int enc_msg_dropped_encode(const struct enc_msg_dropped *m, void *buf, size_t cap);
enc_status_t enc_msg_dropped_decode(struct enc_msg_dropped *m, const void *buf, size_t len);

#endif
