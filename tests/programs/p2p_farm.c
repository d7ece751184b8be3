/*
 * p2p_farm - master/worker: rank 0 hands out TASKS tasks with MPI_Send,
 * receives each result with MPI_ANY_SOURCE and MPI_ANY_TAG (workers tag a
 * result by its task's parity) and gives the worker that sent it the next
 * task; workers loop until the stop tag.  A task is WORK rounds of integer
 * hashing, longer for some tasks than others, so which worker does which
 * task changes from run to run, but the master prints "progress K" after
 * every EVERY results and at the end every result in task order and their
 * sum: the output is a function of the arguments only, so it equals native
 * Open MPI's, and a run with the master or a worker killed and restarted
 * prints the same distinct lines (tests/integration/p2p_apps.sh).
 *   p2p_farm [tasks] [work] [every]   (default 200 20000 50)
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

enum { TAG_TASK = 1, TAG_STOP = 2, TAG_EVEN = 3, TAG_ODD = 4 };

/* the task's value: rounds of a 64-bit mix, 1 to 4 times WORK of them */
static long solve(int task, long work)
{
    unsigned long x = (unsigned long)task * 0x9e3779b97f4a7c15UL + 1;
    long rounds = work * (1 + (task * 5) % 4);

    for (long r = 0; r < rounds; r++) {
        x ^= x >> 31;
        x *= 0xbf58476d1ce4e5b9UL;
        x ^= x >> 29;
    }
    return (long)(x % 1000003UL);
}

static void master(int size, int tasks, int every)
{
    long *value = calloc((size_t)tasks, sizeof(long)), sum = 0, res[2];
    int next = 0;
    MPI_Status st;

    if (!value) {
        fprintf(stderr, "p2p_farm: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int w = 1; w < size; w++, next++)
        MPI_Send(&next, 1, MPI_INT, w, next < tasks ? TAG_TASK : TAG_STOP, MPI_COMM_WORLD);
    for (int got = 1; got <= tasks; got++) {
        MPI_Recv(res, 2, MPI_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (res[0] < 0 || res[0] >= tasks || st.MPI_TAG != (res[0] % 2 ? TAG_ODD : TAG_EVEN)) {
            fprintf(stderr, "p2p_farm: bad result %ld (tag %d) from rank %d\n", res[0],
                    st.MPI_TAG, st.MPI_SOURCE);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        value[res[0]] = res[1];
        MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, next < tasks ? TAG_TASK : TAG_STOP,
                 MPI_COMM_WORLD);
        next++;
        if (got % every == 0)
            printf("progress %d\n", got);
    }
    for (int t = 0; t < tasks; t++) {
        printf("task %d value %ld\n", t, value[t]);
        sum += value[t];
    }
    printf("sum %ld\n", sum);
    free(value);
}

/* Solves the tasks the master sends until it sends the stop tag. */
static void worker(long work)
{
    int task;
    long res[2];
    MPI_Status st;

    MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    while (st.MPI_TAG == TAG_TASK) {
        res[0] = task;
        res[1] = solve(task, work);
        MPI_Send(res, 2, MPI_LONG, 0, task % 2 ? TAG_ODD : TAG_EVEN, MPI_COMM_WORLD);
        MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    }
}

int main(int argc, char **argv)
{
    int tasks = argc > 1 ? atoi(argv[1]) : 200, every = argc > 3 ? atoi(argv[3]) : 50;
    long work = argc > 2 ? atol(argv[2]) : 20000;
    int rank, size;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (tasks < 1 || work < 0 || every < 1) {
        fprintf(stderr, "usage: p2p_farm [tasks>0] [work>=0] [every>0]\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "p2p_farm: needs at least 2 ranks (a master and a worker)\n");
        MPI_Finalize();
        return 2;
    }
    if (rank == 0)
        master(size, tasks, every);
    else
        worker(work);
    MPI_Finalize();
    return 0;
}
