/*
 * det_store.h - where a rank's determinants survive its death (MPI-free):
 * the outcomes of its MPI_ANY_SOURCE receives and probes, appended as
 * fixed 40-byte records (chanseq.h) to a file in the job's directory on
 * its host, which the launcher or the host's agent owns.  A write() is in
 * the kernel's page cache when it returns, so a SIGKILL right after loses
 * nothing; the record is written before the receive completes, so nothing
 * that depends on the outcome has left the rank yet (docs/p2p.md, 5.2).
 * A restarted incarnation on the same host reads them back and replays
 * each wildcard receive narrowed to the recorded source.
 */
#ifndef ENC_P2P_DET_STORE_H
#define ENC_P2P_DET_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"
#include "p2p/chanseq.h"

/* Opens this incarnation's store (incarnation 0 starts it empty; a later
 * one reads what its predecessors wrote).  ENC_OK, or an error logged
 * once (the rank then records nothing and a restart replays live). */
enc_status_t enc_det_store_open(int rank, uint32_t incarnation);
/* The clock of the next nondeterministic call (1, 2, ...). */
uint64_t enc_det_store_tick(void);
/* Calls counted so far (a snapshot image keeps it: restored, the rank's
 * clock goes on from there). */
uint64_t enc_det_store_clock(void);
/* The record made at clock by an earlier incarnation: true and *d, or
 * false (the call runs live). */
bool enc_det_store_find(uint64_t clock, struct enc_det *d);
/* Appends d unless an earlier incarnation recorded its clock already. */
void enc_det_store_record(const struct enc_det *d);

#endif
