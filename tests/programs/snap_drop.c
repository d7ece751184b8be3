/*
 * snap_drop.c - an unmodified MPI program that drops memory as allocators
 * do (tests/integration/snapshot_kill.sh, case drop): ITERS in-place
 * MPI_Allreduce of a 1 MiB buffer of its own mapping, and after each the
 * buffer's second half is given back with MADV_DONTNEED, which for private
 * anonymous memory must read zeros afterwards.  A snapshot copies this
 * buffer into its image at the fork (shim/recovery/snapshot/precopy.h); a
 * rank restored from it must have anonymous memory there again, not a
 * mapping of the copy (whose dropped pages read the copy back).
 *   snap_drop [iters] [work_us]   (default 400 10000)
 * Each rank prints "rank R sum S dropped-nonzero N" (N: iterations whose
 * dropped half read anything but zeros; 0 natively).
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 400, work = argc > 2 ? atoi(argv[2]) : 10000;
    size_t n = (size_t)1 << 17; /* doubles: 1 MiB */
    int rank, bad = 0;
    double sum = 0, *b;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    b = mmap(NULL, n * sizeof(double), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
             0);
    if (b == MAP_FAILED) {
        fprintf(stderr, "snap_drop: mmap failed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int it = 0; it < iters; it++) {
        for (size_t i = 0; i < n; i++)
            b[i] = (double)(it + rank + (int)(i % 7));
        MPI_Allreduce(MPI_IN_PLACE, b, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        sum += b[it % (n / 2)];
        if (madvise((char *)b + n * sizeof(double) / 2, n * sizeof(double) / 2,
                    MADV_DONTNEED) != 0) {
            fprintf(stderr, "snap_drop: madvise failed\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        for (size_t i = n / 2; i < n; i++)
            if (b[i] != 0) {
                bad++;
                break;
            }
        usleep((useconds_t)work);
    }
    printf("rank %d sum %.17g dropped-nonzero %d\n", rank, sum, bad);
    MPI_Finalize();
    return 0;
}
