/*
 * inter_coll.h - collectives on intercommunicators (inter_coll.c): the
 * blocking entry points of coll_*.c hand an intercommunicator's call here.
 * A NULL counts array means the fixed-count form (count applies).
 */
#ifndef ENC_MPI_INTER_COLL_H
#define ENC_MPI_INTER_COLL_H

#include <mpi.h>

int enc_mpi_inter_bcast(const void *site, void *buffer, int count, MPI_Datatype t, int root,
                        MPI_Comm comm);
int enc_mpi_inter_allgatherv(const void *site, const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                             MPI_Comm comm);
int enc_mpi_inter_gatherv(const void *site, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                          int root, MPI_Comm comm);
int enc_mpi_inter_scatterv(const void *site, const void *sendbuf, int sendcount,
                           const int *sendcounts, const int *displs, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm);
int enc_mpi_inter_allreduce(const void *site, const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype t, MPI_Op op, MPI_Comm comm);
int enc_mpi_inter_reduce(const void *site, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm);
int enc_mpi_inter_reduce_scatter(const void *site, const void *sendbuf, void *recvbuf,
                                 int count, const int *counts, MPI_Datatype t, MPI_Op op,
                                 MPI_Comm comm);

#endif
