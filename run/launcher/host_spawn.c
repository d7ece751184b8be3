/*
 * host_spawn.c - starting a rank of a multi-host job where the placement
 * put it: forked here (the launcher's own host) or through that host's
 * agent, with the host's name as ENCORE_HOST and its slot on the host as
 * the binding index.
 */
#include "enc.h"
#include "launcher/launcher.h"
#include "launcher/remote.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The rank's position among the ranks of its host. */
static int slot_on_host(const int *host_of, int rank)
{
    int slot = 0;

    for (int r = 0; r < rank; r++)
        slot += host_of[r] == host_of[rank];
    return slot;
}

/* The job's ranks on host. */
static int ranks_on_host(const int *host_of, int np, int host)
{
    int n = 0;

    for (int r = 0; r < np; r++)
        n += host_of[r] == host;
    return n;
}

/* env plus "ENCORE_HOST=name" (a new array sharing env's strings). */
static char **with_host(char **env, const char *kv)
{
    int n = 0;
    char **v;

    while (env[n] != NULL)
        n++;
    if ((v = calloc((size_t)n + 2, sizeof(*v))) == NULL)
        return NULL;
    memcpy(v, env, (size_t)n * sizeof(*v));
    v[n] = (char *)kv;
    return v;
}

static enc_status_t spawn_here(const struct enc_run_opts *o, const char *host, int slot,
                               const char *bind, const char *path, char **env,
                               struct enc_run_stream *out, struct enc_run_stream *err, pid_t *pid,
                               int rank)
{
    char kv[ENC_RUN_HOST_NAME_MAX + 16];
    char **v;
    enc_status_t rv;

    snprintf(kv, sizeof(kv), "ENCORE_HOST=%s", host);
    if ((v = with_host(env, kv)) == NULL)
        return ENC_ERR_NOMEM;
    rv = enc_run_spawn(path, o->argv, v, bind, slot, o->tag_output, out, err, pid);
    out->rank = err->rank = rank; /* enc_run_spawn tagged them with the slot */
    free(v);
    return rv;
}

enc_status_t enc_run_spawn_on_host(const struct enc_run_opts *o, const struct enc_run_hostlist *hl,
                                   const int *host_of, struct enc_run_remote *rm, int rank,
                                   uint32_t inc, const char *path, char **env,
                                   struct enc_run_stream *out, struct enc_run_stream *err,
                                   pid_t *pid)
{
    const struct enc_run_host *h = &hl->h[host_of[rank]];
    char cwd[PATH_MAX];
    struct enc_agent_spawn m = {.rank = (uint32_t)rank, .inc = inc,
                                .bind_index = (uint32_t)slot_on_host(host_of, rank),
                                .tag_output = o->tag_output, .path = (char *)path,
                                .argv = o->argv, .env = env, .cwd = cwd};

    const char *bind = enc_run_bind_policy(o, ranks_on_host(host_of, o->np, host_of[rank]),
                                           h->slots);

    if (h->local)
        return spawn_here(o, h->name, (int)m.bind_index, bind, path, env, out, err, pid, rank);
    if (getcwd(cwd, sizeof(cwd)) == NULL)
        return ENC_ERR_SYS;
    snprintf(m.bind_to, sizeof(m.bind_to), "%s", bind != NULL ? bind : "");
    *pid = 0;
    return enc_run_remote_spawn(rm, host_of[rank], &m);
}

void enc_run_env_local_tracker(char **env, const char *addr, uint16_t port)
{
    static const char key[] = "ENCORE_TRACKER=";

    if (addr == NULL || addr[0] == '\0')
        return;
    for (char **p = env; *p != NULL; p++) {
        char *kv;

        if (strncmp(*p, key, sizeof(key) - 1) != 0 || asprintf(&kv, "%s%s:%u", key, addr, port) < 0)
            continue;
        free(*p);
        *p = kv;
    }
}
