/*
 * tmpdir.c - a rank's private directory for Open MPI's session files, so
 * that a rank that exits without MPI_Finalize (tracker lost, job aborted)
 * leaves nothing in TMPDIR; encore-run removes the directories of ranks it
 * had to kill (run/launcher/jobdir.c).
 */
#include "enc.h"
#include "core/tmpdir.h"

#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define JOBDIR_PREFIX "encore-run."

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

void enc_rank_tmpdir_remove(void)
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
    if (strncmp(base, JOBDIR_PREFIX, strlen(JOBDIR_PREFIX)) == 0)
        rmdir(parent); /* fails while other ranks' directories are there */
}
