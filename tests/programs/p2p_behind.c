/*
 * p2p_behind - a small synchronous message behind a large one, for a
 * receiver that sits in a collective: 2 ranks, ROUNDS rounds.  Rank 1
 * posts both receives and enters MPI_Barrier; rank 0 sends a message of
 * MiB bytes (MPI_Isend) and then 4 bytes with MPI_Ssend, which completes
 * only once rank 1 has read the small one, and only rank 1's progress
 * thread can (its program waits in the barrier).  A large message read
 * out of the sender's log (ENCORE_P2P_CMA_MIN) ends the reader's turn;
 * the small one behind it, written before the reader looked, must still
 * be read then (it once waited for ever: its writer had found the bell
 * set and rang no more).  Prints "round R ok SUM" per round on rank 1.
 *   p2p_behind [rounds] [MiB]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "xorshift_fill.h"

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20, mib = argc > 2 ? atoi(argv[2]) : 4;
    size_t n = (size_t)mib << 20, words = n / sizeof(uint64_t);
    uint64_t *big = malloc(n), *ref = malloc(n);
    int rank, small = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (big == NULL || ref == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int r = 0; r < rounds; r++) {
        MPI_Request q[2];

        if (rank == 0) {
            (void)xorshift_fill(big, words, 0, r);
            small = r * 7 + 1;
            MPI_Isend(big, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &q[0]);
            MPI_Ssend(&small, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
            MPI_Wait(&q[0], MPI_STATUS_IGNORE);
            MPI_Barrier(MPI_COMM_WORLD);
        } else if (rank == 1) {
            uint64_t sum = 0;

            MPI_Irecv(big, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &q[0]);
            MPI_Irecv(&small, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &q[1]);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
            (void)xorshift_fill(ref, words, 0, r); /* the sender's stream */
            for (size_t i = 0; i < words; i++) {
                if (ref[i] != big[i]) {
                    fprintf(stderr, "p2p_behind: round %d: word %zu differs\n", r, i);
                    MPI_Abort(MPI_COMM_WORLD, 3);
                }
                sum ^= big[i] * (i | 1);
            }
            printf("round %d ok %d %llx\n", r, small, (unsigned long long)sum);
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    free(big);
    free(ref);
    MPI_Finalize();
    return 0;
}
