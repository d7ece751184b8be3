/*
 * logreq.h - what a replaying rank asks a survivor on a log-service
 * connection (payload of ENC_MSG_LOG_REQ; private to shim/recovery).
 *
 * The answer is LOG_MISSING, or LOG_RESULT carrying a struct enc_sigrec
 * followed by sigrec.len bytes as DATA frames.  For checkpoint requests the
 * sigrec says which checkpoint: kind ENC_COLL_CHECKPOINT, count = version,
 * site_off = first sequence number after it.
 */
#ifndef ENC_RECOVERY_LOGREQ_H
#define ENC_RECOVERY_LOGREQ_H

#include <stdint.h>

enum enc_logreq_what {
    ENC_LOGREQ_SEQ = 1,        /* the result of collective seq */
    ENC_LOGREQ_BOOTSTRAP = 2,  /* seq, else the bootstrap entry (site, occurrence) */
    ENC_LOGREQ_CKPT_INFO = 3,  /* the survivor's committed checkpoint (no data) */
    ENC_LOGREQ_CKPT_GLOBAL = 4,/* global state of checkpoint `version` */
    ENC_LOGREQ_CKPT_LOCAL = 5, /* the replica of rank `rank`'s local state of `version` */
    ENC_LOGREQ_RUN = 6,        /* results seq, seq + 1, ... (up to `rank` of them and
                                * ENC_LOGREQ_RUN_BYTES), as many as the peer has in a row:
                                * LOG_RESULT + data for each, then LOG_MISSING for the
                                * first one it does not send */
    ENC_LOGREQ_COMM = 7,       /* the result of collective `seq` of the derived
                                * communicator whose id is `site_off`;
                                * kind ENC_COLL_CHECKPOINT without data: every
                                * member completed it and this one dropped it */
    ENC_LOGREQ_COMM_POS = 8,   /* the position (count: its next collective) of
                                * communicator `site_off` at checkpoint `version` */
};

#define ENC_LOGREQ_RUN_BYTES ((uint64_t)4 << 20)
/* LOG_MISSING's optional payload: u64 first, u64 last, the results the
 * survivor dropped from its log (memory cap and spill budget full), sent
 * when the asked-for one is among them. */
#define ENC_LOGREQ_DROP_WIRE 16

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
};

#define ENC_LOGREQ_WIRE 96

void enc_logreq_encode(const struct enc_logreq *q, uint8_t out[ENC_LOGREQ_WIRE]);
enc_status_t enc_logreq_decode(struct enc_logreq *q, const uint8_t *in, size_t len);

#endif
