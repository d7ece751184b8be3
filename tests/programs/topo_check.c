/*
 * topo_check.c - process topologies and neighbour collectives, for
 * tests/integration/topo.sh (run at 4 ranks; other sizes work too).
 *
 * Each rank prints what every query and collective gave it, one line per
 * fact ("rank R <what> <values>"), so that the output sorted is compared
 * with native Open MPI's exactly:
 *   MPI_Dims_create; cartesian grids 2x2 periodic, 1x4 and 4x1 not
 *   periodic, 3 (one rank left out), a 1x(size) grid with a periodic
 *   dimension of size 1: Cart_get, Cartdim_get, Cart_rank, Cart_coords,
 *   Cart_shift (disp 1 and 2), Cart_map, Topo_test, Cart_sub both ways
 *   (and to no dimension); a dup keeps the topology;
 *   Neighbor_allgather(v), Neighbor_alltoall(v,w) and their nonblocking
 *   forms on each grid, on a graph (a ring) and on distributed graphs
 *   (adjacent: i -> i+1, i+2 with weights; Dist_graph_create: each rank
 *   names its own out-edges, printed sorted since the standard leaves the
 *   order of in-edges open).
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank_lines.h"

/* Open MPI's mpi.h declares weights as arrays, and GCC then warns that
 * MPI_UNWEIGHTED (a sentinel address) points at nothing. */
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"

static int rank, size;

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* Every neighbour collective on comm (indeg in, outdeg out); sorted: the
 * order of blocks is open (Dist_graph_create), print values sorted.
 * twice: some neighbour is one twice (a periodic dimension of size 1 or
 * 2), where Open MPI 4.1's nonblocking forms match blocks by order, not by
 * direction as its blocking ones and the standard do: their results are
 * printed sorted. */
static void neighbours(const char *name, MPI_Comm comm, int indeg, int outdeg, int sorted,
                       int twice)
{
    int me, cnt[64], dsp[64], sb[256], rb[256];
    MPI_Aint bd[64], rbd[64];
    MPI_Datatype ty[64], rty[64];
    MPI_Request req[5];
    char what[128];

    MPI_Comm_rank(comm, &me);
    for (int i = 0; i < 256; i++)
        sb[i] = 1000 * me + i;
#define SHOW(tag, n)                                                                  \
    do {                                                                              \
        snprintf(what, sizeof(what), "%s %s", name, tag);                             \
        if (sorted)                                                                   \
            qsort(rb, (size_t)(n), sizeof(int), cmp_int);                             \
        say(what, rb, n);                                                      \
    } while (0)
    memset(rb, 0xff, sizeof(rb));
    MPI_Neighbor_allgather(sb, 2, MPI_INT, rb, 2, MPI_INT, comm);
    SHOW("allgather", 2 * indeg);
    for (int i = 0; i < indeg; i++) {
        cnt[i] = 1;
        dsp[i] = 3 * (indeg - 1 - i); /* reversed, with gaps */
    }
    memset(rb, 0xff, sizeof(rb));
    MPI_Neighbor_allgatherv(sb + 5, 1, MPI_INT, rb, cnt, dsp, MPI_INT, comm);
    SHOW("allgatherv", 3 * indeg);
    memset(rb, 0xff, sizeof(rb));
    MPI_Neighbor_alltoall(sb, 3, MPI_INT, rb, 3, MPI_INT, comm);
    SHOW("alltoall", 3 * indeg);
    int rc[64], rd[64], total = 0;
    /* one int per edge, spread out on both sides */
    for (int i = 0; i < outdeg; i++) {
        cnt[i] = 1;
        dsp[i] = 4 * i;
    }
    for (int i = 0; i < indeg; i++) {
        rc[i] = 1;
        rd[i] = total;
        total += 2;
    }
    memset(rb, 0xff, sizeof(rb));
    MPI_Neighbor_alltoallv(sb, cnt, dsp, MPI_INT, rb, rc, rd, MPI_INT, comm);
    SHOW("alltoallv", total);
    for (int i = 0; i < outdeg; i++) {
        bd[i] = (MPI_Aint)(sizeof(int) * (size_t)(7 * i));
        ty[i] = MPI_INT;
    }
    for (int i = 0; i < indeg; i++) {
        rbd[i] = (MPI_Aint)(sizeof(int) * (size_t)(2 * i));
        rty[i] = MPI_INT;
        rc[i] = 2;
    }
    for (int i = 0; i < outdeg; i++)
        cnt[i] = 2;
    memset(rb, 0xff, sizeof(rb));
    MPI_Neighbor_alltoallw(sb, cnt, bd, ty, rb, rc, rbd, rty, comm);
    SHOW("alltoallw", 2 * indeg);
    /* the nonblocking forms, all pending at once */
    int r1[64], r2[64], r3[64];
    memset(r1, 0xff, sizeof(r1));
    memset(r2, 0xff, sizeof(r2));
    memset(r3, 0xff, sizeof(r3));
    memset(rb, 0xff, sizeof(rb));
    MPI_Ineighbor_allgather(sb + 1, 1, MPI_INT, r1, 1, MPI_INT, comm, &req[0]);
    MPI_Ineighbor_alltoall(sb + 2, 1, MPI_INT, r2, 1, MPI_INT, comm, &req[1]);
    for (int i = 0; i < indeg; i++) {
        cnt[i] = 1;
        dsp[i] = i;
    }
    MPI_Ineighbor_allgatherv(sb + 3, 1, MPI_INT, r3, cnt, dsp, MPI_INT, comm, &req[2]);
    for (int i = 0; i < outdeg; i++)
        rc[32 + i] = 1, rd[32 + i] = i;
    for (int i = 0; i < indeg; i++)
        rc[i] = 1, rd[i] = i;
    MPI_Ineighbor_alltoallv(sb + 4, rc + 32, rd + 32, MPI_INT, rb, rc, rd, MPI_INT, comm,
                            &req[3]);
    int rw[64];
    memset(rw, 0xff, sizeof(rw));
    for (int i = 0; i < 64; i++)
        bd[i] = (MPI_Aint)sizeof(int) * i, rbd[i] = bd[i], ty[i] = MPI_INT, rty[i] = MPI_INT,
        cnt[i] = 1;
    MPI_Ineighbor_alltoallw(sb + 6, cnt, bd, ty, rw, cnt, rbd, rty, comm, &req[4]);
    MPI_Waitall(5, req, MPI_STATUSES_IGNORE);
    sorted |= twice;
    memcpy(rb, r1, sizeof(int) * (size_t)indeg);
    SHOW("iallgather", indeg);
    memcpy(rb, r2, sizeof(int) * (size_t)indeg);
    SHOW("ialltoall", indeg);
    memcpy(rb, r3, sizeof(int) * (size_t)indeg);
    SHOW("iallgatherv", indeg);
    memcpy(rb, rw, sizeof(int) * (size_t)indeg);
    SHOW("ialltoallw", indeg);
#undef SHOW
}

static void cart(const char *name, int ndims, const int *dims, const int *periods)
{
    MPI_Comm c, sub, dup;
    int n, d[8], p[8], co[8], r, st, src, dst, keep[8], newrank, twice = 0;
    char what[128];

    MPI_Cart_map(MPI_COMM_WORLD, ndims, dims, periods, &newrank);
    snprintf(what, sizeof(what), "%s map", name);
    say(what, &newrank, 1);
    MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &c);
    if (c == MPI_COMM_NULL) {
        snprintf(what, sizeof(what), "%s null", name);
        say(what, NULL, 0);
        return;
    }
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &r);
    MPI_Topo_test(c, &st);
    MPI_Cartdim_get(c, &d[0]);
    snprintf(what, sizeof(what), "%s size-rank-cart-ndims", name);
    say(what, (int[]){n, r, st == MPI_CART, d[0]}, 4);
    MPI_Cart_get(c, ndims, d, p, co);
    snprintf(what, sizeof(what), "%s get dims", name);
    say(what, d, ndims);
    snprintf(what, sizeof(what), "%s get periods", name);
    say(what, p, ndims);
    snprintf(what, sizeof(what), "%s get coords", name);
    say(what, co, ndims);
    MPI_Cart_rank(c, co, &r);
    snprintf(what, sizeof(what), "%s rank-of-coords", name);
    say(what, &r, 1);
    for (int q = 0; q < n; q++) {
        MPI_Cart_coords(c, q, ndims, co);
        snprintf(what, sizeof(what), "%s coords-of %d", name, q);
        say(what, co, ndims);
    }
    for (int dim = 0; dim < ndims; dim++)
        for (int disp = -2; disp <= 2; disp++) {
            MPI_Cart_shift(c, dim, disp, &src, &dst);
            snprintf(what, sizeof(what), "%s shift dim %d disp %d", name, dim, disp);
            say(what, (int[]){src, dst}, 2);
        }
    for (int dim = 0; dim < ndims; dim++) {
        for (int i = 0; i < ndims; i++)
            keep[i] = i == dim;
        MPI_Cart_sub(c, keep, &sub);
        MPI_Comm_size(sub, &n);
        MPI_Comm_rank(sub, &r);
        MPI_Cartdim_get(sub, &d[0]);
        MPI_Cart_get(sub, 1, d + 1, p, co);
        snprintf(what, sizeof(what), "%s sub keep %d size-rank-ndims-dim-period-coord", name,
                 dim);
        say(what, (int[]){n, r, d[0], d[1], p[0], co[0]}, 6);
        /* the sub-grid's neighbour exchange */
        snprintf(what, sizeof(what), "%s sub %d", name, dim);
        neighbours(what, sub, 2, 2, 0, d[1] <= 2 && p[0]);
        MPI_Comm_free(&sub);
    }
    memset(keep, 0, sizeof(keep));
    MPI_Cart_sub(c, keep, &sub);
    MPI_Comm_size(sub, &n);
    MPI_Cartdim_get(sub, &d[0]);
    snprintf(what, sizeof(what), "%s sub none size-ndims", name);
    say(what, (int[]){n, d[0]}, 2);
    MPI_Comm_free(&sub);
    MPI_Comm_dup(c, &dup);
    MPI_Topo_test(dup, &st);
    MPI_Cartdim_get(dup, &d[0]);
    snprintf(what, sizeof(what), "%s dup cart-ndims", name);
    say(what, (int[]){st == MPI_CART, d[0]}, 2);
    for (int i = 0; i < ndims; i++)
        twice |= dims[i] <= 2 && periods[i];
    neighbours(name, dup, 2 * ndims, 2 * ndims, 0, twice);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&c);
}

static void graph(void)
{
    int index[64], edges[128], k = 0, nn, ne, nb[8], cnt, st;
    MPI_Comm g;

    /* a ring; node 0 also points at itself */
    for (int i = 0; i < size; i++) {
        edges[k++] = (i + size - 1) % size;
        edges[k++] = (i + 1) % size;
        if (i == 0)
            edges[k++] = 0;
        index[i] = k;
    }
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g);
    MPI_Topo_test(g, &st);
    MPI_Graphdims_get(g, &nn, &ne);
    say("graph topo-nnodes-nedges", (int[]){st == MPI_GRAPH, nn, ne}, 3);
    MPI_Graph_neighbors_count(g, rank, &cnt);
    MPI_Graph_neighbors(g, rank, 8, nb);
    say("graph neighbours", nb, cnt);
    MPI_Graph_get(g, 64, 128, index, edges);
    say("graph index", index, nn);
    say("graph edges", edges, ne);
    neighbours("graph", g, cnt, cnt, 0, size <= 2);
    MPI_Comm_free(&g);
}

static void dist_graph(void)
{
    int src[2], sw[2], dst[2], dw[2], in, out, weighted, s[2], w[2], d[2], x[2], st;
    MPI_Comm g;

    dst[0] = (rank + 1) % size;
    dst[1] = (rank + 2) % size;
    src[0] = (rank + size - 1) % size;
    src[1] = (rank + size - 2) % size;
    dw[0] = 10 + rank, dw[1] = 20 + rank;
    sw[0] = 10 + src[0], sw[1] = 20 + src[1];
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 2, dst, dw, MPI_INFO_NULL, 0,
                                   &g);
    MPI_Topo_test(g, &st);
    MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted);
    say("adjacent topo-in-out-weighted", (int[]){st == MPI_DIST_GRAPH, in, out, weighted},
               4);
    MPI_Dist_graph_neighbors(g, 2, s, w, 2, d, x);
    say("adjacent sources", s, 2);
    say("adjacent sourceweights", w, 2);
    say("adjacent destinations", d, 2);
    say("adjacent destweights", x, 2);
    neighbours("adjacent", g, 2, 2, 0, size <= 2);
    MPI_Comm_free(&g);

    /* each rank names its own out-edges: rank -> rank + 1 only, unweighted */
    int deg = 1, node = rank;
    dst[0] = (rank + 1) % size;
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &node, &deg, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                          &g);
    MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted);
    say("dist in-out-weighted", (int[]){in, out, weighted}, 3);
    MPI_Dist_graph_neighbors(g, 2, s, MPI_UNWEIGHTED, 2, d, MPI_UNWEIGHTED);
    say("dist sources", s, in);
    say("dist destinations", d, out);
    neighbours("dist", g, in, out, 1, 0);
    MPI_Comm_free(&g);
}

int main(int argc, char **argv)
{
    int dims[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dims[0] = dims[1] = 0;
    MPI_Dims_create(size, 2, dims);
    say("dims_create", dims, 2);
    if (size == 4) {
        cart("c2x2p", 2, (int[]){2, 2}, (int[]){1, 1});
        cart("c1x4", 2, (int[]){1, 4}, (int[]){0, 0});
        cart("c4x1", 2, (int[]){4, 1}, (int[]){0, 0});
    }
    cart("c3", 1, (int[]){size > 1 ? size - 1 : 1}, (int[]){1});
    cart("c1xnp", 2, (int[]){1, size}, (int[]){1, 1});
    graph();
    dist_graph();
    say_flush();
    MPI_Finalize();
    return 0;
}
