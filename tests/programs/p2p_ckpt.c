/*
 * p2p_ckpt.c - the checkpoint API in a message-passing program
 * (tests/integration/p2p_ckpt.sh).
 *
 * Per iteration: a ring exchange (MPI_Sendrecv of 64 longs to the right
 * neighbour), a master/worker round (every rank but 0 sends rank 0 a value,
 * rank 0 receives them with MPI_ANY_SOURCE: determinants; it answers each
 * worker on its own), and one allreduce of a checksum, so --inject's op
 * counts name iterations.  A checkpoint every `every` iterations (global:
 * the next iteration and the checksum; local: this rank's accumulator),
 * loaded right after MPI_Init.  Every rank prints its accumulator and the
 * final checksum, which do not depend on arrival order.
 *
 * Usage: p2p_ckpt iterations every [mode]
 *   mode inflight: before each checkpoint rank 0 sends rank 1 a message
 *     that rank 1 receives only after it: the checkpoint is refused on
 *     every rank (each prints the status), then taken once it is received.
 *   mode early: one message before encore_load_checkpoint (a restarted
 *     rank then cannot load the checkpoint).
 */
#include <mpi.h>

#include <encore.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK 64

struct global {
    int next_it;
    long checksum;
};

static void ring(int rank, int size, int it, long *acc)
{
    long out[BLOCK], in[BLOCK];

    for (int i = 0; i < BLOCK; i++)
        out[i] = (*acc + rank * 131 + it * 17 + i) % 1000003;
    MPI_Sendrecv(out, BLOCK, MPI_LONG, (rank + 1) % size, 1, in, BLOCK, MPI_LONG,
                 (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < BLOCK; i++)
        *acc = (*acc * 7 + in[i]) % 1000003;
}

static void master_worker(int rank, int size, int it, long *acc)
{
    if (rank == 0) {
        long sum = 0;

        for (int k = 1; k < size; k++) {
            long v, reply;
            MPI_Status st;

            MPI_Recv(&v, 1, MPI_LONG, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st);
            sum += v;
            reply = v * 3 + st.MPI_SOURCE;
            MPI_Send(&reply, 1, MPI_LONG, st.MPI_SOURCE, 3, MPI_COMM_WORLD);
        }
        *acc = (*acc + sum) % 1000003;
    } else {
        long v = (*acc + it) % 10007, reply;

        MPI_Send(&v, 1, MPI_LONG, 0, 2, MPI_COMM_WORLD);
        MPI_Recv(&reply, 1, MPI_LONG, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        *acc = (*acc + reply) % 1000003;
    }
}

int main(int argc, char **argv)
{
    int rank, size, iters, every, inflight, early;
    struct global g = {0, 0};
    long acc, token = 0;
    size_t glen = sizeof(g), llen = sizeof(acc);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    iters = argc > 1 ? atoi(argv[1]) : 40;
    every = argc > 2 ? atoi(argv[2]) : 10;
    inflight = argc > 3 && argv[3][0] == 'i';
    early = argc > 3 && argv[3][0] == 'e';
    if (early)
        ring(rank, size, -1, &token);
    acc = rank * 1000 + token;
    if (encore_load_checkpoint(&g, &glen, &acc, &llen) < 0)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (int it = g.next_it; it < iters; it++) {
        long sum;

        ring(rank, size, it, &acc);
        master_worker(rank, size, it, &acc);
        sum = acc;
        MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        g.checksum = (g.checksum * 31 + sum) % 1000000007;
        if (every > 0 && it % every == every - 1) {
            long v = it;
            int rv;

            g.next_it = it + 1;
            if (inflight && rank == 0)
                MPI_Send(&v, 1, MPI_LONG, 1, 4, MPI_COMM_WORLD);
            rv = encore_checkpoint(&g, sizeof(g), &acc, sizeof(acc));
            if (inflight) {
                if (rank == 1)
                    MPI_Recv(&v, 1, MPI_LONG, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                printf("rank %d iteration %d in flight: %d\n", rank, it, rv);
                rv = encore_checkpoint(&g, sizeof(g), &acc, sizeof(acc));
            }
            if (rv != 0) {
                fprintf(stderr, "rank %d: encore_checkpoint returned %d\n", rank, rv);
                MPI_Abort(MPI_COMM_WORLD, 4);
            }
        }
    }
    printf("rank %d acc %ld checksum %ld\n", rank, acc, g.checksum);
    MPI_Finalize();
    return 0;
}
