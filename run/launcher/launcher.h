/*
 * launcher.h - encore-run's internal contracts: options (args.c), fault
 * injection (inject_plan.c), the rank environment (rank_env.c, preload.c,
 * elf_links.c), restart policy
 * (restart_policy.c) and the job loop (job.c, with job_hooks.c,
 * job_timers.c and job_summary.c behind job.h) that ties them to the
 * embedded tracker.
 */
#ifndef ENC_LAUNCHER_LAUNCHER_H
#define ENC_LAUNCHER_LAUNCHER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/parking.h"
#include "common/proc.h"
#include "core/status.h"
#include "launcher/placement.h"
#include "tracker/tracker.h"

#define ENC_RUN_MAX_INJECT 64
#define ENC_RUN_DEFAULT_RESTARTS 3
#define ENC_RUN_MAX_RESTARTS 1000000
#define ENC_RUN_BACKOFF_MIN_MS 100
#define ENC_RUN_BACKOFF_MAX_MS 2000
#define ENC_RUN_ABORT_GRACE_MS 1000
/* --openmp llvm preloads LLVM's OpenMP runtime, which provides GCC's
 * GOMP_* entry points too and so stands in for libgomp. */
#define ENC_RUN_LLVM_OPENMP "libomp.so.5"

enum enc_run_inject_kind { ENC_RUN_INJ_KILL = 1, ENC_RUN_INJ_STOP = 2, ENC_RUN_INJ_SNAPKILL = 3 };

struct enc_run_inject {
    const char *spec;             /* as given, for messages */
    enum enc_run_inject_kind kind;
    int rank;
    long op;
    uint32_t incarnation;
};

struct enc_run_opts {
    int np;
    char **xvars;                 /* -x VAR[=val], in order */
    int nx;
    bool tag_output;
    double timeout_s;             /* 0: none */
    int max_restarts;
    bool fail_all;                /* --policy fail-all */
    struct enc_run_inject inj[ENC_RUN_MAX_INJECT];
    int ninj;
    double random_every_s;        /* 0: no random injection */
    uint64_t random_seed;
    uint64_t random_count;        /* at most this many random kills (0: no limit) */
    const char *bind_to;          /* NULL or "auto": enc_run_bind_policy; "none": no binding */
    bool info;
    bool summary;                 /* --summary: always print the job summary */
    struct enc_run_hostlist *hosts; /* -H/--hostfile/Slurm; NULL: every rank local */
    bool map_by_node;             /* --map-by node */
    bool oversubscribe;
    bool openmp_llvm;             /* --openmp llvm */
    const char *rsh;              /* --rsh, default "ssh" */
    char **argv;                  /* program and its arguments */
};

/* args.c: ENC_OK, with *handled true when --help or --info was printed
 * and there is nothing to run; ENC_ERR_INVAL on a usage error (already
 * reported on stderr). */
enc_status_t enc_run_parse_args(int argc, char **argv, struct enc_run_opts *o, bool *handled);
void enc_run_print_info(const struct enc_run_opts *o);

/* inject_plan.c: one --inject spec; a bad one is reported on stderr (one
 * line).  Ranks are checked against -n later (args.c). */
enc_status_t enc_run_parse_inject(struct enc_run_opts *o, const char *spec);
/* ENCORE_INJECT value for rank/incarnation into out ("" when none). */
void enc_run_inject_value(const struct enc_run_opts *o, int rank, uint32_t inc, char *out,
                          size_t cap);
/* Deterministic pseudo-random numbers for --inject random. */
uint64_t enc_run_rand(uint64_t *state);

/* elf_links.c: true when the ELF file at path has libencore.so* in
 * DT_NEEDED, false when not (or not an ELF file, e.g. a script). */
bool enc_run_elf_needs_libencore(const char *path);

/* preload.c: the libencore.so to preload, or NULL if none was found. */
const char *enc_run_find_libencore(char *buf, size_t cap);
/* ENC_OK when the dynamic loader finds library name here; otherwise its
 * error in msg. */
enc_status_t enc_run_find_library(const char *name, char *msg, size_t cap);
/* Directory holding encore's sitecustomize.py, or NULL. */
const char *enc_run_find_python_dir(char *buf, size_t cap);
/* The program resolved along PATH into buf; ENC_ERR_NOT_FOUND when there
 * is no such executable. */
enc_status_t enc_run_resolve_program(const char *prog, char *buf, size_t cap);

/* rank_env.c: the environment shared by every rank (scrubbed, -x applied,
 * ENCORE_TRACKER/SECRET/SIZE, LD_PRELOAD); per-rank values are added by
 * enc_run_env_for_rank.  Arrays are NULL-terminated and malloc'd. */
enc_status_t enc_run_env_base(const struct enc_run_opts *o, const char *tracker,
                              const char *secret_hex, const char *preload, char ***out);
enc_status_t enc_run_env_for_rank(char **base, const struct enc_run_opts *o, int rank,
                                  uint32_t inc, char ***out);
void enc_run_env_free(char **env);
/* Points the rank's Open MPI session files (and ENCORE_RANK_TMPDIR) at dir. */
enc_status_t enc_run_env_rankdir(char ***env, const char *dir);
/* Sets name=val in env (replacing an earlier value). */
enc_status_t enc_run_env_add(char ***env, const char *name, const char *val);

/* stopped.c: true when pid is in the stopped (T) or traced (t) state. */
bool enc_run_pid_stopped(pid_t pid);

/* restart_policy.c: the restart budget and backoff of one rank. */
bool enc_run_can_restart(const struct enc_run_opts *o, int restarts);
int64_t enc_run_backoff_ms(int restarts);

/* job.c: runs the job to its end; returns encore-run's exit status. */
int enc_run_job(const struct enc_run_opts *o, const char *path);

/* binding.c: what --bind-to means for a rank on a host running ranks_here
 * of the job's ranks in slots_here slots: "core", "package", or NULL (no
 * binding). */
const char *enc_run_bind_policy(const struct enc_run_opts *o, int ranks_here, int slots_here);

#endif
