/*
 * inter_coll.c - the MPI-3 intercommunicator forms of Bcast, Allgather(v),
 * Gather(v), Scatter(v), Allreduce, Reduce and Reduce_scatter(_block)
 * (Barrier is the union's, Alltoall(v,w) coll_rooted.c's).
 *
 * Each is one exchange over the union of the two groups (inter.h): every
 * rank contributes one packed blob (empty when it sends nothing: the
 * roots' group of a rooted call), the blob sizes then the blobs travel as
 * allgathers (coll_bytes.h), and each rank takes what the remote group
 * sent: copied out, or reduced in the remote group's rank order.  Logged
 * like any collective of the union, so a restarted rank is answered from
 * the log.  Roots follow MPI: MPI_ROOT on the root, MPI_PROC_NULL on the
 * rest of its group, the root's rank in its group on the other group.
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "mpi/coll/coll_bytes.h"
#include "mpi/inter/inter.h"
#include "mpi/inter/inter_coll.h"
#include "mpi/mpi_layer.h"

/* Every rank's blob, and where each starts in all. */
struct blobs {
    uint64_t *size, *off;
    uint8_t *all;
};

static void blobs_free(struct blobs *b)
{
    free(b->size);
    free(b->off);
    free(b->all);
}

static int share(const struct enc_mpi_xfer *x, const void *mine, uint64_t bytes,
                 struct blobs *b)
{
    uint64_t at = 0;
    int rv;

    *b = (struct blobs){malloc(8 * (size_t)x->n + 8), malloc(8 * (size_t)x->n + 8), NULL};
    if (b->size == NULL || b->off == NULL)
        return enc_mpi_xfer_nomem(x);
    if ((rv = enc_mpi_share_sizes(x, &bytes, 1, b->size)) != MPI_SUCCESS ||
        (rv = enc_mpi_share_data(x, mine, b->size, &b->all)) != MPI_SUCCESS)
        return rv;
    for (int j = 0; j < x->n; j++) {
        b->off[j] = at;
        at += b->size[j];
    }
    return MPI_SUCCESS;
}

static struct enc_mpi_xfer xfer(const char *fn, const void *site, MPI_Comm comm,
                                enum enc_coll_kind what)
{
    return enc_mpi_xfer_make(fn, site, comm, -1, what);
}

/* count elements of t at buf as packed bytes (b->data, b->bytes). */
static int pack(const char *fn, const void *buf, int count, MPI_Datatype t, struct enc_mpi_buf *b)
{
    if (count < 0)
        return enc_mpi_raise(MPI_ERR_COUNT, "%s: negative count %d", fn, count);
    return enc_mpi_buf_open(fn, (void *)buf, count, t, 1, b);
}

/* The blob of union rank j into count elements of t at buf. */
static int put(const struct enc_mpi_xfer *x, const struct blobs *b, int j, uint64_t skip,
               void *buf, int count, MPI_Datatype t)
{
    struct enc_mpi_buf v;
    int rv;

    if (count < 0)
        return enc_mpi_raise(MPI_ERR_COUNT, "%s: negative count %d", x->fn, count);
    if ((rv = enc_mpi_buf_open(x->fn, buf, count, t, 0, &v)) != MPI_SUCCESS)
        return rv;
    if (skip + v.bytes > b->size[j]) {
        enc_mpi_buf_close(x->fn, &v, buf, count, t, 0);
        return enc_mpi_raise(MPI_ERR_TRUNCATE, "%s: %llu bytes came from the remote group for "
                             "%d elements of %zu bytes", x->fn,
                             (unsigned long long)(b->size[j] - skip), count,
                             count ? v.bytes / (size_t)count : 0);
    }
    memcpy(v.data, b->all + b->off[j] + skip, v.bytes);
    return enc_mpi_buf_close(x->fn, &v, buf, count, t, 1);
}

static MPI_Aint extent(MPI_Datatype t)
{
    MPI_Aint lb, ext = 0;

    PMPI_Type_get_extent(t, &lb, &ext);
    return ext;
}

/* A rooted call's part for this rank: 1 the root, 0 the rest of its
 * group, -1 the other group (root checked against the remote size). */
static int role(const struct enc_mpi_xfer *x, int root, int *rv)
{
    *rv = MPI_SUCCESS;
    if (root == MPI_ROOT)
        return 1;
    if (root == MPI_PROC_NULL)
        return 0;
    if (root < 0 || root >= x->c->inter->rsize)
        *rv = enc_mpi_raise(MPI_ERR_ROOT, "%s: root %d is neither MPI_ROOT, MPI_PROC_NULL "
                            "nor a rank of the remote group (size %d)", x->fn, root,
                            x->c->inter->rsize);
    return -1;
}

/* Contributes count elements at buf (send), or nothing; then the blobs. */
static int contribute(const struct enc_mpi_xfer *x, int send, const void *buf, int count,
                      MPI_Datatype t, struct blobs *b)
{
    struct enc_mpi_buf p = {0};
    int rv = send ? pack(x->fn, buf, count, t, &p) : MPI_SUCCESS;

    if (rv == MPI_SUCCESS)
        rv = share(x, p.data, p.bytes, b);
    if (send)
        enc_mpi_buf_close(x->fn, &p, (void *)buf, count, t, 0);
    return rv;
}

/* ---- bcast, allgather(v), gather(v) ---- */

int enc_mpi_inter_bcast(const void *site, void *buffer, int count, MPI_Datatype t, int root,
                        MPI_Comm comm)
{
    struct enc_mpi_xfer x = xfer("MPI_Bcast", site, comm, ENC_COLL_BCAST);
    struct blobs b = {0};
    int rv, r = role(&x, root, &rv);

    if (rv == MPI_SUCCESS && (rv = contribute(&x, r == 1, buffer, count, t, &b)) ==
        MPI_SUCCESS && r == -1)
        rv = put(&x, &b, x.c->inter->roff + root, 0, buffer, count, t);
    blobs_free(&b);
    return rv;
}

/* The remote group's blobs into recvbuf: counts[i] (or count) elements at
 * displs[i] (or i * count) extents. */
static int put_all(const struct enc_mpi_xfer *x, const struct blobs *b, void *recvbuf,
                   int count, const int *counts, const int *displs, MPI_Datatype t)
{
    const struct enc_mpi_inter *in = x->c->inter;
    MPI_Aint ext = extent(t);
    int rv = MPI_SUCCESS;

    for (int i = 0; i < in->rsize && rv == MPI_SUCCESS; i++)
        rv = put(x, b, in->roff + i, 0,
                 (char *)recvbuf + (counts ? (MPI_Aint)displs[i] : (MPI_Aint)i * count) * ext,
                 counts ? counts[i] : count, t);
    return rv;
}

int enc_mpi_inter_allgatherv(const void *site, const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    struct enc_mpi_xfer x = xfer(recvcounts ? "MPI_Allgatherv" : "MPI_Allgather", site, comm,
                                 ENC_COLL_ALLGATHERV);
    struct blobs b = {0};
    int rv = contribute(&x, 1, sendbuf, sendcount, sendtype, &b);

    if (rv == MPI_SUCCESS)
        rv = put_all(&x, &b, recvbuf, recvcount, recvcounts, displs, recvtype);
    blobs_free(&b);
    return rv;
}

int enc_mpi_inter_gatherv(const void *site, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                          int root, MPI_Comm comm)
{
    struct enc_mpi_xfer x = xfer(recvcounts ? "MPI_Gatherv" : "MPI_Gather", site, comm,
                                 ENC_COLL_GATHER);
    struct blobs b = {0};
    int rv, r = role(&x, root, &rv);

    if (rv == MPI_SUCCESS &&
        (rv = contribute(&x, r == -1, sendbuf, sendcount, sendtype, &b)) == MPI_SUCCESS &&
        r == 1)
        rv = put_all(&x, &b, recvbuf, recvcount, recvcounts, displs, recvtype);
    blobs_free(&b);
    return rv;
}

/* ---- scatter(v) ---- */

/* The root's blob: the remote group's block sizes (8 bytes each), then
 * the blocks. */
static int scatter_blob(const struct enc_mpi_xfer *x, const void *sendbuf, int count,
                        const int *counts, const int *displs, MPI_Datatype t, uint8_t **out,
                        uint64_t *bytes)
{
    int k = x->c->inter->rsize, rv = MPI_SUCCESS;
    MPI_Aint ext = extent(t);
    struct enc_mpi_buf *p = calloc((size_t)k + 1, sizeof(*p));
    uint64_t at = 8 * (uint64_t)k;

    if (p == NULL)
        return enc_mpi_xfer_nomem(x);
    for (int i = 0; i < k && rv == MPI_SUCCESS; i++) {
        rv = pack(x->fn, (const char *)sendbuf + (counts ? displs[i] : i * count) * ext,
                  counts ? counts[i] : count, t, &p[i]);
        at += p[i].bytes;
    }
    if (rv == MPI_SUCCESS && (*out = malloc(at + 1)) == NULL)
        rv = enc_mpi_xfer_nomem(x);
    *bytes = at;
    at = 8 * (uint64_t)k;
    for (int i = 0; i < k; i++) {
        if (rv == MPI_SUCCESS) {
            memcpy(*out + 8 * i, &(uint64_t){p[i].bytes}, 8);
            memcpy(*out + at, p[i].data, p[i].bytes);
            at += p[i].bytes;
        }
        enc_mpi_buf_close(x->fn, &p[i], NULL, 0, t, 0);
    }
    free(p);
    return rv;
}

int enc_mpi_inter_scatterv(const void *site, const void *sendbuf, int sendcount,
                           const int *sendcounts, const int *displs, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm)
{
    struct enc_mpi_xfer x = xfer(sendcounts ? "MPI_Scatterv" : "MPI_Scatter", site, comm,
                                 ENC_COLL_SCATTER);
    const struct enc_mpi_inter *in = x.c->inter;
    struct blobs b = {0};
    uint8_t *mine = NULL;
    uint64_t bytes = 0, skip = 8 * (uint64_t)in->lsize;
    int rv, r = role(&x, root, &rv), src = in->roff + root, me = x.me - in->loff;

    if (rv == MPI_SUCCESS && r == 1)
        rv = scatter_blob(&x, sendbuf, sendcount, sendcounts, displs, sendtype, &mine, &bytes);
    if (rv == MPI_SUCCESS && (rv = share(&x, mine, bytes, &b)) == MPI_SUCCESS && r == -1) {
        if (b.size[src] < skip)
            rv = enc_mpi_raise(MPI_ERR_TRUNCATE, "%s: the root sent %llu bytes", x.fn,
                               (unsigned long long)b.size[src]);
        for (int i = 0; rv == MPI_SUCCESS && i < me; i++) {
            uint64_t s;

            memcpy(&s, b.all + b.off[src] + 8 * (size_t)i, 8);
            skip += s;
        }
        if (rv == MPI_SUCCESS)
            rv = put(&x, &b, src, skip, recvbuf, recvcount, recvtype);
    }
    free(mine);
    blobs_free(&b);
    return rv;
}

/* ---- reductions ---- */

/* The remote group's vectors (count elements each) reduced in its rank
 * order into *acc (malloc'd, count elements as the engine holds them). */
static int reduce_remote(const struct enc_mpi_xfer *x, const struct enc_mpi_reducer *red,
                         const struct blobs *b, size_t count, uint8_t **acc)
{
    const struct enc_mpi_inter *in = x->c->inter;
    size_t bytes = count * red->r.elem_size;

    for (int i = 0; i < in->rsize; i++)
        if (b->size[in->roff + i] != bytes)
            return enc_mpi_raise(MPI_ERR_TRUNCATE, "%s: remote rank %d sent %llu bytes, this "
                                 "rank expects %zu", x->fn, i,
                                 (unsigned long long)b->size[in->roff + i], bytes);
    if ((*acc = malloc(bytes + 1)) == NULL)
        return enc_mpi_xfer_nomem(x);
    memcpy(*acc, b->all + b->off[in->roff + in->rsize - 1], bytes);
    for (int i = in->rsize - 2; i >= 0; i--)
        red->r.apply(&red->r, b->all + b->off[in->roff + i], *acc, count);
    return MPI_SUCCESS;
}

/* Contributes count elements (send) to an exchange of reduction inputs;
 * with receive, reduces the remote group's and writes elements
 * [first, first + n) of the result to recvbuf. */
static int reduce_part(struct enc_mpi_xfer *x, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype t, MPI_Op op, int send, int receive, int first, int n)
{
    struct enc_mpi_reducer red;
    struct enc_mpi_buf in = {0};
    struct blobs b = {0};
    uint8_t *acc = NULL;
    int rv;

    if (!send && !receive) { /* MPI_PROC_NULL: the other arguments mean nothing */
        rv = share(x, NULL, 0, &b);
        blobs_free(&b);
        return rv;
    }
    if (sendbuf == MPI_IN_PLACE)
        return enc_mpi_raise(MPI_ERR_BUFFER, "%s: MPI_IN_PLACE on an intercommunicator", x->fn);
    if ((rv = enc_mpi_reducer_make(x->fn, t, op, count, &red)) != MPI_SUCCESS)
        return rv;
    if (send && (rv = enc_mpi_red_input(x->fn, &red, sendbuf, count, t, &in)) != MPI_SUCCESS)
        return rv;
    rv = share(x, in.data, send ? (uint64_t)count * red.r.elem_size : 0, &b);
    if (send)
        enc_mpi_buf_close(x->fn, &in, (void *)sendbuf, count, t, 0);
    if (rv == MPI_SUCCESS && receive &&
        (rv = reduce_remote(x, &red, &b, (size_t)count, &acc)) == MPI_SUCCESS)
        rv = enc_mpi_red_output(x->fn, &red, acc + (size_t)first * red.r.elem_size, n, t,
                                recvbuf);
    free(acc);
    blobs_free(&b);
    return rv;
}

int enc_mpi_inter_allreduce(const void *site, const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    struct enc_mpi_xfer x = xfer("MPI_Allreduce", site, comm, ENC_COLL_ALLREDUCE);

    return reduce_part(&x, sendbuf, recvbuf, count, t, op, 1, 1, 0, count);
}

int enc_mpi_inter_reduce(const void *site, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm)
{
    struct enc_mpi_xfer x = xfer("MPI_Reduce", site, comm, ENC_COLL_REDUCE);
    int rv, r = role(&x, root, &rv);

    return rv != MPI_SUCCESS ? rv : reduce_part(&x, r == -1 ? sendbuf : NULL, recvbuf, count,
                                                t, op, r == -1, r == 1, 0, count);
}

/* Reduce_scatter(_block): vectors of the sum of this group's counts; this
 * rank keeps its own counts[lrank] (or count) elements of the reduction
 * of the remote group's. */
int enc_mpi_inter_reduce_scatter(const void *site, const void *sendbuf, void *recvbuf,
                                 int count, const int *counts, MPI_Datatype t, MPI_Op op,
                                 MPI_Comm comm)
{
    struct enc_mpi_xfer x = xfer(counts ? "MPI_Reduce_scatter" : "MPI_Reduce_scatter_block",
                                 site, comm, ENC_COLL_REDUCE_SCATTER);
    const struct enc_mpi_inter *in = x.c->inter;
    int me = x.me - in->loff, total = 0, first = 0;

    for (int i = 0; i < in->lsize; i++) {
        int c = counts ? counts[i] : count;

        if (c < 0)
            return enc_mpi_raise(MPI_ERR_COUNT, "%s: negative count %d", x.fn, c);
        first += i < me ? c : 0;
        total += c;
    }
    return reduce_part(&x, sendbuf, recvbuf, total, t, op, 1, 1, first,
                       counts ? counts[me] : count);
}
