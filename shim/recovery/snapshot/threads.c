/*
 * threads.c - may this process be copied by fork()?  Only the calling
 * thread exists in the copy.  libencore's own threads (listener, tracker
 * client) are recreated on restore, the progress thread of nonblocking
 * collectives when next needed (mpi/icoll.c: a snapshot waits until it is
 * idle and nothing is pending); Open MPI's singleton progress thread
 * (started by the real MPI_Init) is never needed again, because a restored
 * rank does not finalize the real MPI.
 *
 * Any other thread is looked up by the code that started it
 * (core/threads.h).  A known library's pool (core/thread_pools.h) is made
 * safe: OpenBLAS's and GCC's OpenMP pools are stopped (they start again
 * when next used), LLVM's OpenMP pool stays (its own fork handler resets
 * the runtime in the copy); not while the calling thread is inside a
 * parallel region, whose workers are busy with its work.  Any other
 * thread (the program's own, Python's threading, another library's, the
 * main thread while another one calls MPI) would be missing in the copy:
 * the snapshot is skipped, and the reason names the thread and what to do.
 */
#include "enc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/thread_pools.h"
#include "core/threads.h"
#include "engine/layer.h"
#include "recovery/recovery.h"
#include "recovery/snapshot/image.h"
#include "recovery/snapshot/threads.h"

#define MAX_TIDS 256

static int before[MAX_TIDS], nbefore; /* before the real MPI_Init */
static int mpi[MAX_TIDS], nmpi;       /* started by the real MPI_Init */

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

void enc_snap_guard_restored(void)
{
    if (guard != NULL && guard->restored != NULL)
        guard->restored();
}

void enc_snap_threads_before_mpi(void)
{
    nbefore = ENC_MAX(enc_threads_list(before, MAX_TIDS), 0);
}

void enc_snap_threads_joined(void)
{
    int now[MAX_TIDS], eng[4], n = enc_threads_list(now, MAX_TIDS);
    int ne = enc_engine_thread_ids(eng, 4);

    nmpi = 0;
    for (int i = 0; i < n; i++)
        if (!in(before, nbefore, now[i]) && !in(eng, ne, now[i]))
            mpi[nmpi++] = now[i];
}

/* Threads libencore did not start, into out (the caller's, libencore's and,
 * before any restore, the real MPI's left out): their number, -1 when
 * /proc/self/task cannot be read, MAX_TIDS when it lists too many. */
static int foreign_threads(int *out)
{
    int now[MAX_TIDS], eng[4 + 64], n = enc_threads_list(now, MAX_TIDS), nf = 0;
    int ne = enc_engine_thread_ids(eng, 4), self = (int)gettid();

    if (n < 0 || n == MAX_TIDS)
        return n;
    ne += guard_threads(eng + ne, 64);
    for (int i = 0; i < n; i++)
        if (now[i] != self && !in(eng, ne, now[i]) &&
            (enc_snapshot_restored() || !in(mpi, nmpi, now[i])))
            out[nf++] = now[i];
    return nf;
}

/* Why thread o, no known pool's, cannot be left out of a copy, and what to do. */
static void why_missing(const struct enc_thread_origin *o, bool found, char *why, size_t cap)
{
    char who[320];

    if (!found)
        snprintf(who, sizeof(who), "libencore cannot tell which code started it");
    else if (o->start == NULL)
        snprintf(who, sizeof(who), "the program's main thread, while MPI is called from "
                 "another one");
    else if (enc_thread_is_python(o))
        snprintf(who, sizeof(who), "a Python threading thread");
    else if (enc_thread_in_program(o))
        snprintf(who, sizeof(who), "the program's own, started in %s", enc_thread_module_name(o));
    else if (enc_thread_module_symbol(o, "__sanitizer_set_report_path") != NULL)
        snprintf(who, sizeof(who), "started through %s, a sanitizer whose thread start hides "
                 "which code started it", enc_thread_module_name(o));
    else
        snprintf(who, sizeof(who), "started in %s", enc_thread_module_name(o));
    snprintf(why, cap, "thread %d '%s' (%s) would be missing in the copy (a fork copies only "
             "the calling thread); a lost rank re-executes from the start or its last "
             "checkpoint, and the log is not trimmed, until no such thread runs at a "
             "collective: end (join) it once its work is done", o->tid, o->comm, who);
}

struct plan {
    const struct enc_pool *stop[4];  /* pools to stop, one thread of each */
    struct enc_thread_origin stop_o[4];
    int nstop;
    int gone[MAX_TIDS], ngone;       /* threads that stopping them ends */
};

/* Adds thread o of pool p to the plan, or says why it cannot be made safe. */
static bool plan_pool(struct plan *pl, const struct enc_pool *p, const struct enc_thread_origin *o,
                      char *why, size_t cap)
{
    int i;

    if (p->inside != NULL && p->inside(o)) {
        snprintf(why, cap, "MPI is called inside a parallel region of %s (%s; thread %d '%s' "
                 "is one of its workers): snapshots are taken only at collectives outside "
                 "parallel regions", p->name, enc_thread_module_name(o), o->tid, o->comm);
        return false;
    }
    if (p->stop == NULL)
        return true; /* it stays */
    for (i = 0; i < pl->nstop && pl->stop_o[i].base != o->base; i++)
        ;
    if (i == pl->nstop && i < (int)ENC_ARRAY_SIZE(pl->stop)) {
        pl->stop[i] = p;
        pl->stop_o[pl->nstop++] = *o;
    }
    pl->gone[pl->ngone++] = o->tid;
    return true;
}

/* Looks up every foreign thread: ENC_OK with what to stop in pl, or
 * ENC_ERR_STATE with the first thread that cannot be made safe. */
static enc_status_t make_plan(const int *tids, int n, struct plan *pl, char *why, size_t cap)
{
    for (int i = 0; i < n; i++) {
        struct enc_thread_origin o;
        bool found = enc_thread_origin(tids[i], &o) == ENC_OK;
        const struct enc_pool *p = found ? enc_pool_of(&o) : NULL;

        if (p == NULL) {
            why_missing(&o, found, why, cap);
            return ENC_ERR_STATE;
        }
        if (!plan_pool(pl, p, &o, why, cap))
            return ENC_ERR_STATE;
    }
    return ENC_OK;
}

/* Longest wait for the threads of a stopped pool to end (GCC's OpenMP
 * workers end just after the pause returns); a pool whose threads do not
 * end costs each snapshot attempt this long. */
#define STOP_WAIT_MS 50

static bool any_alive(const int *tids, int n)
{
    int now[MAX_TIDS], k = enc_threads_list(now, MAX_TIDS);

    for (int i = 0; i < n; i++)
        if (in(now, k, tids[i]))
            return true;
    return false;
}

static enc_status_t run_plan(const struct plan *pl, char *why, size_t cap)
{
    struct timespec ms = {0, 1000000};

    for (int i = 0; i < pl->nstop; i++) {
        if (pl->stop[i]->stop(&pl->stop_o[i]) != 0) {
            snprintf(why, cap, "the threads of %s (%s) did not stop: %s", pl->stop[i]->name,
                     enc_thread_module_name(&pl->stop_o[i]), pl->stop[i]->remedy);
            return ENC_ERR_STATE;
        }
    }
    for (int t = 0; t < STOP_WAIT_MS && any_alive(pl->gone, pl->ngone); t++)
        nanosleep(&ms, NULL);
    if (any_alive(pl->gone, pl->ngone)) {
        snprintf(why, cap, "the threads of %s (%s) did not end within %d ms of being stopped: "
                 "%s", pl->stop[0]->name, enc_thread_module_name(&pl->stop_o[0]), STOP_WAIT_MS,
                 pl->stop[0]->remedy);
        return ENC_ERR_STATE;
    }
    return ENC_OK;
}

/* The foreign threads into tids: their number, or -1 with the reason. */
static int list_foreign(int *tids, char *why, size_t cap)
{
    int n = foreign_threads(tids);

    if (n < 0)
        snprintf(why, cap, "cannot list /proc/self/task");
    else if (n == MAX_TIDS)
        snprintf(why, cap, "the process has %d threads or more, more than libencore looks "
                 "through", MAX_TIDS);
    return n < 0 || n == MAX_TIDS ? -1 : n;
}

enc_status_t enc_snap_threads_check(char *why, size_t cap)
{
    int tids[MAX_TIDS], n = list_foreign(tids, why, cap);
    struct plan pl = {.nstop = 0}, left = {.nstop = 0};
    enc_status_t rv;

    if (n <= 0)
        return n == 0 ? ENC_OK : ENC_ERR_STATE;
    if ((rv = make_plan(tids, n, &pl, why, cap)) != ENC_OK ||
        (rv = run_plan(&pl, why, cap)) != ENC_OK)
        return rv;
    /* what is left must be pools that reset themselves in the copy */
    if ((n = list_foreign(tids, why, cap)) < 0)
        return ENC_ERR_STATE;
    if ((rv = make_plan(tids, n, &left, why, cap)) != ENC_OK)
        return rv;
    if (left.ngone > 0) {
        snprintf(why, cap, "%s started new threads while being stopped", left.stop[0]->name);
        return ENC_ERR_STATE;
    }
    return ENC_OK;
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
