/*
 * send_on_world - calls MPI_Send on MPI_COMM_WORLD, which encore refuses
 * (tests/integration/unsupported_call.sh).
 *   send_on_world          default handler: the job must end, non-zero
 *   send_on_world return   MPI_ERRORS_RETURN on the world: prints the class
 */
#include <stdio.h>
#include <string.h>

#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, x = 42, rc, cls = -1, len = 0;
    char msg[MPI_MAX_ERROR_STRING];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "return") == 0)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* Ranks pair up and both send first: small eager messages in plain MPI. */
    rc = MPI_Send(&x, 1, MPI_INT, (rank ^ 1) < size ? rank ^ 1 : rank, 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    MPI_Error_string(cls, msg, &len);
    printf("rank %d: MPI_Send returned class %d (%s)\n", rank, cls, msg);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
