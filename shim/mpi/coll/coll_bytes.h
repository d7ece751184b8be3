/*
 * coll_bytes.h - packed bytes between the ranks of an encore communicator
 * (coll_bytes.c): the two exchanges every collective of coll_rooted.c,
 * coll_neighbor.c and the intercommunicator ones is built from.  Each is
 * an allgatherv of the engine, so every rank holds (and logs) the whole
 * result and a restarted rank is answered by any survivor.
 */
#ifndef ENC_MPI_COLL_BYTES_H
#define ENC_MPI_COLL_BYTES_H

#include <stdint.h>

#include <mpi.h>

#include "engine/engine.h"

struct enc_mpi_comm;

/* One MPI-level operation on a communicator: its name, call site, the
 * communicator (size n, this rank me), root (-1: none) and what it is. */
struct enc_mpi_xfer {
    const char *fn;
    const void *site;
    struct enc_mpi_comm *c;
    int n, me, root;
    enum enc_coll_kind what;
};

struct enc_mpi_xfer enc_mpi_xfer_make(const char *fn, const void *site, MPI_Comm comm, int root,
                                      enum enc_coll_kind what);
/* Raises MPI_ERR_NO_MEM for x (one line) and returns it. */
int enc_mpi_xfer_nomem(const struct enc_mpi_xfer *x);

/* Allgather of k uint64 per rank into all (n * k). */
int enc_mpi_share_sizes(const struct enc_mpi_xfer *x, const uint64_t *mine, int k,
                        uint64_t *all);
/* Allgatherv of byte blocks of sizes[i] (mine is this rank's) into *all
 * (malloc'd). */
int enc_mpi_share_data(const struct enc_mpi_xfer *x, const void *mine, const uint64_t *sizes,
                       uint8_t **all);

/* Every rank's row of blocks, one per rank (row[j] bytes for rank j, back
 * to back in mine), reaches every rank: *m gets the n x n sizes (m[j*n+k]:
 * from j to k) and *all the bytes (both malloc'd).  Two collectives. */
int enc_mpi_share_rows(const struct enc_mpi_xfer *x, const uint64_t *row, const uint8_t *mine,
                       uint64_t **m, uint8_t **all);
/* Offsets in all of the blocks every rank j sent to rank k (off[j], n of
 * them); NULL when out of memory. */
uint64_t *enc_mpi_row_offsets(const uint64_t *m, int n, int k);

#endif
