/*
 * encore_run.c - encore-run: an mpirun-style launcher with an embedded tracker
 * that restarts ranks which die (see job.c).
 */
#include "enc.h"
#include "launcher/launcher.h"

#include <limits.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    struct enc_run_opts o;
    char path[PATH_MAX];
    bool handled;

    enc_log_set_tag("run");
    if (enc_run_parse_args(argc, argv, &o, &handled) != ENC_OK)
        return 2;
    if (handled)
        return 0;
    if (enc_run_resolve_program(o.argv[0], path, sizeof(path)) != ENC_OK) {
        fprintf(stderr, "encore-run: %s: command not found or not executable\n", o.argv[0]);
        return 127;
    }
    return enc_run_job(&o, path);
}
