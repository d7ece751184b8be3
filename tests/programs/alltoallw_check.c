/*
 * alltoallw_check.c - MPI_Alltoallw and MPI_Ialltoallw with a different
 * datatype per peer (int, double, a strided vector of ints, a struct) and
 * byte displacements, for tests/integration/alltoallw.sh, which compares
 * every rank's output under encore-run with native mpirun's.
 *
 * Rank r sends peer p (p + 1) elements of type p % 4, built from r and p;
 * receive types mirror them.  Also: zero counts to odd peers (a second
 * round), MPI_IN_PLACE, and the nonblocking form with the send types freed
 * before MPI_Wait (MPI allows it).  Prints each received element.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOT 512 /* bytes per peer in the buffers */

static int rank, size;
static MPI_Datatype vec, pair;

static void make_types(void)
{
    struct p { int a; double b; } s;
    int lens[2] = {1, 1};
    MPI_Aint disp[2] = {0, (char *)&s.b - (char *)&s};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, t;

    MPI_Type_vector(2, 1, 2, MPI_INT, &vec); /* ints 0 and 2 of 3 */
    MPI_Type_create_resized(vec, 0, 3 * sizeof(int), &t);
    vec = t;
    MPI_Type_commit(&vec);
    MPI_Type_create_struct(2, lens, disp, types, &t);
    MPI_Type_create_resized(t, 0, sizeof(s), &pair);
    MPI_Type_free(&t);
    MPI_Type_commit(&pair);
}

static MPI_Datatype type_of(int p)
{
    MPI_Datatype t[4] = {MPI_INT, MPI_DOUBLE, vec, pair};

    return t[p % 4];
}

/* Fills peer p's slot of buf with values from (from, to). */
static void fill(char *slot, int p, int from, int to)
{
    int *ip = (int *)slot;
    double *dp = (double *)slot;

    for (int k = 0; k < SLOT / 8; k++) {
        if (p % 4 == 1)
            dp[k] = from * 1000.5 + to * 10 + k;
        else
            ip[k] = from * 1000 + to * 10 + k;
    }
}

static void print_slot(const char *what, const char *slot, int p, int count)
{
    printf("rank %d %s from %d:", rank, what, p);
    if (p % 4 == 1)
        for (int k = 0; k < count; k++)
            printf(" %.1f", ((const double *)slot)[k]);
    else
        for (int k = 0; k < 4 * count; k++)
            printf(" %d", ((const int *)slot)[k]);
    printf("\n");
}

static void round_trip(const char *what, int zero_odd, int in_place, int nonblocking)
{
    char *sbuf = malloc((size_t)size * SLOT), *rbuf = malloc((size_t)size * SLOT);
    int *sc = malloc(sizeof(int) * 4 * (size_t)size), *sd = sc + size, *rc = sd + size,
        *rd = rc + size;
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * 2 * (size_t)size), *rt = st + size;

    for (int p = 0; p < size; p++) {
        fill(sbuf + p * SLOT, rank % 4, rank, p); /* type of the receiver's slot below */
        memset(rbuf + p * SLOT, 0, SLOT);
        /* peer p's block: (rank % 4)-typed, as p receives type (rank % 4) from us */
        sc[p] = zero_odd && p % 2 ? 0 : p % 3 + 1;
        rc[p] = zero_odd && rank % 2 ? 0 : rank % 3 + 1;
        sd[p] = rd[p] = p * SLOT;
        st[p] = type_of(rank);
        rt[p] = type_of(p);
    }
    if (in_place) {
        /* send and receive blocks must match: the same type both ways */
        for (int p = 0; p < size; p++) {
            fill(rbuf + p * SLOT, 0, rank, p);
            rc[p] = 2;
            rt[p] = MPI_INT;
        }
        MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, rbuf, rc, rd, rt, MPI_COMM_WORLD);
    } else if (nonblocking) {
        MPI_Request req;
        MPI_Datatype mine;

        MPI_Type_dup(type_of(rank), &mine);
        for (int p = 0; p < size; p++)
            st[p] = mine;
        MPI_Ialltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD, &req);
        MPI_Type_free(&mine);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD);
    }
    for (int p = 0; p < size; p++)
        print_slot(what, rbuf + p * SLOT, in_place ? 0 : p, in_place ? 1 : 2);
    free(sbuf);
    free(rbuf);
    free(sc);
    free(st);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_types();
    round_trip("w", 0, 0, 0);
    round_trip("w-zero-odd", 1, 0, 0);
    round_trip("w-in-place", 0, 1, 0);
    round_trip("iw", 0, 0, 1);
    MPI_Type_free(&vec);
    MPI_Type_free(&pair);
    MPI_Finalize();
    return 0;
}
