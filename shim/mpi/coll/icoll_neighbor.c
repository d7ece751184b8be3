/*
 * icoll_neighbor.c - MPI_Ineighbor_allgather(v) and Ineighbor_alltoall(v,w):
 * each keeps its arguments and starts its blocking form on the progress
 * thread (icoll.c), as icoll_entries.c does for the other collectives.
 */
#include "enc.h"

#include <mpi.h>

#include "mpi/coll/icoll.h"
#include "mpi/mpi_layer.h"
#include "mpi/topo/topo.h"

typedef struct enc_mpi_icoll_args args_t;

static int run_allgather(const void *s, const args_t *a)
{
    return enc_mpi_Neighbor_allgather(s, a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                                      a->rtype, a->comm);
}

static int run_allgatherv(const void *s, const args_t *a)
{
    return enc_mpi_Neighbor_allgatherv(s, a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts,
                                       a->rdispls, a->rtype, a->comm);
}

static int run_alltoall(const void *s, const args_t *a)
{
    return enc_mpi_Neighbor_alltoall(s, a->sbuf, a->scount, a->stype, a->rbuf, a->rcount,
                                     a->rtype, a->comm);
}

static int run_alltoallv(const void *s, const args_t *a)
{
    return enc_mpi_Neighbor_alltoallv(s, a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf,
                                      a->rcounts, a->rdispls, a->rtype, a->comm);
}

static int run_alltoallw(const void *s, const args_t *a)
{
    return enc_mpi_Neighbor_alltoallw(s, a->sbuf, a->scounts, a->sbdispls, a->stypes, a->rbuf,
                                      a->rcounts, a->rbdispls, a->rtypes, a->comm);
}

/* Keeps the arguments of a neighbour collective whose blocks have one
 * datatype per side (a count, or counts and displacements) and starts it. */
static int start(const char *fn, const void *site, enc_mpi_icoll_fn run, args_t a,
                 MPI_Request *request)
{
    a.root = -1;
    return enc_mpi_icoll_start(fn, site, run, &a, request);
}

/* The same for one count per side. */
static int start_fixed(const char *fn, const void *site, enc_mpi_icoll_fn run,
                       const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request *request)
{
    return start(fn, site, run,
                 (args_t){.sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
                          .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype,
                          .comm = comm}, request);
}

int enc_mpi_Ineighbor_allgather(const void *site, const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return start_fixed("MPI_Ineighbor_allgather", site, run_allgather, sendbuf, sendcount,
                       sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int enc_mpi_Ineighbor_allgatherv(const void *site, const void *sendbuf, int sendcount,
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Request *request)
{
    return start("MPI_Ineighbor_allgatherv", site, run_allgatherv,
                 (args_t){.sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
                          .rbuf = recvbuf, .rcounts = recvcounts, .rdispls = displs,
                          .rtype = recvtype, .comm = comm}, request);
}

int enc_mpi_Ineighbor_alltoall(const void *site, const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return start_fixed("MPI_Ineighbor_alltoall", site, run_alltoall, sendbuf, sendcount,
                       sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int enc_mpi_Ineighbor_alltoallv(const void *site, const void *sendbuf, const int sendcounts[],
                                const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                const int recvcounts[], const int rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return start("MPI_Ineighbor_alltoallv", site, run_alltoallv,
                 (args_t){.sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls,
                          .stype = sendtype, .rbuf = recvbuf, .rcounts = recvcounts,
                          .rdispls = rdispls, .rtype = recvtype, .comm = comm}, request);
}

int enc_mpi_Ineighbor_alltoallw(const void *site, const void *sendbuf, const int sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm comm,
                                MPI_Request *request)
{
    args_t a = {.sbuf = sendbuf, .scounts = sendcounts, .sbdispls = sdispls,
                .stypes = sendtypes, .rbuf = recvbuf, .rcounts = recvcounts,
                .rbdispls = rdispls, .rtypes = recvtypes, .comm = comm};
    int rv = enc_mpi_topo_degrees("MPI_Ineighbor_alltoallw", comm, &a.nrtypes, &a.nstypes);

    /* the held datatype arrays have a degree's entries, not the size's */
    if (rv != MPI_SUCCESS)
        return rv;
    if (a.nstypes == 0)
        a.stypes = NULL;
    if (a.nrtypes == 0)
        a.rtypes = NULL;
    return start("MPI_Ineighbor_alltoallw", site, run_alltoallw, a, request);
}
