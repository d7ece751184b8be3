/*
 * sitemod.h - the module names of call sites, interned (sitemod.c): a
 * caller signature keeps a small index, not the name, because the log
 * keeps a signature for every collective (a 40-byte name made a
 * communicator's table slot 144 bytes where an 8-byte allreduce's result
 * takes 8).
 */
#ifndef ENC_RECOVERY_LOG_SITEMOD_H
#define ENC_RECOVERY_LOG_SITEMOD_H

#include <stdint.h>

/* A name's bytes with its NUL, as the wire carries it (sigrec.h, logreq.h). */
#define ENC_SITEMOD_BYTES 40
/* Never a name's index: the table is full (names past the first
 * ENC_SITEMOD_MAX distinct ones, which only a peer's malformed signatures
 * can make). */
#define ENC_SITEMOD_NONE UINT16_MAX
#define ENC_SITEMOD_MAX 16384

/* The index of name (its first ENC_SITEMOD_BYTES - 1 bytes), added at its
 * first use; ENC_SITEMOD_NONE when the table is full.  Thread-safe. */
uint16_t enc_sitemod_intern(const char *name);
/* The name of index id ("" for 0, the empty name, and for an index never
 * given out). */
const char *enc_sitemod_name(uint16_t id);

#endif
