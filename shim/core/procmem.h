/*
 * procmem.h - a process's private resident memory, read from
 * /proc/PID/status: RssAnon + RssFile (heap, stacks, code, the files it
 * maps), leaving out RssShmem, the pages of the host's shared-memory
 * segment it touched, which the job summary counts once per host.  A rank
 * reports its own at MPI_Finalize; encore-run and the agents sample their
 * ranks while they run.
 */
#ifndef ENC_CORE_PROCMEM_H
#define ENC_CORE_PROCMEM_H

#include <sys/types.h>

#include "core/status.h"

/* The private RSS of process pid (0: this process) in KiB;
 * ENC_ERR_NOT_FOUND when it is gone or has exited. */
enc_status_t enc_proc_private_rss(pid_t pid, long *kb);
/* Raises *peak_kb to pid's private RSS (unchanged when it cannot be read;
 * pid <= 0: no process). */
void enc_proc_sample_private_rss(pid_t pid, long *peak_kb);

#endif
