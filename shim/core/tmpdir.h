/*
 * tmpdir.h - private temporary directories: a rank's own directory for
 * Open MPI's session files (ENCORE_RANK_TMPDIR), removed on every way out
 * of the process that libencore controls, and removing a tree.
 */
#ifndef ENC_CORE_TMPDIR_H
#define ENC_CORE_TMPDIR_H

#include "core/status.h"

#include <stdbool.h>

/* Removes path and everything under it without following symbolic links;
 * ENC_OK also when it does not exist. */
enc_status_t enc_rmtree(const char *path);

/* Before the real MPI_Init: unless the launcher gave one, makes the rank's
 * directory (TMPDIR/encore-rank.XXXXXX) and exports it as
 * ENCORE_RANK_TMPDIR; points OMPI_MCA_orte_tmpdir_base at it. */
enc_status_t enc_rank_tmpdir_prepare(void);

/* Removes the rank's directory, and the job directory encore-run made
 * around it (encore-run.XXXXXX) once it is empty, or holds only the
 * .owner file of an owner that is gone.  For exits that skip
 * MPI_Finalize's cleanup; async-signal-unsafe only through nftw. */
void enc_rank_tmpdir_remove(void);

/* The same when the owner is known to be ending (the tracker inside
 * encore-run is lost): waits up to owner_wait_ms for it to be gone, so that
 * the last rank out removes the job directory. */
void enc_rank_tmpdir_remove_wait(int owner_wait_ms);

/* A job directory's owner (encore-run, or encore-agent on its host) writes
 * its pid to <jobdir>/.owner (run/common/jobdir.c). */
#define ENC_JOBDIR_PREFIX "encore-run."
#define ENC_JOBDIR_OWNER ".owner"

/* Whether jobdir has an .owner file whose process is gone (its pid no
 * longer exists): the job directory of a SIGKILLed encore-run or agent. */
bool enc_jobdir_orphaned(const char *jobdir);

#endif
