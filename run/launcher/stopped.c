/*
 * stopped.c - is a rank process stopped (SIGSTOP, a debugger)?  Heartbeats
 * only watch ranks that registered with the tracker; one stopped before it
 * registers is found here (job.c), killed and restarted.
 */
#include "enc.h"
#include "launcher/launcher.h"

#include <stdio.h>
#include <string.h>

bool enc_run_pid_stopped(pid_t pid)
{
    char path[64], buf[512], *p;
    size_t n;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    if ((f = fopen(path, "re")) == NULL)
        return false;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* "pid (comm) S ...": comm may hold spaces and parentheses */
    if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
        return false;
    return p[2] == 'T' || p[2] == 't';
}
