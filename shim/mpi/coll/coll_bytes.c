/*
 * coll_bytes.c - packed bytes between the ranks of an encore communicator:
 * a size exchange, then an allgatherv of the bytes (coll_bytes.h).
 */
#include "enc.h"

#include <stdlib.h>

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/coll/coll_bytes.h"
#include "mpi/mpi_layer.h"

struct enc_mpi_xfer enc_mpi_xfer_make(const char *fn, const void *site, MPI_Comm comm, int root,
                                      enum enc_coll_kind what)
{
    struct enc_mpi_comm *c = enc_mpi_comm_get(comm);

    return (struct enc_mpi_xfer){fn, site, c, enc_mpi_comm_size(c), enc_mpi_comm_rank(c), root,
                                 what};
}

int enc_mpi_xfer_nomem(const struct enc_mpi_xfer *x)
{
    return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", x->fn);
}

int enc_mpi_share_sizes(const struct enc_mpi_xfer *x, const uint64_t *mine, int k,
                        uint64_t *all)
{
    size_t *a = malloc(sizeof(size_t) * 2 * (size_t)x->n);
    struct enc_callsig sig = enc_mpi_csig(x->c, ENC_COLL_ALLGATHERV, x->what,
                                          (uint64_t)x->n * (uint64_t)k * 8, ENC_SIG_DTYPE_BYTES,
                                          ENC_SIG_OP_NONE, x->root, x->site);
    enc_status_t st;

    if (a == NULL)
        return enc_mpi_xfer_nomem(x);
    for (int i = 0; i < x->n; i++) {
        a[i] = (size_t)k * 8;
        a[x->n + i] = (size_t)i * (size_t)k * 8;
    }
    st = enc_allgatherv(mine, (size_t)k * 8, all, a, a + x->n, &sig);
    free(a);
    return st == ENC_OK ? MPI_SUCCESS : enc_mpi_engine_error(x->fn, st);
}

int enc_mpi_share_data(const struct enc_mpi_xfer *x, const void *mine, const uint64_t *sizes,
                       uint8_t **all)
{
    size_t *a = malloc(sizeof(size_t) * 2 * (size_t)x->n), total = 0;
    struct enc_callsig sig;
    enc_status_t st;

    if (a == NULL)
        return enc_mpi_xfer_nomem(x);
    for (int i = 0; i < x->n; i++) {
        a[i] = sizes[i];
        a[x->n + i] = total;
        total += sizes[i];
    }
    if ((*all = malloc(total + 1)) == NULL) {
        free(a);
        return enc_mpi_xfer_nomem(x);
    }
    sig = enc_mpi_csig(x->c, ENC_COLL_ALLGATHERV, x->what, total, ENC_SIG_DTYPE_BYTES,
                       ENC_SIG_OP_NONE, x->root, x->site);
    st = enc_allgatherv(mine, sizes[x->me], *all, a, a + x->n, &sig);
    free(a);
    return st == ENC_OK ? MPI_SUCCESS : enc_mpi_engine_error(x->fn, st);
}

int enc_mpi_share_rows(const struct enc_mpi_xfer *x, const uint64_t *row, const uint8_t *mine,
                       uint64_t **m, uint8_t **all)
{
    size_t n = (size_t)x->n;
    uint64_t *tot = malloc(8 * n + 8);
    int rv;

    *all = NULL;
    if ((*m = malloc(8 * n * n + 8)) == NULL || tot == NULL) {
        free(tot);
        return enc_mpi_xfer_nomem(x);
    }
    if ((rv = enc_mpi_share_sizes(x, row, x->n, *m)) == MPI_SUCCESS) {
        for (size_t j = 0; j < n; j++) {
            tot[j] = 0;
            for (size_t k = 0; k < n; k++)
                tot[j] += (*m)[j * n + k];
        }
        rv = enc_mpi_share_data(x, mine, tot, all);
    }
    free(tot);
    return rv;
}

uint64_t *enc_mpi_row_offsets(const uint64_t *m, int n, int k)
{
    uint64_t *off = malloc(8 * (size_t)n + 8), base = 0;

    for (int j = 0; off != NULL && j < n; j++) {
        off[j] = base;
        for (int i = 0; i < n; i++) {
            off[j] += i < k ? m[(size_t)j * (size_t)n + (size_t)i] : 0;
            base += m[(size_t)j * (size_t)n + (size_t)i];
        }
    }
    return off;
}
