/*
 * remote.c - the agents of a multi-host job, seen from encore-run.  Each
 * non-local host gets one agent started as "RSH HOST encore-agent ..."
 * with the job secret on its standard input.  The agent connects back to
 * the first of this host's addresses that works and authenticates (role
 * agent, rank = host index); then frames flow both ways with heartbeats.
 * An agent whose rsh exits before it connects, or that does not connect
 * in time, never came up; one whose connection closes or goes silent is
 * lost, and with it its host.
 */
#include "enc.h"
#include "launcher/launcher.h"
#include "launcher/remote.h"
#include "net/sock.h"
#include "proto/frame.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PENDING 64
#define REAP_GRACE_MS 2000

enum agent_state { A_NONE = 0, A_STARTING, A_UP, A_GONE };

struct agent {
    enum agent_state state;
    pid_t rsh_pid;
    int fd;
    struct enc_frame_reader rd;
    uint64_t deadline;            /* A_STARTING: must be up by then */
    uint64_t last_seen, next_hb;
};

struct pending {
    int fd;
    struct enc_auth_server auth;
    uint64_t deadline;
};

struct enc_run_remote {
    struct enc_run_remote_config cfg;
    struct enc_secret secret;
    int lfd;
    uint16_t port;
    char addrs[1024];             /* every address of this host, comma separated */
    char local_addr[64];
    struct agent a[ENC_RUN_MAX_HOSTS];
    struct pending p[MAX_PENDING];
    int np;
    uint64_t hb_timeout_ns;
};

/* IPv4 addresses of this host, non-loopback first. */
static void host_addrs(char *out, size_t cap)
{
    struct ifaddrs *ifa, *i;
    size_t n = 0;

    out[0] = '\0';
    if (getifaddrs(&ifa) == 0) {
        for (int loop = 0; loop < 2; loop++)
            for (i = ifa; i != NULL; i = i->ifa_next) {
                char buf[INET_ADDRSTRLEN];
                const struct sockaddr_in *sa = (const void *)i->ifa_addr;

                if (sa == NULL || sa->sin_family != AF_INET ||
                    (ntohl(sa->sin_addr.s_addr) >> 24 == 127) != (loop == 1))
                    continue;
                inet_ntop(AF_INET, &sa->sin_addr, buf, sizeof(buf));
                n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s", n ? "," : "", buf);
            }
        freeifaddrs(ifa);
    }
    if (out[0] == '\0' || n >= cap)
        snprintf(out, cap, "127.0.0.1");
}

/* encore-agent next to this encore-run, unless ENCORE_AGENT names one. */
static void agent_path(char *out, size_t cap)
{
    const char *env = enc_tunable_str(ENC_TUNE_AGENT);
    char self[PATH_MAX];
    ssize_t n;

    if (env != NULL && env[0] != '\0') {
        snprintf(out, cap, "%s", env);
        return;
    }
    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[n > 0 ? n : 0] = '\0';
    if (strrchr(self, '/') != NULL)
        *strrchr(self, '/') = '\0';
    /* libtool's uninstalled binaries live in .libs/ */
    if (strlen(self) > 6 && strcmp(self + strlen(self) - 6, "/.libs") == 0)
        self[strlen(self) - 6] = '\0';
    snprintf(out, cap, "%s/encore-agent", self);
}

/* "NP:R,R,...": the ranks the agent of host h will run, for its segment. */
static char *shm_arg(const struct enc_run_remote *rm, int h)
{
    size_t cap = 16 + 12 * (size_t)rm->cfg.np;
    char *s = malloc(cap);

    if (s != NULL && rm->cfg.host_of != NULL &&
        enc_agent_shm_format(s, cap, rm->cfg.np, rm->cfg.host_of, h))
        return s;
    free(s);
    return NULL;
}

/* "RSH HOST agent --host HOST --index I --connect A --port P --tracker-port T
 * [--shm NP:RANKS]" */
static int build_argv(const struct enc_run_remote *rm, int h, char *words, size_t cap,
                      char **argv, int max)
{
    char agent[PATH_MAX], *save = NULL, *shm = shm_arg(rm, h);
    int n = 0;

    agent_path(agent, sizeof(agent));
    snprintf(words, cap, "%s", rm->cfg.rsh);
    for (char *w = strtok_r(words, " \t", &save); w != NULL && n < max - 16;
         w = strtok_r(NULL, " \t", &save))
        argv[n++] = w;
    argv[n++] = (char *)rm->cfg.hosts->h[h].name;
    argv[n++] = strdup(agent);
    argv[n++] = "--host";
    argv[n++] = (char *)rm->cfg.hosts->h[h].name;
    argv[n++] = "--index";
    asprintf(&argv[n++], "%d", h);
    argv[n++] = "--connect";
    argv[n++] = (char *)rm->addrs;
    argv[n++] = "--port";
    asprintf(&argv[n++], "%u", rm->port);
    argv[n++] = "--tracker-port";
    asprintf(&argv[n++], "%u", rm->cfg.tracker_port);
    if (shm != NULL) {
        argv[n++] = "--shm";
        argv[n++] = shm;
    }
    if (rm->cfg.snapshots) {
        argv[n++] = "--snapshots";
        asprintf(&argv[n++], "%d", rm->cfg.np);
    }
    argv[n] = NULL;
    return n;
}

static void rsh_child(char **argv, int in_r)
{
    sigset_t none;

    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    setpgid(0, 0); /* a ^C to encore-run must not reach remote sessions first */
    if (dup2(in_r, STDIN_FILENO) < 0)
        _exit(127);
    execvp(argv[0], argv);
    fprintf(stderr, "encore-run: cannot run the rsh command '%s': %s\n", argv[0],
            strerror(errno));
    _exit(127);
}

static enc_status_t start_agent(struct enc_run_remote *rm, int h)
{
    char words[1024], hex[2 * ENC_SECRET_LEN + 2], *argv[64];
    int pp[2];
    pid_t pid;

    build_argv(rm, h, words, sizeof(words), argv, 64);
    if (pipe2(pp, O_CLOEXEC) != 0 || (pid = fork()) < 0) {
        ENC_ERROR("run", "cannot start the agent of host %s: %m", rm->cfg.hosts->h[h].name);
        return ENC_ERR_SYS;
    }
    if (pid == 0)
        rsh_child(argv, pp[0]);
    close(pp[0]);
    enc_secret_to_hex(&rm->secret, hex);
    strcat(hex, "\n");
    if (write(pp[1], hex, strlen(hex)) < 0)
        ENC_DEBUG("run", "agent of host %s: secret not delivered: %m", argv[0]);
    memset(hex, 0, sizeof(hex));
    close(pp[1]);
    ENC_DEBUG("run", "agent of host %s started through '%s' (pid %d)",
              rm->cfg.hosts->h[h].name, rm->cfg.rsh, (int)pid);
    rm->a[h] = (struct agent){.state = A_STARTING, .rsh_pid = pid, .fd = -1,
        .deadline = enc_deadline_ms((int64_t)enc_tunable_uint(ENC_TUNE_AGENT_START_TIMEOUT_MS))};
    return ENC_OK;
}

enc_status_t enc_run_remote_start(struct enc_run_remote **out,
                                  const struct enc_run_remote_config *cfg)
{
    struct enc_run_remote *rm = calloc(1, sizeof(*rm));
    enc_status_t rv;

    if (rm == NULL)
        return ENC_ERR_NOMEM;
    rm->cfg = *cfg;
    rm->secret = *cfg->secret;
    rm->hb_timeout_ns = enc_tunable_uint(ENC_TUNE_HEARTBEAT_TIMEOUT_MS) * 1000000ull;
    host_addrs(rm->addrs, sizeof(rm->addrs));
    if ((rv = enc_sock_listen(NULL, 0, &rm->lfd, &rm->port)) != ENC_OK) {
        free(rm);
        return rv;
    }
    *out = rm;
    for (int h = 0; h < cfg->hosts->n; h++)
        if (!cfg->hosts->h[h].local && (rv = start_agent(rm, h)) != ENC_OK)
            return rv;
    return ENC_OK;
}

static void agent_close(struct agent *a, enum agent_state state)
{
    if (a->fd >= 0) {
        enc_sock_close(&a->fd);
        enc_frame_reader_fini(&a->rd);
    }
    a->state = state;
}

void enc_run_remote_destroy(struct enc_run_remote *rm)
{
    uint64_t until = enc_deadline_ms(REAP_GRACE_MS);
    bool left = true;

    if (rm == NULL)
        return;
    for (int h = 0; h < rm->cfg.hosts->n; h++)
        agent_close(&rm->a[h], A_GONE);
    for (int i = 0; i < rm->np; i++)
        enc_sock_close(&rm->p[i].fd);
    while (left && enc_now_ns() < until) {
        left = false;
        for (int h = 0; h < rm->cfg.hosts->n; h++)
            if (rm->a[h].rsh_pid > 0 && waitpid(rm->a[h].rsh_pid, NULL, WNOHANG) == 0)
                left = true;
            else
                rm->a[h].rsh_pid = 0;
        if (left)
            usleep(20 * 1000);
    }
    for (int h = 0; h < rm->cfg.hosts->n; h++)
        if (rm->a[h].rsh_pid > 0 && kill(rm->a[h].rsh_pid, SIGKILL) == 0)
            waitpid(rm->a[h].rsh_pid, NULL, 0);
    enc_sock_close(&rm->lfd);
    free(rm);
}

int enc_run_remote_fds(struct enc_run_remote *rm, struct pollfd *pf, int cap)
{
    int n = 0;

    if (n < cap)
        pf[n++] = (struct pollfd){.fd = rm->lfd, .events = POLLIN};
    for (int i = 0; i < rm->np && n < cap; i++)
        pf[n++] = (struct pollfd){.fd = rm->p[i].fd, .events = POLLIN};
    for (int h = 0; h < rm->cfg.hosts->n && n < cap; h++)
        if (rm->a[h].state == A_UP)
            pf[n++] = (struct pollfd){.fd = rm->a[h].fd, .events = POLLIN};
    return n;
}

static void accept_all(struct enc_run_remote *rm)
{
    int fd;

    while (enc_sock_accept(rm->lfd, &fd) == ENC_OK) {
        struct pending *p;

        if (rm->np == MAX_PENDING) {
            enc_sock_close(&fd);
            continue;
        }
        p = &rm->p[rm->np];
        *p = (struct pending){.fd = fd,
            .deadline = enc_deadline_ms((int64_t)enc_tunable_uint(ENC_TUNE_CONNECT_TIMEOUT_MS))};
        if (enc_auth_server_start(&p->auth, fd, &rm->secret) != ENC_OK)
            enc_sock_close(&fd);
        else
            rm->np++;
    }
}

static void pending_drop(struct enc_run_remote *rm, int i, bool close_fd)
{
    if (close_fd)
        enc_sock_close(&rm->p[i].fd);
    rm->p[i] = rm->p[--rm->np];
}

static void note_local_addr(struct enc_run_remote *rm, int fd)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof(sa);

    if (rm->local_addr[0] == '\0' && getsockname(fd, (struct sockaddr *)&sa, &len) == 0 &&
        sa.sin_family == AF_INET)
        inet_ntop(AF_INET, &sa.sin_addr, rm->local_addr, sizeof(rm->local_addr));
}

/* An authenticated agent connection: it must be the expected host's. */
static void agent_in(struct enc_run_remote *rm, int i, const struct enc_auth_id *id)
{
    int fd = rm->p[i].fd, h = (int)id->rank;
    struct agent *a;

    if (id->role != ENC_ROLE_AGENT || h < 0 || h >= rm->cfg.hosts->n ||
        rm->a[h].state != A_STARTING) {
        ENC_WARN("run", "refused an agent connection claiming host index %d", h);
        pending_drop(rm, i, true);
        return;
    }
    pending_drop(rm, i, false);
    a = &rm->a[h];
    a->fd = fd;
    a->state = A_UP;
    a->last_seen = enc_now_ns();
    a->next_hb = 0;
    enc_frame_reader_init(&a->rd, ENC_CTRL_MAX_PAYLOAD);
    note_local_addr(rm, fd);
}

static void pending_input(struct enc_run_remote *rm, int i)
{
    struct enc_auth_id id;
    enc_status_t rv = enc_auth_server_progress(&rm->p[i].auth, rm->p[i].fd, &id);

    if (rv == ENC_OK)
        agent_in(rm, i, &id);
    else if (rv != ENC_INPROGRESS)
        pending_drop(rm, i, true); /* the handshake logged why */
}

static void host_lost(struct enc_run_remote *rm, int h, const char *why)
{
    agent_close(&rm->a[h], A_GONE);
    if (rm->a[h].rsh_pid > 0)
        kill(rm->a[h].rsh_pid, SIGKILL);
    if (rm->cfg.hooks.lost != NULL)
        rm->cfg.hooks.lost(rm->cfg.hooks.arg, h, why);
}

/* PARKED and RESTORED: an image of a rank of host h (nothing else
 * comes from an agent whose host runs no such rank). */
static void image_frame(struct enc_run_remote *rm, int h)
{
    const struct enc_run_remote_hooks *k = &rm->cfg.hooks;
    struct agent *a = &rm->a[h];
    struct enc_agent_image m;
    struct enc_run_snap_info img;

    if (enc_agent_image_decode(&m, a->rd.payload, (size_t)a->rd.hdr.len) != ENC_OK ||
        m.rank >= (uint32_t)rm->cfg.np) {
        ENC_WARN("run", "malformed image frame from the agent of host %s",
                 rm->cfg.hosts->h[h].name);
        return;
    }
    img = (struct enc_run_snap_info){.incarnation = m.inc, .seq = m.seq, .comms = m.comms,
                                     .ncomms = m.ncomms};
    if (a->rd.hdr.type == ENC_MSG_AGENT_PARKED && k->parked)
        k->parked(k->arg, h, (int)m.rank, &img);
    else if (a->rd.hdr.type == ENC_MSG_AGENT_RESTORED && k->restored)
        k->restored(k->arg, h, (int)m.rank, m.inc, (pid_t)m.pid, m.seq);
    free(m.comms);
}

static void agent_frame(struct enc_run_remote *rm, int h)
{
    const struct enc_run_remote_hooks *k = &rm->cfg.hooks;
    struct agent *a = &rm->a[h];
    struct enc_agent_note m;
    struct enc_agent_mem mem;

    a->last_seen = enc_now_ns();
    if (a->rd.hdr.type == ENC_MSG_AGENT_HEARTBEAT)
        return;
    if (a->rd.hdr.type == ENC_MSG_AGENT_PARKED || a->rd.hdr.type == ENC_MSG_AGENT_RESTORED) {
        image_frame(rm, h);
        return;
    }
    if (enc_agent_note_decode(&m, a->rd.payload, (size_t)a->rd.hdr.len) != ENC_OK) {
        ENC_WARN("run", "malformed frame from the agent of host %s", rm->cfg.hosts->h[h].name);
        return;
    }
    switch (a->rd.hdr.type) {
    case ENC_MSG_AGENT_HELLO: if (k->up) k->up(k->arg, h); break;
    case ENC_MSG_AGENT_STARTED: if (k->started) k->started(k->arg, (int)m.rank, m.inc, (pid_t)m.value); break;
    case ENC_MSG_AGENT_FAILED: if (k->failed) k->failed(k->arg, h, (int)m.rank, m.inc, m.text); break;
    case ENC_MSG_AGENT_EXITED:
        enc_agent_mem_parse(m.text, &mem);
        if (k->exited)
            k->exited(k->arg, (int)m.rank, m.inc, (int)m.value, &mem);
        break;
    case ENC_MSG_AGENT_UNPARKED:
        if (k->parked && m.rank < (uint32_t)rm->cfg.np)
            k->parked(k->arg, h, (int)m.rank, NULL);
        break;
    case ENC_MSG_AGENT_NOIMAGE:
        if (k->noimage && m.rank < (uint32_t)rm->cfg.np)
            k->noimage(k->arg, (int)m.rank, m.inc);
        break;
    default: break;
    }
}

static void agent_input(struct enc_run_remote *rm, int h)
{
    struct agent *a = &rm->a[h];
    enc_status_t got = ENC_INPROGRESS;

    while (a->state == A_UP && (got = enc_frame_reader_progress(&a->rd, a->fd)) == ENC_OK) {
        agent_frame(rm, h);
        enc_frame_reader_reset(&a->rd);
    }
    if (a->state == A_UP && got < 0)
        host_lost(rm, h, got == ENC_ERR_PEER_CLOSED ? "its agent closed the connection"
                                                    : "its agent's connection broke");
}

void enc_run_remote_events(struct enc_run_remote *rm, const struct pollfd *pf, int n)
{
    for (int k = 0; k < n; k++) {
        if (pf[k].revents == 0)
            continue;
        if (pf[k].fd == rm->lfd) {
            accept_all(rm);
            continue;
        }
        for (int i = 0; i < rm->np; i++)
            if (rm->p[i].fd == pf[k].fd) {
                pending_input(rm, i);
                break;
            }
        for (int h = 0; h < rm->cfg.hosts->n; h++)
            if (rm->a[h].state == A_UP && rm->a[h].fd == pf[k].fd)
                agent_input(rm, h);
    }
}

static void never_up(struct enc_run_remote *rm, int h, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void never_up(struct enc_run_remote *rm, int h, const char *fmt, ...)
{
    char why[400], what[300];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(why, sizeof(why), "the agent for host %s did not start (--rsh '%s'): %s",
             rm->cfg.hosts->h[h].name, rm->cfg.rsh, what);
    rm->a[h].state = A_GONE;
    if (rm->cfg.hooks.never_up != NULL)
        rm->cfg.hooks.never_up(rm->cfg.hooks.arg, h, why);
}

void enc_run_remote_timers(struct enc_run_remote *rm)
{
    uint64_t now = enc_now_ns();
    char why[80];

    for (int i = 0; i < rm->np; i++)
        if (now >= rm->p[i].deadline)
            pending_drop(rm, i--, true);
    for (int h = 0; h < rm->cfg.hosts->n; h++) {
        struct agent *a = &rm->a[h];

        if (a->state == A_STARTING && now >= a->deadline) {
            if (a->rsh_pid > 0)
                kill(a->rsh_pid, SIGKILL);
            never_up(rm, h, "no connection within %lld ms",
                     (long long)enc_tunable_uint(ENC_TUNE_AGENT_START_TIMEOUT_MS));
        } else if (a->state == A_UP && now - a->last_seen > rm->hb_timeout_ns) {
            snprintf(why, sizeof(why), "its agent was silent for more than %llu ms",
                     (unsigned long long)(rm->hb_timeout_ns / 1000000ull));
            host_lost(rm, h, why);
        } else if (a->state == A_UP && now >= a->next_hb) {
            a->next_hb = now + ENC_AGENT_HEARTBEAT_MS * 1000000ull;
            enc_agent_send(a->fd, ENC_MSG_AGENT_HEARTBEAT, NULL, 0);
        }
    }
}

uint64_t enc_run_remote_next_timer(const struct enc_run_remote *rm)
{
    uint64_t next = ENC_NEVER;

    for (int i = 0; i < rm->np; i++)
        next = ENC_MIN(next, rm->p[i].deadline);
    for (int h = 0; h < rm->cfg.hosts->n; h++) {
        const struct agent *a = &rm->a[h];

        if (a->state == A_STARTING)
            next = ENC_MIN(next, a->deadline);
        else if (a->state == A_UP)
            next = ENC_MIN(next, ENC_MIN(a->next_hb, a->last_seen + rm->hb_timeout_ns + 1000000));
    }
    return next;
}

bool enc_run_remote_child_exited(struct enc_run_remote *rm, pid_t pid, int status)
{
    for (int h = 0; h < rm->cfg.hosts->n; h++) {
        struct agent *a = &rm->a[h];

        if (a->rsh_pid != pid)
            continue;
        a->rsh_pid = 0;
        if (a->state == A_STARTING) {
            char what[96];

            enc_run_describe_status(status, what, sizeof(what));
            never_up(rm, h, "it %s", what);
        }
        return true;
    }
    return false;
}

bool enc_run_remote_all_up(const struct enc_run_remote *rm)
{
    for (int h = 0; h < rm->cfg.hosts->n; h++)
        if (rm->a[h].state == A_STARTING)
            return false;
    return true;
}

const char *enc_run_remote_local_addr(const struct enc_run_remote *rm)
{
    return rm->local_addr;
}

enc_status_t enc_run_remote_spawn(struct enc_run_remote *rm, int host,
                                  const struct enc_agent_spawn *m)
{
    static const char *const skip[] = {"ENCORE_SECRET=", "ENCORE_TRACKER=", "ENCORE_HOST=",
                                       "ENCORE_RANK_TMPDIR=", "ENCORE_SNAPSHOT_SOCK=", NULL};
    uint8_t *buf;
    size_t len;
    enc_status_t rv;

    if (rm->a[host].state != A_UP)
        return ENC_ERR_STATE;
    if ((rv = enc_agent_spawn_encode(m, skip, &buf, &len)) != ENC_OK)
        return rv;
    rv = enc_agent_send(rm->a[host].fd, ENC_MSG_AGENT_SPAWN, buf, len);
    free(buf);
    return rv;
}

void enc_run_remote_kill(struct enc_run_remote *rm, int host, int rank, uint32_t inc, int sig)
{
    struct enc_agent_note m = {.rank = (uint32_t)rank, .inc = inc, .value = (uint32_t)sig};

    if (rm->a[host].state == A_UP)
        enc_agent_send_note(rm->a[host].fd, ENC_MSG_AGENT_KILL, &m);
}

enc_status_t enc_run_remote_activate(struct enc_run_remote *rm, int host, int rank, uint32_t inc,
                                     const char *inject)
{
    struct enc_agent_note m = {.rank = (uint32_t)rank, .inc = inc};

    if (rm->a[host].state != A_UP)
        return ENC_ERR_STATE;
    snprintf(m.text, sizeof(m.text), "%s", inject);
    return enc_agent_send_note(rm->a[host].fd, ENC_MSG_AGENT_ACTIVATE, &m);
}

void enc_run_remote_forget(struct enc_run_remote *rm, int host, int rank)
{
    struct enc_agent_note m = {.rank = (uint32_t)rank};

    if (rm->a[host].state == A_UP)
        (void)enc_agent_send_note(rm->a[host].fd, ENC_MSG_AGENT_FORGET, &m);
}
