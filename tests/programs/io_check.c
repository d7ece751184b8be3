/*
 * io_check.c - MPI-IO on MPI_COMM_WORLD with exact checks, for io.sh:
 * explicit offsets, collective write_at_all/read_at_all, a view with a
 * derived filetype, write_ordered/read_ordered and the shared pointer,
 * set_size/get_size/preallocate, amode and group, delete and
 * MPI_MODE_DELETE_ON_CLOSE.  Every rank prints what it read and saw (one
 * line per fact, "rank R ..."), so runs compare by sorted output; the data
 * files DIR/data and DIR/ordered compare with cmp.
 *
 * usage: io_check DIR ITERS [amode]
 * With "amode", rank 1 opens the first file with another access mode (an error).
 * Every block written is a pure function of (iteration, rank, index), and
 * nothing is read before it is final, so a restored rank's re-executed
 * writes and reads are exact (docs/io.md).
 */
#define _GNU_SOURCE /* program_invocation_short_name, in mpi_check.h */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_check.h"

#define BLK 64  /* bytes per block */
#define NV 16   /* ints per rank in the view region */

static int nranks;

static void fill(unsigned char *b, int it, int r, int salt)
{
    for (int i = 0; i < BLK; i++)
        b[i] = (unsigned char)(it * 31 + r * 7 + i * 3 + salt);
}

static unsigned long sum(const unsigned char *b, int n)
{
    unsigned long s = 0;

    for (int i = 0; i < n; i++)
        s = s * 131 + b[i];
    return s;
}

static void path(char *out, size_t len, const char *dir, const char *name)
{
    snprintf(out, len, "%s/%s", dir, name);
}

int main(int argc, char **argv)
{
    char data[4096], ordered[4096], scratch[4096], temp[4096];
    unsigned char b[BLK], got[BLK];
    MPI_File fh, fo, fs;
    MPI_Offset size, pos, a_end, b_end, c_end;
    MPI_Datatype vec, filetype;
    MPI_Group group;
    int iters, amode, gsize, ints[NV], back[NV], cls;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc < 3 || argc > 4 || (iters = atoi(argv[2])) < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: io_check DIR ITERS [amode]\n");
        MPI_Finalize();
        return 2;
    }
    path(data, sizeof data, argv[1], "data");
    path(ordered, sizeof ordered, argv[1], "ordered");
    path(scratch, sizeof scratch, argv[1], "scratch");
    path(temp, sizeof temp, argv[1], "temp");
    a_end = (MPI_Offset)iters * nranks * BLK;
    b_end = 2 * a_end;
    c_end = b_end + (MPI_Offset)nranks * NV * sizeof(int);

    amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
    if (argc == 4 && strcmp(argv[3], "amode") == 0 && rank == 1)
        amode |= MPI_MODE_UNIQUE_OPEN;
    check(MPI_File_open(MPI_COMM_WORLD, data, amode, MPI_INFO_NULL, &fh), "open data");
    check(MPI_File_set_size(fh, 0), "set_size 0");
    check(MPI_File_open(MPI_COMM_WORLD, ordered, MPI_MODE_CREATE | MPI_MODE_RDWR,
                        MPI_INFO_NULL, &fo), "open ordered");
    check(MPI_File_set_size(fo, 0), "set_size ordered");
    check(MPI_File_get_amode(fh, &amode), "get_amode");
    check(MPI_File_get_group(fh, &group), "get_group");
    MPI_Group_size(group, &gsize);
    MPI_Group_free(&group);
    printf("rank %d amode %d group %d\n", rank, amode, gsize);

    for (int it = 0; it < iters; it++) {
        int counts = rank + 1, vals[8], total;
        int peer = (rank + 1) % nranks;
        MPI_Status st;

        /* explicit offset, individual */
        fill(b, it, rank, 0);
        check(MPI_File_write_at(fh, (MPI_Offset)(it * nranks + rank) * BLK, b, BLK, MPI_BYTE,
                                &st), "write_at");
        /* explicit offset, collective; then read a neighbour's block */
        fill(b, it, rank, 101);
        check(MPI_File_write_at_all(fh, a_end + (MPI_Offset)(it * nranks + rank) * BLK, b,
                                    BLK, MPI_BYTE, &st), "write_at_all");
        MPI_Barrier(MPI_COMM_WORLD);
        check(MPI_File_read_at_all(fh, a_end + (MPI_Offset)(it * nranks + peer) * BLK, got,
                                   BLK, MPI_BYTE, &st), "read_at_all");
        fill(b, it, peer, 101);
        if (memcmp(b, got, BLK) != 0)
            printf("rank %d it %d read_at_all MISMATCH\n", rank, it);
        /* ordered: rank r appends r+1 ints */
        for (int i = 0; i < counts; i++)
            vals[i] = it * 100 + rank * 10 + i;
        check(MPI_File_write_ordered(fo, vals, counts, MPI_INT, &st), "write_ordered");
        MPI_Allreduce(&counts, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (it == iters - 1)
            printf("rank %d ordered ints per iteration %d\n", rank, total);
    }

    /* a view with a derived filetype: rank r owns every nranks-th int */
    MPI_Type_vector(1, 1, nranks, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)(nranks * sizeof(int)), &filetype);
    MPI_Type_commit(&filetype);
    for (int i = 0; i < NV; i++)
        ints[i] = 1000 * rank + i;
    check(MPI_File_set_view(fh, b_end + rank * (MPI_Offset)sizeof(int), MPI_INT, filetype,
                            "native", MPI_INFO_NULL), "set_view");
    check(MPI_File_write_all(fh, ints, NV, MPI_INT, MPI_STATUS_IGNORE), "write_all view");
    check(MPI_File_get_position(fh, &pos), "get_position");
    check(MPI_File_get_byte_offset(fh, pos, &size), "get_byte_offset");
    printf("rank %d view position %lld byte %lld\n", rank, (long long)pos, (long long)size);
    check(MPI_File_sync(fh), "sync");
    MPI_Barrier(MPI_COMM_WORLD);
    check(MPI_File_sync(fh), "sync");
    check(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "view reset");
    check(MPI_File_read_at_all(fh, b_end, back, NV, MPI_INT, MPI_STATUS_IGNORE),
          "read_at_all view");
    printf("rank %d view head %d %d %d %d %d\n", rank, back[0], back[1], back[2], back[3],
           back[4]);
    {
        unsigned char all[BLK * 4];
        int peer = (rank + 2) % nranks;

        check(MPI_File_read_at(fh, (MPI_Offset)peer * BLK, all, BLK, MPI_BYTE,
                               MPI_STATUS_IGNORE), "read_at");
        printf("rank %d block of %d sum %lu\n", rank, peer, sum(all, BLK));
    }

    /* sizes */
    check(MPI_File_get_size(fh, &size), "get_size");
    printf("rank %d size %lld (want %lld)\n", rank, (long long)size, (long long)c_end);
    MPI_Barrier(MPI_COMM_WORLD); /* everyone measured before anyone resizes */
    check(MPI_File_set_size(fh, c_end + 100), "set_size grow");
    check(MPI_File_get_size(fh, &size), "get_size");
    printf("rank %d size after set_size %lld\n", rank, (long long)size);
    check(MPI_File_preallocate(fh, c_end + 50), "preallocate");
    check(MPI_File_get_size(fh, &size), "get_size");
    printf("rank %d size after preallocate %lld\n", rank, (long long)size);
    check(MPI_File_close(&fh), "close data");

    /* the shared pointer: read the ordered file back in the same order (its
     * position right after write_ordered is not printed: Open MPI 4's
     * answer differs between ranks) */
    check(MPI_File_seek_shared(fo, 0, MPI_SEEK_SET), "seek_shared");
    {
        int vals[8], ok = 1;

        for (int it = 0; it < iters; it++) {
            check(MPI_File_read_ordered(fo, vals, rank + 1, MPI_INT, MPI_STATUS_IGNORE),
                  "read_ordered");
            for (int i = 0; i <= rank; i++)
                ok &= vals[i] == it * 100 + rank * 10 + i;
        }
        printf("rank %d read_ordered %s\n", rank, ok ? "ok" : "MISMATCH");
    }
    check(MPI_File_seek_shared(fo, -4, MPI_SEEK_END), "seek_shared end");
    check(MPI_File_get_position_shared(fo, &pos), "get_position_shared");
    printf("rank %d shared position at end-4 %lld\n", rank, (long long)pos);
    check(MPI_File_close(&fo), "close ordered");

    /* delete: a scratch file, then opening it again fails on every rank */
    check(MPI_File_open(MPI_COMM_WORLD, scratch, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                        MPI_INFO_NULL, &fs), "open scratch");
    check(MPI_File_close(&fs), "close scratch");
    if (rank == 0)
        check(MPI_File_delete(scratch, MPI_INFO_NULL), "delete");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Error_class(MPI_File_open(MPI_COMM_WORLD, scratch, MPI_MODE_RDONLY, MPI_INFO_NULL,
                                  &fs), &cls);
    printf("rank %d reopen deleted: %s\n", rank,
           cls == MPI_ERR_NO_SUCH_FILE ? "MPI_ERR_NO_SUCH_FILE" : "other error");
    check(MPI_File_open(MPI_COMM_WORLD, temp,
                        MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                        MPI_INFO_NULL, &fs), "open temp");
    check(MPI_File_close(&fs), "close temp");
    MPI_Type_free(&filetype);
    MPI_Type_free(&vec);
    MPI_Finalize();
    return 0;
}
