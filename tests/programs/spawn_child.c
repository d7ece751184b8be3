/*
 * spawn_child.c - an MPI program whose ranks leave a process behind
 * (tests/integration/shm_reclaim.sh, case background).  Knows nothing of
 * encore.
 *
 * After MPI_Init each spawning rank runs, through system(),
 *     sleep S </dev/null >/dev/null 2>&1 & echo $! >'PIDFILE.R'
 * (R its rank): a helper started in the background, as programs do, that
 * outlives the job; the shell has written its pid before system() returns.
 * Then ITERS MPI_Allreduce(SUM) of COUNT ints: element j of rank r in
 * iteration i is r + i + j, so every element of the result is checked
 * exactly against size * (i + j) + size * (size - 1) / 2.  With --gate, rank
 * 0 waits (at most 60 s) for the file GATE to exist before the last
 * allreduce, which holds the others there: the test looks at the job while
 * it runs, then creates GATE.
 *
 * Each rank prints one line at the end (child 0: it started none):
 *     rank R child PID iters N ok
 * Exit 0; 1 on a wrong sum or a gate never opened; 2 on bad options or a
 * failed system().
 *
 * Options:
 *   --pidfile P  where the children's pids go, P.R for rank R (required)
 *   --sleep S    seconds the child sleeps (default 20)
 *   --all 0      only rank 0 starts a child (default 1: every rank)
 *   --iters N    allreduces, at least 1 (default 5)
 *   --count C    ints per allreduce (default 4096)
 *   --gate F     rank 0 waits for file F before the last allreduce
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *opt_s(int argc, char **argv, const char *name)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return argv[i + 1];
    return NULL;
}

static long opt(int argc, char **argv, const char *name, long dflt)
{
    const char *v = opt_s(argc, argv, name);

    return v != NULL ? strtol(v, NULL, 10) : dflt;
}

/* Starts the background sleep; its pid, or -1 (reported) on failure. */
static long spawn(const char *pidfile, int rank, long secs)
{
    char path[4096], cmd[sizeof(path) + 128];
    long pid = -1;
    FILE *f;
    int rc;

    if (snprintf(path, sizeof(path), "%s.%d", pidfile, rank) >= (int)sizeof(path)) {
        fprintf(stderr, "spawn_child: rank %d: --pidfile too long\n", rank);
        return -1;
    }
    snprintf(cmd, sizeof(cmd), "sleep %ld </dev/null >/dev/null 2>&1 & echo $! >'%s'", secs,
             path);
    if ((rc = system(cmd)) != 0) {
        fprintf(stderr, "spawn_child: rank %d: system(\"%s\") returned %d\n", rank, cmd, rc);
        return -1;
    }
    if ((f = fopen(path, "r")) == NULL || fscanf(f, "%ld", &pid) != 1 || pid <= 0) {
        fprintf(stderr, "spawn_child: rank %d: no pid in %s\n", rank, path);
        pid = -1;
    }
    if (f != NULL)
        fclose(f);
    return pid;
}

/* Waits at most 60 s for the file gate; 0 once it exists, 1 otherwise. */
static int wait_gate(const char *gate)
{
    for (int i = 0; i < 6000; i++) {
        if (access(gate, F_OK) == 0)
            return 0;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    fprintf(stderr, "spawn_child: %s did not appear within 60 s\n", gate);
    return 1;
}

/* One allreduce of iteration i, checked element by element; 1 on a wrong sum. */
static int allreduce(int *in, int *out, int count, int i, int rank, int size)
{
    for (int j = 0; j < count; j++)
        in[j] = rank + i + j;
    MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int j = 0; j < count; j++) {
        int want = size * (i + j) + size * (size - 1) / 2;

        if (out[j] != want) {
            fprintf(stderr, "spawn_child: rank %d iteration %d element %d: %d, want %d\n", rank,
                    i, j, out[j], want);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *pidfile = opt_s(argc, argv, "--pidfile"), *gate = opt_s(argc, argv, "--gate");
    long secs = opt(argc, argv, "--sleep", 20), all = opt(argc, argv, "--all", 1);
    long iters = opt(argc, argv, "--iters", 5), count = opt(argc, argv, "--count", 4096);
    long child = 0;
    int rank, size, bad = 0, *in, *out;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (pidfile == NULL || strchr(pidfile, '\'') != NULL || iters < 1 || count < 1 ||
        count > 1 << 20 || secs < 1) {
        fprintf(stderr, "usage: spawn_child --pidfile P [--sleep S] [--all 0|1] [--iters N] "
                        "[--count C] [--gate F]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    in = malloc((size_t)count * sizeof(int));
    out = malloc((size_t)count * sizeof(int));
    if (in == NULL || out == NULL) {
        fprintf(stderr, "spawn_child: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if ((all || rank == 0) && (child = spawn(pidfile, rank, secs)) < 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int i = 0; i < iters; i++) {
        if (i == iters - 1 && gate != NULL && rank == 0)
            bad |= wait_gate(gate);
        bad |= allreduce(in, out, (int)count, i, rank, size);
    }
    if (!bad)
        printf("rank %d child %ld iters %ld ok\n", rank, child, iters);
    free(in);
    free(out);
    MPI_Finalize();
    return bad;
}
