/*
 * coll_rooted.c - MPI_Gather(v), MPI_Scatter(v), MPI_Alltoall(v,w) on the
 * encore world and derived communicators.
 *
 * Simple and recoverable first: block sizes are exchanged (a small
 * allgather, or a bcast from the root), then the data travels as an
 * allgatherv (gather, alltoall) or a bcast (scatter) of packed bytes, so
 * every rank holds and logs the whole result and a restarted rank is
 * answered by any survivor.  The cost is n times the bytes a tree would
 * move (docs/algorithms.md).  Any datatype: blocks are packed with the
 * real PMPI_Pack and unpacked into place.  MPI_Alltoall on an
 * intracommunicator needs no size exchange (its blocks are all alike) and
 * runs as the engine's alltoall, which still logs every row but copies
 * out only this rank's column where it can (engine/engine.h).
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/coll/coll_bytes.h"
#include "mpi/inter/inter.h"
#include "mpi/inter/inter_coll.h"
#include "mpi/mpi_layer.h"

typedef struct enc_mpi_xfer xfer_t;

static int nomem(const xfer_t *x)
{
    return enc_mpi_xfer_nomem(x);
}

static int layout(const xfer_t *x, MPI_Datatype t, struct enc_mpi_layout *l)
{
    return enc_mpi_type_layout(x->fn, t, 1, l);
}

/* Packs k blocks (counts[i] elements at buf + displs[i] extents) back to
 * back into *out; sizes[i] gets each block's bytes. */
/* Where the blocks of a buffer are: block i is counts[i] elements of one
 * datatype at displs[i] extents (the v forms), or of types[i] at displs[i]
 * bytes (MPI_Alltoallw). */
struct blocks {
    const int *counts, *displs;
    MPI_Datatype type;
    const MPI_Datatype *types;
};

static MPI_Datatype block_type(const struct blocks *b, int i)
{
    return b->types ? b->types[i] : b->type;
}

/* Block i's layout and address in buf. */
static int block_at(const xfer_t *x, const struct blocks *b, int i, const void *buf,
                    struct enc_mpi_layout *l, char **at)
{
    int rv = layout(x, block_type(b, i), l);

    *at = (char *)buf + (MPI_Aint)b->displs[i] * (b->types ? 1 : l->extent);
    return rv;
}

static int pack_blocks(const xfer_t *x, const void *buf, int k, const struct blocks *b,
                       uint64_t *sizes, uint8_t **out)
{
    struct enc_mpi_layout l;
    size_t total = 0;
    char *at;
    int rv = MPI_SUCCESS;

    for (int i = 0; i < k && rv == MPI_SUCCESS; i++) {
        if (b->counts[i] < 0)
            return enc_mpi_raise(MPI_ERR_COUNT, "%s: negative count %d", x->fn, b->counts[i]);
        rv = block_at(x, b, i, buf, &l, &at);
        sizes[i] = (uint64_t)b->counts[i] * l.size;
        total += sizes[i];
    }
    if (rv != MPI_SUCCESS)
        return rv;
    if ((*out = malloc(total + 1)) == NULL)
        return nomem(x);
    total = 0;
    for (int i = 0; i < k && rv == MPI_SUCCESS; i++) {
        if ((rv = block_at(x, b, i, buf, &l, &at)) == MPI_SUCCESS)
            rv = enc_mpi_pack(x->fn, at, (size_t)b->counts[i], block_type(b, i), l.size,
                              l.extent, *out + total);
        total += sizes[i];
    }
    return rv;
}

/* Unpacks one block of `bytes` into count elements at buf. */
static int unpack_block(const xfer_t *x, const uint8_t *in, uint64_t bytes, void *buf,
                        int count, MPI_Datatype t)
{
    struct enc_mpi_layout l;
    int rv;

    if ((rv = layout(x, t, &l)) != MPI_SUCCESS)
        return rv;
    if ((uint64_t)count * l.size != bytes)
        return enc_mpi_raise(MPI_ERR_TRUNCATE, "%s: a block of %llu bytes arrived for %d "
                             "elements of %zu bytes", x->fn, (unsigned long long)bytes, count,
                             l.size);
    return enc_mpi_unpack(x->fn, in, (size_t)count, t, l.size, l.extent, buf);
}

static int check_root(const xfer_t *x)
{
    if (x->root < 0 || x->root >= x->n)
        return enc_mpi_raise(MPI_ERR_ROOT, "%s: root %d is not a rank of the communicator "
                             "(size %d)", x->fn, x->root, x->n);
    return MPI_SUCCESS;
}

static xfer_t make(const char *fn, const void *site, MPI_Comm comm, int root,
                   enum enc_coll_kind what)
{
    return enc_mpi_xfer_make(fn, site, comm, root, what);
}

/* ---- gather ---- */

static int gatherv(xfer_t x, const void *sendbuf, int sendcount, MPI_Datatype st,
                   void *recvbuf, const int *rcounts, const int *displs, MPI_Datatype rt)
{
    uint64_t mysize, *sizes = malloc(8 * (size_t)x.n + 8);
    uint8_t *mine = NULL, *all = NULL;
    int zero = 0, rv, inplace = sendbuf == MPI_IN_PLACE && x.me == x.root;

    if (sizes == NULL)
        return nomem(&x);
    if (inplace)
        rv = pack_blocks(&x, recvbuf, 1,
                         &(struct blocks){&rcounts[x.me], &displs[x.me], rt, NULL}, &mysize,
                         &mine);
    else
        rv = pack_blocks(&x, sendbuf, 1, &(struct blocks){&sendcount, &zero, st, NULL},
                         &mysize, &mine);
    if (rv == MPI_SUCCESS && (rv = enc_mpi_share_sizes(&x, &mysize, 1, sizes)) == MPI_SUCCESS)
        rv = enc_mpi_share_data(&x, mine, sizes, &all);
    for (size_t i = 0, off = 0; rv == MPI_SUCCESS && x.me == x.root && i < (size_t)x.n; i++) {
        struct enc_mpi_layout l;

        if ((int)i != x.me || !inplace) {
            if ((rv = layout(&x, rt, &l)) != MPI_SUCCESS)
                break;
            rv = unpack_block(&x, all + off, sizes[i], (char *)recvbuf + displs[i] * l.extent,
                              rcounts[i], rt);
        }
        off += sizes[i];
    }
    free(sizes);
    free(mine);
    free(all);
    return rv;
}

int enc_mpi_Gatherv(const void *site, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const int displs[],
                    MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (enc_mpi_is_intercomm(comm))
        return enc_mpi_inter_gatherv(site, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                                     displs, recvtype, root, comm);
    xfer_t x = make("MPI_Gatherv", site, comm, root, ENC_COLL_GATHER);
    int rv = check_root(&x);

    return rv != MPI_SUCCESS ? rv : gatherv(x, sendbuf, sendcount, sendtype, recvbuf,
                                            recvcounts, displs, recvtype);
}

int enc_mpi_Gather(const void *site, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (enc_mpi_is_intercomm(comm))
        return enc_mpi_inter_gatherv(site, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                     NULL, NULL, recvtype, root, comm);
    xfer_t x = make("MPI_Gather", site, comm, root, ENC_COLL_GATHER);
    int *a = malloc(sizeof(int) * 2 * (size_t)x.n + 1), rv = check_root(&x);

    if (a == NULL)
        return nomem(&x);
    for (int i = 0; i < x.n; i++) {
        a[i] = recvcount;
        a[x.n + i] = i * recvcount;
    }
    if (rv == MPI_SUCCESS)
        rv = gatherv(x, sendbuf, sendcount, sendtype, recvbuf, a, a + x.n, recvtype);
    free(a);
    return rv;
}

/* ---- scatter ---- */

static int bcast_bytes(const xfer_t *x, void *buf, size_t bytes)
{
    struct enc_callsig sig = enc_mpi_csig(x->c, ENC_COLL_BCAST, x->what, bytes,
                                          ENC_SIG_DTYPE_BYTES, ENC_SIG_OP_NONE, x->root,
                                          x->site);
    enc_status_t st = enc_bcast(buf, bytes, x->root, &sig);

    return st == ENC_OK ? MPI_SUCCESS : enc_mpi_engine_error(x->fn, st);
}

static int scatterv(xfer_t x, const void *sendbuf, const int *scounts, const int *displs,
                    MPI_Datatype st, void *recvbuf, int recvcount, MPI_Datatype rt)
{
    uint64_t *sizes = calloc((size_t)x.n + 1, 8), total = 0, off = 0;
    uint8_t *all = NULL;
    int rv = MPI_SUCCESS;

    if (sizes == NULL)
        return nomem(&x);
    if (x.me == x.root)
        rv = pack_blocks(&x, sendbuf, x.n, &(struct blocks){scounts, displs, st, NULL}, sizes,
                         &all);
    if (rv == MPI_SUCCESS)
        rv = bcast_bytes(&x, sizes, 8 * (size_t)x.n);
    for (int i = 0; i < x.n; i++) {
        off += i < x.me ? sizes[i] : 0;
        total += sizes[i];
    }
    if (rv == MPI_SUCCESS && all == NULL && (all = malloc(total + 1)) == NULL)
        rv = nomem(&x);
    if (rv == MPI_SUCCESS)
        rv = bcast_bytes(&x, all, total);
    if (rv == MPI_SUCCESS && !(x.me == x.root && recvbuf == MPI_IN_PLACE))
        rv = unpack_block(&x, all + off, sizes[x.me], recvbuf, recvcount, rt);
    free(sizes);
    free(all);
    return rv;
}

int enc_mpi_Scatterv(const void *site, const void *sendbuf, const int sendcounts[],
                     const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (enc_mpi_is_intercomm(comm))
        return enc_mpi_inter_scatterv(site, sendbuf, 0, sendcounts, displs, sendtype, recvbuf,
                                      recvcount, recvtype, root, comm);
    xfer_t x = make("MPI_Scatterv", site, comm, root, ENC_COLL_SCATTER);
    int rv = check_root(&x);

    return rv != MPI_SUCCESS ? rv : scatterv(x, sendbuf, sendcounts, displs, sendtype, recvbuf,
                                             recvcount, recvtype);
}

int enc_mpi_Scatter(const void *site, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (enc_mpi_is_intercomm(comm))
        return enc_mpi_inter_scatterv(site, sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
                                      recvcount, recvtype, root, comm);
    xfer_t x = make("MPI_Scatter", site, comm, root, ENC_COLL_SCATTER);
    int *a = malloc(sizeof(int) * 2 * (size_t)x.n + 1), rv = check_root(&x);

    if (a == NULL)
        return nomem(&x);
    for (int i = 0; i < x.n; i++) {
        a[i] = sendcount;
        a[x.n + i] = i * sendcount;
    }
    if (rv == MPI_SUCCESS)
        rv = scatterv(x, sendbuf, a, a + x.n, sendtype, recvbuf, recvcount, recvtype);
    free(a);
    return rv;
}

/* ---- alltoall ---- */

static int unpack_from_all(xfer_t *x, const uint8_t *all, const uint64_t *m, void *recvbuf,
                           const struct blocks *b)
{
    uint64_t *off = enc_mpi_row_offsets(m, x->n, x->me);
    struct enc_mpi_layout l;
    char *at;
    int rv = MPI_SUCCESS;

    if (off == NULL)
        return nomem(x);
    for (int j = 0; j < x->n && rv == MPI_SUCCESS; j++)
        if ((rv = block_at(x, b, j, recvbuf, &l, &at)) == MPI_SUCCESS)
            rv = unpack_block(x, all + off[j], m[(size_t)j * (size_t)x->n + (size_t)x->me], at,
                              b->counts[j], block_type(b, j));
    free(off);
    return rv;
}

/* Every rank's blocks travel in one allgatherv of packed bytes, after an
 * allgather of the block sizes (in place: the blocks come from recvbuf). */
static int alltoallw_all(xfer_t x, const void *sendbuf, const struct blocks *sb, void *recvbuf,
                     const struct blocks *rb)
{
    uint64_t *row = malloc(8 * (size_t)x.n + 8), *m = NULL;
    uint8_t *mine = NULL, *all = NULL;
    int rv;

    if (row == NULL)
        return nomem(&x);
    if (sendbuf == MPI_IN_PLACE)
        rv = pack_blocks(&x, recvbuf, x.n, rb, row, &mine);
    else
        rv = pack_blocks(&x, sendbuf, x.n, sb, row, &mine);
    if (rv == MPI_SUCCESS && (rv = enc_mpi_share_rows(&x, row, mine, &m, &all)) == MPI_SUCCESS)
        rv = unpack_from_all(&x, all, m, recvbuf, rb);
    free(row);
    free(m);
    free(mine);
    free(all);
    return rv;
}

/* An intercommunicator's blocks, one per remote rank, as blocks for
 * every rank of its union (empty for the local group): *mem holds them. */
static int widen(const xfer_t *x, const struct blocks *b, struct blocks *w, int **mem)
{
    const struct enc_mpi_inter *in = x->c->inter;
    MPI_Datatype *t;

    *mem = calloc(2 * (size_t)x->n + 1, sizeof(int) + sizeof(MPI_Datatype));
    if (*mem == NULL)
        return nomem(x);
    t = (MPI_Datatype *)(*mem + 2 * x->n);
    for (int j = 0; j < x->n; j++) {
        int r = j - in->roff, remote = r >= 0 && r < in->rsize;

        (*mem)[j] = remote ? b->counts[r] : 0;
        (*mem)[x->n + j] = remote ? b->displs[r] : 0;
        t[j] = remote ? block_type(b, r) : MPI_BYTE;
    }
    *w = (struct blocks){*mem, *mem + x->n, MPI_DATATYPE_NULL, t};
    w->types = b->types ? t : NULL;
    w->type = b->types ? MPI_DATATYPE_NULL : b->type;
    return MPI_SUCCESS;
}

/* On an intercommunicator the blocks go to and come from the remote group
 * only (MPI_IN_PLACE is not allowed there). */
static int alltoallw(xfer_t x, const void *sendbuf, const struct blocks *sb, void *recvbuf,
                     const struct blocks *rb)
{
    struct blocks ws, wr;
    int *ms = NULL, *mr = NULL, rv;

    if (x.c->inter == NULL)
        return alltoallw_all(x, sendbuf, sb, recvbuf, rb);
    if (sendbuf == MPI_IN_PLACE)
        return enc_mpi_raise(MPI_ERR_BUFFER, "%s: MPI_IN_PLACE on an intercommunicator", x.fn);
    if ((rv = widen(&x, sb, &ws, &ms)) == MPI_SUCCESS && (rv = widen(&x, rb, &wr, &mr)) ==
        MPI_SUCCESS)
        rv = alltoallw_all(x, sendbuf, &ws, recvbuf, &wr);
    free(ms);
    free(mr);
    return rv;
}

int enc_mpi_Alltoallv(const void *site, const void *sendbuf, const int sendcounts[],
                      const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                      MPI_Comm comm)
{
    return alltoallw(make("MPI_Alltoallv", site, comm, -1, ENC_COLL_ALLTOALL), sendbuf,
                     &(struct blocks){sendcounts, sdispls, sendtype, NULL}, recvbuf,
                     &(struct blocks){recvcounts, rdispls, recvtype, NULL});
}

int enc_mpi_Alltoallw(const void *site, const void *sendbuf, const int sendcounts[],
                      const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                      const int recvcounts[], const int rdispls[],
                      const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return alltoallw(make("MPI_Alltoallw", site, comm, -1, ENC_COLL_ALLTOALL), sendbuf,
                     &(struct blocks){sendcounts, sdispls, NULL, sendtypes}, recvbuf,
                     &(struct blocks){recvcounts, rdispls, NULL, recvtypes});
}

/* On an intracommunicator every block has the same size on every rank (n
 * blocks of recvcount x recvtype, matched by every sender's): one engine
 * alltoall of the packed rows, with no size exchange; each rank reads its
 * column only where the engine can (engine.h). */
static int alltoall_intra(xfer_t x, const void *sendbuf, int sendcount, MPI_Datatype st,
                          void *recvbuf, int recvcount, MPI_Datatype rt)
{
    struct enc_mpi_buf sb = {0}, rb = {0};
    int inplace = sendbuf == MPI_IN_PLACE, rv, closed;
    enc_status_t status = ENC_ERR_INVAL;
    struct enc_callsig sig;

    if (recvcount < 0 || (!inplace && sendcount < 0))
        return enc_mpi_raise(MPI_ERR_COUNT, "%s: negative count", x.fn);
    if ((int64_t)recvcount * x.n > INT32_MAX || (!inplace && (int64_t)sendcount * x.n > INT32_MAX))
        return enc_mpi_raise(MPI_ERR_COUNT, "%s: more than 2^31 elements in all", x.fn);
    if ((rv = enc_mpi_buf_open(x.fn, recvbuf, recvcount * x.n, rt, inplace, &rb)) != 0)
        return rv;
    if (!inplace &&
        (rv = enc_mpi_buf_open(x.fn, (void *)sendbuf, sendcount * x.n, st, 1, &sb)) != 0)
        goto out;
    if (!inplace && sb.bytes != rb.bytes) {
        rv = enc_mpi_raise(MPI_ERR_TRUNCATE, "%s: rank %d sends %zu bytes per block but "
                           "receives %zu", x.fn, x.me, sb.bytes / (size_t)x.n,
                           rb.bytes / (size_t)x.n);
        goto out;
    }
    sig = enc_mpi_csig(x.c, ENC_COLL_ALLGATHERV, ENC_COLL_ALLTOALL, (uint64_t)rb.bytes * (uint64_t)x.n,
                       ENC_SIG_DTYPE_BYTES, ENC_SIG_OP_NONE, -1, x.site);
    status = enc_alltoall(inplace ? rb.data : sb.data, rb.data, rb.bytes / (size_t)x.n, &sig);
    if (status != ENC_OK)
        rv = enc_mpi_engine_error(x.fn, status);
out:
    enc_mpi_buf_close(x.fn, &sb, (void *)sendbuf, sendcount * x.n, st, 0);
    closed = enc_mpi_buf_close(x.fn, &rb, recvbuf, recvcount * x.n, rt, status == ENC_OK);
    return rv != MPI_SUCCESS ? rv : closed;
}

int enc_mpi_Alltoall(const void *site, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    xfer_t x = make("MPI_Alltoall", site, comm, -1, ENC_COLL_ALLTOALL);

    if (x.c->inter == NULL)
        return alltoall_intra(x, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    int k = enc_mpi_comm_peers(x.c), *a = malloc(sizeof(int) * 4 * (size_t)k + 1), rv;

    if (a == NULL)
        return nomem(&x);
    for (int i = 0; i < k; i++) {
        a[i] = sendcount;
        a[k + i] = i * sendcount;
        a[2 * k + i] = recvcount;
        a[3 * k + i] = i * recvcount;
    }
    rv = alltoallw(x, sendbuf, &(struct blocks){a, a + k, sendtype, NULL}, recvbuf,
                   &(struct blocks){a + 2 * k, a + 3 * k, recvtype, NULL});
    free(a);
    return rv;
}
