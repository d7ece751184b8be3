/*
 * p2p_diverge.c - a program whose re-execution sends differently
 * (tests/integration/p2p_diverge.sh): rank 0 sends rank 1 five messages
 * and, in a restarted incarnation (ENCORE_INCARNATION > 0), gives the
 * third another tag (or, with argument "length", another length); rank 1
 * receives them with MPI_ANY_TAG.  Then two barriers and one more message,
 * and each rank prints what it received.  Killed at the second barrier
 * (rank 1 received the five before it entered the first), rank 0 re-sends the five as re-sends that rank 1 drops; the divergence
 * must stop the job (at the last re-send or at the new message, whichever
 * rank 1 reads first: it reads both before the end).
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *inc = getenv("ENCORE_INCARNATION");
    int restarted = inc != NULL && atoi(inc) > 0;
    int length = argc > 1 && strcmp(argv[1], "length") == 0;
    int rank, sum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 5; i++) {
        int v[2] = {i, i}, n = restarted && length && i == 2 ? 2 : 1;
        int tag = restarted && !length && i == 2 ? 99 : 7;

        if (rank == 0) {
            MPI_Send(v, n, MPI_INT, 1, tag, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Recv(v, 2, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += v[0];
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) { /* a new message: behind the re-sends on the channel */
        MPI_Send(&sum, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    } else if (rank == 1) {
        int v;

        MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sum += v;
    }
    printf("rank %d received %d\n", rank, sum);
    MPI_Finalize();
    return 0;
}
