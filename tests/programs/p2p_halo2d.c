/*
 * p2p_halo2d - a 2-D Jacobi stencil on a periodic Cartesian grid of ranks
 * (MPI_Dims_create, MPI_Cart_create, MPI_Cart_shift): each rank owns an
 * N x N block and every step exchanges its four halos with its four
 * neighbours, rows as contiguous doubles and columns as an MPI_Type_vector
 * (Irecv/Isend/Waitall on even steps, Sendrecv on odd ones: both patterns
 * real codes use).  Every CHECK steps the ranks agree on the largest
 * change with one MPI_Allreduce(MPI_MAX) (a rare convergence check; MAX is
 * exact whatever the reduction order) and stop early below 1e-12; every
 * EVERY steps each rank prints its block's checksum (%.17g).  The output
 * is a function of the arguments and the number of ranks only, so sorted
 * it equals native Open MPI's, and a run with a rank killed and restarted
 * prints the same distinct lines (tests/integration/p2p_apps.sh).
 *   p2p_halo2d [steps] [N] [EVERY] [CHECK]   (default 400 64 100 50)
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

enum { UP, DOWN, LEFT, RIGHT }; /* tags: the direction a halo travels */

struct grid {
    int n, w;     /* block edge; row length with the two halo columns */
    double *u, *v;
    MPI_Comm cart;
    MPI_Datatype col;
    int up, down, left, right;
};

#define AT(g, a, i, j) ((g)->a[(size_t)(i) * (size_t)(g)->w + (size_t)(j)])

/* halos: the rows and columns of u next to the block, from the neighbours. */
static void exchange(struct grid *g, int step)
{
    int n = g->n;

    if (step % 2 == 0) {
        MPI_Request q[8];

        MPI_Irecv(&AT(g, u, n + 1, 1), n, MPI_DOUBLE, g->down, UP, g->cart, &q[0]);
        MPI_Irecv(&AT(g, u, 0, 1), n, MPI_DOUBLE, g->up, DOWN, g->cart, &q[1]);
        MPI_Irecv(&AT(g, u, 1, n + 1), 1, g->col, g->right, LEFT, g->cart, &q[2]);
        MPI_Irecv(&AT(g, u, 1, 0), 1, g->col, g->left, RIGHT, g->cart, &q[3]);
        MPI_Isend(&AT(g, u, 1, 1), n, MPI_DOUBLE, g->up, UP, g->cart, &q[4]);
        MPI_Isend(&AT(g, u, n, 1), n, MPI_DOUBLE, g->down, DOWN, g->cart, &q[5]);
        MPI_Isend(&AT(g, u, 1, 1), 1, g->col, g->left, LEFT, g->cart, &q[6]);
        MPI_Isend(&AT(g, u, 1, n), 1, g->col, g->right, RIGHT, g->cart, &q[7]);
        MPI_Waitall(8, q, MPI_STATUSES_IGNORE);
        return;
    }
    MPI_Sendrecv(&AT(g, u, 1, 1), n, MPI_DOUBLE, g->up, UP, &AT(g, u, n + 1, 1), n, MPI_DOUBLE,
                 g->down, UP, g->cart, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&AT(g, u, n, 1), n, MPI_DOUBLE, g->down, DOWN, &AT(g, u, 0, 1), n, MPI_DOUBLE,
                 g->up, DOWN, g->cart, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&AT(g, u, 1, 1), 1, g->col, g->left, LEFT, &AT(g, u, 1, n + 1), 1, g->col,
                 g->right, LEFT, g->cart, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&AT(g, u, 1, n), 1, g->col, g->right, RIGHT, &AT(g, u, 1, 0), 1, g->col,
                 g->left, RIGHT, g->cart, MPI_STATUS_IGNORE);
}

/* One Jacobi sweep into v, then swaps u and v; returns the largest change. */
static double relax(struct grid *g)
{
    double most = 0, *t;

    for (int i = 1; i <= g->n; i++)
        for (int j = 1; j <= g->n; j++) {
            double x = 0.2 * (AT(g, u, i, j) + AT(g, u, i - 1, j) + AT(g, u, i + 1, j) +
                              AT(g, u, i, j - 1) + AT(g, u, i, j + 1));
            double d = x > AT(g, u, i, j) ? x - AT(g, u, i, j) : AT(g, u, i, j) - x;

            if (d > most)
                most = d;
            AT(g, v, i, j) = x;
        }
    t = g->u;
    g->u = g->v;
    g->v = t;
    return most;
}

static double checksum(const struct grid *g)
{
    double s = 0;

    for (int i = 1; i <= g->n; i++)
        for (int j = 1; j <= g->n; j++)
            s += AT(g, u, i, j) * (double)(1 + (i * 3 + j) % 7);
    return s;
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 400, every = argc > 3 ? atoi(argv[3]) : 100;
    int check = argc > 4 ? atoi(argv[4]) : 50;
    int size, rank, dims[2] = {0, 0}, periods[2] = {1, 1}, coords[2];
    struct grid g = {.n = argc > 2 ? atoi(argv[2]) : 64};

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (steps < 1 || g.n < 1 || every < 1 || check < 1) {
        fprintf(stderr, "usage: p2p_halo2d [steps>0] [N>0] [EVERY>0] [CHECK>0]\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &g.cart);
    MPI_Comm_rank(g.cart, &rank);
    MPI_Cart_coords(g.cart, rank, 2, coords);
    MPI_Cart_shift(g.cart, 0, 1, &g.up, &g.down);
    MPI_Cart_shift(g.cart, 1, 1, &g.left, &g.right);
    g.w = g.n + 2;
    MPI_Type_vector(g.n, 1, g.w, MPI_DOUBLE, &g.col);
    MPI_Type_commit(&g.col);
    g.u = calloc((size_t)g.w * (size_t)g.w, sizeof(double));
    g.v = calloc((size_t)g.w * (size_t)g.w, sizeof(double));
    if (!g.u || !g.v) {
        fprintf(stderr, "p2p_halo2d: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 1; i <= g.n; i++)
        for (int j = 1; j <= g.n; j++) {
            long gi = (long)coords[0] * g.n + i, gj = (long)coords[1] * g.n + j;

            AT(&g, u, i, j) = (double)((gi * 7 + gj * 13) % 101);
        }
    for (int step = 1; step <= steps; step++) {
        double most;

        exchange(&g, step);
        most = relax(&g);
        if (step % every == 0)
            printf("step %d rank %d checksum %.17g\n", step, rank, checksum(&g));
        if (step % check == 0) {
            MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_DOUBLE, MPI_MAX, g.cart);
            if (rank == 0)
                printf("step %d change %.17g\n", step, most);
            if (most < 1e-12)
                break;
        }
    }
    printf("end rank %d checksum %.17g\n", rank, checksum(&g));
    MPI_Type_free(&g.col);
    MPI_Comm_free(&g.cart);
    free(g.u);
    free(g.v);
    MPI_Finalize();
    return 0;
}
