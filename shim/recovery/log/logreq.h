/*
 * logreq.h - what a rank asks another on a log-service connection
 * (payload of ENC_MSG_LOG_REQ; logreq.c is its wire form).
 *
 * The answer is LOG_RESULT carrying a struct enc_sigrec followed by
 * sigrec.len bytes as DATA frames, or LOG_MISSING saying why not
 * (ENC_LOG_MISSING_WIRE).  For checkpoint requests the sigrec says which
 * checkpoint: kind ENC_COLL_CHECKPOINT, count = version, site_off = first
 * sequence number after it.
 */
#ifndef ENC_RECOVERY_LOG_LOGREQ_H
#define ENC_RECOVERY_LOG_LOGREQ_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

enum enc_logreq_what {
    ENC_LOGREQ_SEQ = 1,        /* entry `seq` of communicator `cid` (0: the world) */
    ENC_LOGREQ_BOOTSTRAP = 2,  /* world entry seq, else the bootstrap entry (site, occurrence) */
    ENC_LOGREQ_CKPT_INFO = 3,  /* the survivor's committed checkpoint (no data) */
    ENC_LOGREQ_CKPT_GLOBAL = 4,/* global state of checkpoint `version` */
    ENC_LOGREQ_CKPT_LOCAL = 5, /* the replica of rank `rank`'s local state of `version` */
    ENC_LOGREQ_RUN = 6,        /* entries seq, seq + 1, ... of `cid` (up to `rank` of them
                                * and ENC_LOGREQ_RUN_BYTES), as many as the peer has in a
                                * row: LOG_RESULT + data for each, then LOG_MISSING for the
                                * first one it does not send */
    ENC_LOGREQ_COMM_POS = 7,   /* the position (count: its next collective) of
                                * communicator `cid` at checkpoint `version` */
};
#define ENC_LOGREQ_KINDS 8     /* one past the last */

#define ENC_LOGREQ_RUN_BYTES ((uint64_t)4 << 20)

/* LOG_MISSING's payload: u8 why (enum enc_log_absence), u64 first, u64
 * last: the entries the peer dropped (memory cap and spill budget full)
 * when why says so. */
#define ENC_LOG_MISSING_WIRE 17

struct enc_logreq {
    uint8_t what;
    uint64_t seq;
    uint64_t site_off;
    char site_mod[40];
    uint32_t occ;
    uint32_t version;
    uint32_t rank;
    /* the caller's arguments: a bootstrap entry is matched on them first
     * (call sites may differ between ranks), the site only breaks ties */
    uint8_t kind;
    int32_t root;
    uint64_t count;
    uint32_t dtype;
    uint32_t op;
    uint64_t cid;              /* the communicator (0: the world) */
};

#define ENC_LOGREQ_WIRE 104

void enc_logreq_encode(const struct enc_logreq *q, uint8_t out[ENC_LOGREQ_WIRE]);
enc_status_t enc_logreq_decode(struct enc_logreq *q, const uint8_t *in, size_t len);

#endif
