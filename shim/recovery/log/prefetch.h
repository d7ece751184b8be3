/*
 * prefetch.h - entries fetched a run at a time for replay (prefetch.c).
 */
#ifndef ENC_RECOVERY_LOG_PREFETCH_H
#define ENC_RECOVERY_LOG_PREFETCH_H

#include <stdint.h>

#include "core/status.h"
#include "recovery/log/holders.h"

struct enc_sigrec;
/* Entry seq of a->comm from a run fetched ahead (filling the run from a's
 * candidates if needed); ENC_OK with *sig and *data, which stay valid until
 * the next call. */
enc_status_t enc_prefetch_get(const struct enc_log_ask *a, uint64_t seq,
                              const struct enc_sigrec **sig, const void **data);
void enc_prefetch_clear(void);

#endif
