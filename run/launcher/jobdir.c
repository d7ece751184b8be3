/*
 * jobdir.c - the job's private temporary directory: one subdirectory per
 * rank process for Open MPI's session files (OMPI_MCA_orte_tmpdir_base),
 * so that nothing is left in TMPDIR when ranks are killed.  encore-run
 * removes the whole tree when the job ends; a rank removes its own when it
 * exits (shim/core/tmpdir.c), so that nothing is left when encore-run itself
 * is killed.
 */
#include "enc.h"
#include "core/tmpdir.h"
#include "launcher/launcher.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

enc_status_t enc_run_jobdir_create(char *out, size_t cap)
{
    const char *tmp = getenv("TMPDIR");

    snprintf(out, cap, "%s/encore-run.XXXXXX", tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
    if (mkdtemp(out) == NULL) {
        fprintf(stderr, "encore-run: cannot create a job directory %s: %m\n", out);
        out[0] = '\0';
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
