/*
 * det_store.h - where a rank's determinants survive its death (MPI-free):
 * the outcomes of its nondeterministic calls (MPI_ANY_SOURCE receives and
 * probes, Iprobe, the Test family, Waitany/Waitsome, Cancel of a receive),
 * fixed 40-byte records (chanseq.h) in a file in the job's directory on
 * its host, which the launcher or the host's agent owns.
 *
 * The file is mapped shared: a record is a few stores into the page
 * cache, which a SIGKILL right after cannot take back (the kernel owns
 * the page), and no system call.  A record is published by storing its
 * kind byte last (a reader stops at the first zero kind), so a rank
 * killed in the middle of one leaves no half record.  A run of calls that
 * found nothing (Iprobe, Test*) is one NONE record whose count is one
 * aligned 8-byte store per call.  Every record is made before the call
 * returns, so before anything that depends on it leaves the rank
 * (docs/p2p.md, 5.2).  A host loss loses the file; det_replica.h copies
 * it to encore-run before anything depending on it leaves a rank off
 * encore-run's host (docs/p2p.md 5.3).
 *
 * A restarted incarnation on the same host reads them back: records by
 * clock (several for one Testsome/Waitsome), a NONE covering a range.
 * Thread-safe (its own mutex).
 *
 * Snapshots: a rank restored from an image opens the file again
 * (enc_det_store_open a second time) keeping the image's clock: the
 * records past that clock are its lost successor's (to replay), and the
 * image's idea of the file's end is stale.
 */
#ifndef ENC_P2P_DET_STORE_H
#define ENC_P2P_DET_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "p2p/chanseq.h"

/* Opens this incarnation's store (incarnation 0 starts it empty; a later
 * one reads what its predecessors wrote).  ENC_OK, or an error logged
 * once (the rank then records nothing and a restart replays live). */
enc_status_t enc_det_store_open(int rank, uint32_t incarnation);
/* The same, with encore-run's copy of the file (n bytes, whole records;
 * NULL: none): when it holds more records than the file here, it replaces
 * them (the rank moved to another host after its own was lost). */
enc_status_t enc_det_store_open_from(int rank, uint32_t incarnation, const uint8_t *copy,
                                     size_t n);
/* Called (once per incarnation, the store's mutex held) when this
 * incarnation appends its first record: p2p.c tells encore-run, whose
 * host-loss rule needs to know which ranks have outcomes to lose. */
void enc_det_store_on_first_record(void (*fn)(void));
/* Called (the store's mutex not held) after a MATCH, DONE or CANCEL
 * record was appended (not after a NONE run grew): det_replica.c ships
 * it at once. */
void enc_det_store_on_record(void (*fn)(void));
/* The store is open: nondeterministic calls take clocks from now on
 * (from this rank's own first point-to-point call, so in program order). */
bool enc_det_store_on(void);
/* The clock of the next nondeterministic call (1, 2, ...). */
uint64_t enc_det_store_tick(void);
/* Calls counted so far (a snapshot image keeps it: restored, the rank's
 * clock goes on from there). */
uint64_t enc_det_store_clock(void);
/* A rank restarted from a checkpoint goes on from the clock it had there
 * (before its first nondeterministic call). */
void enc_det_store_set_clock(uint64_t clock);
/* The first record an earlier incarnation made at clock (a NONE run
 * covering it counts): true and *d, or false (the call runs live). */
bool enc_det_store_find(uint64_t clock, struct enc_det *d);
/* Every record an earlier incarnation made at exactly clock, up to cap
 * of them into out, in the order written; how many there are. */
size_t enc_det_store_find_all(uint64_t clock, struct enc_det *out, size_t cap);
/* Appends d unless an earlier incarnation recorded one of its kind at its
 * clock (a replayed call records nothing new). */
void enc_det_store_record(const struct enc_det *d);
/* Appends n records made by one call (a DONE set), all or none visible. */
void enc_det_store_record_n(const struct enc_det *d, size_t n);
/* The call at clock found nothing: extends this incarnation's last NONE
 * run when it ends just before clock, else starts one. */
void enc_det_store_none(uint64_t clock);
/* Bumped by every change of the records (a new one, a NONE run that
 * grew): a copy tagged with it holds them all. */
uint64_t enc_det_store_version(void);
/* What changed since the last call: the bytes from *off (malloc'd into
 * *copy, *n of them, whole records; the caller frees) that, written over
 * a copy holding the earlier ones, make it equal to the file at *version.
 * False when nothing changed (*version is then the current one) or memory
 * ran out. */
bool enc_det_store_unshipped(uint64_t *version, uint64_t *off, uint8_t **copy, size_t *n);
/* Records this incarnation made (for the bench and tests). */
uint64_t enc_det_store_made(void);

#endif
