/*
 * recover.h - what recovery makes of a regroup (recover.c).
 */
#ifndef ENC_RECOVERY_RECOVER_H
#define ENC_RECOVERY_RECOVER_H

#include "core/status.h"

/* Every rank's progress from RESUME: what this rank replays. */
struct enc_msg_resume;
enc_status_t enc_recovery_apply_resume(const struct enc_msg_resume *r);
/* The recover op: regroup with the engine, then the above. */
enc_status_t enc_recover(void);

#endif
