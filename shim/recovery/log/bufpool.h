/*
 * bufpool.h - memory for result-log entries (private to shim/recovery).
 *
 * The log writes every result into memory it keeps; fresh memory costs a
 * page fault and kernel zeroing per page before the copy even starts.
 * Buffers of dropped entries (released after the next collective,
 * truncated by a checkpoint, or pushed out by the memory cap) are kept
 * for reuse up to a byte budget, and large ones live on transparent huge
 * pages.
 *
 * Snapshots (recovery/snapshot/snapshot.c) fork the rank.  A log buffer the image
 * shares would cost the rank a copy-on-write fault per page when it is
 * reused for a new result, and the log reuses its buffers all the time:
 * that was most of the fault-free cost of snapshots (3x the run time of a
 * 4 MiB-per-step job).  So pooled buffers (64 KiB and more) are
 * MADV_WIPEONFORK: the image
 * gets zeros there, forgets those entries and fetches again the ones it
 * holds (recovery/log/refetch.c).  Entries the image must keep as they are
 * (not yet completed everywhere, bootstrap ones) are switched to
 * MADV_KEEPONFORK around the fork.
 */
#ifndef ENC_RECOVERY_BUFPOOL_H
#define ENC_RECOVERY_BUFPOOL_H

#include <stdbool.h>
#include <stddef.h>

/* A buffer of at least len bytes; *cap receives its real size. */
void *enc_bufpool_get(size_t len, size_t *cap);
/* Gives a buffer of cap bytes back (kept or freed). */
void enc_bufpool_put(void *p, size_t cap);
void enc_bufpool_drain(void);
/* Large buffers wiped in a fork()ed image from now on (on: the log has
 * other replicas to fetch them from again). */
void enc_bufpool_set_wipe(bool on);
/* Whether a buffer of cap bytes reads as zeros in an image. */
bool enc_bufpool_wiped(size_t cap);
/* A wiped buffer is kept in images forked while keep holds. */
void enc_bufpool_keep_on_fork(void *p, size_t cap, bool keep);

/* Tables that grow with every collective (the store's windows of
 * entries): a zeroed table of cap elements of elem bytes, on huge pages
 * from 2 MiB (an entry per collective on fresh 4 KiB pages cost a fault
 * every 20-odd collectives, a fifth of a small one's time); NULL when out
 * of memory.  Free with enc_bufpool_table_free. */
void *enc_bufpool_table_new(size_t cap, size_t elem);
void enc_bufpool_table_free(void *p, size_t cap, size_t elem);
/* The first `below` elements of table p are no longer read: the whole huge
 * pages among them go back to the kernel (a mapped table only), so a
 * window that slides up a table holds the pages it uses, not every page it
 * crossed since the table was made. */
void enc_bufpool_table_release(void *p, size_t cap, size_t elem, size_t below);

#endif
