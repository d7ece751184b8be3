/*
 * threads.c - may this process be copied by fork()?  Only the calling
 * thread exists in the copy.  libencore's own threads (listener, tracker
 * client) are recreated on restore, the progress thread of nonblocking
 * collectives when next needed (mpi/icoll.c: a snapshot waits until it is
 * idle and nothing is pending); Open MPI's singleton progress thread
 * (started by the real MPI_Init) is never needed again, because a restored
 * rank does not finalize the real MPI.  Any other thread (the program's,
 * an OpenMP pool, Python threading) would be missing in the copy, so the
 * snapshot is skipped.  A thread the program started before MPI_Init is
 * the program's, whatever it does.
 */
#include "enc.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/layer.h"
#include "recovery/recovery.h"
#include "recovery/snapshot/image.h"
#include "recovery/snapshot/threads.h"

#define MAX_TIDS 64

static int before[MAX_TIDS], nbefore; /* before the real MPI_Init */
static int mpi[MAX_TIDS], nmpi;       /* started by the real MPI_Init */

static int list_tasks(int *tids, int cap)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;

    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && n < cap)
            tids[n++] = atoi(e->d_name);
    closedir(d);
    return n;
}

static bool in(const int *set, int n, int tid)
{
    for (int i = 0; i < n; i++)
        if (set[i] == tid)
            return true;
    return false;
}

/* The layer above's part in a fork (recovery.h): its locks and its
 * progress thread, which this file counts as libencore's. */
static const struct enc_fork_guard *guard;

void enc_snapshot_set_guard(const struct enc_fork_guard *g) { guard = g; }

static int guard_threads(int *tids, int cap)
{
    return guard != NULL && guard->thread_ids != NULL ? guard->thread_ids(tids, cap) : 0;
}

bool enc_snap_guard_prepare(void)
{
    return guard == NULL || guard->prepare();
}

void enc_snap_guard_forked(bool child)
{
    if (guard != NULL)
        (child ? guard->child : guard->parent)();
}

void enc_snap_threads_before_mpi(void)
{
    nbefore = ENC_MAX(list_tasks(before, MAX_TIDS), 0);
}

void enc_snap_threads_joined(void)
{
    int now[MAX_TIDS], eng[4], n = list_tasks(now, MAX_TIDS);
    int ne = enc_engine_thread_ids(eng, 4);

    nmpi = 0;
    for (int i = 0; i < n; i++)
        if (!in(before, nbefore, now[i]) && !in(eng, ne, now[i]))
            mpi[nmpi++] = now[i];
}

enc_status_t enc_snap_threads_check(char *why, size_t cap)
{
    int now[MAX_TIDS], eng[4 + 64], n = list_tasks(now, MAX_TIDS);
    int ne = enc_engine_thread_ids(eng, 4), foreign = 0;

    ne += guard_threads(eng + ne, 64);
    if (n < 0) {
        snprintf(why, cap, "cannot list /proc/self/task");
        return ENC_ERR_STATE;
    }
    for (int i = 0; i < n; i++)
        if (now[i] != getpid() && !in(eng, ne, now[i]) &&
            (enc_snapshot_restored() || !in(mpi, nmpi, now[i])))
            foreign++;
    if (foreign == 0)
        return ENC_OK;
    snprintf(why, cap, "the process has %d thread%s libencore did not start (a fork copies "
             "only the calling thread)", foreign, foreign == 1 ? "" : "s");
    return ENC_ERR_STATE;
}

static long long meminfo_kb(const char *key)
{
    char line[256];
    long long v = -1;
    size_t k = strlen(key);
    FILE *f = fopen("/proc/meminfo", "re");

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, key, k) == 0 && line[k] == ':')
            v = atoll(line + k + 1);
    fclose(f);
    return v;
}

/* Resident pages the image could have to copy: not the shared ones (the
 * host's segment, mapped files), which the image shares as they are. */
static long long rss_kb(void)
{
    long long size = 0, res = 0, shared = 0;
    FILE *f = fopen("/proc/self/statm", "re");

    if (f == NULL)
        return -1;
    if (fscanf(f, "%lld %lld %lld", &size, &res, &shared) != 3)
        res = -1;
    fclose(f);
    return res < 0 ? -1 : (res - shared) * (sysconf(_SC_PAGESIZE) / 1024);
}

enc_status_t enc_snap_memory_check(char *why, size_t cap)
{
    long long avail = meminfo_kb("MemAvailable"), rss = rss_kb();

    if (avail < 0 || rss < 0 || avail >= rss)
        return ENC_OK;
    snprintf(why, cap, "available memory (%lld MiB) is below the rank's resident size "
             "(%lld MiB)", avail / 1024, rss / 1024);
    return ENC_ERR_STATE;
}
