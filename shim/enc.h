/*
 * enc.h - the one internal header of encore.
 *
 * Every .c file of the library and of the programs (run/) starts with
 *     #include "enc.h"
 * Internal names carry the enc_ prefix; public ones (include/encore.h) the
 * encore_ prefix.  Subsystem headers live next to their code.
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
#include "proto/wire.h"
#include "proto/frame.h"
#include "proto/auth.h"
#include "proto/msgs.h"
#include "net/sock.h"
#include "topo/topo.h"
#include "reduce/reduce.h"

#define ENC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ENC_MIN(a, b) ((a) < (b) ? (a) : (b))
#define ENC_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif /* ENC_H */
