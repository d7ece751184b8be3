/*
 * test_threads.c - shim/core/threads and thread_pools: a thread is found
 * by its id with the routine that started it and the module that routine
 * lies in; the main thread has none; an ended thread is not found; a
 * program's thread is no pool's, GCC's OpenMP workers are libgomp's pool,
 * and its stop ends them.
 */
#include "enc.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/thread_pools.h"
#include "core/threads.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int tid, stop;

static void *sleeper(void *arg)
{
    pthread_mutex_lock(&mu);
    tid = (int)gettid();
    pthread_cond_broadcast(&cv);
    while (!stop)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    return arg;
}

static pthread_t start_sleeper(void)
{
    pthread_t t;

    cr_assert_eq(pthread_create(&t, NULL, sleeper, NULL), 0);
    pthread_setname_np(t, "sleeper");
    pthread_mutex_lock(&mu);
    while (tid == 0)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    return t;
}

static void end_sleeper(pthread_t t)
{
    pthread_mutex_lock(&mu);
    stop = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    cr_assert_eq(pthread_join(t, NULL), 0);
}

static bool listed(int t)
{
    int tids[256], n = enc_threads_list(tids, 256);

    for (int i = 0; i < n; i++)
        if (tids[i] == t)
            return true;
    return false;
}

Test(threads, a_program_thread_is_found_with_its_routine_and_no_pool)
{
    pthread_t t = start_sleeper();
    struct enc_thread_origin o;

    cr_assert(listed(tid));
    cr_assert_eq(enc_thread_origin(tid, &o), ENC_OK);
    cr_assert_eq(o.tid, tid);
    cr_assert_eq(o.start, (void *)sleeper);
    cr_assert_str_eq(o.comm, "sleeper");
    cr_assert(enc_thread_in_program(&o));
    cr_assert_null(enc_pool_of(&o));
    cr_assert(!enc_thread_is_python(&o));
    end_sleeper(t);
}

Test(threads, the_main_thread_has_no_start_routine)
{
    struct enc_thread_origin o;

    cr_assert_eq(enc_thread_origin((int)getpid(), &o), ENC_OK);
    cr_assert_null(o.start);
    cr_assert(!enc_thread_in_program(&o));
}

Test(threads, an_ended_thread_is_not_found)
{
    pthread_t t = start_sleeper();
    int gone = tid;
    struct enc_thread_origin o;

    end_sleeper(t);
    cr_assert_eq(enc_thread_origin(gone, &o), ENC_ERR_NOT_FOUND);
    cr_assert_eq(o.comm[0], '\0');
}

#ifdef _OPENMP
/* A worker of GCC's OpenMP runtime (thread 1 of a team of 2). */
static int omp_worker(void)
{
    int w = 0;

    omp_set_num_threads(2);
#pragma omp parallel
    if (omp_get_thread_num() == 1)
        w = (int)gettid();
    return w;
}

Test(thread_pools, gcc_openmp_workers_are_its_pool_and_stop)
{
    struct timespec ms = {0, 1000000};
    int w = omp_worker();
    struct enc_thread_origin o;
    const struct enc_pool *p;

    cr_assert_gt(w, 0);
    cr_assert_eq(enc_thread_origin(w, &o), ENC_OK);
    cr_assert_not_null(p = enc_pool_of(&o));
    cr_assert_str_eq(p->name, "GCC's OpenMP runtime");
    cr_assert(!p->stays);
    cr_assert(!p->inside(&o)); /* this thread is outside any parallel region */
    cr_assert_eq(p->stop(&o), 0);
    for (int i = 0; i < 200 && listed(w); i++)
        nanosleep(&ms, NULL);
    cr_assert(!listed(w), "the worker did not end once its pool was paused");
    cr_assert_gt(omp_worker(), 0, "no new pool after the pause");
}
#endif
