/*
 * snapshots.c - encore-run's side of transparent snapshots: an abstract
 * Unix socket (nothing on disk) named after the job's directory, where each rank's snapshot images
 * register (proto/snapmsg.h) and wait, at most one parked per rank (a
 * newer one replaces it: the older one gets EOF and exits), activation of
 * the newest when its rank dies, and the end of all of them with the job.
 * encore-run is a child subreaper, so images (orphaned at birth by a
 * double fork) are its children: it reaps them and tells them from ranks
 * by pid.  Program children that are not images never register.
 */
#include "enc.h"
#include "launcher/launcher.h"
#include "proto/snapmsg.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

struct parked {
    int fd;                       /* -1: none */
    pid_t pid;
    uint32_t incarnation;
    uint64_t seq;
    unsigned taken, used;
};

struct enc_run_snaps {
    int np;
    int lfd;
    char name[108];               /* ENCORE_SNAPSHOT_SOCK: "@..." */
    struct parked *r;
};

/* An abstract socket named after the job directory and this process. */
static enc_status_t listen_at(struct enc_run_snaps *s, const char *jobdir)
{
    struct sockaddr_un sa;
    const char *base = strrchr(jobdir, '/');
    unsigned len;

    snprintf(s->name, sizeof(s->name), "@%s.%d.snap", base ? base + 1 : jobdir, (int)getpid());
    if ((len = enc_snap_sockaddr(s->name, &sa)) == 0) {
        ENC_ERROR("run", "snapshot socket name too long: %s", s->name);
        return ENC_ERR_INVAL;
    }
    if ((s->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0 ||
        bind(s->lfd, (struct sockaddr *)&sa, len) != 0 || listen(s->lfd, 64) != 0) {
        ENC_ERROR("run", "snapshot socket %s: %m", s->name);
        return ENC_ERR_SYS;
    }
    return ENC_OK;
}

enc_status_t enc_run_snaps_open(struct enc_run_snaps **out, int np, const char *jobdir,
                                char ***env)
{
    struct enc_run_snaps *s;
    enc_status_t rv = ENC_OK;

    *out = NULL;
    if (enc_tunable_seconds(ENC_TUNE_SNAPSHOT_S) == 0)
        return ENC_OK; /* off */
    if ((s = calloc(1, sizeof(*s))) == NULL || (s->r = calloc((size_t)np, sizeof(*s->r))) == NULL) {
        free(s);
        return ENC_ERR_NOMEM;
    }
    s->np = np;
    s->lfd = -1;
    for (int i = 0; i < np; i++)
        s->r[i].fd = -1;
    *out = s;
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        ENC_WARN("run", "PR_SET_CHILD_SUBREAPER: %m; snapshots off");
    else if ((rv = listen_at(s, jobdir)) == ENC_OK)
        return enc_run_env_add(env, "ENCORE_SNAPSHOT_SOCK", s->name);
    enc_run_snaps_close(s);
    *out = NULL;
    return rv;
}

int enc_run_snaps_pollfds(const struct enc_run_snaps *s, struct pollfd *p, int cap)
{
    int n = 0;

    if (s == NULL || s->lfd < 0 || cap < 1)
        return 0;
    p[n++] = (struct pollfd){.fd = s->lfd, .events = POLLIN};
    for (int i = 0; i < s->np && n < cap; i++)
        if (s->r[i].fd >= 0) /* POLLIN: EOF when the image died */
            p[n++] = (struct pollfd){.fd = s->r[i].fd, .events = POLLIN};
    return n;
}

static void drop(struct parked *k)
{
    if (k->fd >= 0)
        close(k->fd); /* EOF: the image exits */
    k->fd = -1;
    k->pid = 0;
}

static bool read_hello(int fd, struct enc_snap_hello *h, int np)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    struct ucred cr;
    socklen_t len = sizeof(cr);

    return poll(&p, 1, 1000) == 1 && recv(fd, h, sizeof(*h), MSG_WAITALL) == sizeof(*h) &&
           enc_snap_hello_valid(h, np) &&
           getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 && cr.pid == (pid_t)h->pid &&
           cr.uid == geteuid();
}

static void accept_one(struct enc_run_snaps *s, int fd, enc_run_snap_wanted_fn wanted, void *arg)
{
    struct enc_snap_hello h;
    struct parked *k;

    if (!read_hello(fd, &h, s->np) || !wanted(arg, (int)h.rank, h.incarnation)) {
        ENC_DEBUG("run", "snapshot connection refused (stale or malformed)");
        close(fd);
        return;
    }
    k = &s->r[h.rank];
    drop(k);
    *k = (struct parked){.fd = fd, .pid = (pid_t)h.pid, .incarnation = h.incarnation,
                         .seq = h.seq, .taken = k->taken + 1, .used = k->used};
    ENC_DEBUG("run", "rank %u: snapshot at seq %llu parked (pid %u)", h.rank,
              (unsigned long long)h.seq, h.pid);
}

void enc_run_snaps_serve(struct enc_run_snaps *s, const struct pollfd *p, int n,
                         enc_run_snap_wanted_fn wanted, void *arg)
{
    int fd;

    if (s == NULL || n == 0)
        return;
    for (int i = 1; i < n; i++)
        for (int r = 0; r < s->np; r++)
            if (p[i].revents && s->r[r].fd == p[i].fd)
                drop(&s->r[r]); /* nothing is expected from a parked image */
    if (!(p[0].revents & POLLIN))
        return;
    while ((fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0)
        accept_one(s, fd, wanted, arg);
}

void enc_run_snaps_drain(struct enc_run_snaps *s, int rank, int wait_ms,
                         enc_run_snap_wanted_fn wanted, void *arg)
{
    uint64_t deadline = enc_deadline_ms(wait_ms);
    struct pollfd p;
    int fd;

    if (s == NULL)
        return;
    for (;;) {
        while ((fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0)
            accept_one(s, fd, wanted, arg);
        if (s->r[rank].fd >= 0 || enc_ms_left(deadline) <= 0)
            return;
        p = (struct pollfd){.fd = s->lfd, .events = POLLIN};
        (void)poll(&p, 1, enc_ms_left(deadline));
    }
}

bool enc_run_snaps_reaped(struct enc_run_snaps *s, pid_t pid)
{
    for (int r = 0; s != NULL && r < s->np; r++)
        if (s->r[r].pid == pid) {
            drop(&s->r[r]);
            return true;
        }
    return false;
}

enc_status_t enc_run_snaps_activate(struct enc_run_snaps *s, int rank, uint32_t inc,
                                    const char *inject, pid_t *pid, uint64_t *seq)
{
    struct enc_snap_activate a = {.magic = ENC_SNAP_MAGIC, .incarnation = inc};
    struct parked *k;
    ssize_t w;

    if (s == NULL || (k = &s->r[rank])->fd < 0)
        return ENC_ERR_NOT_FOUND;
    snprintf(a.inject, sizeof(a.inject), "%s", inject);
    w = send(k->fd, &a, sizeof(a), MSG_NOSIGNAL);
    *pid = k->pid;
    *seq = k->seq;
    k->pid = 0; /* a rank now, no longer an image */
    drop(k);
    if (w != (ssize_t)sizeof(a))
        return ENC_ERR_NOT_FOUND;
    k->used++;
    return ENC_OK;
}

bool enc_run_snaps_newest(const struct enc_run_snaps *s, int rank, uint64_t *seq)
{
    if (s == NULL || s->r[rank].fd < 0)
        return false;
    *seq = s->r[rank].seq;
    return true;
}

void enc_run_snaps_forget(struct enc_run_snaps *s, int rank)
{
    if (s != NULL)
        drop(&s->r[rank]);
}

void enc_run_snaps_end(struct enc_run_snaps *s)
{
    for (int r = 0; s != NULL && r < s->np; r++) {
        pid_t pid = s->r[r].pid;

        drop(&s->r[r]);
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
        }
    }
}

void enc_run_snaps_counts(const struct enc_run_snaps *s, int rank, unsigned *taken,
                          unsigned *used)
{
    *taken = s ? s->r[rank].taken : 0;
    *used = s ? s->r[rank].used : 0;
}

void enc_run_snaps_close(struct enc_run_snaps *s)
{
    if (s == NULL)
        return;
    enc_run_snaps_end(s);
    if (s->lfd >= 0)
        close(s->lfd);
    free(s->r);
    free(s);
}
