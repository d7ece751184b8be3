/*
 * bootstrap.h - occurrence numbers of bootstrap collectives (bootstrap.c):
 * those made before the first encore_load_checkpoint, which the log keeps
 * for the job's lifetime and also answers by (call site, occurrence).
 */
#ifndef ENC_RECOVERY_LOG_BOOTSTRAP_H
#define ENC_RECOVERY_LOG_BOOTSTRAP_H

#include <stdbool.h>
#include <stdint.h>

/* Occurrence number of the next collective from site (counted until the
 * first encore_load_checkpoint of this process). */
uint32_t enc_bootstrap_occurrence(const char *mod, uint64_t off);
bool enc_bootstrap_active(void);
void enc_bootstrap_end(void);

#endif
