/*
 * noncontig_reduce.c - user-op reductions on non-contiguous datatypes, for
 * tests/integration/noncontig_reduce.sh (compared with native mpirun):
 * MPI_Allreduce and MPI_Reduce of a strided vector of ints (every other
 * int of 3) and of a struct {int; double} with a hole, out of place, in
 * place, on the world and on a dup, MPI_Ireduce with the op freed before
 * MPI_Wait, MPI_Scan, MPI_Exscan and MPI_Reduce_scatter_block.  The holes of the receive buffer keep their sentinel
 * (a reduction writes only the datatype's elements).  Prints every int
 * and double of each receive buffer.
 */
#include <mpi.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT 5
#define INTS (3 * COUNT)

struct pair { int a; double b; };

static int rank, size;

static void sum_vec(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    /* the datatype is every other int of 3: elements 0 and 2 of each */
    for (int i = 0; i < *len; i++) {
        ((int *)inout)[3 * i] += ((int *)in)[3 * i];
        ((int *)inout)[3 * i + 2] += ((int *)in)[3 * i + 2];
    }
}

static void maxsum_pair(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++) {
        struct pair *x = (struct pair *)in + i, *y = (struct pair *)inout + i;

        y->a = x->a > y->a ? x->a : y->a;
        y->b += x->b;
    }
}

static void print_ints(const char *what, const int *v)
{
    printf("rank %d %s:", rank, what);
    for (int i = 0; i < INTS; i++)
        printf(" %d", v[i]);
    printf("\n");
}

static void vec_case(MPI_Comm comm, const char *name)
{
    MPI_Datatype vec, t;
    MPI_Op op;
    int in[INTS], out[INTS];
    char what[64];

    MPI_Type_vector(2, 1, 2, MPI_INT, &t);
    MPI_Type_create_resized(t, 0, 3 * sizeof(int), &vec);
    MPI_Type_free(&t);
    MPI_Type_commit(&vec);
    MPI_Op_create(sum_vec, 1, &op);
    for (int i = 0; i < INTS; i++) {
        in[i] = rank * 100 + i;
        out[i] = -1;
    }
    MPI_Allreduce(in, out, COUNT, vec, op, comm);
    snprintf(what, sizeof(what), "%s allreduce vec", name);
    print_ints(what, out);
    memcpy(out, in, sizeof(out));
    MPI_Allreduce(MPI_IN_PLACE, out, COUNT, vec, op, comm);
    snprintf(what, sizeof(what), "%s allreduce vec in place", name);
    print_ints(what, out);
    for (int i = 0; i < INTS; i++)
        out[i] = -7;
    MPI_Reduce(in, out, COUNT, vec, op, size - 1, comm);
    snprintf(what, sizeof(what), "%s reduce vec", name);
    print_ints(what, out);
    for (int i = 0; i < INTS; i++)
        out[i] = -5;
    MPI_Scan(in, out, COUNT, vec, op, comm);
    snprintf(what, sizeof(what), "%s scan vec", name);
    print_ints(what, out);
    for (int i = 0; i < INTS; i++)
        out[i] = -6;
    MPI_Exscan(in, out, COUNT, vec, op, comm);
    snprintf(what, sizeof(what), "%s exscan vec", name);
    if (rank > 0) /* rank 0's receive buffer is undefined */
        print_ints(what, out);
    {
        int *big = malloc(sizeof(int) * 3 * (size_t)size), mine[3] = {-4, -4, -4};

        for (int i = 0; i < 3 * size; i++)
            big[i] = rank * 1000 + i;
        MPI_Reduce_scatter_block(big, mine, 1, vec, op, comm);
        printf("rank %d %s reduce_scatter_block vec: %d %d %d\n", rank, name, mine[0], mine[1],
               mine[2]);
        free(big);
    }
    {
        MPI_Request req;

        for (int i = 0; i < INTS; i++)
            out[i] = -3;
        MPI_Ireduce(in, out, COUNT, vec, op, 0, comm, &req);
        MPI_Op_free(&op);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        snprintf(what, sizeof(what), "%s ireduce vec", name);
        print_ints(what, out);
    }
    MPI_Type_free(&vec);
}

static void pair_case(MPI_Comm comm, const char *name)
{
    struct pair in[COUNT], out[COUNT];
    int lens[2] = {1, 1};
    MPI_Aint disp[2] = {offsetof(struct pair, a), offsetof(struct pair, b)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, t, pt;
    MPI_Op op;

    MPI_Type_create_struct(2, lens, disp, types, &t);
    MPI_Type_create_resized(t, 0, sizeof(struct pair), &pt);
    MPI_Type_free(&t);
    MPI_Type_commit(&pt);
    MPI_Op_create(maxsum_pair, 1, &op);
    memset(out, 0xff, sizeof(out));
    for (int i = 0; i < COUNT; i++)
        in[i] = (struct pair){rank * 10 + i, rank + 0.25 * i};
    MPI_Allreduce(in, out, COUNT, pt, op, comm);
    printf("rank %d %s allreduce pair:", rank, name);
    for (int i = 0; i < COUNT; i++)
        printf(" (%d %.2f)", out[i].a, out[i].b);
    printf("\n");
    MPI_Op_free(&op);
    MPI_Type_free(&pt);
}

int main(int argc, char **argv)
{
    MPI_Comm dup;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    vec_case(MPI_COMM_WORLD, "world");
    vec_case(dup, "dup");
    pair_case(MPI_COMM_WORLD, "world");
    pair_case(dup, "dup");
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
