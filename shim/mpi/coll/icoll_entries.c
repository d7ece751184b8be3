/*
 * icoll_entries.c - MPI_Ibarrier, Ibcast, Iallreduce, ... : each keeps its
 * arguments and starts its blocking form on the progress thread (icoll.c).
 */
#include "enc.h"

#include <mpi.h>

#include "mpi/coll/icoll.h"
#include "mpi/mpi_layer.h"

typedef struct enc_mpi_icoll_args args_t;

static int run_barrier(const void *s, const args_t *a) { return enc_mpi_Barrier(s, a->comm); }

static int run_bcast(const void *s, const args_t *a)
{
    return enc_mpi_Bcast(s, a->rbuf, a->rcount, a->rtype, a->root, a->comm);
}

static int run_allreduce(const void *s, const args_t *a)
{
    return enc_mpi_Allreduce(s, a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->comm);
}

static int run_reduce(const void *s, const args_t *a)
{
    return enc_mpi_Reduce(s, a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->root, a->comm);
}

static int run_scan(const void *s, const args_t *a)
{
    return enc_mpi_Scan(s, a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->comm);
}

static int run_exscan(const void *s, const args_t *a)
{
    return enc_mpi_Exscan(s, a->sbuf, a->rbuf, a->rcount, a->rtype, a->op, a->comm);
}

static int run_reduce_scatter(const void *s, const args_t *a)
{
    return enc_mpi_Reduce_scatter(s, a->sbuf, a->rbuf, a->rcounts, a->rtype, a->op, a->comm);
}

static int run_reduce_scatter_block(const void *s, const args_t *a)
{
    return enc_mpi_Reduce_scatter_block(s, a->sbuf, a->rbuf, a->rcount, a->rtype, a->op,
                                        a->comm);
}

static int run_allgather(const void *s, const args_t *a)
{
    return enc_mpi_Allgather(s, a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype,
                             a->comm);
}

static int run_allgatherv(const void *s, const args_t *a)
{
    return enc_mpi_Allgatherv(s, a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts,
                              a->rdispls, a->rtype, a->comm);
}

static int run_alltoall(const void *s, const args_t *a)
{
    return enc_mpi_Alltoall(s, a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype,
                            a->comm);
}

static int run_alltoallv(const void *s, const args_t *a)
{
    return enc_mpi_Alltoallv(s, a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf,
                             a->rcounts, a->rdispls, a->rtype, a->comm);
}

static int run_alltoallw(const void *s, const args_t *a)
{
    return enc_mpi_Alltoallw(s, a->sbuf, a->scounts, a->sdispls, a->stypes, a->rbuf,
                             a->rcounts, a->rdispls, a->rtypes, a->comm);
}

static int run_gather(const void *s, const args_t *a)
{
    return enc_mpi_Gather(s, a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype,
                          a->root, a->comm);
}

static int run_gatherv(const void *s, const args_t *a)
{
    return enc_mpi_Gatherv(s, a->sbuf, a->scount, a->stype, a->rbuf, a->rcounts, a->rdispls,
                           a->rtype, a->root, a->comm);
}

static int run_scatter(const void *s, const args_t *a)
{
    return enc_mpi_Scatter(s, a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype,
                           a->root, a->comm);
}

static int run_scatterv(const void *s, const args_t *a)
{
    return enc_mpi_Scatterv(s, a->sbuf, a->scounts, a->sdispls, a->stype, a->rbuf,
                            a->rcount, a->rtype, a->root, a->comm);
}

int enc_mpi_Ibarrier(const void *site, MPI_Comm comm, MPI_Request *request)
{
    args_t a = {.comm = comm};

    return enc_mpi_icoll_start("MPI_Ibarrier", site, run_barrier, &a, request);
}

int enc_mpi_Ibcast(const void *site, void *buffer, int count, MPI_Datatype datatype, int root,
                   MPI_Comm comm, MPI_Request *request)
{
    args_t a = {.rbuf = buffer, .rcount = count, .rtype = datatype, .root = root,
                .comm = comm};

    return enc_mpi_icoll_start("MPI_Ibcast", site, run_bcast, &a, request);
}

/* The reductions: Iallreduce, Ireduce, Iscan, Iexscan. */
static int start_reduction(const char *fn, const void *site, enc_mpi_icoll_fn run,
                           const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                           MPI_Request *request)
{
    args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rcount = count, .rtype = datatype,
                .op = op, .root = root, .comm = comm};

    return enc_mpi_icoll_start(fn, site, run, &a, request);
}

int enc_mpi_Iallreduce(const void *site, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return start_reduction("MPI_Iallreduce", site, run_allreduce, sendbuf, recvbuf, count,
                           datatype, op, -1, comm, request);
}

int enc_mpi_Ireduce(const void *site, const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                    MPI_Request *request)
{
    return start_reduction("MPI_Ireduce", site, run_reduce, sendbuf, recvbuf, count,
                           datatype, op, root, comm, request);
}

int enc_mpi_Iscan(const void *site, const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return start_reduction("MPI_Iscan", site, run_scan, sendbuf, recvbuf, count, datatype,
                           op, -1, comm, request);
}

int enc_mpi_Iexscan(const void *site, const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return start_reduction("MPI_Iexscan", site, run_exscan, sendbuf, recvbuf, count,
                           datatype, op, -1, comm, request);
}

int enc_mpi_Ireduce_scatter(const void *site, const void *sendbuf, void *recvbuf,
                            const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm, MPI_Request *request)
{
    args_t a = {.sbuf = sendbuf, .rbuf = recvbuf, .rcounts = recvcounts, .rtype = datatype,
                .op = op, .root = -1, .comm = comm};

    return enc_mpi_icoll_start("MPI_Ireduce_scatter", site, run_reduce_scatter, &a, request);
}

int enc_mpi_Ireduce_scatter_block(const void *site, const void *sendbuf, void *recvbuf,
                                  int recvcount, MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm, MPI_Request *request)
{
    return start_reduction("MPI_Ireduce_scatter_block", site, run_reduce_scatter_block,
                           sendbuf, recvbuf, recvcount, datatype, op, -1, comm, request);
}

/* The block movers with one count per side: Iallgather, Ialltoall,
 * Igather, Iscatter. */
static int start_blocks(const char *fn, const void *site, enc_mpi_icoll_fn run,
                        const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Request *request)
{
    args_t a = {.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf,
                .rcount = recvcount, .rtype = recvtype, .root = root, .comm = comm};

    return enc_mpi_icoll_start(fn, site, run, &a, request);
}

int enc_mpi_Iallgather(const void *site, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return start_blocks("MPI_Iallgather", site, run_allgather, sendbuf, sendcount, sendtype,
                        recvbuf, recvcount, recvtype, -1, comm, request);
}

int enc_mpi_Ialltoall(const void *site, const void *sendbuf, int sendcount,
                      MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return start_blocks("MPI_Ialltoall", site, run_alltoall, sendbuf, sendcount, sendtype,
                        recvbuf, recvcount, recvtype, -1, comm, request);
}

int enc_mpi_Igather(const void *site, const void *sendbuf, int sendcount,
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Request *request)
{
    return start_blocks("MPI_Igather", site, run_gather, sendbuf, sendcount, sendtype,
                        recvbuf, recvcount, recvtype, root, comm, request);
}

int enc_mpi_Iscatter(const void *site, const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return start_blocks("MPI_Iscatter", site, run_scatter, sendbuf, sendcount, sendtype,
                        recvbuf, recvcount, recvtype, root, comm, request);
}

int enc_mpi_Iallgatherv(const void *site, const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Request *request)
{
    args_t a = {.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf,
                .rcounts = recvcounts, .rdispls = displs, .rtype = recvtype, .root = -1,
                .comm = comm};

    return enc_mpi_icoll_start("MPI_Iallgatherv", site, run_allgatherv, &a, request);
}

int enc_mpi_Igatherv(const void *site, const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                     const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Request *request)
{
    args_t a = {.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf,
                .rcounts = recvcounts, .rdispls = displs, .rtype = recvtype, .root = root,
                .comm = comm};

    return enc_mpi_icoll_start("MPI_Igatherv", site, run_gatherv, &a, request);
}

int enc_mpi_Iscatterv(const void *site, const void *sendbuf, const int sendcounts[],
                      const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    args_t a = {.sbuf = sendbuf, .scounts = sendcounts, .sdispls = displs, .stype = sendtype,
                .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype, .root = root,
                .comm = comm};

    return enc_mpi_icoll_start("MPI_Iscatterv", site, run_scatterv, &a, request);
}

int enc_mpi_Ialltoallv(const void *site, const void *sendbuf, const int sendcounts[],
                       const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Request *request)
{
    args_t a = {.sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls,
                .stype = sendtype, .rbuf = recvbuf, .rcounts = recvcounts,
                .rdispls = rdispls, .rtype = recvtype, .root = -1, .comm = comm};

    return enc_mpi_icoll_start("MPI_Ialltoallv", site, run_alltoallv, &a, request);
}

int enc_mpi_Ialltoallw(const void *site, const void *sendbuf, const int sendcounts[],
                       const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                       const int recvcounts[], const int rdispls[],
                       const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    args_t a = {.sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls,
                .stypes = sendbuf == MPI_IN_PLACE ? NULL : sendtypes, .rbuf = recvbuf,
                .rcounts = recvcounts, .rdispls = rdispls, .rtypes = recvtypes, .root = -1,
                .comm = comm};

    return enc_mpi_icoll_start("MPI_Ialltoallw", site, run_alltoallw, &a, request);
}
