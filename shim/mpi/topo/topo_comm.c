/*
 * topo_comm.c - process topologies on communicators: the record of a
 * communicator, its degrees, and a new communicator carrying one (a
 * logged split of its parent).
 */
#include "enc.h"

#include <stdlib.h>

#include <mpi.h>

#include "mpi/mpi_layer.h"
#include "mpi/topo/topo.h"

struct enc_mpi_topo *enc_mpi_topo_of(const char *fn, MPI_Comm comm, int kind, int *rv)
{
    struct enc_mpi_comm *c = enc_mpi_comm_get(comm);
    struct enc_mpi_topo *t = c != NULL ? c->topo : NULL;

    *rv = MPI_SUCCESS;
    if (t != NULL && (kind == 0 || t->kind == kind))
        return t;
    *rv = enc_mpi_raise(MPI_ERR_TOPOLOGY, "%s: the communicator has no %s topology", fn,
                        kind == MPI_CART ? "cartesian" : kind == MPI_GRAPH ? "graph"
                        : kind == MPI_DIST_GRAPH ? "distributed graph" : "process");
    return NULL;
}

int enc_mpi_topo_degrees(const char *fn, MPI_Comm comm, int *nin, int *nout)
{
    int rv, me;
    struct enc_mpi_topo *t = enc_mpi_topo_of(fn, comm, 0, &rv);

    if (t == NULL)
        return rv;
    me = enc_mpi_comm_rank(enc_mpi_comm_get(comm));
    if (t->kind == MPI_CART) {
        *nin = *nout = 2 * t->ndims;
    } else if (t->kind == MPI_GRAPH) {
        *nin = *nout = t->index[me] - (me > 0 ? t->index[me - 1] : 0);
    } else {
        *nin = t->indeg;
        *nout = t->outdeg;
    }
    return MPI_SUCCESS;
}

int enc_mpi_topo_attach(const char *fn, const void *site, MPI_Comm comm, int color, int key,
                        uint32_t digest, struct enc_mpi_topo *t, MPI_Comm *newcomm)
{
    int rv;

    if (t == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    rv = enc_mpi_comm_split_as(fn, site, comm, color, key, digest, ENC_COLL_COMM_TOPO, newcomm);
    if (rv != MPI_SUCCESS || *newcomm == MPI_COMM_NULL) {
        enc_mpi_topo_free(t);
        return rv;
    }
    enc_mpi_comm_get(*newcomm)->topo = t;
    return MPI_SUCCESS;
}
