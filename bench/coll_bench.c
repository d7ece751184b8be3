/*
 * coll_bench.c - one collective of IMB's set, timed on a dup of the world
 * (as IMB and most libraries run theirs), with its result checked
 * (bench/coll_attrib.sh).
 *
 *   coll_bench COLL BYTES ITERS     COLL: bcast allgather alltoall reduce
 *
 * BYTES is each rank's whole receive buffer: bcast BYTES from rank 0;
 * allgather and alltoall BYTES/n from each rank; reduce BYTES of floats
 * (SUM) to rank 0.  Two rounds of ITERS calls after a barrier; rank 0
 * prints the second round's mean:
 *     COLL BYTES us
 * and every rank checks its last result (exit 1 on a wrong byte).
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run(const char *coll, char *in, char *out, size_t bytes, int n, MPI_Comm c)
{
    int blk = (int)(bytes / (size_t)n);

    if (strcmp(coll, "bcast") == 0)
        return MPI_Bcast(out, (int)bytes, MPI_BYTE, 0, c);
    if (strcmp(coll, "allgather") == 0)
        return MPI_Allgather(in, blk, MPI_BYTE, out, blk, MPI_BYTE, c);
    if (strcmp(coll, "alltoall") == 0)
        return MPI_Alltoall(in, blk, MPI_BYTE, out, blk, MPI_BYTE, c);
    if (strcmp(coll, "reduce") == 0)
        return MPI_Reduce(in, out, (int)(bytes / sizeof(float)), MPI_FLOAT, MPI_SUM, 0, c);
    return MPI_ERR_OTHER;
}

/* The byte that position i of rank r's result must hold. */
static int expect(const char *coll, size_t i, size_t bytes, int r, int n)
{
    size_t blk = bytes / (size_t)n;

    if (strcmp(coll, "bcast") == 0)
        return (int)(i % 251);
    if (strcmp(coll, "allgather") == 0)
        return (int)(i / blk) + 1;
    return (int)((size_t)r * 16 + i / blk) & 0xff; /* alltoall: rank j's block r */
}

int main(int argc, char **argv)
{
    int r, n, iters, bad = 0;
    size_t bytes;
    char *in, *out;
    MPI_Comm c;

    MPI_Init(&argc, &argv);
    if (argc != 4) {
        fprintf(stderr, "usage: coll_bench bcast|allgather|alltoall|reduce BYTES ITERS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    bytes = (size_t)atol(argv[2]);
    iters = atoi(argv[3]);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    in = malloc(bytes);
    out = malloc(bytes);
    if (in == NULL || out == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (size_t i = 0; i < bytes; i++) /* alltoall's block j of rank r: 16 j + r */
        in[i] = strcmp(argv[1], "alltoall") == 0 ? (char)((i / (bytes / (size_t)n)) * 16 + (size_t)r)
                                                 : (char)(r + 1);
    if (strcmp(argv[1], "reduce") == 0)
        for (size_t i = 0; i < bytes / sizeof(float); i++)
            ((float *)in)[i] = (float)(r + 1);
    for (int round = 0; round < 2; round++) {
        double t0;

        MPI_Barrier(c);
        t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (strcmp(argv[1], "bcast") == 0 && r == 0)
                for (size_t k = 0; k < bytes; k += 4096)
                    out[k] = (char)(k % 251); /* the root's data, rewritten as a program would */
            if (run(argv[1], in, out, bytes, n, c) != MPI_SUCCESS)
                MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (round == 1 && r == 0)
            printf("%s %zu %.1f\n", argv[1], bytes, (MPI_Wtime() - t0) / iters * 1e6);
    }
    if (strcmp(argv[1], "reduce") == 0) {
        for (size_t i = 0; r == 0 && i < bytes / sizeof(float); i++)
            bad |= ((float *)out)[i] != (float)(n * (n + 1) / 2);
    } else {
        for (size_t i = 0; i < bytes; i += strcmp(argv[1], "bcast") == 0 ? 4096 : 1)
            bad |= (unsigned char)out[i] != (unsigned char)expect(argv[1], i, bytes, r, n);
    }
    if (bad)
        fprintf(stderr, "coll_bench: rank %d: wrong %s result\n", r, argv[1]);
    MPI_Comm_free(&c);
    free(in);
    free(out);
    MPI_Finalize();
    return bad;
}
