/*
 * p2p_stencil - a 1-D heat stencil: each rank owns a block of cells,
 * exchanges one halo cell with each neighbour every iteration (Isend,
 * Irecv, Waitall; Sendrecv on odd iterations), relaxes, and every
 * iteration agrees on the residual with MPI_Allreduce.  Rank 0 prints the
 * residual every 100 iterations and every rank its block's checksum at the
 * end, exactly (%.17g), so a run with a rank killed and restarted must
 * print the same distinct lines as a fault-free one
 * (tests/integration/p2p_recovery.sh).
 *   p2p_stencil [iterations] [cells per rank]
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 100, cells = argc > 2 ? atoi(argv[2]) : 1000;
    int rank, size, left, right;
    double *u, *v, res, sum = 0;
    MPI_Request q[4];

    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    u = calloc((size_t)cells + 2, sizeof(double));
    v = calloc((size_t)cells + 2, sizeof(double));
    for (int i = 1; i <= cells; i++)
        u[i] = (double)((rank * cells + i) % 17);
    for (int it = 0; it < iters; it++) {
        double local = 0;

        if (it % 2 == 0) {
            MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, it, MPI_COMM_WORLD, &q[0]);
            MPI_Irecv(&u[cells + 1], 1, MPI_DOUBLE, right, it, MPI_COMM_WORLD, &q[1]);
            MPI_Isend(&u[1], 1, MPI_DOUBLE, left, it, MPI_COMM_WORLD, &q[2]);
            MPI_Isend(&u[cells], 1, MPI_DOUBLE, right, it, MPI_COMM_WORLD, &q[3]);
            MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
        } else {
            MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, it, &u[cells + 1], 1, MPI_DOUBLE, right,
                         it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Sendrecv(&u[cells], 1, MPI_DOUBLE, right, it, &u[0], 1, MPI_DOUBLE, left, it,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        for (int i = 1; i <= cells; i++) {
            v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
            local += (v[i] - u[i]) * (v[i] - u[i]);
        }
        for (int i = 1; i <= cells; i++)
            u[i] = v[i];
        MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0 && it % 100 == 0)
            printf("iteration %d residual %.17g\n", it, res);
    }
    for (int i = 1; i <= cells; i++)
        sum += u[i] * (double)i;
    printf("rank %d checksum %.17g\n", rank, sum);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
