/*
 * coll_neighbor.c - MPI_Neighbor_allgather(v) and Neighbor_alltoall(v,w)
 * on topology communicators (their nonblocking forms run these on the
 * progress thread, icoll_entries.c).
 *
 * Built on the exchange MPI_Alltoallw uses (coll_bytes.h): each rank
 * packs its out-edges' blocks into one row per destination rank (nothing
 * for a rank it has no edge to), the rows travel as one allgatherv after
 * an allgather of their sizes, and each rank unpacks the blocks that came
 * from its in-neighbours.  Two logged collectives, so a restarted rank is
 * answered from the log like any other; the cost is that every rank
 * receives every rank's blocks (docs/algorithms.md).  Blocks between two
 * ranks match in (tag, list order), as Open MPI's messages do (topo.h).
 */
#include "enc.h"

#include <stdlib.h>

#include <mpi.h>

#include "mpi/coll/coll_bytes.h"
#include "mpi/mpi_layer.h"
#include "mpi/topo/topo.h"

/* Where one edge's block is: count elements of t at buf + off bytes. */
struct nblock {
    int count;
    MPI_Aint off;
    MPI_Datatype t;
};

/* An edge with its index in the program's list, for sorting. */
struct slot {
    struct enc_mpi_edge e;
    int i;
};

static int by_peer(const void *a, const void *b)
{
    const struct slot *x = a, *y = b;

    if (x->e.rank != y->e.rank)
        return x->e.rank < y->e.rank ? -1 : 1;
    if (x->e.tag != y->e.tag)
        return x->e.tag < y->e.tag ? -1 : 1;
    return x->i - y->i;
}

/* The edges to or from a rank, sorted by (peer, tag, index), PROC_NULL
 * left out; *k gets how many. */
static struct slot *sorted(const struct enc_mpi_edge *e, int n, int *k)
{
    struct slot *s = malloc(sizeof(*s) * (size_t)n + 1);

    *k = 0;
    for (int i = 0; s != NULL && i < n; i++)
        if (e[i].rank != MPI_PROC_NULL)
            s[(*k)++] = (struct slot){e[i], i};
    if (s != NULL)
        qsort(s, (size_t)*k, sizeof(*s), by_peer);
    return s;
}

static int block_bytes(const struct enc_mpi_xfer *x, const struct nblock *b,
                       struct enc_mpi_layout *l, uint64_t *bytes)
{
    int rv;

    if (b->count < 0)
        return enc_mpi_raise(MPI_ERR_COUNT, "%s: negative count %d", x->fn, b->count);
    if ((rv = enc_mpi_type_layout(x->fn, b->t, 1, l)) == MPI_SUCCESS)
        *bytes = (uint64_t)b->count * l->size;
    return rv;
}

/* This rank's row for every rank: the out-edges' blocks packed in
 * (peer, tag, index) order into *mine; row[j] bytes for rank j. */
static int pack_rows(const struct enc_mpi_xfer *x, const void *buf, const struct slot *s, int k,
                     const struct nblock *b, uint64_t *row, uint8_t **mine)
{
    struct enc_mpi_layout l;
    uint64_t total = 0, bytes;
    int rv = MPI_SUCCESS;

    for (int j = 0; j < x->n; j++)
        row[j] = 0;
    for (int i = 0; i < k && rv == MPI_SUCCESS; i++)
        if ((rv = block_bytes(x, &b[s[i].i], &l, &bytes)) == MPI_SUCCESS) {
            row[s[i].e.rank] += bytes;
            total += bytes;
        }
    if (rv != MPI_SUCCESS)
        return rv;
    if ((*mine = malloc(total + 1)) == NULL)
        return enc_mpi_xfer_nomem(x);
    total = 0;
    for (int i = 0; i < k && rv == MPI_SUCCESS; i++) {
        const struct nblock *e = &b[s[i].i];

        if ((rv = block_bytes(x, e, &l, &bytes)) == MPI_SUCCESS)
            rv = enc_mpi_pack(x->fn, (const char *)buf + e->off, (size_t)e->count, e->t, l.size,
                              l.extent, *mine + total);
        total += bytes;
    }
    return rv;
}

/* Unpacks what each in-neighbour sent into its blocks: the stream from a
 * peer is cut by this rank's own block sizes, and must be used up. */
static int unpack_rows(const struct enc_mpi_xfer *x, void *buf, const struct slot *s, int k,
                       const struct nblock *b, const uint64_t *m, const uint8_t *all)
{
    uint64_t *off = enc_mpi_row_offsets(m, x->n, x->me), used = 0, bytes;
    struct enc_mpi_layout l;
    int rv = MPI_SUCCESS;

    if (off == NULL)
        return enc_mpi_xfer_nomem(x);
    for (int i = 0; i < k && rv == MPI_SUCCESS; i++) {
        const struct nblock *e = &b[s[i].i];
        int peer = s[i].e.rank;
        uint64_t have = m[(size_t)peer * (size_t)x->n + (size_t)x->me];

        used = i > 0 && s[i - 1].e.rank == peer ? used : 0;
        if ((rv = block_bytes(x, e, &l, &bytes)) != MPI_SUCCESS)
            break;
        if (used + bytes > have)
            rv = enc_mpi_raise(MPI_ERR_TRUNCATE, "%s: rank %d sent %llu bytes for this rank's "
                               "edges from it, fewer than they take", x->fn, peer,
                               (unsigned long long)have);
        else
            rv = enc_mpi_unpack(x->fn, all + off[peer] + used, (size_t)e->count, e->t, l.size,
                                l.extent, (char *)buf + e->off);
        used += bytes;
        if (rv == MPI_SUCCESS && (i == k - 1 || s[i + 1].e.rank != peer) && used != have)
            rv = enc_mpi_raise(MPI_ERR_TRUNCATE, "%s: rank %d sent %llu bytes for this rank's "
                               "edges from it, which take %llu", x->fn, peer,
                               (unsigned long long)have, (unsigned long long)used);
    }
    free(off);
    return rv;
}

static int neighbor(const char *fn, const void *site, MPI_Comm comm, const void *sbuf,
                    const struct nblock *sb, void *rbuf, const struct nblock *rb)
{
    struct enc_mpi_xfer x = enc_mpi_xfer_make(fn, site, comm, -1, ENC_COLL_NEIGHBOR);
    struct enc_mpi_topo *t = enc_mpi_comm_get(comm)->topo;
    struct enc_mpi_edge *in = NULL, *out = NULL;
    struct slot *si = NULL, *so = NULL;
    uint64_t *row = malloc(8 * (size_t)x.n + 8), *m = NULL;
    uint8_t *mine = NULL, *all = NULL;
    int nin, nout, ki, ko, rv;

    if (enc_mpi_topo_edges(t, x.me, &in, &nin, &out, &nout) != ENC_OK || row == NULL || (si = sorted(in, nin, &ki)) == NULL ||
        (so = sorted(out, nout, &ko)) == NULL) {
        rv = enc_mpi_xfer_nomem(&x);
        goto out;
    }
    if ((rv = pack_rows(&x, sbuf, so, ko, sb, row, &mine)) == MPI_SUCCESS &&
        (rv = enc_mpi_share_rows(&x, row, mine, &m, &all)) == MPI_SUCCESS)
        rv = unpack_rows(&x, rbuf, si, ki, rb, m, all);
out:
    free(in);
    free(out);
    free(si);
    free(so);
    free(row);
    free(m);
    free(mine);
    free(all);
    return rv;
}

/* ---- the five calls: their buffers as blocks per edge ---- */

static MPI_Aint extent_of(MPI_Datatype t)
{
    MPI_Aint lb, ext = 0;

    PMPI_Type_get_extent(t, &lb, &ext);
    return ext;
}

/* Blocks of one datatype: counts[i] (or count) elements at displs[i] (or
 * i * count) extents. */
static struct nblock *blocks(int n, int count, const int *counts, const int *displs,
                             MPI_Datatype t, int same)
{
    struct nblock *b = malloc(sizeof(*b) * (size_t)n + 1);
    MPI_Aint ext = extent_of(t);

    for (int i = 0; b != NULL && i < n; i++)
        b[i] = counts != NULL ? (struct nblock){counts[i], (MPI_Aint)displs[i] * ext, t}
                              : (struct nblock){count, same ? 0 : (MPI_Aint)i * count * ext, t};
    return b;
}

static int run(const char *fn, const void *site, MPI_Comm comm, const void *sbuf,
               struct nblock *sb, void *rbuf, struct nblock *rb)
{
    int rv = sb != NULL && rb != NULL
                 ? neighbor(fn, site, comm, sbuf, sb, rbuf, rb)
                 : enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);

    free(sb);
    free(rb);
    return rv;
}

int enc_mpi_Neighbor_allgather(const void *site, const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf, int recvcount,
                               MPI_Datatype recvtype, MPI_Comm comm)
{
    const char *fn = "MPI_Neighbor_allgather";
    int nin, nout, rv = enc_mpi_topo_degrees(fn, comm, &nin, &nout);

    return rv != MPI_SUCCESS ? rv
                             : run(fn, site, comm, sendbuf,
                                   blocks(nout, sendcount, NULL, NULL, sendtype, 1), recvbuf,
                                   blocks(nin, recvcount, NULL, NULL, recvtype, 0));
}

int enc_mpi_Neighbor_allgatherv(const void *site, const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    const char *fn = "MPI_Neighbor_allgatherv";
    int nin, nout, rv = enc_mpi_topo_degrees(fn, comm, &nin, &nout);

    return rv != MPI_SUCCESS ? rv
                             : run(fn, site, comm, sendbuf,
                                   blocks(nout, sendcount, NULL, NULL, sendtype, 1), recvbuf,
                                   blocks(nin, 0, recvcounts, displs, recvtype, 0));
}

int enc_mpi_Neighbor_alltoall(const void *site, const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, MPI_Comm comm)
{
    const char *fn = "MPI_Neighbor_alltoall";
    int nin, nout, rv = enc_mpi_topo_degrees(fn, comm, &nin, &nout);

    return rv != MPI_SUCCESS ? rv
                             : run(fn, site, comm, sendbuf,
                                   blocks(nout, sendcount, NULL, NULL, sendtype, 0), recvbuf,
                                   blocks(nin, recvcount, NULL, NULL, recvtype, 0));
}

int enc_mpi_Neighbor_alltoallv(const void *site, const void *sendbuf, const int sendcounts[],
                               const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                               const int recvcounts[], const int rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm)
{
    const char *fn = "MPI_Neighbor_alltoallv";
    int nin, nout, rv = enc_mpi_topo_degrees(fn, comm, &nin, &nout);

    return rv != MPI_SUCCESS ? rv
                             : run(fn, site, comm, sendbuf,
                                   blocks(nout, 0, sendcounts, sdispls, sendtype, 0), recvbuf,
                                   blocks(nin, 0, recvcounts, rdispls, recvtype, 0));
}

/* Blocks of MPI_Neighbor_alltoallw: a datatype each, displacements in bytes. */
static struct nblock *wblocks(int n, const int *counts, const MPI_Aint *displs,
                              const MPI_Datatype *types)
{
    struct nblock *b = malloc(sizeof(*b) * (size_t)n + 1);

    for (int i = 0; b != NULL && i < n; i++)
        b[i] = (struct nblock){counts[i], displs[i], types[i]};
    return b;
}

int enc_mpi_Neighbor_alltoallw(const void *site, const void *sendbuf, const int sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                               const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    const char *fn = "MPI_Neighbor_alltoallw";
    int nin, nout, rv = enc_mpi_topo_degrees(fn, comm, &nin, &nout);

    return rv != MPI_SUCCESS ? rv
                             : run(fn, site, comm, sendbuf,
                                   wblocks(nout, sendcounts, sdispls, sendtypes), recvbuf,
                                   wblocks(nin, recvcounts, rdispls, recvtypes));
}
