/*
 * io_shared_check.c - the noncollective shared file pointer
 * (MPI_File_write_shared, read_shared, iwrite_shared, iread_shared) mixed
 * with the collective shared-pointer calls, on MPI_COMM_WORLD.
 *
 * usage: io_shared_check DIR ITERS
 * Each iteration every rank appends one block naming (rank, iteration)
 * with write_shared (iwrite_shared on odd iterations), then a barrier.
 * The order among ranks is any serialization, so rank 0 checks the set:
 * the file holds every block exactly once and nothing else.  Then the
 * blocks are read back with read_shared/iread_shared after seek_shared
 * (each read exactly once across ranks), one write_ordered after them,
 * and a set_view (etype MPI_INT) restarting the pointer at 0.  Every line
 * printed is the same in every correct run, so the output can be
 * compared with native MPI's.
 */
#define _GNU_SOURCE /* program_invocation_short_name, in mpi_check.h */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

#define BLK 64 /* bytes per block */

static int nranks;

/* Block of (r, it): its first two bytes name it, the rest follow from it. */
static void fill(unsigned char *b, int r, int it)
{
    b[0] = (unsigned char)r;
    b[1] = (unsigned char)it;
    for (int i = 2; i < BLK; i++)
        b[i] = (unsigned char)(r * 37 + it * 11 + i);
}

/* Index r * iters + it of a block that is one of the written ones, or -1. */
static int which(const unsigned char *b, int iters)
{
    unsigned char want[BLK];

    if (b[0] >= nranks || b[1] >= iters)
        return -1;
    fill(want, b[0], b[1]);
    return memcmp(want, b, BLK) == 0 ? b[0] * iters + b[1] : -1;
}

static void wait_io(MPI_Request *req)
{
    check(MPI_Wait(req, MPI_STATUS_IGNORE), "wait");
}

int main(int argc, char **argv)
{
    char name[4096];
    unsigned char b[BLK], *all;
    int iters, nblocks, *seen, *total, bad = 0;
    MPI_File fh;
    MPI_Offset pos;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 3 || (iters = atoi(argv[2])) < 1 || iters > 255 || nranks > 255) {
        if (rank == 0)
            fprintf(stderr, "usage: io_shared_check DIR ITERS (1..255, at most 255 ranks)\n");
        MPI_Finalize();
        return 2;
    }
    snprintf(name, sizeof name, "%s/shared", argv[1]);
    nblocks = nranks * iters;
    seen = calloc((size_t)nblocks, sizeof *seen);
    total = calloc((size_t)nblocks, sizeof *total);
    all = malloc((size_t)nblocks * BLK);
    if (seen == NULL || total == NULL || all == NULL)
        check(MPI_ERR_NO_MEM, "malloc");

    check(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh), "open");
    check(MPI_File_set_size(fh, 0), "set_size");
    for (int it = 0; it < iters; it++) {
        fill(b, rank, it);
        if (it % 2 == 0) {
            check(MPI_File_write_shared(fh, b, BLK, MPI_BYTE, MPI_STATUS_IGNORE),
                  "write_shared");
        } else {
            check(MPI_File_iwrite_shared(fh, b, BLK, MPI_BYTE, &req), "iwrite_shared");
            wait_io(&req);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    check(MPI_File_get_position_shared(fh, &pos), "get_position_shared");
    printf("rank %d after writes position %lld\n", rank, (long long)pos);

    /* The set of blocks: each exactly once, nothing else. */
    if (rank == 0) {
        MPI_Offset size;

        check(MPI_File_get_size(fh, &size), "get_size");
        check(MPI_File_read_at(fh, 0, all, nblocks * BLK, MPI_BYTE, MPI_STATUS_IGNORE),
              "read_at");
        for (int i = 0; i < nblocks; i++) {
            int w = which(all + (size_t)i * BLK, iters);

            if (w < 0 || seen[w]++)
                bad++;
        }
        printf("rank 0 file size %lld blocks %d bad %d\n", (long long)size, nblocks, bad);
        memset(seen, 0, sizeof *seen * (size_t)nblocks);
    }

    /* Read them back: every block read by exactly one rank. */
    check(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), "seek_shared");
    for (int it = 0; it < iters; it++) {
        int w;

        if (it % 2 == 0) {
            check(MPI_File_read_shared(fh, b, BLK, MPI_BYTE, MPI_STATUS_IGNORE), "read_shared");
        } else {
            check(MPI_File_iread_shared(fh, b, BLK, MPI_BYTE, &req), "iread_shared");
            wait_io(&req);
        }
        if ((w = which(b, iters)) < 0)
            bad++;
        else
            seen[w]++;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Allreduce(seen, total, nblocks, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < nblocks; i++)
        if (total[i] != 1)
            bad++;
    printf("rank %d read_shared bad %d\n", rank, bad);

    /* A collective after the noncollective calls starts where they left. */
    fill(b, rank, 0);
    check(MPI_File_write_ordered(fh, b, BLK, MPI_BYTE, MPI_STATUS_IGNORE), "write_ordered");
    check(MPI_File_get_position_shared(fh, &pos), "get_position_shared");
    printf("rank %d after write_ordered position %lld\n", rank, (long long)pos);

    /* A new view: the pointer restarts at 0, in etypes of the view. */
    check(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), "set_view");
    check(MPI_File_read_shared(fh, b, 2, MPI_INT, MPI_STATUS_IGNORE), "read_shared view");
    MPI_Barrier(MPI_COMM_WORLD);
    check(MPI_File_get_position_shared(fh, &pos), "get_position_shared");
    printf("rank %d after set_view position %lld\n", rank, (long long)pos);

    check(MPI_File_close(&fh), "close");
    free(seen), free(total), free(all);
    MPI_Finalize();
    return 0;
}
