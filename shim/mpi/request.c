/*
 * request.c - requests of encore operations are generalized requests of
 * the real MPI, so MPI_Wait, Test and their array forms, Request_free and
 * mixed arrays with the real MPI's own requests all work natively.
 */
#include "enc.h"

#include <mpi.h>

#include "mpi/mpi_layer.h"

static int done_query(void *extra, MPI_Status *status)
{
    (void)extra;
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int done_free(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int done_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

int enc_mpi_request_done(MPI_Request *request)
{
    int rv = PMPI_Grequest_start(done_query, done_free, done_cancel, NULL, request);

    if (rv != MPI_SUCCESS)
        return enc_mpi_raise(rv, "the real MPI could not make a request");
    return PMPI_Grequest_complete(*request);
}
