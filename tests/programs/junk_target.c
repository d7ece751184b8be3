/*
 * junk_target.c - a real job for tests/integration/junk_peers.sh to attack.
 *
 * Usage: junk_target DIR DEADLINE_S
 * Rank 0 writes DIR/tracker (getenv ENCORE_TRACKER) and DIR/secret
 * (ENCORE_SECRET as it was before MPI_Init, so the test can check it never
 * shows up in the job's output); every rank writes DIR/pid.<rank>, and DIR/ready.<rank> once its
 * first collectives completed (its links are up).  Then all ranks loop over an
 * MPI_Allreduce and an MPI_Bcast with exact checks until DIR/go-on exists
 * (rank 0 looks and broadcasts the decision), or fail after DEADLINE_S.
 * Rank 0 prints "junk_target: <size> ranks ok after <n> iterations".
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define COUNT 256

static int rank, size;

static void put_file(const char *dir, const char *name, int r, const char *text)
{
    char path[4096];
    FILE *f;
    if (r >= 0)
        snprintf(path, sizeof(path), "%s/%s.%d", dir, name, r);
    else
        snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (!(f = fopen(path, "w")) || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "junk_target rank %d: cannot write %s\n", rank, path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void fail(const char *what, long it, int i, long got, long want)
{
    fprintf(stderr, "junk_target rank %d: %s wrong at iteration %ld element %d: %ld != %ld\n",
            rank, what, it, i, got, want);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

static void step(long it)
{
    static long in[COUNT], out[COUNT], b[COUNT];
    int root = (int)(it % size);
    for (int i = 0; i < COUNT; i++)
        in[i] = (long)rank * 1000003L + i + it;
    MPI_Allreduce(in, out, COUNT, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < COUNT; i++) {
        long want = 1000003L * size * (size - 1) / 2 + (long)size * (i + it);
        if (out[i] != want)
            fail("allreduce", it, i, out[i], want);
    }
    for (int i = 0; i < COUNT; i++)
        b[i] = rank == root ? it * 7 + i : -1;
    MPI_Bcast(b, COUNT, MPI_LONG, root, MPI_COMM_WORLD);
    for (int i = 0; i < COUNT; i++)
        if (b[i] != it * 7 + i)
            fail("bcast", it, i, b[i], it * 7 + i);
}

int main(int argc, char **argv)
{
    char buf[256], path[4096];
    double deadline;
    long it = 0;
    int stop = 0;

    /* libencore may scrub the secret from the environment in MPI_Init */
    const char *s0 = getenv("ENCORE_SECRET");
    char *secret = strdup(s0 ? s0 : "");

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3) {
        fprintf(stderr, "usage: junk_target DIR DEADLINE_S\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    deadline = MPI_Wtime() + atof(argv[2]);
    if (rank == 0) {
        const char *t = getenv("ENCORE_TRACKER");
        snprintf(buf, sizeof(buf), "%s\n", t ? t : "");
        put_file(argv[1], "tracker", -1, buf);
        snprintf(buf, sizeof(buf), "%s\n", secret);
        put_file(argv[1], "secret", -1, buf);
    }
    snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
    put_file(argv[1], "pid", rank, buf);
    snprintf(path, sizeof(path), "%s/go-on", argv[1]);
    while (!stop) {
        step(it++);
        if (it == 1)
            put_file(argv[1], "ready", rank, "1\n");
        if (rank == 0) {
            if (access(path, F_OK) == 0)
                stop = 1;
            else if (MPI_Wtime() > deadline)
                stop = 2;
        }
        MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (stop == 2) {
        if (rank == 0)
            fprintf(stderr, "junk_target: no go-on file within %s s\n", argv[2]);
        MPI_Finalize();
        return 4;
    }
    if (rank == 0)
        printf("junk_target: %d ranks ok after %ld iterations\n", size, it);
    free(secret);
    MPI_Finalize();
    return 0;
}
