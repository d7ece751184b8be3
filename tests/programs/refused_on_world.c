/*
 * refused_on_world - calls MPI_Win_create_dynamic on MPI_COMM_WORLD, which
 * encore refuses (tests/integration/unsupported_call.sh).
 *   refused_on_world          default handler: the job must end, non-zero
 *   refused_on_world return   MPI_ERRORS_RETURN on the world: prints the class
 *   refused_on_world derived  MPI_ERRORS_RETURN on a dup of the world: what
 *                          encore refuses there (a window, a spawn);
 *                          prints each class
 */
#include <stdio.h>
#include <string.h>

#include <mpi.h>

static void print_class(int rank, const char *fn, int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int cls = -1, len = 0;

    MPI_Error_class(rc, &cls);
    MPI_Error_string(cls, msg, &len);
    printf("rank %d: %s returned class %d (%s)\n", rank, fn, cls, msg);
}

/* The refusals on a communicator derived from the world. */
static int derived(int rank)
{
    int base[1] = {0};
    MPI_Comm dup, other = MPI_COMM_NULL;
    MPI_Win win = MPI_WIN_NULL;

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    print_class(rank, "MPI_Win_create",
                MPI_Win_create(base, sizeof(base), 1, MPI_INFO_NULL, dup, &win));
    print_class(rank, "MPI_Comm_spawn", MPI_Comm_spawn("true", MPI_ARGV_NULL, 1, MPI_INFO_NULL,
                                                       0, dup, &other, MPI_ERRCODES_IGNORE));
    fflush(stdout);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    int rank, rc, cls = -1, len = 0;
    MPI_Win win = MPI_WIN_NULL;
    char msg[MPI_MAX_ERROR_STRING];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1 && strcmp(argv[1], "derived") == 0)
        return derived(rank);
    if (argc > 1 && strcmp(argv[1], "return") == 0)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Error_class(rc, &cls);
    MPI_Error_string(cls, msg, &len);
    printf("rank %d: MPI_Win_create_dynamic returned class %d (%s)\n", rank, cls, msg);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
