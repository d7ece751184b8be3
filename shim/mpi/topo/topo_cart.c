/*
 * topo_cart.c - cartesian topologies on encore communicators:
 * MPI_Cart_create, Cart_sub (logged splits of the parent, topo.c) and the
 * local queries Cart_get, Cartdim_get, Cart_rank, Cart_coords, Cart_shift,
 * Cart_map.  No reordering: rank i of the grid is rank i of the parent.
 */
#include "enc.h"

#include <stdlib.h>

#include <mpi.h>

#include "mpi/mpi_layer.h"
#include "mpi/topo/topo.h"

/* Product of dims (checked: every entry positive), -1 after raising. */
static long grid_size(const char *fn, int ndims, const int *dims)
{
    long p = 1;

    if (ndims < 0)
        return enc_mpi_raise(MPI_ERR_DIMS, "%s: ndims %d is negative", fn, ndims), -1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return enc_mpi_raise(MPI_ERR_DIMS, "%s: dims[%d] is %d (must be positive)", fn, i,
                                 dims[i]), -1;
        p *= dims[i];
        if (p > INT32_MAX)
            return enc_mpi_raise(MPI_ERR_DIMS, "%s: the grid has more than 2^31 ranks", fn), -1;
    }
    return p;
}

int enc_mpi_Cart_create(const void *site, MPI_Comm old_comm, int ndims, const int dims[],
                        const int periods[], int reorder, MPI_Comm *comm_cart)
{
    const char *fn = "MPI_Cart_create";
    struct enc_mpi_comm *p = enc_mpi_comm_get(old_comm);
    long size = grid_size(fn, ndims, dims);
    int me = enc_mpi_comm_rank(p), *per = malloc(sizeof(int) * (size_t)ndims + 1);
    uint32_t d;

    (void)reorder;
    if (size < 0 || per == NULL) {
        free(per);
        return size < 0 ? MPI_ERR_DIMS : enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    if (size > enc_mpi_comm_size(p)) {
        free(per);
        return enc_mpi_raise(MPI_ERR_DIMS, "%s: the grid has %ld ranks, the communicator %d",
                             fn, size, enc_mpi_comm_size(p));
    }
    for (int i = 0; i < ndims; i++)
        per[i] = periods[i] != 0;
    d = enc_mpi_topo_digest(enc_mpi_topo_digest(enc_mpi_topo_digest(0, &ndims, 1), dims, ndims),
                            per, ndims);
    free(per);
    return enc_mpi_topo_attach(fn, site, old_comm, me < size ? 0 : MPI_UNDEFINED, me, d,
                               enc_mpi_topo_cart(ndims, dims, periods), comm_cart);
}

int enc_mpi_Cartdim_get(const void *site, MPI_Comm comm, int *ndims)
{
    int rv;
    struct enc_mpi_topo *t = enc_mpi_topo_of("MPI_Cartdim_get", comm, MPI_CART, &rv);

    if (t != NULL)
        *ndims = t->ndims;
    return rv;
}

int enc_mpi_Cart_get(const void *site, MPI_Comm comm, int maxdims, int dims[], int periods[],
                     int coords[])
{
    int rv;
    struct enc_mpi_topo *t = enc_mpi_topo_of("MPI_Cart_get", comm, MPI_CART, &rv);
    int c[t != NULL ? t->ndims + 1 : 1];

    if (t == NULL)
        return rv;
    enc_mpi_cart_coords_of(t, enc_mpi_comm_rank(enc_mpi_comm_get(comm)), c);
    for (int i = 0; i < t->ndims && i < maxdims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = c[i];
    }
    return MPI_SUCCESS;
}

int enc_mpi_Cart_rank(const void *site, MPI_Comm comm, const int coords[], int *rank)
{
    int rv;
    struct enc_mpi_topo *t = enc_mpi_topo_of("MPI_Cart_rank", comm, MPI_CART, &rv);
    int c[t != NULL ? t->ndims + 1 : 1];

    if (t == NULL)
        return rv;
    for (int i = 0; i < t->ndims; i++) {
        c[i] = coords[i];
        if (c[i] < 0 || c[i] >= t->dims[i]) {
            if (!t->periods[i])
                return enc_mpi_raise(MPI_ERR_ARG, "MPI_Cart_rank: coordinate %d of dimension "
                                     "%d is off the grid (size %d, not periodic)", c[i], i,
                                     t->dims[i]);
            c[i] = ((c[i] % t->dims[i]) + t->dims[i]) % t->dims[i];
        }
    }
    *rank = enc_mpi_cart_rank_of(t, c);
    return MPI_SUCCESS;
}

int enc_mpi_Cart_coords(const void *site, MPI_Comm comm, int rank, int maxdims, int coords[])
{
    int rv;
    struct enc_mpi_topo *t = enc_mpi_topo_of("MPI_Cart_coords", comm, MPI_CART, &rv);
    int n = t != NULL ? enc_mpi_comm_size(enc_mpi_comm_get(comm)) : 0;
    int c[t != NULL ? t->ndims + 1 : 1];

    if (t == NULL)
        return rv;
    if (rank < 0 || rank >= n)
        return enc_mpi_raise(MPI_ERR_RANK, "MPI_Cart_coords: rank %d is not in the grid "
                             "(size %d)", rank, n);
    enc_mpi_cart_coords_of(t, rank, c);
    for (int i = 0; i < t->ndims && i < maxdims; i++)
        coords[i] = c[i];
    return MPI_SUCCESS;
}

int enc_mpi_Cart_shift(const void *site, MPI_Comm comm, int direction, int disp,
                       int *rank_source, int *rank_dest)
{
    int rv;
    struct enc_mpi_topo *t = enc_mpi_topo_of("MPI_Cart_shift", comm, MPI_CART, &rv);

    if (t == NULL)
        return rv;
    if (direction < 0 || direction >= t->ndims)
        return enc_mpi_raise(MPI_ERR_DIMS, "MPI_Cart_shift: direction %d is not a dimension "
                             "of the grid (0..%d)", direction, t->ndims - 1);
    enc_mpi_cart_shift_of(t, enc_mpi_comm_rank(enc_mpi_comm_get(comm)), direction, disp,
                          rank_source, rank_dest);
    return MPI_SUCCESS;
}

/* As Open MPI 4.1: on a communicator without a cartesian topology the
 * rank stays (even outside the grid); on one, ranks outside the grid get
 * MPI_UNDEFINED. */
int enc_mpi_Cart_map(const void *site, MPI_Comm comm, int ndims, const int dims[],
                     const int periods[], int *newrank)
{
    struct enc_mpi_comm *c = enc_mpi_comm_get(comm);
    long size = grid_size("MPI_Cart_map", ndims, dims);
    int me = enc_mpi_comm_rank(c);

    (void)periods;
    if (size < 0)
        return MPI_ERR_DIMS;
    if (c->topo == NULL || c->topo->kind != MPI_CART) {
        *newrank = me;
        return MPI_SUCCESS;
    }
    if (size > enc_mpi_comm_size(c))
        return enc_mpi_raise(MPI_ERR_DIMS, "MPI_Cart_map: the grid has %ld ranks, the "
                             "communicator %d", size, enc_mpi_comm_size(c));
    *newrank = me < size ? me : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* The grid of the dimensions kept: their sizes and periods in *sub. */
static struct enc_mpi_topo *sub_grid(const struct enc_mpi_topo *t, const int *remain)
{
    int n = 0, dims[t->ndims + 1], per[t->ndims + 1];

    for (int i = 0; i < t->ndims; i++)
        if (remain[i]) {
            dims[n] = t->dims[i];
            per[n++] = t->periods[i];
        }
    return enc_mpi_topo_cart(n, dims, per);
}

int enc_mpi_Cart_sub(const void *site, MPI_Comm comm, const int remain_dims[], MPI_Comm *new_comm)
{
    const char *fn = "MPI_Cart_sub";
    int rv;
    struct enc_mpi_topo *t = enc_mpi_topo_of(fn, comm, MPI_CART, &rv);
    int me, color = 0, keep[t != NULL ? t->ndims + 1 : 1], c[t != NULL ? t->ndims + 1 : 1];

    if (t == NULL)
        return rv;
    me = enc_mpi_comm_rank(enc_mpi_comm_get(comm));
    enc_mpi_cart_coords_of(t, me, c);
    /* one sub-grid per value of the coordinates dropped */
    for (int i = 0; i < t->ndims; i++) {
        keep[i] = remain_dims[i] != 0;
        if (!keep[i])
            color = color * t->dims[i] + c[i];
    }
    return enc_mpi_topo_attach(fn, site, comm, color, me, enc_mpi_topo_digest(0, keep, t->ndims),
                               sub_grid(t, keep), new_comm);
}
