/*
 * encore_run.c - encore-run: an mpirun-style launcher with an embedded tracker
 * that restarts ranks which die (see job.c).
 */
#include "enc.h"
#include "core/limits.h"
#include "launcher/launcher.h"

#include <limits.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    struct enc_run_opts o;
    char path[PATH_MAX];
    char msg[512];
    bool handled;

    enc_log_set_tag("run");
    if (enc_run_parse_args(argc, argv, &o, &handled) != ENC_OK)
        return 2;
    if (handled)
        return 0;
    /* per rank: tracker connection, two output pipes, an exec pipe; the
     * ranks inherit the raised limit */
    if (enc_limits_nofile(4 * (uint64_t)o.np + 64, msg, sizeof(msg)) != ENC_OK) {
        fprintf(stderr, "encore-run: -n %d: %s\n", o.np, msg);
        return 2;
    }
    if (enc_run_resolve_program(o.argv[0], path, sizeof(path)) != ENC_OK) {
        fprintf(stderr, "encore-run: %s: command not found or not executable\n", o.argv[0]);
        return 127;
    }
    return enc_run_job(&o, path);
}
