/*
 * load.h - a restarted rank loads the newest committed checkpoint from the
 * survivors (load.c).
 */
#ifndef ENC_RECOVERY_CHECKPOINT_LOAD_H
#define ENC_RECOVERY_CHECKPOINT_LOAD_H

#include "core/status.h"

/* ENC_OK with *out filled (version 0 when there is none). */
struct enc_ckpt;
enc_status_t enc_ckpt_fetch(struct enc_ckpt *out);

#endif
