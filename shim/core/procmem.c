/*
 * procmem.c - a process's private resident memory (procmem.h).
 */
#include "enc.h"
#include "core/procmem.h"

#include <stdio.h>

enc_status_t enc_proc_private_rss(pid_t pid, long *kb)
{
    char path[64], line[128];
    long anon = -1, file = -1, v;
    FILE *f;

    if (pid == 0)
        snprintf(path, sizeof(path), "/proc/self/status");
    else
        snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    if ((f = fopen(path, "re")) == NULL)
        return ENC_ERR_NOT_FOUND;
    while (fgets(line, sizeof(line), f) != NULL && (anon < 0 || file < 0)) {
        if (sscanf(line, "RssAnon: %ld", &v) == 1)
            anon = v;
        else if (sscanf(line, "RssFile: %ld", &v) == 1)
            file = v;
    }
    fclose(f);
    if (anon < 0 || file < 0)
        return ENC_ERR_NOT_FOUND; /* a zombie: its memory is gone */
    *kb = anon + file;
    return ENC_OK;
}

void enc_proc_sample_private_rss(pid_t pid, long *peak_kb)
{
    long kb;

    if (pid > 0 && enc_proc_private_rss(pid, &kb) == ENC_OK)
        *peak_kb = ENC_MAX(*peak_kb, kb);
}
