/*
 * tmpdir.c - a rank's private directory for Open MPI's session files, so
 * that a rank that exits without MPI_Finalize (tracker lost, job aborted)
 * leaves nothing in TMPDIR; encore-run removes the directories of ranks it
 * had to kill (run/common/jobdir.c).
 */
#include "enc.h"
#include "core/tmpdir.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)flag;
    (void)f;
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

enc_status_t enc_rmtree(const char *path)
{
    if (path == NULL || *path == '\0')
        return ENC_OK;
    if (nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0 || errno == ENOENT)
        return ENC_OK;
    return ENC_ERR_SYS;
}

enc_status_t enc_rank_tmpdir_prepare(void)
{
    const char *dir = enc_tunable_str(ENC_TUNE_RANK_TMPDIR), *tmp = getenv("TMPDIR");
    char buf[4096];

    if (*dir == '\0') {
        snprintf(buf, sizeof(buf), "%s/encore-rank.XXXXXX",
                 tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
        if (mkdtemp(buf) == NULL) {
            ENC_WARN("core", "cannot create a private directory in %s: %m", buf);
            return ENC_ERR_SYS;
        }
        if (setenv("ENCORE_RANK_TMPDIR", buf, 1) != 0)
            return ENC_ERR_NOMEM;
        dir = buf;
    }
    return setenv("OMPI_MCA_orte_tmpdir_base", dir, 1) == 0 ? ENC_OK : ENC_ERR_NOMEM;
}

/* Up to cap - 1 bytes of a small file, NUL-terminated; -1 when unreadable. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
    ssize_t n;
    int fd;

    if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
        return -1;
    n = read(fd, buf, cap - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return n;
}

/* pid does not exist, or is a zombie (a SIGKILLed owner not reaped yet). */
static bool pid_gone(long pid)
{
    char path[64], st[512], *p;

    if (kill((pid_t)pid, 0) != 0)
        return errno == ESRCH;
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    if (read_small(path, st, sizeof(st)) <= 0 || (p = strrchr(st, ')')) == NULL)
        return false;
    return p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

enum owner { OWNER_NONE, OWNER_ALIVE, OWNER_GONE };

/* Whose jobdir is: no (readable) .owner file, or one naming a pid that
 * lives or is gone; the file's text in text. */
static enum owner owner_state(const char *jobdir, char *text, size_t cap)
{
    char path[4200];
    long pid = 0;
    ssize_t n;

    snprintf(path, sizeof(path), "%s/" ENC_JOBDIR_OWNER, jobdir);
    if ((n = read_small(path, text, cap)) <= 0)
        return OWNER_NONE;
    for (ssize_t i = 0; i < n && text[i] >= '0' && text[i] <= '9' && pid <= INT_MAX; i++)
        pid = pid * 10 + (text[i] - '0');
    if (pid <= 0 || pid > INT_MAX)
        return OWNER_NONE;
    return pid_gone(pid) ? OWNER_GONE : OWNER_ALIVE;
}

bool enc_jobdir_orphaned(const char *jobdir)
{
    char text[32];

    return owner_state(jobdir, text, sizeof(text)) == OWNER_GONE;
}

/* The job directory around a rank's own, once the rank's is gone: rmdir
 * succeeds for the last rank out.  While the owner lives it removes the
 * directory at the end.  Once the owner is gone, .owner goes first and
 * comes back (same text) when other ranks' directories are still there;
 * ranks racing here see it missing for a moment and try again.  What a
 * SIGKILLed rank leaves, the next job's encore-run or agent reaps.  An
 * owner that still looks alive is waited for up to wait_ms (it closed the
 * tracker connection while exiting, before it is a zombie). */
static void remove_jobdir(const char *jobdir, int wait_ms)
{
    char owner[4200], text[32];
    int fd, waited = 0;

    snprintf(owner, sizeof(owner), "%s/" ENC_JOBDIR_OWNER, jobdir);
    for (int tries = 0; tries < 8; tries++) {
        if (rmdir(jobdir) == 0 || errno == ENOENT)
            return;
        switch (owner_state(jobdir, text, sizeof(text))) {
        case OWNER_ALIVE:
            if (waited >= wait_ms)
                return;
            usleep(10000);
            waited += 10;
            tries--;
            continue;
        case OWNER_NONE: continue;
        case OWNER_GONE: break;
        }
        if (unlink(owner) != 0)
            continue;
        if (rmdir(jobdir) == 0)
            return;
        fd = open(owner, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd >= 0) {
            if (write(fd, text, strlen(text)) < 0)
                unlink(owner); /* no use to anyone without the pid */
            close(fd);
        }
        return;
    }
}

void enc_rank_tmpdir_remove(void) { enc_rank_tmpdir_remove_wait(0); }

void enc_rank_tmpdir_remove_wait(int owner_wait_ms)
{
    const char *dir = enc_tunable_str(ENC_TUNE_RANK_TMPDIR);
    char parent[4096];
    const char *base;

    if (*dir == '\0' || enc_rmtree(dir) != ENC_OK)
        return;
    snprintf(parent, sizeof(parent), "%s", dir);
    dirname(parent);
    base = strrchr(parent, '/');
    base = base != NULL ? base + 1 : parent;
    if (strncmp(base, ENC_JOBDIR_PREFIX, strlen(ENC_JOBDIR_PREFIX)) == 0)
        remove_jobdir(parent, owner_wait_ms);
}
