/*
 * enc.h - the one internal header of encore.
 *
 * Every .c file of the library and of the programs (run/) starts with
 *     #include "enc.h"
 * Internal names carry the enc_ prefix; public ones (include/encore.h) the
 * encore_ prefix.  It pulls in only core/ (status, log, tunables, clock);
 * each .c includes the subsystem headers it uses, which live next to their
 * code.
 */
#ifndef ENC_H
#define ENC_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "encore.h"

#include "core/status.h"
#include "core/log.h"
#include "core/tunables.h"
#include "core/clock.h"

/* A small thread-local variable read on every MPI call: the initial-exec
 * model, a load relative to the thread pointer instead of a call to
 * __tls_get_addr (libencore is preloaded or linked; a copy dlopen'ed
 * later takes these few bytes from the static TLS surplus). */
#define ENC_HOT_TLS __thread __attribute__((tls_model("initial-exec")))

#define ENC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ENC_MIN(a, b) ((a) < (b) ? (a) : (b))
#define ENC_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif /* ENC_H */
