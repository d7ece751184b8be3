/*
 * image.c - the life of a snapshot image (image.h): born orphaned (adopted by
 * encore-run, never the program's child), it drops libencore's
 * descriptors, notes where each regular file stands, registers with
 * encore-run and blocks on that socket (no CPU, no timer).  EOF (encore-run
 * closed it or is gone) ends it; ACTIVATE makes it the rank again: offsets
 * back, new incarnation, libencore's threads and connections recreated.
 */
#include "enc.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/fullio.h"
#include "core/vec.h"
#include "engine/engine.h"
#include "engine/layer.h"
#include "proto/snapmsg.h"
#include "recovery/channels.h"
#include "recovery/log/log.h"
#include "recovery/log/refetch.h"
#include "recovery/log/spill.h"
#include "recovery/ops.h"
#include "recovery/snapshot/image.h"
#include "recovery/snapshot/precopy.h"

struct offset {
    int fd;
    off_t off;
};

static struct offset *offs;
static bool restored; /* this process is a restored image */

bool enc_snapshot_restored(void) { return restored; }

static int noffs;

/* Where every regular file open in the program stands now: the rank goes
 * on reading and writing them through the same open file descriptions.
 * Not 0, 1 and 2: redirected to a file, they are shared with encore-run
 * and the other ranks, and rewinding them would overwrite their output. */
void enc_snap_note_offsets(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    struct stat st;
    size_t cap = 0;

    enc_snap_forget_offsets();
    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        off_t off;

        if (e->d_name[0] == '.' || fd <= STDERR_FILENO || fd == dirfd(d) ||
            enc_precopy_owns_fd(fd) || fstat(fd, &st) != 0 ||
            !S_ISREG(st.st_mode) || (off = lseek(fd, 0, SEEK_CUR)) < 0)
            continue;
        if (ENC_VEC_RESERVE(offs, cap, (size_t)noffs + 1) != ENC_OK)
            break;
        offs[noffs++] = (struct offset){fd, off};
    }
    closedir(d);
}

void enc_snap_forget_offsets(void)
{
    free(offs);
    offs = NULL;
    noffs = 0;
}

static void restore_offsets(void)
{
    for (int i = 0; i < noffs; i++)
        if (lseek(offs[i].fd, offs[i].off, SEEK_SET) < 0)
            ENC_WARN("snapshot", "cannot restore the offset of fd %d: %m", offs[i].fd);
    enc_snap_forget_offsets();
}

/* fork() of a vfork() child, which exits at once: the copy, orphaned at
 * birth, is adopted by encore-run (a child subreaper) and is never the
 * program's child.  vfork shares this process's memory, so the copy's pid
 * comes back in a variable and only one page-table copy is made.  SIGCHLD
 * is blocked meanwhile so a program's handler cannot reap the vfork child.
 * Returns 0 in the copy, its pid here, -1 (errno set) on failure. */
pid_t enc_snap_fork_orphan(void)
{
    volatile pid_t img = 0;
    volatile int err = 0;
    sigset_t chld, old;
    pid_t mid;

    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &chld, &old);
    if ((mid = vfork()) == 0) {
        pid_t pid = fork();

        if (pid == 0) {
            pthread_sigmask(SIG_SETMASK, &old, NULL);
            return 0;
        }
        img = pid;
        err = errno;
        _exit(0);
    }
    while (mid > 0 && waitpid(mid, NULL, 0) < 0 && errno == EINTR)
        ;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (mid < 0 || img <= 0) {
        errno = mid < 0 ? errno : err;
        return -1;
    }
    return img;
}

static int connect_launcher(const char *name)
{
    struct sockaddr_un sa;
    unsigned len = enc_snap_sockaddr(name, &sa);
    int fd = len ? socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0) : -1;

    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, len) == 0)
        return fd;
    if (fd >= 0)
        close(fd);
    return -1;
}

bool enc_snap_parking_reachable(void)
{
    int fd = connect_launcher(enc_tunable_str(ENC_TUNE_SNAPSHOT_SOCK));

    if (fd < 0)
        return false;
    close(fd); /* encore-run reads no hello and drops it */
    return true;
}

struct chan_list {
    struct enc_snap_comm *out;
    uint32_t n, cap;
};

/* A point-to-point channel this image received on, as a "communicator" of
 * one member (its receiver) at the position it needs next: encore-run
 * turns it into a trim floor like any other, and the channel's sender
 * releases the messages below (p2p/conn_trim.c). */
static void add_channel(void *arg, uint64_t key, uint64_t pos)
{
    struct chan_list *l = arg;

    if (l->n < l->cap)
        l->out[l->n++] = (struct enc_snap_comm){.cid = key, .next = pos, .members = 1};
}

/* Registers as an image of incarnation inc, with the positions its log
 * has on each communicator (encore-run trims the logs by them), and waits;
 * returns the activation, or _exits. */
static void park(uint64_t seq, uint32_t inc, struct enc_snap_activate *a)
{
    static struct enc_snap_comm comms[ENC_SNAP_COMMS_MAX]; /* no malloc in the copy */
    struct enc_snap_hello h = {.magic = ENC_SNAP_MAGIC, .wire = ENC_SNAP_WIRE,
                               .rank = (uint32_t)enc_engine_rank(),
                               .incarnation = inc,
                               .pid = (uint32_t)getpid(),
                               .ckpt_version = enc_rec.committed.version, .seq = seq};
    int fd = connect_launcher(enc_tunable_str(ENC_TUNE_SNAPSHOT_SOCK));
    char name[16] = "";
    struct chan_list chans;

    h.ncomms = (uint32_t)enc_log_positions(comms, ENC_SNAP_COMMS_MAX);
    chans = (struct chan_list){comms, h.ncomms, ENC_SNAP_COMMS_MAX};
    enc_channels_each_received(add_channel, &chans); /* channels past the limit are not trimmed */
    h.ncomms = chans.n;
    /* ps and tests tell a parked image from the rank by its name */
    (void)prctl(PR_GET_NAME, name);
    (void)prctl(PR_SET_NAME, ENC_SNAP_IMAGE_NAME);
    if (fd < 0 || enc_write_full(fd, &h, sizeof(h), -1) != sizeof(h) ||
        enc_write_full(fd, comms, h.ncomms * sizeof(comms[0]), -1) != h.ncomms * sizeof(comms[0]) ||
        enc_read_full(fd, a, sizeof(*a), -1) != sizeof(*a) ||
        a->magic != ENC_SNAP_MAGIC)
        _exit(0); /* replaced, the job ended, or encore-run is gone */
    (void)prctl(PR_SET_NAME, name);
    close(fd);
    a->inject[sizeof(a->inject) - 1] = '\0';
}

/* Before it becomes the rank, an activated image leaves a copy of itself
 * parked for the new incarnation: killed while it replays (or before its
 * own first snapshot), the rank is restored from the same point again
 * rather than re-executed from a log that snapshots have trimmed.  The
 * copy parks and, activated in turn, does the same. */
static pid_t leave_spare(uint64_t seq, struct enc_snap_activate *a)
{
    pid_t pid;

    while ((pid = enc_snap_fork_orphan()) == 0)
        park(seq, a->incarnation, a);
    if (pid < 0)
        ENC_WARN("snapshot", "no spare image of the snapshot at seq %llu: fork: %m",
                 (unsigned long long)seq);
    return pid;
}

pid_t enc_snap_child(uint64_t seq)
{
    struct enc_snap_activate a;
    char inc[16];
    enc_status_t rv;
    size_t wiped;
    pid_t spare;

    restored = true;
    wiped = enc_log_forget_wiped(); /* before anything reads the log */

    enc_engine_fork_child();
    park(seq, enc_engine_incarnation(), &a);
    if (!enc_precopy_activated()) {
        ENC_ERROR("snapshot", "restored rank cannot make its copied buffers its own: %m");
        _exit(1);
    }
    spare = leave_spare(seq, &a);
    restore_offsets();
    enc_spill_restored();
    snprintf(inc, sizeof(inc), "%u", a.incarnation);
    setenv("ENCORE_INCARNATION", inc, 1);
    setenv("ENCORE_INJECT", a.inject, 1);
    /* the copied bytes here too: the rank that forked this image may have
     * died before it could print its "taken" line */
    ENC_INFO("snapshot", "restored from the snapshot at seq %lld as incarnation %u (%.1f MiB "
             "of buffers copied at its fork); replay starts at seq %llu", (long long)seq,
             a.incarnation, (double)enc_precopy_last_bytes() / (1 << 20),
             (unsigned long long)seq + 1);
    if ((rv = enc_engine_rejoin(a.incarnation)) != ENC_OK) {
        ENC_ERROR("snapshot", "restored rank cannot rejoin the job: %s", encore_strerror(rv));
        _exit(1);
    }
    if (wiped > 0)
        enc_refetch_forgotten();
    return spare;
}
