/*
 * remote.h - encore-run's side of the per-host agents: starting them
 * through the rsh command (or srun), accepting and authenticating their
 * connections, spawning and killing ranks through them, heartbeats both
 * ways, and reporting a host that never came up or was lost.
 */
#ifndef ENC_LAUNCHER_REMOTE_H
#define ENC_LAUNCHER_REMOTE_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/agent_proto.h"
#include "common/parking.h"
#include "launcher/placement.h"
#include "proto/auth.h"

struct enc_run_remote;

/* Called from enc_run_remote_events / _timers / _child_exited. */
struct enc_run_remote_hooks {
    void *arg;
    void (*up)(void *arg, int host);
    void (*started)(void *arg, int rank, uint32_t inc, pid_t pid);
    void (*failed)(void *arg, int host, int rank, uint32_t inc, const char *why);
    /* mem: what the agent measured of the rank and its host's segment */
    void (*exited)(void *arg, int rank, uint32_t inc, int status,
                   const struct enc_agent_mem *mem);
    /* An agent that was up is gone (connection closed, silent). */
    void (*lost)(void *arg, int host, const char *why);
    /* An agent never came up; why is one line naming the host. */
    void (*never_up)(void *arg, int host, const char *why);
    /* Snapshot images on the agent's host: one of rank parked (img) or
     * died (img NULL); restored: an ACTIVATE made one incarnation inc
     * (pid, taken at seq); noimage: there was none to activate. */
    void (*parked)(void *arg, int host, int rank, const struct enc_run_snap_info *img);
    void (*restored)(void *arg, int host, int rank, uint32_t inc, pid_t pid, uint64_t seq);
    void (*noimage)(void *arg, int rank, uint32_t inc);
};

struct enc_run_remote_config {
    const struct enc_run_hostlist *hosts;
    const char *rsh;              /* "ssh", "ip netns exec", ... */
    bool srun;                    /* start every agent in one srun step */
    const struct enc_secret *secret;
    uint16_t tracker_port;
    int np;                       /* ranks of the job */
    const int *host_of;           /* each rank's host at start (agent --shm) */
    bool snapshots;               /* the agents own their hosts' images (--snapshots) */
    struct enc_run_remote_hooks hooks;
};

/* Listens, then starts one agent per non-local host. */
enc_status_t enc_run_remote_start(struct enc_run_remote **out,
                                  const struct enc_run_remote_config *cfg);
/* Closes the agents' connections (they kill their ranks and exit) and
 * reaps the rsh processes, bounded. */
void enc_run_remote_destroy(struct enc_run_remote *rm);

/* Adds the fds to poll; returns how many were added (at most cap). */
int enc_run_remote_fds(struct enc_run_remote *rm, struct pollfd *pf, int cap);
void enc_run_remote_events(struct enc_run_remote *rm, const struct pollfd *pf, int n);
void enc_run_remote_timers(struct enc_run_remote *rm);
uint64_t enc_run_remote_next_timer(const struct enc_run_remote *rm);
/* A child of encore-run exited: true when it was an agent's rsh. */
bool enc_run_remote_child_exited(struct enc_run_remote *rm, pid_t pid, int status);

bool enc_run_remote_all_up(const struct enc_run_remote *rm);
/* This host's address as the first agent reached it ("" before). */
const char *enc_run_remote_local_addr(const struct enc_run_remote *rm);

enc_status_t enc_run_remote_spawn(struct enc_run_remote *rm, int host,
                                  const struct enc_agent_spawn *m);
void enc_run_remote_kill(struct enc_run_remote *rm, int host, int rank, uint32_t inc, int sig);
/* ACTIVATE rank's newest image on host as incarnation inc (answered by
 * the restored or noimage hook); ENC_ERR_STATE when the agent is not up. */
enc_status_t enc_run_remote_activate(struct enc_run_remote *rm, int host, int rank, uint32_t inc,
                                     const char *inject);
/* FORGET: rank's images on host are no use any more. */
void enc_run_remote_forget(struct enc_run_remote *rm, int host, int rank);

#endif

/* host_spawn.c (declared here so launcher.h stays as it is) */
struct enc_run_opts;
struct enc_run_stream;
/* Starts rank where host_of[] puts it: forked here for the local host,
 * else a SPAWN to the host's agent (*pid 0 until it reports STARTED). */
enc_status_t enc_run_spawn_on_host(const struct enc_run_opts *o, const struct enc_run_hostlist *hl,
                                   const int *host_of, struct enc_run_remote *rm, int rank,
                                   uint32_t inc, const char *path, char **env,
                                   struct enc_run_stream *out, struct enc_run_stream *err,
                                   pid_t *pid);
/* Local ranks of a multi-host job reach the tracker through the address
 * the agents used, so the address they publish works for remote peers. */
void enc_run_env_local_tracker(char **env, const char *addr, uint16_t port);
