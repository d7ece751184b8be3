/*
 * bufpool.h - memory for result-log entries (private to shim/recovery).
 *
 * The log writes every result into memory it keeps; fresh memory costs a
 * page fault and kernel zeroing per page before the copy even starts.
 * Buffers of dropped entries (released after the next collective,
 * truncated by a checkpoint, or pushed out by the memory cap) are kept
 * for reuse up to a byte budget, and large ones live on transparent huge
 * pages.
 */
#ifndef ENC_RECOVERY_BUFPOOL_H
#define ENC_RECOVERY_BUFPOOL_H

#include <stddef.h>

/* A buffer of at least len bytes; *cap receives its real size. */
void *enc_bufpool_get(size_t len, size_t *cap);
/* Gives a buffer of cap bytes back (kept or freed). */
void enc_bufpool_put(void *p, size_t cap);
void enc_bufpool_drain(void);

#endif
