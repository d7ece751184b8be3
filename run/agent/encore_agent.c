/*
 * encore_agent.c - encore-agent, one per host of a multi-host job.
 * Started by encore-run through --rsh (or srun) as
 *     encore-agent --host NAME --index I --connect ADDR[,ADDR...] --port P
 *                  --tracker-port TP [--shm NP:RANK[,RANK...]] [--snapshots NP]
 * it reads the job secret from its standard input (never the command
 * line), connects to the first of encore-run's addresses that answers and
 * authenticates, then spawns, kills and reaps that host's ranks on request.
 * Ranks write to the agent's own stdout/stderr (the rsh channel back to
 * encore-run), tagged by rank with --tag-output.  When encore-run goes
 * silent or away, the agent SIGKILLs its ranks and exits: a host cut off
 * from the job must not keep stale ranks running.  Each rank gets a private
 * directory in this host's TMPDIR (run/common/jobdir.c), all removed when
 * the agent exits.  With --shm (the job's size and the ranks this host runs
 * at the start) it owns the host's shared-memory segment (shm/shm.h): every
 * one of those ranks is added before the first is spawned, so each learns
 * all its host peers, and each of them (restarts too) inherits it.  A rank
 * that moves here later from a lost host is not in it and uses TCP.
 * With --snapshots NP (the job's size) it also owns the snapshot images
 * of its ranks (images.h): they park here and are activated here when
 * their rank dies, on encore-run's word.
 */
#include "enc.h"
#include "agent/images.h"
#include "common/agent_proto.h"
#include "common/proc.h"
#include "net/sock.h"
#include "proto/auth.h"
#include "proto/frame.h"
#include "core/procmem.h"
#include "shm/shm.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#define AGENT_MAX_RANKS 1024
#define CONNECT_EACH_MS 3000
#define SECRET_WAIT_MS 30000
#define SHM_MAX_NP (1 << 20)

struct arank {
    int rank;
    uint32_t inc;
    pid_t pid;                    /* 0: free slot */
    long private_kb;              /* largest private RSS sampled (-1: none) */
    struct enc_run_stream out, err;
};

struct agent {
    const char *host, *addrs, *shm_arg;
    int index;
    int snap_np;                  /* --snapshots: the job's size (0: no images here) */
    struct agent_images *images;  /* NULL: snapshots off on this host */
    struct enc_shm_host shm;      /* this host's segment (memfd -1: none) */
    int shm_ranks[AGENT_MAX_RANKS], nshm_ranks;
    uint16_t port, tracker_port;
    struct enc_secret secret;
    char secret_hex[2 * ENC_SECRET_LEN + 1];
    char used_addr[64];
    char jobdir[4096];            /* this host's job directory (jobdir.c) */
    int fd, sfd;
    struct enc_frame_reader rd;
    struct arank r[AGENT_MAX_RANKS];
    uint64_t last_seen, next_hb, hb_timeout_ns;
};

static void die(const struct agent *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void die(const struct agent *a, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "encore-agent (host %s): ", a->host ? a->host : "?");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void parse_args(struct agent *a, int argc, char **argv)
{
    static const struct option lo[] = {
        {"host", 1, NULL, 'h'}, {"index", 1, NULL, 'i'}, {"connect", 1, NULL, 'c'},
        {"port", 1, NULL, 'p'}, {"tracker-port", 1, NULL, 't'}, {"shm", 1, NULL, 's'},
        {"snapshots", 1, NULL, 'n'}, {NULL, 0, NULL, 0}};
    int ch;

    while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (ch) {
        case 'h': a->host = optarg; break;
        case 'i': a->index = atoi(optarg); break;
        case 'c': a->addrs = optarg; break;
        case 'p': a->port = (uint16_t)atoi(optarg); break;
        case 't': a->tracker_port = (uint16_t)atoi(optarg); break;
        case 's': a->shm_arg = optarg; break;
        case 'n': a->snap_np = atoi(optarg); break;
        default: die(a, "usage: encore-agent --host NAME --index I --connect ADDRS --port P "
                        "--tracker-port TP [--shm NP:RANKS] [--snapshots NP] (secret on stdin)");
        }
    }
    if (a->host == NULL || a->addrs == NULL || a->port == 0 || a->tracker_port == 0)
        die(a, "missing --host, --connect, --port or --tracker-port");
    if (a->snap_np < 0 || a->snap_np > SHM_MAX_NP)
        die(a, "malformed --snapshots (the job's size, 1..%d)", SHM_MAX_NP);
}

/* The host's segment with every rank it starts with, before any spawns. */
static void create_shm(struct agent *a)
{
    int np = 0;

    a->shm.memfd = -1;
    if (a->shm_arg == NULL)
        return;
    if (enc_agent_shm_parse(a->shm_arg, SHM_MAX_NP, &np, a->shm_ranks, AGENT_MAX_RANKS,
                            &a->nshm_ranks) != ENC_OK)
        die(a, "malformed --shm '%s' (NP:RANK,RANK,... increasing, below NP)", a->shm_arg);
    enc_shm_host_create(&a->shm, np);
    for (int i = 0; i < a->nshm_ranks; i++)
        if (enc_shm_host_add_rank(&a->shm, a->shm_ranks[i]) != ENC_OK)
            return; /* the segment is gone (warned): TCP */
    ENC_DEBUG("agent", "host %s: segment for %d of %d ranks", a->host, a->nshm_ranks, np);
}

/* "ENCORE_SHM_FD=..." and "ENCORE_SHM_EVENTFDS=..." for one of the ranks
 * the segment was made for (false for any other rank, or no segment). */
static bool shm_env(const struct agent *a, uint32_t rank, char *fd_kv, size_t cap,
                    char **evfds_kv)
{
    char fd[16], *evfds;
    bool mine = false;

    for (int i = 0; i < a->nshm_ranks; i++)
        mine |= a->shm_ranks[i] == (int)rank;
    if (!mine || !enc_shm_host_env(&a->shm, fd, sizeof(fd), &evfds))
        return false;
    snprintf(fd_kv, cap, "ENCORE_SHM_FD=%s", fd);
    if (asprintf(evfds_kv, "ENCORE_SHM_EVENTFDS=%s", evfds) < 0)
        *evfds_kv = NULL;
    free(evfds);
    return *evfds_kv != NULL;
}

/* The secret: one hex line on stdin, bounded in time. */
static void read_secret(struct agent *a)
{
    struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
    char line[2 * ENC_SECRET_LEN + 8];
    size_t n = 0;
    ssize_t got;

    while (n < sizeof(line) - 1 && memchr(line, '\n', n) == NULL) {
        if (poll(&p, 1, SECRET_WAIT_MS) <= 0 ||
            (got = read(STDIN_FILENO, line + n, sizeof(line) - 1 - n)) <= 0)
            break;
        n += (size_t)got;
    }
    line[n] = '\0';
    line[strcspn(line, "\r\n")] = '\0';
    if (enc_secret_from_hex(&a->secret, line) != ENC_OK)
        die(a, "no valid job secret on standard input");
    enc_secret_to_hex(&a->secret, a->secret_hex);
    memset(line, 0, sizeof(line));
}

static enc_status_t try_addr(struct agent *a, const char *addr)
{
    struct enc_auth_id id = {.role = ENC_ROLE_AGENT, .rank = (uint32_t)a->index};
    enc_status_t rv;

    if ((rv = enc_sock_connect(addr, a->port, enc_deadline_ms(CONNECT_EACH_MS), &a->fd)) != ENC_OK)
        return rv;
    if ((rv = enc_auth_client(a->fd, &a->secret, &id, enc_deadline_ms(CONNECT_EACH_MS))) != ENC_OK)
        enc_sock_close(&a->fd);
    return rv;
}

/* The first address that connects and authenticates wins. */
static void connect_back(struct agent *a)
{
    char list[1024], *save = NULL;
    enc_status_t rv = ENC_ERR_INVAL;

    snprintf(list, sizeof(list), "%s", a->addrs);
    for (char *s = strtok_r(list, ",", &save); s != NULL; s = strtok_r(NULL, ",", &save)) {
        if ((rv = try_addr(a, s)) == ENC_OK) {
            snprintf(a->used_addr, sizeof(a->used_addr), "%s", s);
            return;
        }
        ENC_DEBUG("agent", "encore-run at %s:%u: %s", s, a->port, encore_strerror(rv));
    }
    die(a, "cannot reach encore-run at %s port %u: %s", a->addrs, a->port, encore_strerror(rv));
}

static struct arank *find(struct agent *a, int rank)
{
    for (int i = 0; i < AGENT_MAX_RANKS; i++)
        if (a->r[i].pid > 0 && a->r[i].rank == rank)
            return &a->r[i];
    return NULL;
}

static struct arank *free_slot(struct agent *a)
{
    for (int i = 0; i < AGENT_MAX_RANKS; i++)
        if (a->r[i].pid == 0 && a->r[i].out.fd < 0 && a->r[i].err.fd < 0)
            return &a->r[i];
    return NULL;
}

static void note(struct agent *a, uint8_t type, uint32_t rank, uint32_t inc, uint32_t value,
                 const char *text)
{
    struct enc_agent_note m = {.rank = rank, .inc = inc, .value = value};

    snprintf(m.text, sizeof(m.text), "%s", text ? text : "");
    if (enc_agent_send_note(a->fd, type, &m) != ENC_OK)
        ENC_DEBUG("agent", "cannot send to encore-run");
}

/* Adds "NAME=value" entries to a received environment (malloc'd copy). */
static char **rank_env(struct agent *a, char **env, char *extra[], int nextra)
{
    int n = 0;
    char **v;

    while (env[n] != NULL)
        n++;
    if ((v = calloc((size_t)(n + nextra + 1), sizeof(*v))) == NULL)
        return NULL;
    memcpy(v, env, (size_t)n * sizeof(*v));
    memcpy(v + n, extra, (size_t)nextra * sizeof(*v));
    return v;
}

static const char *spawn_problem(const struct enc_agent_spawn *m, char *buf, size_t cap)
{
    if (chdir(m->cwd) != 0)
        snprintf(buf, cap, "cannot enter the working directory %s: %s", m->cwd, strerror(errno));
    else if (access(m->path, X_OK) != 0)
        snprintf(buf, cap, "cannot run %s: %s", m->path, strerror(errno));
    else
        return NULL;
    return buf;
}

/* "ENCORE_RANK_TMPDIR=<jobdir>/rankR.I", the directory made afresh. */
static const char *rank_dir(struct agent *a, const struct enc_agent_spawn *m, char *kv, size_t cap)
{
    static const char key[] = "ENCORE_RANK_TMPDIR=";

    snprintf(kv, cap, "%s", key);
    if (enc_run_rankdir(a->jobdir, (int)m->rank, m->inc, kv + strlen(key), cap - strlen(key)) != ENC_OK)
        return NULL;
    return kv;
}

static void do_spawn(struct agent *a, const struct enc_agent_spawn *m)
{
    char why[ENC_AGENT_TEXT_MAX], sec[128], host[128], trk[128], dir[4200], shm_fd[64];
    char snap[160], *evfds = NULL, *extra[] = {sec, host, trk, dir, NULL, NULL, NULL, NULL};
    int nextra = 4;
    struct arank *s = free_slot(a);
    char **env;

    if (spawn_problem(m, why, sizeof(why)) != NULL || s == NULL) {
        note(a, ENC_MSG_AGENT_FAILED, m->rank, m->inc, 0, s ? why : "too many ranks");
        return;
    }
    if (rank_dir(a, m, dir, sizeof(dir)) == NULL) {
        snprintf(why, sizeof(why), "cannot create a private directory in %.200s", a->jobdir);
        note(a, ENC_MSG_AGENT_FAILED, m->rank, m->inc, 0, why);
        return;
    }
    snprintf(sec, sizeof(sec), "ENCORE_SECRET=%s", a->secret_hex);
    snprintf(host, sizeof(host), "ENCORE_HOST=%s", a->host);
    snprintf(trk, sizeof(trk), "ENCORE_TRACKER=%s:%u", a->used_addr, a->tracker_port);
    if (a->images != NULL) { /* this host's parking (none: the rank takes no snapshot) */
        snprintf(snap, sizeof(snap), "ENCORE_SNAPSHOT_SOCK=%s", agent_images_sock(a->images));
        extra[nextra++] = snap;
    }
    if (shm_env(a, m->rank, shm_fd, sizeof(shm_fd), &evfds)) {
        extra[nextra++] = shm_fd;
        extra[nextra++] = evfds;
    }
    if ((env = rank_env(a, m->env, extra, nextra)) == NULL ||
        enc_run_spawn(m->path, m->argv, env, m->bind_to[0] ? m->bind_to : NULL,
                      (int)m->bind_index, m->tag_output, &s->out, &s->err, &s->pid) != ENC_OK) {
        snprintf(why, sizeof(why), "cannot start %s", m->path);
        note(a, ENC_MSG_AGENT_FAILED, m->rank, m->inc, 0, why);
    } else {
        s->rank = s->out.rank = s->err.rank = (int)m->rank; /* streams got the slot */
        s->inc = m->inc;
        s->private_kb = -1;
        agent_images_spawned(a->images, (int)m->rank, m->inc);
        note(a, ENC_MSG_AGENT_STARTED, m->rank, m->inc, (uint32_t)s->pid, NULL);
    }
    free(env);
    free(evfds);
    memset(sec, 0, sizeof(sec));
}

/* ACTIVATE: the rank's newest image here becomes incarnation inc, in a
 * slot of its own (its output goes through the pipes it shares with the
 * incarnation it was taken from); NOIMAGE when there is none. */
static void do_activate(struct agent *a, const struct enc_agent_note *m)
{
    struct arank *s = free_slot(a);
    pid_t pid;

    if (s == NULL ||
        agent_images_activate(a->images, (int)m->rank, m->inc, m->text, &pid) != ENC_OK) {
        note(a, ENC_MSG_AGENT_NOIMAGE, m->rank, m->inc, 0, NULL);
        return;
    }
    s->pid = pid;
    s->rank = (int)m->rank;
    s->inc = m->inc;
    s->private_kb = -1;
}

static void on_frame(struct agent *a)
{
    struct enc_agent_spawn sp;
    struct enc_agent_note kn;
    struct arank *r;
    uint8_t type = a->rd.hdr.type;

    a->last_seen = enc_now_ns();
    if (type == ENC_MSG_AGENT_SPAWN &&
        enc_agent_spawn_decode(&sp, a->rd.payload, (size_t)a->rd.hdr.len) == ENC_OK) {
        do_spawn(a, &sp);
        enc_agent_spawn_free(&sp);
    } else if (type == ENC_MSG_AGENT_KILL &&
               enc_agent_note_decode(&kn, a->rd.payload, (size_t)a->rd.hdr.len) == ENC_OK) {
        if ((r = find(a, (int)kn.rank)) != NULL && r->inc == kn.inc)
            kill(r->pid, (int)kn.value);
    } else if (type == ENC_MSG_AGENT_ACTIVATE &&
               enc_agent_note_decode(&kn, a->rd.payload, (size_t)a->rd.hdr.len) == ENC_OK) {
        do_activate(a, &kn);
    } else if (type == ENC_MSG_AGENT_FORGET &&
               enc_agent_note_decode(&kn, a->rd.payload, (size_t)a->rd.hdr.len) == ENC_OK) {
        agent_images_forget(a->images, (int)kn.rank);
    } else if (type != ENC_MSG_AGENT_HEARTBEAT) {
        ENC_WARN("agent", "unexpected or malformed frame type %u from encore-run", type);
    }
}

static void kill_all_and_exit(struct agent *a, const char *why)
{
    for (int i = 0; i < AGENT_MAX_RANKS; i++)
        if (a->r[i].pid > 0)
            kill(a->r[i].pid, SIGKILL);
    agent_images_close(a->images); /* they are children too */
    a->images = NULL;
    while (waitpid(-1, NULL, 0) > 0)
        ;
    enc_run_jobdir_remove(a->jobdir);
    ENC_DEBUG("agent", "%s: exiting", why);
    exit(1);
}

/* The rank in slot r exited with wait status `status`: EXITED with its
 * memory and the segment's. */
static void exited(struct agent *a, struct arank *r, int status)
{
    struct enc_agent_mem mem = {.private_kb = r->private_kb, .shm_used_kb = -1,
                                .shm_alloc_kb = -1};
    uint64_t used, alloc;
    char text[96];

    if (enc_shm_host_usage(&a->shm, &used, &alloc) == ENC_OK) {
        mem.shm_used_kb = (long)(used / 1024);
        mem.shm_alloc_kb = (long)(alloc / 1024);
    }
    enc_agent_mem_format(&mem, text, sizeof(text));
    r->pid = 0;
    note(a, ENC_MSG_AGENT_EXITED, (uint32_t)r->rank, r->inc, (uint32_t)status, text);
}

static void reap(struct agent *a)
{
    struct signalfd_siginfo si;
    int status;
    pid_t pid;

    while (read(a->sfd, &si, sizeof(si)) == sizeof(si))
        if (si.ssi_signo != SIGCHLD)
            kill_all_and_exit(a, "terminated");
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        bool rank = false;

        for (int i = 0; i < AGENT_MAX_RANKS; i++)
            if (a->r[i].pid == pid) {
                exited(a, &a->r[i], status);
                rank = true;
            }
        if (!rank)
            (void)agent_images_reaped(a->images, pid); /* an image, or a program's orphan */
    }
}

static void input(struct agent *a)
{
    enc_status_t got;

    while ((got = enc_frame_reader_progress(&a->rd, a->fd)) == ENC_OK) {
        on_frame(a);
        enc_frame_reader_reset(&a->rd);
    }
    if (got < 0)
        kill_all_and_exit(a, "encore-run closed the connection");
}

static void timers(struct agent *a)
{
    uint64_t now = enc_now_ns();

    if (now - a->last_seen > a->hb_timeout_ns)
        kill_all_and_exit(a, "encore-run silent");
    if (now >= a->next_hb) {
        a->next_hb = now + ENC_AGENT_HEARTBEAT_MS * 1000000ull;
        if (enc_agent_send(a->fd, ENC_MSG_AGENT_HEARTBEAT, NULL, 0) != ENC_OK)
            kill_all_and_exit(a, "cannot reach encore-run");
        for (int i = 0; i < AGENT_MAX_RANKS; i++) /* for the job summary */
            enc_proc_sample_private_rss(a->r[i].pid, &a->r[i].private_kb);
    }
}

static void loop(struct agent *a)
{
    struct pollfd pf[2 + 2 * AGENT_MAX_RANKS + 1 + AGENT_MAX_RANKS];
    struct enc_run_stream *st[2 + 2 * AGENT_MAX_RANKS];

    for (;;) {
        int n = 2, ni;

        pf[0] = (struct pollfd){.fd = a->fd, .events = POLLIN};
        pf[1] = (struct pollfd){.fd = a->sfd, .events = POLLIN};
        for (int i = 0; i < AGENT_MAX_RANKS; i++) {
            struct enc_run_stream *s2[2] = {&a->r[i].out, &a->r[i].err};

            for (int k = 0; k < 2; k++)
                if (s2[k]->fd >= 0) {
                    st[n] = s2[k];
                    pf[n++] = (struct pollfd){.fd = s2[k]->fd, .events = POLLIN};
                }
        }
        ni = agent_images_pollfds(a->images, pf + n, 1 + AGENT_MAX_RANKS);
        if (poll(pf, (nfds_t)(n + ni), ENC_AGENT_HEARTBEAT_MS / 2) < 0 && errno != EINTR)
            kill_all_and_exit(a, "poll failed");
        agent_images_serve(a->images, pf + n, ni);
        for (int i = 2; i < n; i++)
            if (pf[i].revents)
                enc_run_stream_pump(st[i]);
        if (pf[1].revents)
            reap(a);
        if (pf[0].revents)
            input(a);
        timers(a);
    }
}

int main(int argc, char **argv)
{
    static struct agent a;
    struct enc_agent_note hello = {0};
    char msg[512];

    a.fd = -1;
    for (int i = 0; i < AGENT_MAX_RANKS; i++)
        a.r[i].out.fd = a.r[i].err.fd = -1;
    parse_args(&a, argc, argv);
    enc_log_set_tag("agent");
    create_shm(&a);
    if (enc_tunables_check(ENC_TCLASS_USER, msg, sizeof(msg)) != ENC_OK)
        die(&a, "%s", msg);
    read_secret(&a);
    if (enc_run_signalfd(&a.sfd) != ENC_OK)
        exit(1); /* said by enc_run_signalfd */
    connect_back(&a);
    if (enc_run_jobdir_create(a.jobdir, sizeof(a.jobdir)) != ENC_OK)
        die(&a, "cannot create a job directory (see above)");
    if (a.snap_np > 0 && agent_images_open(&a.images, a.snap_np, a.jobdir, a.fd) != ENC_OK)
        ENC_WARN("agent", "host %s: snapshots off on this host's ranks: their images "
                 "cannot be parked here (see above)", a.host);
    enc_frame_reader_init(&a.rd, ENC_CTRL_MAX_PAYLOAD);
    a.hb_timeout_ns = enc_tunable_uint(ENC_TUNE_HEARTBEAT_TIMEOUT_MS) * 1000000ull;
    a.last_seen = enc_now_ns();
    hello.rank = (uint32_t)a.index;
    hello.value = (uint32_t)getpid();
    snprintf(hello.text, sizeof(hello.text), "%s", a.host);
    if (enc_agent_send_note(a.fd, ENC_MSG_AGENT_HELLO, &hello) != ENC_OK) {
        enc_run_jobdir_remove(a.jobdir);
        die(&a, "cannot greet encore-run at %s", a.used_addr);
    }
    loop(&a);
    return 0;
}
