/*
 * ops.h - recovery's own state, one per process, and its ops on the engine
 * (ops.c: the one place where the engine's calls enter recovery).
 */
#ifndef ENC_RECOVERY_OPS_H
#define ENC_RECOVERY_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "recovery/checkpoint/ckpt.h"
#include "recovery/log/sigrec.h"

struct enc_recovery {
    bool on;                  /* registered with the engine */
    uint64_t replay_until;    /* world collectives below this are answered from the log */
    uint64_t *peer_completed; /* per rank, from the last RESUME */
    uint64_t replayed;        /* collectives answered from the log */
    uint64_t replayed_bytes;  /* result bytes they carried */
    double replay_s;          /* time spent fetching them */
    double recovery_s;        /* time spent waiting in recovery */
    struct enc_sitekey cur;   /* key of the collective in progress */
    struct enc_ckpt committed;/* the newest committed checkpoint (its version) */
    struct enc_ckpt *taking;  /* checkpoint being exchanged, NULL outside one */
};

extern struct enc_recovery enc_rec;

#endif
