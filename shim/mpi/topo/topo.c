/*
 * topo.c - the process topology records of encore communicators: making,
 * copying and freeing them, cartesian arithmetic, the edges of the
 * neighbour collectives (topo_comm.c ties them to communicators).
 *
 * Edges follow Open MPI 4.1 (coll/basic), whose results the tests compare
 * against: on a cartesian grid each dimension lists its negative then its
 * positive neighbour (a non-periodic edge: MPI_PROC_NULL, a periodic
 * dimension of size 1: this rank twice), and a block sent in the positive
 * direction is received in the negative slot, whatever the ranks; a graph's
 * neighbours are both its in- and out-edges; a distributed graph has its
 * sources and destinations.
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "mpi/topo/topo.h"

static int *dup_ints(const int *v, int n)
{
    int *d = malloc(sizeof(int) * (size_t)n + 1);

    if (d != NULL && n > 0)
        memcpy(d, v, sizeof(int) * (size_t)n);
    return d;
}

void enc_mpi_topo_free(struct enc_mpi_topo *t)
{
    if (t == NULL)
        return;
    free(t->dims);
    free(t->periods);
    free(t->index);
    free(t->edges);
    free(t->in);
    free(t->inw);
    free(t->out);
    free(t->outw);
    free(t);
}

/* t when every array it needs was allocated, else NULL (t freed). */
static struct enc_mpi_topo *complete(struct enc_mpi_topo *t, int ok)
{
    if (ok)
        return t;
    enc_mpi_topo_free(t);
    return NULL;
}

struct enc_mpi_topo *enc_mpi_topo_cart(int ndims, const int *dims, const int *periods)
{
    struct enc_mpi_topo *t = calloc(1, sizeof(*t));

    if (t == NULL)
        return NULL;
    t->kind = MPI_CART;
    t->ndims = ndims;
    t->dims = dup_ints(dims, ndims);
    t->periods = dup_ints(periods, ndims);
    for (int i = 0; t->periods != NULL && i < ndims; i++)
        t->periods[i] = t->periods[i] != 0;
    return complete(t, t->dims != NULL && t->periods != NULL);
}

struct enc_mpi_topo *enc_mpi_topo_graph(int nnodes, const int *index, const int *edges)
{
    struct enc_mpi_topo *t = calloc(1, sizeof(*t));

    if (t == NULL)
        return NULL;
    t->kind = MPI_GRAPH;
    t->nnodes = nnodes;
    t->nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    t->index = dup_ints(index, nnodes);
    t->edges = dup_ints(edges, t->nedges);
    return complete(t, t->index != NULL && t->edges != NULL);
}

struct enc_mpi_topo *enc_mpi_topo_dist(int indeg, const int *in, const int *inw, int outdeg,
                                       const int *out, const int *outw, int weighted)
{
    struct enc_mpi_topo *t = calloc(1, sizeof(*t));

    if (t == NULL)
        return NULL;
    t->kind = MPI_DIST_GRAPH;
    t->indeg = indeg;
    t->outdeg = outdeg;
    t->weighted = weighted;
    t->in = dup_ints(in, indeg);
    t->out = dup_ints(out, outdeg);
    t->inw = weighted ? dup_ints(inw, indeg) : NULL;
    t->outw = weighted ? dup_ints(outw, outdeg) : NULL;
    return complete(t, t->in != NULL && t->out != NULL &&
                       (!weighted || (t->inw != NULL && t->outw != NULL)));
}

struct enc_mpi_topo *enc_mpi_topo_copy(const struct enc_mpi_topo *t)
{
    switch (t->kind) {
    case MPI_CART:
        return enc_mpi_topo_cart(t->ndims, t->dims, t->periods);
    case MPI_GRAPH:
        return enc_mpi_topo_graph(t->nnodes, t->index, t->edges);
    default:
        return enc_mpi_topo_dist(t->indeg, t->in, t->inw, t->outdeg, t->out, t->outw,
                                 t->weighted);
    }
}

int enc_mpi_cart_rank_of(const struct enc_mpi_topo *t, const int *coords)
{
    int r = 0;

    for (int i = 0; i < t->ndims; i++)
        r = r * t->dims[i] + coords[i];
    return r;
}

void enc_mpi_cart_coords_of(const struct enc_mpi_topo *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

/* Coordinate c in dimension dim moved onto the grid, -1 when off it. */
static int wrap(const struct enc_mpi_topo *t, int dim, int c)
{
    int d = t->dims[dim];

    if (c >= 0 && c < d)
        return c;
    return t->periods[dim] ? ((c % d) + d) % d : -1;
}

void enc_mpi_cart_shift_of(const struct enc_mpi_topo *t, int rank, int dim, int disp,
                           int *src, int *dst)
{
    int coords[t->ndims + 1], me;

    enc_mpi_cart_coords_of(t, rank, coords);
    me = coords[dim];
    coords[dim] = wrap(t, dim, me + disp);
    *dst = coords[dim] < 0 ? MPI_PROC_NULL : enc_mpi_cart_rank_of(t, coords);
    coords[dim] = wrap(t, dim, me - disp);
    *src = coords[dim] < 0 ? MPI_PROC_NULL : enc_mpi_cart_rank_of(t, coords);
}

/* Cartesian edges: per dimension the negative, then the positive side. */
static void cart_edges(const struct enc_mpi_topo *t, int me, struct enc_mpi_edge *in,
                       struct enc_mpi_edge *out)
{
    for (int d = 0; d < t->ndims; d++) {
        int src = MPI_PROC_NULL, dst = MPI_PROC_NULL;

        if (t->dims[d] > 1)
            enc_mpi_cart_shift_of(t, me, d, 1, &src, &dst);
        else if (t->periods[d])
            src = dst = me;
        in[2 * d] = (struct enc_mpi_edge){src, 2 * d};
        in[2 * d + 1] = (struct enc_mpi_edge){dst, 2 * d + 1};
        out[2 * d] = (struct enc_mpi_edge){src, 2 * d + 1};
        out[2 * d + 1] = (struct enc_mpi_edge){dst, 2 * d};
    }
}

static void list_edges(const int *ranks, int n, struct enc_mpi_edge *e)
{
    for (int i = 0; i < n; i++)
        e[i] = (struct enc_mpi_edge){ranks[i], 0};
}

enc_status_t enc_mpi_topo_edges(const struct enc_mpi_topo *t, int me, struct enc_mpi_edge **in,
                                int *nin, struct enc_mpi_edge **out, int *nout)
{
    const int *gn = NULL;

    if (t->kind == MPI_CART) {
        *nin = *nout = 2 * t->ndims;
    } else if (t->kind == MPI_GRAPH) {
        int first = me > 0 ? t->index[me - 1] : 0;

        gn = t->edges + first;
        *nin = *nout = t->index[me] - first;
    } else {
        *nin = t->indeg;
        *nout = t->outdeg;
    }
    *in = malloc(sizeof(**in) * (size_t)*nin + 1);
    *out = malloc(sizeof(**out) * (size_t)*nout + 1);
    if (*in == NULL || *out == NULL) {
        free(*in);
        free(*out);
        return ENC_ERR_NOMEM;
    }
    if (t->kind == MPI_CART) {
        cart_edges(t, me, *in, *out);
    } else if (t->kind == MPI_GRAPH) {
        list_edges(gn, *nin, *in);
        list_edges(gn, *nout, *out);
    } else {
        list_edges(t->in, *nin, *in);
        list_edges(t->out, *nout, *out);
    }
    return ENC_OK;
}

uint32_t enc_mpi_topo_digest(uint32_t h, const int *v, int n)
{
    if (h == 0)
        h = 2166136261u;
    for (int i = 0; i < n; i++) {
        h ^= (uint32_t)v[i];
        h *= 16777619u;
    }
    return h;
}
