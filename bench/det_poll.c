/*
 * det_poll - what a polling loop costs (bench/det_cost.sh): rank 0 calls
 * MPI_Iprobe(MPI_ANY_SOURCE) and MPI_Test N times each with nothing to
 * find (under encore each call is a determinant: one NONE run), then
 * receives M small messages from rank 1, each found by polling
 * MPI_Iprobe(MPI_ANY_SOURCE) and received from the source it named (a
 * MATCH record per message).  Then M/4 round trips in which rank 0
 * receives with MPI_ANY_SOURCE (a MATCH record) and replies to the sender:
 * the reply may depend on the record, so off encore-run's host it waits
 * for encore-run's ack of it (docs/p2p.md 5.3, S2).  Prints ns per call,
 * per message and per round trip.
 *   det_poll [N] [M]
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000000, m = argc > 2 ? atoi(argv[2]) : 20000;
    int rank, flag, x = 0;
    double t0, t_probe, t_test, t_msg, t_rt;
    int rounds;
    MPI_Request r;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&x, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, &r);
        t0 = MPI_Wtime();
        for (int i = 0; i < n; i++)
            MPI_Iprobe(MPI_ANY_SOURCE, 98, MPI_COMM_WORLD, &flag, &st);
        t_probe = MPI_Wtime() - t0;
        t0 = MPI_Wtime();
        for (int i = 0; i < n; i++)
            MPI_Test(&r, &flag, &st);
        t_test = MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&r, &st);
        t0 = MPI_Wtime();
        for (int i = 0; i < m; i++) {
            flag = 0;
            while (!flag)
                MPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &flag, &st);
            MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        t_msg = MPI_Wtime() - t0;
        rounds = m / 4 > 0 ? m / 4 : 1;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int i = 0; i < rounds; i++) {
            MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &st);
            MPI_Send(&x, 1, MPI_INT, st.MPI_SOURCE, 6, MPI_COMM_WORLD);
        }
        t_rt = MPI_Wtime() - t0;
        printf("iprobe_none_ns %.1f\ntest_none_ns %.1f\npolled_msg_ns %.1f\n"
               "anysrc_roundtrip_ns %.1f\n", t_probe / n * 1e9, t_test / n * 1e9,
               t_msg / m * 1e9, t_rt / rounds * 1e9);
    } else if (rank == 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD);
        for (int i = 0; i < m; i++)
            MPI_Send(&i, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
        rounds = m / 4 > 0 ? m / 4 : 1;
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < rounds; i++) {
            MPI_Send(&i, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
            MPI_Recv(&x, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
