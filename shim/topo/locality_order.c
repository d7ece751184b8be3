/*
 * locality_order.c - the locality order: ranks sorted by (host, package,
 * NUMA node, core, rank) so that neighbours in it share as much hardware as
 * possible (the ring algorithm and the trees run over it).
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include "topo/topo.h"

static int cmp_i32(int32_t a, int32_t b)
{
    return (a > b) - (a < b);
}

/* Total order (rank breaks every tie), so qsort's instability is harmless.
 * Unknown fields (-1) sort before every known one. */
static int cmp_rank(const void *pa, const void *pb, void *arg)
{
    const struct enc_locality *locs = arg;
    int a = *(const int *)pa, b = *(const int *)pb;
    const struct enc_locality *la = &locs[a], *lb = &locs[b];
    int c;

    if ((c = strncmp(la->host, lb->host, ENC_LOC_HOST_MAX)) != 0)
        return c;
    if ((c = cmp_i32(la->package, lb->package)) != 0)
        return c;
    if ((c = cmp_i32(la->numa, lb->numa)) != 0)
        return c;
    if ((c = cmp_i32(la->core, lb->core)) != 0)
        return c;
    return cmp_i32(a, b);
}

void enc_topo_locality_order(const struct enc_locality *locs, int n, int *order)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    if (n > 1)
        qsort_r(order, (size_t)n, sizeof(*order), cmp_rank, (void *)locs);
}
