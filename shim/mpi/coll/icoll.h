/*
 * icoll.h - nonblocking collectives (icoll.c runs them on a progress
 * thread; icoll_entries.c starts them).
 */
#ifndef ENC_MPI_ICOLL_H
#define ENC_MPI_ICOLL_H

#include <stdbool.h>

#include <mpi.h>

/* The arguments of one nonblocking collective, kept until it runs (MPI
 * forbids changing buffers and count arrays before completion). */
struct enc_mpi_icoll_args {
    const void *sbuf;
    void *rbuf;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    const MPI_Datatype *stypes, *rtypes; /* MPI_Ialltoallw: one per rank */
    int nstypes, nrtypes;  /* entries of stypes and rtypes (0: the communicator's size) */
    const int *scounts, *sdispls, *rcounts, *rdispls;
    const MPI_Aint *sbdispls, *rbdispls; /* MPI_Ineighbor_alltoallw: in bytes */
    MPI_Op op;
    int root;
    MPI_Comm comm;
    MPI_Comm *newcomm;  /* MPI_Comm_idup */
};

/* Runs the blocking form of the collective; returns its MPI error code. */
typedef int (*enc_mpi_icoll_fn)(const void *site, const struct enc_mpi_icoll_args *a);

/* Queues run(a) behind every collective started before and makes
 * *request, which completes when it has run. */
int enc_mpi_icoll_start(const char *fn, const void *site, enc_mpi_icoll_fn run,
                        const struct enc_mpi_icoll_args *a, MPI_Request *request);
/* At MPI_Init: the engine's waits take turns with the workers. */
void enc_mpi_icoll_init(void);
/* Nonblocking collectives whose requests the application has not yet
 * completed (MPI_Wait, MPI_Test and their array forms) or freed. */
int enc_mpi_icoll_outstanding(void);
/* A live MPI_Test... found nothing complete (no lock held): a thread
 * that polls again at once while a nonblocking collective is pending
 * sleeps until a completion, at most POLL_NAP_MS (icoll.c). */
void enc_mpi_icoll_polled(void);
/* Jobs run to their end so far, and a sleep until the count is past
 * ended or deadline (enc_deadline_ms) passes: where a wait for one
 * nonblocking collective's request sleeps, without the spinning of
 * point-to-point's waits (no lock held). */
uint64_t enc_mpi_icoll_ended(void);
void enc_mpi_icoll_sleep(uint64_t ended, uint64_t deadline);
/* h is a nonblocking collective's request not yet complete. */
bool enc_mpi_icoll_owns(MPI_Request h);
/* MPI_Request_free of a nonblocking collective's request: it completes
 * unwatched, *request becomes MPI_REQUEST_NULL; false for any other. */
bool enc_mpi_icoll_detach(MPI_Request *request);
/* At MPI_Finalize (inside its serial section): ends the progress thread. */
void enc_mpi_icoll_fini(void);
/* What a snapshot's fork needs from the progress thread (icoll.c). */
struct enc_fork_guard;
extern const struct enc_fork_guard enc_mpi_icoll_fork_guard;

#endif
