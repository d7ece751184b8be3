/*
 * job.h - what the files of encore-run's job share: the job and its ranks'
 * state machine (job.c), and what the files above it call: the event loop
 * (job_loop.c), the hooks that change it (job_hooks.c), the timers
 * (job_timers.c) and the summary (job_summary.c).  Private to run/launcher.
 */
#ifndef ENC_LAUNCHER_JOB_H
#define ENC_LAUNCHER_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "launcher/launcher.h"
#include "launcher/remote.h"
#include "shm/shm.h"

struct enc_secret;

enum rank_phase { R_RUNNING = 0, R_RESTART, R_DONE };

struct rank_proc {
    pid_t pid;                    /* 0 when no process */
    uint32_t incarnation;
    int restarts;
    enum rank_phase phase;
    bool registered;              /* this incarnation registered with the tracker */
    bool finalized;
    int host;                     /* index in the host list (0 in a local job) */
    bool remote_live;             /* a SPAWN went to its agent and no EXITED came back */
    bool waiting;                 /* to spawn once every agent is up */
    bool from_image;              /* this incarnation is a restored snapshot image */
    bool activating;              /* an ACTIVATE went to its agent, unanswered */
    char lost[160];               /* why the tracker gave up on it, if it did */
    uint64_t restart_at;
    uint64_t stopped_since;       /* first seen stopped while unwatched (0: not) */
    long private_kb;              /* largest private RSS sampled, any incarnation (-1: none) */
    struct enc_run_stream out, err;
};

struct job {
    const struct enc_run_opts *o;
    const char *path;
    struct enc_tracker *t;
    char **env;
    struct rank_proc *r;
    int sfd;
    bool failing;                 /* the job is ending; no more restarts */
    int status;                   /* exit status once failing */
    char line[600];
    uint64_t kill_at;             /* SIGKILL stragglers at this time (0: not set) */
    uint64_t deadline;            /* --timeout */
    uint64_t next_random;
    uint64_t random_kills;        /* sent so far (--inject random:...:count=N) */
    uint64_t rng;
    int after_final_status;       /* exit status of a rank that failed after MPI_Finalize */
    char final_line[400];         /* what happened to it (the line if nothing worse does) */
    char jobdir[4096];            /* private directory under TMPDIR (jobdir.c) */
    struct enc_run_snaps *snaps;  /* parked snapshot images, NULL when off */
    uint64_t log_floor;           /* the last EVENT TRIM sent */
    struct enc_run_hostlist *hl;  /* NULL: a local job */
    struct enc_run_remote *rm;    /* agents of a multi-host job */
    struct enc_shm_host shm;      /* the segment of the ranks encore-run spawns itself */
    int *host_of;
    bool agents_up;
    struct enc_agent_mem *host_mem; /* per host: its agent's last word on memory */
    uint64_t next_sample;         /* of the local ranks' memory */
    uint16_t tracker_port;
};

/* A rank placed on another host (its agent runs it). */
static inline bool job_remote(const struct job *j, int rank)
{
    return j->hl != NULL && !j->hl->h[j->host_of[rank]].local;
}

/* job.c: the rank state machine. */
void job_kill_rank(struct job *j, struct rank_proc *p, int sig);
void job_kill_all(struct job *j, int sig);
/* Ends the job: one line, EVENT ABORT to the ranks, SIGKILL after a grace. */
void job_fail(struct job *j, int status, uint64_t grace_ms, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Starts the rank's next incarnation: from its newest snapshot image when
 * one is parked (here, or on its host by the agent), else afresh. */
enc_status_t job_spawn(struct job *j, int rank);
/* Starts it afresh (the program from the start). */
enc_status_t job_spawn_fresh(struct job *j, int rank);
/* The rank's parked images are no use any more, wherever they are. */
void job_forget_images(struct job *j, int rank);
/* A rank died before MPI_Finalize (its process is gone or being killed). */
void job_rank_died(struct job *j, int rank, const char *why);
/* A rank's process ended with wait status `status`. */
void job_rank_exited(struct job *j, int rank, int status);
/* The signals encore-run took (SIGINT, SIGTERM, SIGHUP end the job). */
void job_read_signals(struct job *j);
/* Whether rank's parked snapshot of incarnation inc is still wanted
 * (enc_run_snaps' callback; arg is the job). */
bool job_snap_wanted(void *arg, int rank, uint32_t inc);
/* waitpid(pid, WNOHANG): ENC_OK when a child was reaped (*reaped), *rank being its rank or -1 for another
 * child; ENC_INPROGRESS when none has exited. */
enc_status_t job_wait_rank(struct job *j, pid_t pid, int *status, pid_t *reaped, int *rank);

/* job_hooks.c: the embedded tracker and the agents, with their hooks. */
enc_status_t job_start_tracker(struct job *j, struct enc_secret *s);
enc_status_t job_start_agents(struct job *j, const struct enc_secret *s);

/* job_images.c: the agents' word on their hosts' snapshot images (sets
 * cfg's snapshots flag and image hooks); a lost host's images are gone. */
void job_image_hooks(struct job *j, struct enc_run_remote_config *cfg);
void job_host_images_lost(struct job *j, int host);

/* job_timers.c: runs the timers that are due; the next one's time. */
void job_timers(struct job *j);
uint64_t job_next_timer(const struct job *j);

/* job_summary.c: prints the summary if wanted and the failure line;
 * encore-run's exit status. */
int job_finish(struct job *j);
/* Samples the private RSS of every local rank (job_timers.c, once a
 * second) or of one (rank >= 0: it registered or reached MPI_Finalize). */
void job_sample_memory(struct job *j, int rank);

#endif
