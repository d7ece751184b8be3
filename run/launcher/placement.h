/*
 * placement.h - where ranks run: the host list (--host/-H, --hostfile,
 * a Slurm allocation), mpirun's mapping (by slot, by node, oversubscribe)
 * and moving the ranks of a lost host to hosts with free slots.
 */
#ifndef ENC_LAUNCHER_PLACEMENT_H
#define ENC_LAUNCHER_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

#define ENC_RUN_HOST_NAME_MAX 64
#define ENC_RUN_MAX_HOSTS 256
#define ENC_RUN_MAX_SLOTS (1 << 20)   /* per host */

struct enc_run_host {
    char name[ENC_RUN_HOST_NAME_MAX];
    int slots;
    bool local;                   /* the launcher's own host: ranks are forked directly */
    bool lost;                    /* excluded for the rest of the job */
};

struct enc_run_hostlist {
    struct enc_run_host h[ENC_RUN_MAX_HOSTS];
    int n;
};

/* The parsers below return ENC_OK, or ENC_ERR_INVAL with one line in msg
 * saying what was wrong (the caller names the option it came from). */

/* Adds slots to host name (a host named twice accumulates, as in mpirun):
 * a name of 1..63 characters, 1..ENC_RUN_MAX_SLOTS slots in all, at most
 * ENC_RUN_MAX_HOSTS hosts. */
enc_status_t enc_run_hosts_add(struct enc_run_hostlist *hl, const char *name, int slots,
                               char *msg, size_t cap);
/* "-H a:2,b,c:3" (a host without :N has one slot). */
enc_status_t enc_run_hosts_parse_list(struct enc_run_hostlist *hl, const char *list,
                                      char *msg, size_t cap);
/* One hostfile line ("host slots=N max_slots=M # comment"); blank and
 * comment lines add nothing.  A host without slots= gets default_slots. */
enc_status_t enc_run_hosts_parse_line(struct enc_run_hostlist *hl, const char *line,
                                      int default_slots, char *msg, size_t cap);
/* Every line of a hostfile; msg says which line was wrong. */
enc_status_t enc_run_hosts_parse_file(struct enc_run_hostlist *hl, const char *path,
                                      int default_slots, char *msg, size_t cap);
/* The slots of all hosts. */
int enc_run_hosts_slots(const struct enc_run_hostlist *hl);
/* Marks the launcher's own host (localhost, 127.0.0.1, gethostname()). */
void enc_run_hosts_mark_local(struct enc_run_hostlist *hl);
/* Cores of this machine (hwloc), at least 1: the slots of a hostfile host
 * without slots=. */
int enc_run_local_cores(void);

/* host_of[rank] for np ranks: fill each host's slots in order (by_node:
 * one rank per host round robin).  More ranks than slots is ENC_ERR_INVAL
 * unless oversubscribe (encore-run's options check it first). */
enc_status_t enc_run_map(const struct enc_run_hostlist *hl, int np, bool by_node,
                         bool oversubscribe, int *host_of);
/* A live host with a free slot for one more rank (slots minus the ranks
 * host_of places there, ranks of lost hosts not counted), the first in
 * host order; ENC_ERR_NOT_FOUND when none. */
enc_status_t enc_run_free_host(const struct enc_run_hostlist *hl, const int *host_of, int np,
                               int *host);

/* slurm.c: "node[1-3,05],login" into names (at most max). */
enc_status_t enc_run_slurm_nodelist(const char *s, char (*names)[ENC_RUN_HOST_NAME_MAX], int *n,
                                    int max);
/* "2(x3),1" into exactly n slot counts. */
enc_status_t enc_run_slurm_tasks(const char *s, int *slots, int n);
/* The allocation's hosts and slots; ENC_ERR_NOT_FOUND outside Slurm,
 * ENC_ERR_INVAL with one line in msg for variables it cannot read. */
enc_status_t enc_run_slurm_hosts(struct enc_run_hostlist *hl, char *msg, size_t cap);
/* The --rsh used inside an allocation: a one-task step on the named node. */
#define ENC_RUN_SLURM_RSH "srun --nodes=1 --ntasks=1 --overlap --no-kill --kill-on-bad-exit=0 --nodelist"

#endif
