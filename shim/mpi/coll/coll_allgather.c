/*
 * coll_allgather.c - MPI_Allgather and MPI_Allgatherv on the encore world.
 *
 * Both run as the engine's byte allgatherv (ENC_SIG_DTYPE_BYTES, count =
 * total bytes).
 * A contiguous receive datatype lets blocks land in the user's buffer; any
 * other is staged in a packed buffer and unpacked block by block.
 */
#include "enc.h"

#include <stdlib.h>

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/inter/inter_coll.h"
#include "mpi/mpi_layer.h"

struct gather {
    const char *fn;
    const struct enc_mpi_comm *c;
    int n, me;
    struct enc_mpi_layout rl;   /* receive datatype */
    const size_t *counts;       /* elements per rank */
    const size_t *edispls;      /* displacements in elements of recvtype */
    size_t *bytes;              /* per rank, for the engine */
    size_t *bdispls;            /* byte displacements in base */
    char *base;                 /* user buffer + lb, or the staging buffer */
    char *tmp;
    size_t total;
};

/* Byte layout of the blocks; allocates the staging buffer if needed. */
static int gather_layout(struct gather *g, void *recvbuf)
{
    size_t off = 0;

    for (int i = 0; i < g->n; i++) {
        g->bytes[i] = g->counts[i] * g->rl.size;
        g->bdispls[i] = g->rl.contiguous ? g->edispls[i] * g->rl.size : off;
        off += g->bytes[i];
    }
    g->total = off;
    if (g->rl.contiguous) {
        g->base = (char *)recvbuf + g->rl.lb;
        return MPI_SUCCESS;
    }
    if ((g->tmp = malloc(ENC_MAX(off, (size_t)1))) == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: cannot allocate %zu bytes to stage a "
                             "non-contiguous datatype", g->fn, off);
    g->base = g->tmp;
    return MPI_SUCCESS;
}

/* Pointer to rank i's block in the user's receive buffer. */
static char *gather_block(const struct gather *g, void *recvbuf, int i)
{
    return (char *)recvbuf + (MPI_Aint)g->edispls[i] * g->rl.extent;
}

static int gather_unpack(const struct gather *g, void *recvbuf, MPI_Datatype rt)
{
    int rv = MPI_SUCCESS;

    for (int i = 0; i < g->n && rv == MPI_SUCCESS && g->tmp != NULL; i++)
        rv = enc_mpi_unpack(g->fn, g->tmp + g->bdispls[i], g->counts[i], rt, g->rl.size,
                            g->rl.extent, gather_block(g, recvbuf, i));
    return rv;
}

/* Own contribution: NULL when in place (already in base), else bytes. */
static int gather_send(struct gather *g, const void *sendbuf, int sendcount, MPI_Datatype st,
                       void *recvbuf, MPI_Datatype rt, struct enc_mpi_buf *sb)
{
    int rv;

    *sb = (struct enc_mpi_buf){ 0 };
    if (sendbuf == MPI_IN_PLACE) {
        if (g->tmp == NULL)
            return MPI_SUCCESS;
        return enc_mpi_pack(g->fn, gather_block(g, recvbuf, g->me), g->counts[g->me],
                            rt, g->rl.size, g->rl.extent, g->tmp + g->bdispls[g->me]);
    }
    if ((rv = enc_mpi_buf_open(g->fn, (void *)sendbuf, sendcount, st, 1, sb)) != 0)
        return rv;
    if (sb->bytes != g->bytes[g->me])
        return enc_mpi_raise(MPI_ERR_TRUNCATE, "%s: rank %d sends %zu bytes but its receive "
                             "block is %zu bytes", g->fn, g->me, sb->bytes, g->bytes[g->me]);
    return MPI_SUCCESS;
}

static int gather_run(struct gather *g, const void *site, const void *sendbuf, int sendcount,
                      MPI_Datatype st, void *recvbuf, MPI_Datatype rt)
{
    struct enc_mpi_buf sb = { 0 };
    struct enc_callsig sig;
    enc_status_t status;
    int rv;

    if ((rv = enc_mpi_type_layout(g->fn, rt, 2, &g->rl)) != MPI_SUCCESS)
        return rv;
    if ((rv = gather_layout(g, recvbuf)) != MPI_SUCCESS)
        return rv;
    if ((rv = gather_send(g, sendbuf, sendcount, st, recvbuf, rt, &sb)) != 0)
        goto out_send;
    sig = enc_mpi_csig(g->c, ENC_COLL_ALLGATHERV, 0, g->total, ENC_SIG_DTYPE_BYTES,
                       ENC_SIG_OP_NONE, -1, site);
    status = enc_allgatherv(sendbuf == MPI_IN_PLACE ? NULL : sb.data, g->bytes[g->me],
                            g->base, g->bytes, g->bdispls, &sig);
    rv = status == ENC_OK ? gather_unpack(g, recvbuf, rt) : enc_mpi_engine_error(g->fn, status);
out_send:
    enc_mpi_buf_close(g->fn, &sb, (void *)sendbuf, sendcount, st, 0);
    free(g->tmp);
    return rv;
}

/* counts / edispls: n elements each; scratch: 2n for the byte arrays. */
static int gather(const char *fn, const struct enc_mpi_comm *c, const void *site,
                  const void *sendbuf, int sendcount, MPI_Datatype st, void *recvbuf,
                  const size_t *counts, const size_t *edispls, MPI_Datatype rt, size_t *scratch)
{
    struct gather g = { .fn = fn, .c = c, .n = enc_mpi_comm_size(c), .me = enc_mpi_comm_rank(c),
                        .counts = counts, .edispls = edispls };

    g.bytes = scratch;
    g.bdispls = scratch + g.n;
    return gather_run(&g, site, sendbuf, sendcount, st, recvbuf, rt);
}

static size_t *gather_arrays(const char *fn, int n, int *rv)
{
    size_t *a = calloc((size_t)n * 4, sizeof(*a));

    *rv = a != NULL ? MPI_SUCCESS
                    : enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory (%d ranks)", fn, n);
    return a;
}

int enc_mpi_Allgather(const void *site, const void *sendbuf, int sendcount,
                      MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm)
{
    if (enc_mpi_is_intercomm(comm))
        return enc_mpi_inter_allgatherv(site, sendbuf, sendcount, sendtype, recvbuf,
                                        recvcount, NULL, NULL, recvtype, comm);
    struct enc_mpi_comm *c = enc_mpi_comm_get(comm);
    int n = enc_mpi_comm_size(c), rv;
    size_t *a;

    if (recvcount < 0 || (sendbuf != MPI_IN_PLACE && sendcount < 0))
        return enc_mpi_raise(MPI_ERR_COUNT, "MPI_Allgather: negative count");
    if ((a = gather_arrays("MPI_Allgather", n, &rv)) == NULL)
        return rv;
    for (int i = 0; i < n; i++) {
        a[i] = (size_t)recvcount;
        a[n + i] = (size_t)i * (size_t)recvcount;
    }
    rv = gather("MPI_Allgather", c, site, sendbuf, sendcount, sendtype, recvbuf, a, a + n, recvtype,
                a + 2 * n);
    free(a);
    return rv;
}

int enc_mpi_Allgatherv(const void *site, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    if (enc_mpi_is_intercomm(comm))
        return enc_mpi_inter_allgatherv(site, sendbuf, sendcount, sendtype, recvbuf, 0,
                                        recvcounts, displs, recvtype, comm);
    struct enc_mpi_comm *c = enc_mpi_comm_get(comm);
    int n = enc_mpi_comm_size(c), rv;
    size_t *a;

    if ((a = gather_arrays("MPI_Allgatherv", n, &rv)) == NULL)
        return rv;
    for (int i = 0; i < n; i++) {
        if (recvcounts[i] < 0 || displs[i] < 0) {
            free(a);
            return enc_mpi_raise(MPI_ERR_COUNT, "MPI_Allgatherv: negative recvcounts[%d] "
                                 "or displs[%d]", i, i);
        }
        a[i] = (size_t)recvcounts[i];
        a[n + i] = (size_t)displs[i];
    }
    rv = gather("MPI_Allgatherv", c, site, sendbuf, sendcount, sendtype, recvbuf, a, a + n,
                recvtype, a + 2 * n);
    free(a);
    return rv;
}
