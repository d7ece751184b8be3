/*
 * op_table.c - every predefined datatype x predefined op through
 * MPI_Allreduce on MPI_COMM_WORLD with MPI_ERRORS_RETURN, for
 * tests/integration/op_table.sh: rank 0 prints one line per pair,
 *     TYPE OP ok <digest of the result>   or   TYPE OP refused
 * Elements are 3 per rank, all bytes 0 except each element's first, which
 * is (rank + 1) * (element + 1): small integers, tiny floats, no NaN.
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define T(x) {x, #x}
static const struct {
    MPI_Datatype t;
    const char *n;
} types[] = {
    T(MPI_CHAR), T(MPI_SIGNED_CHAR), T(MPI_UNSIGNED_CHAR), T(MPI_BYTE), T(MPI_WCHAR),
    T(MPI_SHORT), T(MPI_UNSIGNED_SHORT), T(MPI_INT), T(MPI_UNSIGNED), T(MPI_LONG),
    T(MPI_UNSIGNED_LONG), T(MPI_LONG_LONG), T(MPI_UNSIGNED_LONG_LONG), T(MPI_FLOAT),
    T(MPI_DOUBLE), T(MPI_LONG_DOUBLE), T(MPI_C_BOOL), T(MPI_INT8_T), T(MPI_INT16_T),
    T(MPI_INT32_T), T(MPI_INT64_T), T(MPI_UINT8_T), T(MPI_UINT16_T), T(MPI_UINT32_T),
    T(MPI_UINT64_T), T(MPI_AINT), T(MPI_OFFSET), T(MPI_COUNT), T(MPI_C_FLOAT_COMPLEX),
    T(MPI_C_DOUBLE_COMPLEX), T(MPI_C_LONG_DOUBLE_COMPLEX), T(MPI_INTEGER), T(MPI_INTEGER1),
    T(MPI_INTEGER2), T(MPI_INTEGER4), T(MPI_INTEGER8), T(MPI_REAL), T(MPI_REAL4),
    T(MPI_REAL8), T(MPI_DOUBLE_PRECISION), T(MPI_COMPLEX), T(MPI_DOUBLE_COMPLEX),
    T(MPI_LOGICAL), T(MPI_CHARACTER), T(MPI_FLOAT_INT), T(MPI_DOUBLE_INT), T(MPI_LONG_INT),
    T(MPI_2INT), T(MPI_SHORT_INT), T(MPI_LONG_DOUBLE_INT), T(MPI_2REAL),
    T(MPI_2DOUBLE_PRECISION), T(MPI_2INTEGER),
};
static const struct {
    MPI_Op o;
    const char *n;
} ops[] = {
    T(MPI_MAX), T(MPI_MIN), T(MPI_SUM), T(MPI_PROD), T(MPI_LAND), T(MPI_BAND), T(MPI_LOR),
    T(MPI_BOR), T(MPI_LXOR), T(MPI_BXOR), T(MPI_MAXLOC), T(MPI_MINLOC), T(MPI_REPLACE),
};

static uint64_t digest(const unsigned char *b, size_t n)
{
    uint64_t h = 1469598103934665603ull;

    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

static void one(int rank, MPI_Datatype t, const char *tn, MPI_Op o, const char *on)
{
    unsigned char in[3 * 64], out[3 * 64];
    MPI_Aint lb, extent;
    int rv;

    MPI_Type_get_extent(t, &lb, &extent);
    memset(in, 0, sizeof(in));
    memset(out, 0, sizeof(out));
    for (int e = 0; e < 3; e++)
        in[e * extent] = (unsigned char)(t == MPI_C_BOOL ? (rank + e) % 2  /* valid _Bool */
                                                         : (rank + 1) * (e + 1));
    rv = MPI_Allreduce(in, out, 3, t, o, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    if (rv == MPI_SUCCESS)
        printf("%s %s ok %016llx\n", tn, on, (unsigned long long)digest(out, 3 * extent));
    else
        printf("%s %s refused\n", tn, on);
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        for (size_t j = 0; j < sizeof(ops) / sizeof(ops[0]); j++)
            one(rank, types[i].t, types[i].n, ops[j].o, ops[j].n);
    MPI_Finalize();
    return 0;
}
