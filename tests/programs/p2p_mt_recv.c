/*
 * p2p_mt_recv - MPI_THREAD_MULTIPLE with receives posted from two threads
 * at once: rank 0's two threads each MPI_Recv from rank 1 (tags 1 and 2)
 * while rank 1 waits 300 ms, then sends both.  Native MPI serves it;
 * encore refuses it with one line (which thread's receive takes a message
 * is an order no determinant records; tests/integration/p2p_snapshot.sh).
 *   p2p_mt_recv
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include <mpi.h>

static void *recv_tag(void *arg)
{
    int tag = *(int *)arg, v = -1;

    MPI_Recv(&v, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("tag %d got %d\n", tag, v);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, tags[2] = {1, 2};
    pthread_t t[2];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "p2p_mt_recv: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (int i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, recv_tag, &tags[i]);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
    } else if (rank == 1) {
        usleep(300000);
        for (int i = 0; i < 2; i++) {
            int v = 10 * tags[i];

            MPI_Send(&v, 1, MPI_INT, 0, tags[i], MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
