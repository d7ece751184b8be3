/*
 * parking.c - the owner's side of transparent snapshots (parking.h), in
 * encore-run for its host and in encore-agent for each other host: an
 * abstract Unix socket (nothing on disk) named after the owner's job
 * directory, where each rank's snapshot images register (proto/snapmsg.h)
 * and wait, at most one parked per rank (a newer one replaces it: the
 * older one gets EOF and exits), activation of the newest when its rank
 * dies, the end of all of them with the job, and the trim floors their
 * positions allow on each communicator (encore-run: with the remote
 * records its agents sent).  The owner is a child subreaper, so images
 * (orphaned at birth by a double fork) are its children: it reaps them
 * and tells them from ranks by pid.  Program children that are not images
 * never register.
 */
#include "enc.h"
#include "common/parking.h"
#include "core/vec.h"

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
    int fd;                       /* -1: none here */
    bool remote;                  /* parked on the rank's host, by its agent */
    pid_t pid;
    uint32_t incarnation;
    uint64_t seq;
    struct enc_snap_comm *comms;  /* where it stands on communicators other than the world */
    uint32_t ncomms;
    unsigned taken, used;
};

/* The floor last announced for a communicator. */
struct comm_floor {
    uint64_t cid, floor;
};

struct enc_run_snaps {
    int np;
    int lfd;
    char name[108];               /* ENCORE_SNAPSHOT_SOCK: "@..." */
    struct parked *r;
    struct comm_floor *floors;
    size_t nfloors, capfloors;
    bool registered;              /* an image registered since the last floors */
    enc_run_snap_note_fn note;
    void *note_arg;
};

static bool present(const struct parked *k)
{
    return k->fd >= 0 || k->remote;
}

static void tell(const struct enc_run_snaps *s, int rank, const struct parked *k)
{
    struct enc_run_snap_info img;

    if (s->note == NULL)
        return;
    if (k == NULL) {
        s->note(s->note_arg, rank, NULL);
        return;
    }
    img = (struct enc_run_snap_info){.incarnation = k->incarnation, .seq = k->seq,
                                     .comms = k->comms, .ncomms = k->ncomms};
    s->note(s->note_arg, rank, &img);
}

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
                                enc_run_snap_note_fn note, void *note_arg)
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
    s->note = note;
    s->note_arg = note_arg;
    for (int i = 0; i < np; i++)
        s->r[i].fd = -1;
    *out = s;
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        ENC_WARN("run", "PR_SET_CHILD_SUBREAPER: %m; snapshots off");
    else if ((rv = listen_at(s, jobdir)) == ENC_OK)
        return ENC_OK;
    enc_run_snaps_close(s);
    *out = NULL;
    return rv;
}

const char *enc_run_snaps_sock(const struct enc_run_snaps *s)
{
    return s->name;
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
    k->remote = false;
    k->pid = 0;
    free(k->comms);
    k->comms = NULL;
    k->ncomms = 0;
}

/* The hello and the positions after it (*comms malloc'd). */
static bool read_hello(int fd, struct enc_snap_hello *h, int np, struct enc_snap_comm **comms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    struct ucred cr;
    socklen_t len = sizeof(cr);
    size_t bytes;

    *comms = NULL;
    if (poll(&p, 1, 1000) != 1 || recv(fd, h, sizeof(*h), MSG_WAITALL) != sizeof(*h) ||
        !enc_snap_hello_valid(h, np) ||
        getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || cr.pid != (pid_t)h->pid ||
        cr.uid != geteuid())
        return false;
    if (h->ncomms == 0)
        return true;
    bytes = h->ncomms * sizeof(**comms);
    if ((*comms = malloc(bytes)) != NULL && recv(fd, *comms, bytes, MSG_WAITALL) == (ssize_t)bytes)
        return true;
    free(*comms);
    *comms = NULL;
    return false;
}

static void accept_one(struct enc_run_snaps *s, int fd, enc_run_snap_wanted_fn wanted, void *arg)
{
    struct enc_snap_hello h;
    struct enc_snap_comm *comms;
    struct parked *k;

    if (!read_hello(fd, &h, s->np, &comms) || !wanted(arg, (int)h.rank, h.incarnation)) {
        ENC_DEBUG("run", "snapshot connection refused (stale or malformed)");
        free(comms);
        close(fd);
        return;
    }
    k = &s->r[h.rank];
    drop(k);
    *k = (struct parked){.fd = fd, .pid = (pid_t)h.pid, .incarnation = h.incarnation,
                         .seq = h.seq, .comms = comms, .ncomms = h.ncomms,
                         .taken = k->taken + 1, .used = k->used};
    s->registered = true;
    ENC_DEBUG("run", "rank %u: snapshot at seq %llu parked (pid %u)", h.rank,
              (unsigned long long)h.seq, h.pid);
    tell(s, (int)h.rank, k);
}

void enc_run_snaps_serve(struct enc_run_snaps *s, const struct pollfd *p, int n,
                         enc_run_snap_wanted_fn wanted, void *arg)
{
    int fd;

    if (s == NULL || n == 0)
        return;
    for (int i = 1; i < n; i++)
        for (int r = 0; r < s->np; r++)
            if (p[i].revents && s->r[r].fd == p[i].fd) {
                drop(&s->r[r]); /* nothing is expected from a parked image */
                tell(s, r, NULL);
            }
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
            tell(s, r, NULL);
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
    if (s == NULL || !present(&s->r[rank]))
        return false;
    *seq = s->r[rank].seq;
    return true;
}

void enc_run_snaps_note_remote(struct enc_run_snaps *s, int rank,
                               const struct enc_run_snap_info *img)
{
    struct parked *k;
    size_t bytes;

    if (s == NULL)
        return;
    k = &s->r[rank];
    drop(k);
    if (img == NULL)
        return;
    bytes = img->ncomms * sizeof(*k->comms);
    k->comms = bytes ? malloc(bytes) : NULL;
    if (bytes && k->comms == NULL)
        return; /* unknown positions: as if none were parked (no trim) */
    if (bytes)
        memcpy(k->comms, img->comms, bytes);
    k->ncomms = img->ncomms;
    k->remote = true;
    k->incarnation = img->incarnation;
    k->seq = img->seq;
    k->taken++;
    s->registered = true;
}

void enc_run_snaps_used_remote(struct enc_run_snaps *s, int rank)
{
    if (s == NULL)
        return;
    drop(&s->r[rank]);
    s->r[rank].used++;
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
    free(s->floors);
    free(s);
}

/* ---- trim floors of communicators other than the world ---- */

/* Where the newest images stand on communicator cid: the lowest position
 * among ranks not done (*floor), and how many images list it. */
static uint32_t listed(const struct enc_run_snaps *s, const bool *done, uint64_t cid,
                       uint32_t *members, uint64_t *floor)
{
    uint32_t n = 0;

    *floor = UINT64_MAX;
    for (int r = 0; r < s->np; r++) {
        const struct parked *k = &s->r[r];

        for (uint32_t i = 0; present(k) && i < k->ncomms; i++) {
            if (k->comms[i].cid != cid)
                continue;
            n++;
            *members = k->comms[i].members;
            if (!done[r])
                *floor = ENC_MIN(*floor, k->comms[i].next);
        }
    }
    return n;
}

/* The floor announced for cid so far (0: none), made when absent. */
static struct comm_floor *floor_of(struct enc_run_snaps *s, uint64_t cid)
{
    for (size_t i = 0; i < s->nfloors; i++)
        if (s->floors[i].cid == cid)
            return &s->floors[i];
    if (ENC_VEC_RESERVE(s->floors, s->capfloors, s->nfloors + 1) != ENC_OK)
        return NULL;
    s->floors[s->nfloors] = (struct comm_floor){.cid = cid};
    return &s->floors[s->nfloors++];
}

static void comm_floor(struct enc_run_snaps *s, const bool *done, uint64_t cid,
                       enc_run_floor_fn fn, void *arg)
{
    struct comm_floor *f;
    uint32_t members = 0;
    uint64_t floor;

    /* an image of a member taken before the communicator existed does not
     * list it: only when every member's does is the lowest position safe */
    if (listed(s, done, cid, &members, &floor) != members || floor == UINT64_MAX)
        return;
    if ((f = floor_of(s, cid)) == NULL || floor <= f->floor)
        return;
    f->floor = floor;
    fn(arg, cid, floor);
}

void enc_run_snaps_comm_floors(struct enc_run_snaps *s, const bool *done, enc_run_floor_fn fn,
                               void *arg)
{
    if (s == NULL || !s->registered)
        return;
    s->registered = false;
    for (int r = 0; r < s->np; r++)
        for (uint32_t i = 0; present(&s->r[r]) && i < s->r[r].ncomms; i++)
            comm_floor(s, done, s->r[r].comms[i].cid, fn, arg);
}
