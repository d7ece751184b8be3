/*
 * snap_iter.c - an unmodified long-running MPI program for the snapshot
 * tests (tests/integration/snapshot_*.sh): local work and one in-place
 * MPI_Allreduce (SUM of integer-valued doubles, exact in any order) per
 * iteration; it knows nothing of encore.
 *
 * Options:
 *   --iters N     iterations (default 200)
 *   --count C     doubles per allreduce (default 64)
 *   --work-us U   microseconds of local work (sleep) per iteration (default 10000)
 *   --input F     reads the next 8 bytes of file F before each iteration (in
 *                 chunks, through one open descriptor) and adds them in
 *   --nonblocking K  every K-th iteration uses MPI_Iallreduce, sleeps its
 *                 local work while it runs, then MPI_Wait (the progress
 *                 thread is busy while snapshots are due)
 *   --fork 1      every 10th iteration runs system("exit 3") and a fork()ed
 *                 child that exits 5, and checks both statuses and that
 *                 wait() finds no other child
 *   --hold-rank R rank R runs a thread of its own named "holder" (blocked on a
 *                 pipe until the end), which libencore cannot account for: it
 *                 takes no snapshot
 *   --dup 1       every allreduce runs on a dup of MPI_COMM_WORLD (made once,
 *                 freed at the end) instead of the world itself
 *
 * Each rank prints one line at the end:
 *     rank R iters N state <hex64> sum <%a of element 0>
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <mpi.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static long opt(int argc, char **argv, const char *name, long dflt)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return strtol(argv[i + 1], NULL, 10);
    return dflt;
}

static const char *sopt(int argc, char **argv, const char *name)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return argv[i + 1];
    return NULL;
}

static void children(int rank)
{
    int st = system("exit 3");
    pid_t pid, got;

    if (!WIFEXITED(st) || WEXITSTATUS(st) != 3) {
        fprintf(stderr, "rank %d: system() status 0x%x\n", rank, (unsigned)st);
        exit(2);
    }
    if ((pid = fork()) == 0)
        _exit(5);
    got = wait(&st);
    if (got != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 5 || wait(&st) != -1 ||
        errno != ECHILD) {
        fprintf(stderr, "rank %d: wait() found pid %d (want %d) status 0x%x\n", rank, (int)got,
                (int)pid, (unsigned)st);
        exit(2);
    }
}

static int hold_pipe[2];

static void *held(void *arg)
{
    char c;

    (void)arg;
    while (read(hold_pipe[0], &c, 1) < 0 && errno == EINTR)
        ;
    return NULL;
}

int main(int argc, char **argv)
{
    long iters = opt(argc, argv, "--iters", 200), count = opt(argc, argv, "--count", 64);
    long work = opt(argc, argv, "--work-us", 10000), forks = opt(argc, argv, "--fork", 0);
    long nb = opt(argc, argv, "--nonblocking", 0), hold = opt(argc, argv, "--hold-rank", -1);
    long dup = opt(argc, argv, "--dup", 0);
    MPI_Comm comm = MPI_COMM_WORLD;
    pthread_t holder;
    const char *input = sopt(argc, argv, "--input");
    uint64_t state = 0x9e3779b97f4a7c15ull;
    FILE *in = NULL;
    double *v;
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (dup && MPI_Comm_dup(MPI_COMM_WORLD, &comm) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 6);
    if ((v = malloc((size_t)count * sizeof(double))) == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (input != NULL && (in = fopen(input, "rb")) == NULL)
        MPI_Abort(MPI_COMM_WORLD, 3);
    if (in != NULL)
        setvbuf(in, NULL, _IONBF, 0); /* every chunk is a read(2) at the file offset */
    if (hold == rank && (pipe(hold_pipe) != 0 || pthread_create(&holder, NULL, held, NULL) != 0 ||
                         pthread_setname_np(holder, "holder") != 0))
        MPI_Abort(MPI_COMM_WORLD, 5);
    for (long i = 0; i < iters; i++) {
        uint64_t chunk = 0;

        if (in != NULL && fread(&chunk, 1, sizeof(chunk), in) != sizeof(chunk))
            MPI_Abort(MPI_COMM_WORLD, 4);
        if (forks && i % 10 == 9)
            children(rank);
        for (long k = 0; k < count; k++)
            v[k] = (double)((state >> (k % 48)) % 1024 + (uint64_t)rank + (chunk % 4096));
        if (nb > 0 && i % nb == 0) {
            MPI_Request req;

            MPI_Iallreduce(MPI_IN_PLACE, v, (int)count, MPI_DOUBLE, MPI_SUM, comm, &req);
            if (work > 0)
                usleep((useconds_t)work);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            if (work > 0) /* usleep(0) still sleeps: about 50 us here */
                usleep((useconds_t)work);
            MPI_Allreduce(MPI_IN_PLACE, v, (int)count, MPI_DOUBLE, MPI_SUM, comm);
        }
        for (long k = 0; k < count; k++)
            state = (state ^ (uint64_t)v[k]) * 0x100000001b3ull;
    }
    printf("rank %d iters %ld state %016llx sum %a\n", rank, iters, (unsigned long long)state,
           v[0]);
    if (in != NULL)
        fclose(in);
    if (hold == rank && (close(hold_pipe[1]) != 0 || pthread_join(holder, NULL) != 0))
        MPI_Abort(MPI_COMM_WORLD, 5);
    free(v);
    if (comm != MPI_COMM_WORLD)
        MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
