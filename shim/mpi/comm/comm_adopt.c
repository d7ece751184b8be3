/*
 * comm_adopt.c - the handle of a new encore communicator: a fresh shell
 * the real MPI makes over MPI_COMM_SELF (comm_table.c says why), and
 * registering it as the communicator over its members, whose first
 * collective sets up its channels (engine/group.h).  Every creating call
 * (comm_new.c, comm_manage.c, topo_comm.c, inter_*.c) ends here.
 */
#include "enc.h"

#include <mpi.h>

#include "engine/group.h"
#include "mpi/mpi_layer.h"

int enc_mpi_comm_adopt(const char *fn, uint64_t cid, const int *members, int n, int live,
                       MPI_Comm shell, MPI_Comm *newcomm)
{
    struct enc_group *g = NULL;
    enc_status_t rv;

    if ((rv = enc_group_new(cid, members, n, live, &g)) != ENC_OK ||
        (rv = enc_group_setup(g)) != ENC_OK || (rv = enc_mpi_comm_add(shell, g)) != ENC_OK) {
        if (rv != ENC_ERR_INVAL)
            enc_group_destroy(g);
        enc_real_Comm_free(&shell);
        return enc_mpi_engine_error(fn, rv);
    }
    *newcomm = shell;
    return MPI_SUCCESS;
}

int enc_mpi_comm_blank_shell(const char *fn, const struct enc_mpi_comm *parent, MPI_Comm *shell)
{
    MPI_Errhandler eh;
    int rv;

    if ((rv = enc_real_Comm_split(MPI_COMM_SELF, 0, 0, shell)) != MPI_SUCCESS)
        return enc_mpi_raise(rv, "%s: the real MPI could not make a communicator handle", fn);
    if (enc_real_Comm_get_errhandler(parent->h, &eh) == MPI_SUCCESS) {
        enc_real_Comm_set_errhandler(*shell, eh);
        PMPI_Errhandler_free(&eh);
    }
    return MPI_SUCCESS;
}
