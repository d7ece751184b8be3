/*
 * proc.h - what the programs under run/ share about processes: starting a
 * rank (spawn.c), its output with --tag-output (tag_output.c), the job's
 * private directory (jobdir.c) and the signals a program's poll loop reads
 * from a signalfd (signals.c).  encore-run and encore-agent both use it.
 */
#ifndef ENC_COMMON_PROC_H
#define ENC_COMMON_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/status.h"

/* jobdir.c: the job's private directory under TMPDIR (mkdtemp into out),
 * one fresh subdirectory per rank incarnation, and the removal of it all. */
enc_status_t enc_run_jobdir_create(char *out, size_t cap);
enc_status_t enc_run_rankdir(const char *jobdir, int rank, uint32_t inc, char *out, size_t cap);
void enc_run_jobdir_remove(char *jobdir);

/* tag_output.c: --tag-output line prefixing of one child stream. */
struct enc_run_stream {
    int fd;                       /* -1 when closed */
    int rank;
    bool is_err;
    size_t len;
    char buf[4096];
};
/* Reads what fd has; prefixes and writes whole lines.  ENC_INPROGRESS while
 * the stream is open, ENC_OK at EOF (the rest is flushed and fd closed). */
enc_status_t enc_run_stream_pump(struct enc_run_stream *s);

/* spawn.c: starts one rank; with tag-output, out/err get the pipe ends. */
enc_status_t enc_run_spawn(const char *path, char **argv, char **env, const char *bind_to,
                           int rank, bool tag_output, struct enc_run_stream *out,
                           struct enc_run_stream *err, pid_t *pid);
/* One line describing a wait status: "exited with status 3", "killed by signal 9 (Killed)". */
void enc_run_describe_status(int status, char *out, size_t cap);

/* signals.c: blocks SIGCHLD, SIGINT, SIGTERM and SIGHUP, ignores SIGPIPE
 * and returns a non-blocking signalfd for them in *sfd.  ENC_ERR_SYS (logged
 * with the program's tag) when the mask or the signalfd cannot be set. */
enc_status_t enc_run_signalfd(int *sfd);

#endif
