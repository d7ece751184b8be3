/*
 * p2p_master - master/worker with MPI_ANY_SOURCE: rank 0 hands out tasks,
 * receives each result from whichever worker finishes first and gives
 * that worker the next task.  Workers take 1-5 ms per task (sleeping), so
 * the order of results differs from run to run.  Rank 0 prints
 * "task T worker W value V" for every result and the sum at the end; a
 * run with the master or a worker killed and restarted must give every
 * task to exactly one worker (a replayed master takes the recorded
 * matches) and the same sum (tests/integration/p2p_recovery.sh).
 *   p2p_master [tasks]
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <mpi.h>

enum { TAG_TASK = 1, TAG_RESULT = 2, TAG_STOP = 3 };

static long work(int task)
{
    long v = 0;

    for (int i = 0; i < 1000; i++)
        v += (long)task * i % 977;
    return v;
}

static void master(int size, int tasks)
{
    int next = 0, got = 0;
    long sum = 0, res[2];
    MPI_Status st;

    for (int w = 1; w < size; w++) {
        if (next < tasks)
            MPI_Send(&next, 1, MPI_INT, w, TAG_TASK, MPI_COMM_WORLD);
        else
            MPI_Send(&next, 1, MPI_INT, w, TAG_STOP, MPI_COMM_WORLD);
        next++;
    }
    while (got < tasks) {
        MPI_Recv(res, 2, MPI_LONG, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
        printf("task %ld worker %d value %ld\n", res[0], st.MPI_SOURCE, res[1]);
        sum += res[1];
        got++;
        MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, next < tasks ? TAG_TASK : TAG_STOP,
                 MPI_COMM_WORLD);
        next++;
    }
    printf("sum %ld\n", sum);
}

static void worker(int rank)
{
    int task;
    long res[2];
    MPI_Status st;

    for (;;) {
        MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP)
            return;
        usleep((useconds_t)(1000 * (1 + (task * 7 + rank) % 5)));
        res[0] = task;
        res[1] = work(task);
        MPI_Send(res, 2, MPI_LONG, 0, TAG_RESULT, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int tasks = argc > 1 ? atoi(argv[1]) : 200, rank, size;

    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        master(size, tasks);
    else
        worker(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
