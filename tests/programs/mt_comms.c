/*
 * mt_comms.c - an unmodified MPI_THREAD_MULTIPLE program: two threads call
 * MPI at once, each on a communicator of its own (duplicates of the world,
 * made by the main thread), and nonblocking requests complete on another
 * thread than the one that started them.  Then the main thread alone goes on
 * on the world, as after a threaded phase of a real program.
 *
 * Thread A ("comm-a"), on comm A: per iteration local work (sleep), an in-place
 * MPI_Allreduce; every 4th iteration an MPI_Iallreduce instead, whose request
 * it hands to the main thread, which completes it with MPI_Wait and hands the
 * vector back.  Thread B ("comm-b"), on comm B: an MPI_Bcast from rank (i mod size),
 * and every 5th iteration an MPI_Iallreduce completed by B itself with
 * MPI_Test polling.  Collectives on each communicator are in the same order
 * on every rank (the standard's rule); across the two they interleave as
 * the threads run.  With --world W the main thread meanwhile runs W
 * allreduces on the world between completing A's requests: three threads
 * in MPI at once, on three communicators.
 *
 * Options:
 *   --iters N      iterations of each thread (default 100)
 *   --count C      doubles per collective (default 4096)
 *   --work-us U    local work per iteration (default 5000)
 *   --world W      world allreduces of the main thread while A and B run (default 0)
 *   --serial N     iterations of the main thread alone afterwards (default 0)
 *
 * Each rank prints one line at the end:
 *     rank R level L A <hex64> B <hex64> W <hex64> S <hex64>
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <mpi.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long iters = 100, count = 4096, work = 5000;
static int rank, size;
static MPI_Comm comm_a, comm_b;

/* Thread A's requests, completed by the main thread. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    MPI_Request req;   /* MPI_REQUEST_NULL: none waiting */
    int done;          /* the main thread completed it */
    int finished;      /* thread A ran all its iterations */
} hand = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, MPI_REQUEST_NULL, 0, 0};

static long opt(int argc, char **argv, const char *name, long dflt)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return strtol(argv[i + 1], NULL, 10);
    return dflt;
}

static void fill(double *v, uint64_t state, int salt)
{
    for (long k = 0; k < count; k++)
        v[k] = (double)((state >> (k % 48)) % 1024 + (uint64_t)rank * 3 + (uint64_t)salt);
}

static uint64_t fold(uint64_t state, const double *v)
{
    for (long k = 0; k < count; k++)
        state = (state ^ (uint64_t)v[k]) * 0x100000001b3ull;
    return state;
}

/* Hands req to the main thread and waits until it completed it. */
static void complete_on_main(MPI_Request req)
{
    pthread_mutex_lock(&hand.mu);
    hand.req = req;
    hand.done = 0;
    pthread_cond_broadcast(&hand.cv);
    while (!hand.done)
        pthread_cond_wait(&hand.cv, &hand.mu);
    pthread_mutex_unlock(&hand.mu);
}

static void *thread_a(void *arg)
{
    uint64_t *state = arg;
    double *v = malloc((size_t)count * sizeof(double));

    for (long i = 0; v != NULL && i < iters; i++) {
        fill(v, *state, 1);
        usleep((useconds_t)work);
        if (i % 4 == 3) {
            MPI_Request req;

            MPI_Iallreduce(MPI_IN_PLACE, v, (int)count, MPI_DOUBLE, MPI_SUM, comm_a, &req);
            complete_on_main(req);
        } else {
            MPI_Allreduce(MPI_IN_PLACE, v, (int)count, MPI_DOUBLE, MPI_SUM, comm_a);
        }
        *state = fold(*state, v);
    }
    pthread_mutex_lock(&hand.mu);
    hand.finished = 1;
    pthread_cond_broadcast(&hand.cv);
    pthread_mutex_unlock(&hand.mu);
    free(v);
    return v == NULL ? arg : NULL;
}

static void *thread_b(void *arg)
{
    uint64_t *state = arg;
    double *v = malloc((size_t)count * sizeof(double));

    for (long i = 0; v != NULL && i < iters; i++) {
        fill(v, *state, 2);
        usleep((useconds_t)(work * 3 / 4));
        if (i % 5 == 4) {
            MPI_Request req;
            int flag = 0;

            MPI_Iallreduce(MPI_IN_PLACE, v, (int)count, MPI_DOUBLE, MPI_MAX, comm_b, &req);
            while (!flag) {
                MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
                if (!flag)
                    usleep(200);
            }
        } else {
            MPI_Bcast(v, (int)count, MPI_DOUBLE, (int)(i % size), comm_b);
        }
        *state = fold(*state, v);
    }
    free(v);
    return v == NULL ? arg : NULL;
}

/* The main thread completes thread A's request, if one waits: with
 * MPI_Test (block 0: it must not block in MPI_Wait while a world collective
 * of its own is still to come, or a rank whose thread A waits for that one
 * would never start the request this rank waits for), else with MPI_Wait
 * once one comes.  False once A has finished. */
static int serve_a(int block)
{
    int more, flag = 1;

    pthread_mutex_lock(&hand.mu);
    while (block && hand.req == MPI_REQUEST_NULL && !hand.finished)
        pthread_cond_wait(&hand.cv, &hand.mu);
    if (hand.req != MPI_REQUEST_NULL) {
        if (block)
            MPI_Wait(&hand.req, MPI_STATUS_IGNORE); /* sets it to MPI_REQUEST_NULL */
        else
            MPI_Test(&hand.req, &flag, MPI_STATUS_IGNORE);
        hand.done = flag;
        if (flag)
            pthread_cond_broadcast(&hand.cv);
    }
    more = !hand.finished || hand.req != MPI_REQUEST_NULL;
    pthread_mutex_unlock(&hand.mu);
    return more;
}

/* W world allreduces of the main thread, A's requests served in between. */
static uint64_t world_phase(long w, double *v)
{
    uint64_t state = 0x452821e638d01377ull;

    for (long i = 0; i < w; i++) {
        serve_a(0);
        fill(v, state, 4);
        usleep((useconds_t)work);
        MPI_Allreduce(MPI_IN_PLACE, v, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        state = fold(state, v);
    }
    return state;
}

int main(int argc, char **argv)
{
    uint64_t a = 0x9e3779b97f4a7c15ull, b = 0x243f6a8885a308d3ull, s = 0x13198a2e03707344ull, w;
    long serial, world;
    pthread_t ta, tb;
    int provided;
    double *v;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    iters = opt(argc, argv, "--iters", iters);
    count = opt(argc, argv, "--count", count);
    work = opt(argc, argv, "--work-us", work);
    serial = opt(argc, argv, "--serial", 0);
    world = opt(argc, argv, "--world", 0);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "rank %d: MPI_THREAD_MULTIPLE not provided (%d)\n", rank, provided);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_a);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_b);
    if ((v = malloc((size_t)count * sizeof(double))) == NULL)
        MPI_Abort(MPI_COMM_WORLD, 6);
    if (pthread_create(&ta, NULL, thread_a, &a) != 0 ||
        pthread_create(&tb, NULL, thread_b, &b) != 0)
        MPI_Abort(MPI_COMM_WORLD, 4);
    pthread_setname_np(ta, "comm-a");
    pthread_setname_np(tb, "comm-b");
    w = world_phase(world, v);
    while (serve_a(1))
        ;
    if (pthread_join(ta, NULL) != 0 || pthread_join(tb, NULL) != 0)
        MPI_Abort(MPI_COMM_WORLD, 5);
    for (long i = 0; i < serial; i++) {
        fill(v, s ^ a ^ b ^ w, 3);
        usleep((useconds_t)work);
        MPI_Allreduce(MPI_IN_PLACE, v, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        s = fold(s, v);
    }
    printf("rank %d level %d A %016llx B %016llx W %016llx S %016llx\n", rank, provided,
           (unsigned long long)a, (unsigned long long)b, (unsigned long long)w,
           (unsigned long long)s);
    free(v);
    MPI_Comm_free(&comm_a);
    MPI_Comm_free(&comm_b);
    MPI_Finalize();
    return 0;
}
