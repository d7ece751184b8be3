/*
 * jobdir.c - the job's private temporary directory: one subdirectory per
 * rank process for Open MPI's session files (OMPI_MCA_orte_tmpdir_base),
 * so that nothing is left in TMPDIR when ranks are killed.  encore-run
 * removes the whole tree when the job ends; a rank removes its own when it
 * exits (shim/core/tmpdir.c), so that nothing is left when encore-run itself
 * is killed.  The owner's pid is in <jobdir>/.owner: job directories whose
 * owner and ranks were all SIGKILLed (a lost host) are removed by the next
 * encore-run or agent that makes one in the same TMPDIR.
 */
#include "enc.h"
#include "core/tmpdir.h"
#include "common/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Removes the job directories in tmp of owners that are gone (a SIGKILLed
 * encore-run or agent, a host lost with its processes): theirs, and their
 * ranks' if those were SIGKILLed too.  Only this user's. */
static void reap_orphans(const char *tmp)
{
    char path[4096];
    struct dirent *e;
    struct stat st;
    DIR *d;

    if ((d = opendir(tmp)) == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, ENC_JOBDIR_PREFIX, strlen(ENC_JOBDIR_PREFIX)) != 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", tmp, e->d_name);
        if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
            !enc_jobdir_orphaned(path))
            continue;
        if (enc_rmtree(path) == ENC_OK)
            ENC_INFO("run", "removed %s, left by a job whose owner is gone", path);
    }
    closedir(d);
}

/* <jobdir>/.owner: this process's pid (core/tmpdir.h). */
static enc_status_t write_owner(const char *jobdir)
{
    char path[4200], pid[32];
    int fd, n, ok;

    snprintf(path, sizeof(path), "%s/" ENC_JOBDIR_OWNER, jobdir);
    n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
    if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0)
        return ENC_ERR_SYS;
    ok = write(fd, pid, (size_t)n) == n;
    return close(fd) == 0 && ok ? ENC_OK : ENC_ERR_SYS;
}

enc_status_t enc_run_jobdir_create(char *out, size_t cap)
{
    const char *tmp = getenv("TMPDIR");

    tmp = tmp != NULL && *tmp != '\0' ? tmp : "/tmp";
    reap_orphans(tmp);
    snprintf(out, cap, "%s/" ENC_JOBDIR_PREFIX "XXXXXX", tmp);
    if (mkdtemp(out) == NULL) {
        fprintf(stderr, "encore-run: cannot create a job directory %s: %m\n", out);
        out[0] = '\0';
        return ENC_ERR_SYS;
    }
    if (write_owner(out) != ENC_OK) {
        fprintf(stderr, "encore-run: cannot write %s/" ENC_JOBDIR_OWNER ": %m\n", out);
        enc_run_jobdir_remove(out);
        return ENC_ERR_SYS;
    }
    return ENC_OK;
}

enc_status_t enc_run_rankdir(const char *jobdir, int rank, uint32_t inc, char *out, size_t cap)
{
    snprintf(out, cap, "%s/rank%d.%u", jobdir, rank, inc);
    /* the last rank to lose the tracker or finalize removes an empty jobdir */
    if ((mkdir(jobdir, 0700) != 0 && errno != EEXIST) || enc_rmtree(out) != ENC_OK ||
        mkdir(out, 0700) != 0) {
        ENC_ERROR("run", "cannot create %s: %m", out);
        return ENC_ERR_SYS;
    }
    return ENC_OK;
}

void enc_run_jobdir_remove(char *jobdir)
{
    if (jobdir[0] != '\0' && enc_rmtree(jobdir) != ENC_OK)
        ENC_WARN("run", "cannot remove the job directory %s: %m", jobdir);
    jobdir[0] = '\0';
}
