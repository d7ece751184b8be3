/*
 * inter.h - intercommunicators of the encore world (inter.c keeps the
 * record, inter_comm.c makes and queries them, inter_coll.c serves their
 * collectives).
 *
 * An intercommunicator is a derived communicator over the union of its two
 * groups (the group whose leader has the lower world rank first, as Open
 * MPI orders a merge of equal `high`), so the engine, the result log and
 * recovery see an ordinary communicator; this record on its table entry
 * says which ranks of the union are the local group and which the remote
 * one.  Its collectives are exchanges over the union (coll_bytes.h).
 */
#ifndef ENC_MPI_INTER_H
#define ENC_MPI_INTER_H

#include <mpi.h>

struct enc_mpi_comm;

struct enc_mpi_inter {
    int lsize, rsize;  /* local and remote group sizes */
    int loff, roff;    /* union rank of local rank 0, of remote rank 0 */
};

/* A record for a local group of lsize first (lfirst) or second in the
 * union; NULL when out of memory. */
struct enc_mpi_inter *enc_mpi_inter_new(int lsize, int rsize, int lfirst);
struct enc_mpi_inter *enc_mpi_inter_copy(const struct enc_mpi_inter *in);
void enc_mpi_inter_free(struct enc_mpi_inter *in);

/* inter_split.c: MPI_Comm_split and MPI_Comm_create on an
 * intercommunicator (comm_new.c and comm_manage.c hand them over). */
int enc_mpi_inter_split(const void *site, MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int enc_mpi_inter_create(const void *site, MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);

#endif
