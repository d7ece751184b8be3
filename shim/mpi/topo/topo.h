/*
 * topo.h - process topologies of encore communicators (topo.c keeps them;
 * topo_cart.c and topo_graph.c serve the MPI calls; coll_neighbor.c the
 * neighbour collectives).
 *
 * A topology communicator is a derived communicator like any other (made
 * by a logged split of its parent, so a restarted rank remakes it by
 * replay) with one of these records on its table entry.  Ranks are never
 * reordered, as Open MPI does not reorder either.
 */
#ifndef ENC_MPI_TOPO_H
#define ENC_MPI_TOPO_H

#include <stdint.h>

#include <mpi.h>

#include "core/status.h"

struct enc_mpi_comm;

/* One edge of a neighbour collective: the peer (MPI_PROC_NULL: none, the
 * block is skipped) and a matching tag.  Blocks between two ranks match in
 * (tag, list order), as Open MPI's messages do: one tag per graph, one per
 * direction on a cartesian grid. */
struct enc_mpi_edge {
    int rank;
    int tag;
};

struct enc_mpi_topo {
    int kind;                 /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    int ndims, *dims, *periods;          /* MPI_CART */
    int nnodes, nedges, *index, *edges;  /* MPI_GRAPH, as the program gave them */
    int indeg, outdeg, weighted;         /* MPI_DIST_GRAPH */
    int *in, *inw, *out, *outw;
};

/* New records (copies of the arrays); NULL when out of memory. */
struct enc_mpi_topo *enc_mpi_topo_cart(int ndims, const int *dims, const int *periods);
struct enc_mpi_topo *enc_mpi_topo_graph(int nnodes, const int *index, const int *edges);
struct enc_mpi_topo *enc_mpi_topo_dist(int indeg, const int *in, const int *inw, int outdeg,
                                       const int *out, const int *outw, int weighted);
struct enc_mpi_topo *enc_mpi_topo_copy(const struct enc_mpi_topo *t);
void enc_mpi_topo_free(struct enc_mpi_topo *t);

/* Row-major rank of coords / coords of rank on a cartesian topology. */
int enc_mpi_cart_rank_of(const struct enc_mpi_topo *t, const int *coords);
void enc_mpi_cart_coords_of(const struct enc_mpi_topo *t, int rank, int *coords);
/* Neighbours at displacement disp in direction dim (MPI_PROC_NULL off a
 * non-periodic edge). */
void enc_mpi_cart_shift_of(const struct enc_mpi_topo *t, int rank, int dim, int disp,
                           int *src, int *dst);

/* The in- and out-edges of rank `me` in the order the neighbour
 * collectives' buffers list them (malloc'd; free both); ENC_ERR_NOMEM. */
enc_status_t enc_mpi_topo_edges(const struct enc_mpi_topo *t, int me, struct enc_mpi_edge **in,
                                int *nin, struct enc_mpi_edge **out, int *nout);

/* FNV-1a of n ints, chained from h (start with 0). */
uint32_t enc_mpi_topo_digest(uint32_t h, const int *v, int n);

/* ---- topo_comm.c ---- */

/* The topology of comm; raises MPI_ERR_TOPOLOGY (fn's line) and returns
 * NULL when comm has none, or none of kind (0: any). */
struct enc_mpi_topo *enc_mpi_topo_of(const char *fn, MPI_Comm comm, int kind, int *rv);

/* How many in- and out-edges this rank has on comm's topology (raises
 * MPI_ERR_TOPOLOGY without one). */
int enc_mpi_topo_degrees(const char *fn, MPI_Comm comm, int *nin, int *nout);

/* A topology communicator over the members of comm that pass color 0
 * (MPI_UNDEFINED: MPI_COMM_NULL), ordered by key: a logged split of comm
 * whose members must all pass the same digest (of the arguments MPI says
 * are equal everywhere); on success *newcomm carries t (else t is freed). */
int enc_mpi_topo_attach(const char *fn, const void *site, MPI_Comm comm, int color, int key,
                        uint32_t digest, struct enc_mpi_topo *t, MPI_Comm *newcomm);

#endif
