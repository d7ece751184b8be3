/*
 * exchange.h - the collective part of encore_checkpoint() (exchange.c).
 */
#ifndef ENC_RECOVERY_CHECKPOINT_EXCHANGE_H
#define ENC_RECOVERY_CHECKPOINT_EXCHANGE_H

#include "core/status.h"

/* The exchange op (engine/layer.h): phase one of the checkpoint being
 * taken (the layer's state is arg). */
struct enc_coll;
enc_status_t enc_ckpt_exchange(void *arg, struct enc_coll *co);

#endif
