/*
 * p2p_ring - point-to-point only, no collective at all: every iteration
 * each rank sends a block to its right neighbour and receives one from its
 * left (even ranks send first, odd ones receive first: an even number of
 * ranks never deadlocks, even without buffering), then works (sleeps).  The checksum of each rank
 * depends on every block it received, in order, so a lost or repeated
 * message changes it.  Rank 0 prints "progress I" every iters/20
 * iterations (tests kill a rank at a chosen point); each rank prints
 * "rank R checksum C sent B" at the end (B: payload bytes it sent).
 *   p2p_ring iters work_us bytes [pending|arena]
 * pending: a persistent receive (MPI_Recv_init) is started before the
 * work and completed with the send after it (MPI_Waitall); MPI_Isend is
 * then the only call that names a communicator, so a snapshot taken at a
 * point-to-point call has that receive pending
 * (tests/integration/p2p_snapshot.sh).  So that it is pending on rank 1
 * whatever the timing, the block goes round as a token: rank 1 works and
 * sends, every other rank sends only after its own receive completed, so
 * the block rank 1 waits for leaves rank 0 only after rank 1's MPI_Isend.
 * arena: the two blocks are allocated by a helper thread, so they lie in
 * that thread's malloc arena, whose state fork resets in the child (a
 * snapshot must not copy that mapping whole and leave a hole there).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

static void fill(uint64_t *b, size_t n, int rank, int iter, uint64_t acc)
{
    for (size_t i = 0; i < n; i++)
        b[i] = acc ^ ((uint64_t)rank << 48) ^ ((uint64_t)iter << 20) ^ i;
}

static uint64_t fold(uint64_t acc, const uint64_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        acc = acc * 1099511628211ull + b[i];
    return acc;
}

/* Two blocks of n words from the calling thread's arena. */
struct blocks {
    size_t n;
    uint64_t *out, *in;
};

static void *alloc_blocks(void *arg)
{
    struct blocks *b = arg;

    b->out = calloc(b->n ? b->n : 1, sizeof(*b->out));
    b->in = calloc(b->n ? b->n : 1, sizeof(*b->in));
    return NULL;
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 1000;
    int work_us = argc > 2 ? atoi(argv[2]) : 1000;
    size_t bytes = argc > 3 ? (size_t)atol(argv[3]) : 4096;
    int pending = argc > 4 && strcmp(argv[4], "pending") == 0;
    int arena = argc > 4 && strcmp(argv[4], "arena") == 0;
    size_t n = bytes / sizeof(uint64_t);
    int rank, size, every;
    uint64_t acc = 1469598103934665603ull, *out, *in;
    unsigned long long sent = 0;
    MPI_Request recv = MPI_REQUEST_NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (arena) {
        struct blocks b = {.n = n};
        pthread_t t;

        if (pthread_create(&t, NULL, alloc_blocks, &b) != 0 || pthread_join(t, NULL) != 0) {
            fprintf(stderr, "p2p_ring: cannot run the allocating thread\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        out = b.out;
        in = b.in;
    } else {
        out = calloc(n ? n : 1, sizeof(*out));
        in = calloc(n ? n : 1, sizeof(*in));
    }
    if (out == NULL || in == NULL) {
        fprintf(stderr, "p2p_ring: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    every = iters >= 20 ? iters / 20 : 1;
    if (pending)
        MPI_Recv_init(in, (int)n, MPI_UINT64_T, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
                      &recv);
    for (int it = 0; it < iters; it++) {
        int right = (rank + 1) % size, left = (rank + size - 1) % size;

        fill(out, n, rank, it, acc);
        if (pending) {
            MPI_Request rq[2] = {recv, MPI_REQUEST_NULL};

            MPI_Start(&rq[0]);
            if (rank == 1 % size) /* see the head comment */
                usleep((useconds_t)work_us);
            else
                MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
            MPI_Isend(out, (int)n, MPI_UINT64_T, right, 0, MPI_COMM_WORLD, &rq[1]);
            MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        } else if (rank % 2 == 0) { /* even ranks send first: safe without buffering */
            MPI_Send(out, (int)n, MPI_UINT64_T, right, it % 7, MPI_COMM_WORLD);
            MPI_Recv(in, (int)n, MPI_UINT64_T, left, it % 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            usleep((useconds_t)work_us);
        } else {
            MPI_Recv(in, (int)n, MPI_UINT64_T, left, it % 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(out, (int)n, MPI_UINT64_T, right, it % 7, MPI_COMM_WORLD);
            usleep((useconds_t)work_us);
        }
        sent += n * sizeof(uint64_t);
        acc = fold(acc, in, n);
        if (rank == 0 && (it + 1) % every == 0) {
            printf("progress %d\n", it + 1);
            fflush(stdout);
        }
    }
    printf("rank %d checksum %016llx sent %llu\n", rank, (unsigned long long)acc, sent);
    if (recv != MPI_REQUEST_NULL)
        MPI_Request_free(&recv);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
