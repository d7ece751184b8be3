/*
 * limits.h - the job's size limits (ranks, host-name length) and the
 * process resource limits a job needs: the open-file limit
 * (RLIMIT_NOFILE) is raised towards its hard limit when a job needs more
 * descriptors than the soft limit allows.
 */
#ifndef ENC_CORE_LIMITS_H
#define ENC_CORE_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

#define ENC_MAX_RANKS 4096 /* ranks in one job */
#define ENC_HOST_MAX 64    /* bytes of a host name, NUL included */

/* Makes at least need descriptors available: ENC_OK when the soft limit
 * already allows them or could be raised (up to the hard limit); otherwise
 * ENC_ERR_SYS with one line in msg naming RLIMIT_NOFILE, both numbers and
 * the fix. */
enc_status_t enc_limits_nofile(uint64_t need, char *msg, size_t cap);

#endif
