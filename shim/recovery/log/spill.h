/*
 * spill.h - the result log's spill file (spill.c): held entries beyond
 * ENCORE_LOG_MEM_MAX go to disk, within the disk budget ENCORE_SPILL_MAX
 * (private to shim/recovery).
 */
#ifndef ENC_RECOVERY_SPILL_H
#define ENC_RECOVERY_SPILL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/status.h"

/* Opens this rank's spill file: in ENCORE_SPILL_DIR when set (failing to
 * is an error), else in the rank's private directory (a failure there
 * only means no spill, with a warning).  Nothing when ENCORE_SPILL_MAX=0. */
enc_status_t enc_spill_open(void);
void enc_spill_close(void);

/* Writes entry (cid, seq) (len > 0 bytes) and gives its offset.  ENC_ERR_NOMEM
 * when the budget is full, ENC_ERR_SYS when writing failed (disk full),
 * ENC_ERR_STATE when there is no spill file; errno says why on ENC_ERR_SYS. */
enc_status_t enc_spill_put(uint64_t cid, uint64_t seq, const void *data, size_t len,
                           off_t *off);
/* Reads entry (cid, seq) back into buf; ENC_ERR_NOT_FOUND when the bytes at off
 * are not that entry (released by another process of this rank's lineage:
 * see spill.c). */
enc_status_t enc_spill_get(uint64_t cid, uint64_t seq, void *buf, size_t len, off_t off);
/* The entry at off (len bytes) is no longer needed: its disk space goes back. */
void enc_spill_release(off_t off, size_t len);
/* A snapshot image just became the rank: what the dead rank wrote past the
 * image's end of file is garbage to it; gives that space back. */
void enc_spill_restored(void);

/* The budget in bytes (after the first spill for "auto") and the most
 * bytes live at once. */
uint64_t enc_spill_budget(void);
uint64_t enc_spill_peak(void);

#endif
