/*
 * p2p_late_reader - large messages written for a receiver that reads them
 * late: 2 ranks, ROUNDS rounds.  In each, rank 1 sends rank 0 a token and
 * prints "round R waiting", sleeps, then receives the round's 4 messages of
 * MiB each and prints "round R checksum C"; rank 0 receives the token and,
 * from round 1 on, waits for the file GO to exist (at most 60 s) before it
 * sends them (MPI_Isend, MPI_Waitall) and prints "round R sent".
 * tests/integration/p2p_hard.sh stops rank 1 on "round 1 waiting", makes GO,
 * kills rank 0 on "round 1 sent" (its messages are in its log, their
 * locators in the ring of the stopped receiver) and continues rank 1: the
 * distinct lines must be native's.
 *   p2p_late_reader GO [rounds] [MiB]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "xorshift_fill.h"

#define MSGS 4


static void wait_for(const char *path)
{
    for (int i = 0; i < 6000 && access(path, F_OK) != 0; i++)
        usleep(10000);
    if (access(path, F_OK) != 0) {
        fprintf(stderr, "p2p_late_reader: %s did not appear within 60 s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

int main(int argc, char **argv)
{
    const char *go = argc > 1 ? argv[1] : "/nonexistent";
    int rounds = argc > 2 ? atoi(argv[2]) : 3, mib = argc > 3 ? atoi(argv[3]) : 1;
    size_t n;
    uint64_t *buf;
    int rank, size;

    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || mib < 1) {
        fprintf(stderr, "p2p_late_reader: 2 ranks and at least 1 MiB\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    n = (size_t)mib << 17; /* uint64_t words */
    if ((buf = malloc(MSGS * n * sizeof(*buf))) == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int r = 0; r < rounds; r++) {
        MPI_Request q[MSGS];

        if (rank == 1) {
            uint64_t sum = 0;
            struct timespec nap = {0, 300 * 1000 * 1000};

            MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            printf("round %d waiting\n", r);
            nanosleep(&nap, NULL);
            for (int k = 0; k < MSGS; k++)
                MPI_Irecv(buf + k * n, (int)(n * sizeof(*buf)), MPI_BYTE, 0, 2, MPI_COMM_WORLD,
                          &q[k]);
            MPI_Waitall(MSGS, q, MPI_STATUSES_IGNORE);
            for (int k = 0; k < MSGS; k++) {
                uint64_t *want = malloc(n * sizeof(*want));

                xorshift_fill(want, n, r, k);
                for (size_t i = 0; i < n; i++) {
                    if (buf[k * n + i] != want[i]) {
                        fprintf(stderr, "round %d message %d word %zu wrong\n", r, k, i);
                        MPI_Abort(MPI_COMM_WORLD, 3);
                    }
                    sum += buf[k * n + i] * (i + 1);
                }
                free(want);
            }
            printf("round %d checksum %llu\n", r, (unsigned long long)sum);
        } else {
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (r > 0)
                wait_for(go);
            for (int k = 0; k < MSGS; k++) {
                xorshift_fill(buf + k * n, n, r, k);
                MPI_Isend(buf + k * n, (int)(n * sizeof(*buf)), MPI_BYTE, 1, 2, MPI_COMM_WORLD,
                          &q[k]);
            }
            MPI_Waitall(MSGS, q, MPI_STATUSES_IGNORE);
            printf("round %d sent\n", r);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
