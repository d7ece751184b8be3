/*
 * topo_graph.c - graph and distributed graph topologies on encore
 * communicators: MPI_Graph_create, Dist_graph_create(_adjacent) (logged
 * splits of the parent, topo.c; Dist_graph_create first gathers every
 * rank's edges, also logged), their local queries, and MPI_Topo_test.
 * No reordering.  Dist_graph_create lists a rank's edges in the order of
 * the ranks that named them, then the order each gave them.
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "mpi/coll/coll_bytes.h"
#include "mpi/mpi_layer.h"
#include "mpi/topo/topo.h"

int enc_mpi_Topo_test(const void *site, MPI_Comm comm, int *status)
{
    struct enc_mpi_comm *c = enc_mpi_comm_get(comm);

    *status = c != NULL && c->topo != NULL ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ---- graph ---- */

/* index is non-decreasing and every edge names a node. */
static int check_graph(const char *fn, int nnodes, const int *index, const int *edges)
{
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i > 0 ? index[i - 1] : 0))
            return enc_mpi_raise(MPI_ERR_ARG, "%s: index[%d] is %d, below the one before", fn,
                                 i, index[i]);
    for (int e = 0; nnodes > 0 && e < index[nnodes - 1]; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return enc_mpi_raise(MPI_ERR_ARG, "%s: edge %d names node %d (the graph has %d)",
                                 fn, e, edges[e], nnodes);
    return MPI_SUCCESS;
}

int enc_mpi_Graph_create(const void *site, MPI_Comm comm_old, int nnodes, const int index[],
                         const int edges[], int reorder, MPI_Comm *comm_graph)
{
    const char *fn = "MPI_Graph_create";
    struct enc_mpi_comm *p = enc_mpi_comm_get(comm_old);
    int me = enc_mpi_comm_rank(p), rv;
    uint32_t d;

    (void)reorder;
    if (nnodes < 0 || nnodes > enc_mpi_comm_size(p))
        return enc_mpi_raise(MPI_ERR_ARG, "%s: nnodes %d is not in 0..%d (the communicator's "
                             "size)", fn, nnodes, enc_mpi_comm_size(p));
    if ((rv = check_graph(fn, nnodes, index, edges)) != MPI_SUCCESS)
        return rv;
    d = enc_mpi_topo_digest(enc_mpi_topo_digest(enc_mpi_topo_digest(0, &nnodes, 1), index,
                                                nnodes),
                            edges, nnodes > 0 ? index[nnodes - 1] : 0);
    return enc_mpi_topo_attach(fn, site, comm_old, me < nnodes ? 0 : MPI_UNDEFINED, me, d,
                               enc_mpi_topo_graph(nnodes, index, edges), comm_graph);
}

int enc_mpi_Graphdims_get(const void *site, MPI_Comm comm, int *nnodes, int *nedges)
{
    int rv;
    struct enc_mpi_topo *t = enc_mpi_topo_of("MPI_Graphdims_get", comm, MPI_GRAPH, &rv);

    if (t != NULL) {
        *nnodes = t->nnodes;
        *nedges = t->nedges;
    }
    return rv;
}

int enc_mpi_Graph_get(const void *site, MPI_Comm comm, int maxindex, int maxedges, int index[],
                      int edges[])
{
    int rv;
    struct enc_mpi_topo *t = enc_mpi_topo_of("MPI_Graph_get", comm, MPI_GRAPH, &rv);

    if (t == NULL)
        return rv;
    memcpy(index, t->index, sizeof(int) * (size_t)(maxindex < t->nnodes ? maxindex : t->nnodes));
    memcpy(edges, t->edges, sizeof(int) * (size_t)(maxedges < t->nedges ? maxedges : t->nedges));
    return MPI_SUCCESS;
}

/* Rank's neighbours in t: *first (an offset into t->edges) and how many. */
static int graph_node(const char *fn, MPI_Comm comm, int rank, int *first, int *n)
{
    int rv;
    struct enc_mpi_topo *t = enc_mpi_topo_of(fn, comm, MPI_GRAPH, &rv);

    if (t == NULL)
        return rv;
    if (rank < 0 || rank >= t->nnodes)
        return enc_mpi_raise(MPI_ERR_RANK, "%s: rank %d is not a node of the graph (%d nodes)",
                             fn, rank, t->nnodes);
    *first = rank > 0 ? t->index[rank - 1] : 0;
    *n = t->index[rank] - *first;
    return MPI_SUCCESS;
}

int enc_mpi_Graph_neighbors_count(const void *site, MPI_Comm comm, int rank, int *nneighbors)
{
    int first;

    return graph_node("MPI_Graph_neighbors_count", comm, rank, &first, nneighbors);
}

int enc_mpi_Graph_neighbors(const void *site, MPI_Comm comm, int rank, int maxneighbors,
                            int neighbors[])
{
    int first = 0, n = 0, rv = graph_node("MPI_Graph_neighbors", comm, rank, &first, &n);

    if (rv == MPI_SUCCESS)
        memcpy(neighbors, enc_mpi_comm_get(comm)->topo->edges + first,
               sizeof(int) * (size_t)(maxneighbors < n ? maxneighbors : n));
    return rv;
}

/* As Open MPI 4.1: the rank stays on a communicator without a graph
 * topology. */
int enc_mpi_Graph_map(const void *site, MPI_Comm comm, int nnodes, const int index[],
                      const int edges[], int *newrank)
{
    struct enc_mpi_comm *c = enc_mpi_comm_get(comm);
    int me = enc_mpi_comm_rank(c);

    (void)index;
    (void)edges;
    if (nnodes < 0 || nnodes > enc_mpi_comm_size(c))
        return enc_mpi_raise(MPI_ERR_ARG, "MPI_Graph_map: nnodes %d is not in 0..%d", nnodes,
                             enc_mpi_comm_size(c));
    *newrank = c->topo == NULL || c->topo->kind != MPI_GRAPH || me < nnodes ? me : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ---- distributed graph ---- */

static int check_ranks(const char *fn, const char *what, const int *r, int n, int size)
{
    for (int i = 0; i < n; i++)
        if (r[i] < 0 || r[i] >= size)
            return enc_mpi_raise(MPI_ERR_RANK, "%s: %s[%d] is %d, not a rank of the "
                                 "communicator (size %d)", fn, what, i, r[i], size);
    return MPI_SUCCESS;
}

int enc_mpi_Dist_graph_create_adjacent(const void *site, MPI_Comm comm_old, int indegree,
                                       const int sources[], const int sourceweights[],
                                       int outdegree, const int destinations[],
                                       const int destweights[], MPI_Info info, int reorder,
                                       MPI_Comm *comm_dist_graph)
{
    const char *fn = "MPI_Dist_graph_create_adjacent";
    struct enc_mpi_comm *p = enc_mpi_comm_get(comm_old);
    int size = enc_mpi_comm_size(p), rv;
    int weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;

    (void)info;
    (void)reorder;
    if (indegree < 0 || outdegree < 0)
        return enc_mpi_raise(MPI_ERR_ARG, "%s: negative degree (in %d, out %d)", fn, indegree,
                             outdegree);
    if ((rv = check_ranks(fn, "sources", sources, indegree, size)) != MPI_SUCCESS ||
        (rv = check_ranks(fn, "destinations", destinations, outdegree, size)) != MPI_SUCCESS)
        return rv;
    return enc_mpi_topo_attach(fn, site, comm_old, 0, enc_mpi_comm_rank(p), 0,
                               enc_mpi_topo_dist(indegree, sources, sourceweights, outdegree,
                                                 destinations, destweights, weighted),
                               comm_dist_graph);
}

int enc_mpi_Dist_graph_neighbors_count(const void *site, MPI_Comm comm, int *inneighbors,
                                       int *outneighbors, int *weighted)
{
    int rv;
    struct enc_mpi_topo *t = enc_mpi_topo_of("MPI_Dist_graph_neighbors_count", comm,
                                             MPI_DIST_GRAPH, &rv);

    if (t != NULL) {
        *inneighbors = t->indeg;
        *outneighbors = t->outdeg;
        *weighted = t->weighted;
    }
    return rv;
}

static void copy_out(int *to, const int *from, int max, int n)
{
    if (to != NULL && to != MPI_UNWEIGHTED && to != MPI_WEIGHTS_EMPTY && from != NULL)
        memcpy(to, from, sizeof(int) * (size_t)(max < n ? max : n));
}

int enc_mpi_Dist_graph_neighbors(const void *site, MPI_Comm comm, int maxindegree,
                                 int sources[], int sourceweights[], int maxoutdegree,
                                 int destinations[], int destweights[])
{
    int rv;
    struct enc_mpi_topo *t = enc_mpi_topo_of("MPI_Dist_graph_neighbors", comm, MPI_DIST_GRAPH,
                                             &rv);

    if (t == NULL)
        return rv;
    copy_out(sources, t->in, maxindegree, t->indeg);
    copy_out(destinations, t->out, maxoutdegree, t->outdeg);
    if (t->weighted) {
        copy_out(sourceweights, t->inw, maxindegree, t->indeg);
        copy_out(destweights, t->outw, maxoutdegree, t->outdeg);
    }
    return MPI_SUCCESS;
}

/* This rank's part of a Dist_graph_create, as ints: n, then per node
 * (node, degree, then degree (target, weight) pairs). */
static int *spec_pack(int n, const int *nodes, const int *degrees, const int *targets,
                      const int *weights, int weighted, uint64_t *bytes)
{
    size_t total = 1, e = 0;
    int *v, k = 0;

    for (int i = 0; i < n; i++)
        total += 2 + 2 * (size_t)degrees[i];
    if ((v = malloc(sizeof(int) * total)) == NULL)
        return NULL;
    v[k++] = n;
    for (int i = 0; i < n; i++) {
        v[k++] = nodes[i];
        v[k++] = degrees[i];
        for (int j = 0; j < degrees[i]; j++, e++) {
            v[k++] = targets[e];
            v[k++] = weighted ? weights[e] : 1;
        }
    }
    *bytes = sizeof(int) * total;
    return v;
}

/* Edges of every rank's part that end (in) or start (out) at me. */
struct dist_edges {
    int n, cap;
    int *r, *w;
};

static int add_edge(struct dist_edges *d, int r, int w)
{
    if (d->n == d->cap) {
        int cap = d->cap ? 2 * d->cap : 16;
        int *nr = realloc(d->r, sizeof(int) * (size_t)cap), *nw;

        if (nr == NULL)
            return -1;
        d->r = nr;
        if ((nw = realloc(d->w, sizeof(int) * (size_t)cap)) == NULL)
            return -1;
        d->w = nw;
        d->cap = cap;
    }
    d->r[d->n] = r;
    d->w[d->n++] = w;
    return 0;
}

/* Walks the gathered parts (sizes[r] bytes each) for me's edges. */
static int spec_edges(const int *all, const uint64_t *sizes, int size, int me,
                      struct dist_edges *in, struct dist_edges *out)
{
    int bad = 0;

    for (int r = 0; r < size; all += sizes[r++] / sizeof(int)) {
        int k = 1;

        for (int i = 0; i < all[0]; i++) {
            int node = all[k++], deg = all[k++];

            for (int j = 0; j < deg; j++, k += 2) {
                if (node == me)
                    bad |= add_edge(out, all[k], all[k + 1]);
                if (all[k] == me)
                    bad |= add_edge(in, node, all[k + 1]);
            }
        }
    }
    return bad;
}

static int check_spec(const char *fn, int n, const int *nodes, const int *degrees,
                      const int *targets, const int *weights, int size)
{
    long total = 0;
    int rv;

    if (n < 0)
        return enc_mpi_raise(MPI_ERR_ARG, "%s: n %d is negative", fn, n);
    if ((rv = check_ranks(fn, "sources", nodes, n, size)) != MPI_SUCCESS)
        return rv;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return enc_mpi_raise(MPI_ERR_ARG, "%s: degrees[%d] is %d", fn, i, degrees[i]);
        total += degrees[i];
    }
    if (total > 0 && weights == MPI_WEIGHTS_EMPTY)
        return enc_mpi_raise(MPI_ERR_ARG, "%s: MPI_WEIGHTS_EMPTY with %ld edges", fn, total);
    return check_ranks(fn, "destinations", targets, (int)total, size);
}

int enc_mpi_Dist_graph_create(const void *site, MPI_Comm comm_old, int n, const int nodes[],
                              const int degrees[], const int targets[], const int weights[],
                              MPI_Info info, int reorder, MPI_Comm *newcomm)
{
    struct enc_mpi_xfer x = enc_mpi_xfer_make("MPI_Dist_graph_create", site, comm_old, -1,
                                              ENC_COLL_COMM_TOPO);
    int weighted = weights != MPI_UNWEIGHTED, *mine = NULL, rv;
    uint64_t bytes, *sizes = malloc(8 * (size_t)x.n + 8);
    uint8_t *all = NULL;
    struct dist_edges in = {0}, out = {0};

    (void)info;
    (void)reorder;
    if ((rv = check_spec(x.fn, n, nodes, degrees, targets, weights, x.n)) != MPI_SUCCESS)
        goto out;
    if (sizes == NULL ||
        (mine = spec_pack(n, nodes, degrees, targets, weights, weighted, &bytes)) == NULL) {
        rv = enc_mpi_xfer_nomem(&x);
        goto out;
    }
    if ((rv = enc_mpi_share_sizes(&x, &bytes, 1, sizes)) != MPI_SUCCESS ||
        (rv = enc_mpi_share_data(&x, mine, sizes, &all)) != MPI_SUCCESS)
        goto out;
    if (spec_edges((const int *)all, sizes, x.n, x.me, &in, &out) != 0) {
        rv = enc_mpi_xfer_nomem(&x);
        goto out;
    }
    rv = enc_mpi_topo_attach(x.fn, site, comm_old, 0, x.me, 0,
                             enc_mpi_topo_dist(in.n, in.r, in.w, out.n, out.r, out.w, weighted),
                             newcomm);
out:
    free(sizes);
    free(mine);
    free(all);
    free(in.r);
    free(in.w);
    free(out.r);
    free(out.w);
    return rv;
}
