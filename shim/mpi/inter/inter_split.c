/*
 * inter_split.c - MPI_Comm_split and MPI_Comm_create on an
 * intercommunicator: each group is split (or cut to the group passed)
 * apart, and the parts of one colour on both sides make a new
 * intercommunicator (MPI_COMM_NULL when a side has none of that colour).
 *
 * One logged allgather of every rank's (colour, key) over the union, then
 * each rank works out the same members; the new union keeps the parent's
 * order of the two groups, and its id derives from the parent's, the
 * parent's sequence number of the call and the colour, as a split's does.
 */
#include "enc.h"

#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "engine/engine.h"
#include "engine/group.h"
#include "mpi/coll/coll_bytes.h"
#include "mpi/inter/inter.h"
#include "mpi/mpi_layer.h"

struct pick {
    int64_t key;
    int rank; /* in the union */
};

static int by_key_then_rank(const void *a, const void *b)
{
    const struct pick *x = a, *y = b;

    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank - y->rank;
}

/* World ranks of the union ranks first..first+n-1 of colour `color`, in
 * (key, rank) order, appended to out; returns how many. */
static int side(const struct enc_mpi_comm *p, const int64_t *ck, int first, int n, int color,
                int *out)
{
    struct pick *a = malloc(sizeof(*a) * (size_t)n + 1);
    int k = 0;

    if (a == NULL)
        return -1;
    for (int i = first; i < first + n; i++)
        if (ck[2 * i] == color)
            a[k++] = (struct pick){ck[2 * i + 1], i};
    qsort(a, (size_t)k, sizeof(*a), by_key_then_rank);
    for (int i = 0; i < k; i++)
        out[i] = enc_group_world_rank(p->g, a[i].rank);
    free(a);
    return k;
}

/* The allgather of (colour, key); this rank's logged pair must be this
 * call's (else a replay divergence ends the job). */
static int exchange(struct enc_mpi_xfer *x, int color, int key, int64_t *ck)
{
    int64_t mine[2] = {color, key};
    int rv = enc_mpi_share_sizes(x, (const uint64_t *)mine, 2, (uint64_t *)ck);

    if (rv == MPI_SUCCESS && (ck[2 * x->me] != color || ck[2 * x->me + 1] != key)) {
        char msg[256];

        snprintf(msg, sizeof(msg), "replay divergence in %s: this call has color %d key %d; "
                 "the log has color %lld key %lld", x->fn, color, key,
                 (long long)ck[2 * x->me], (long long)ck[2 * x->me + 1]);
        enc_engine_abort(1, msg);
    }
    return rv;
}

static int split(const char *fn, const void *site, MPI_Comm comm, int color, int key,
                 enum enc_coll_kind what, MPI_Comm *newcomm)
{
    struct enc_mpi_xfer x = enc_mpi_xfer_make(fn, site, comm, -1, what);
    const struct enc_mpi_inter *in = x.c->inter;
    uint64_t seq = enc_group_seq(x.c->g);
    int64_t *ck = malloc(sizeof(int64_t) * 2 * (size_t)x.n);
    int *u = malloc(sizeof(int) * 2 * (size_t)x.n + 1), *part, n1, n2, nl, nr;
    int lfirst = in->loff == 0;
    MPI_Comm shell;
    int rv;

    *newcomm = MPI_COMM_NULL;
    if (ck == NULL || u == NULL) {
        rv = enc_mpi_xfer_nomem(&x);
        goto out;
    }
    if ((rv = exchange(&x, color, key, ck)) != MPI_SUCCESS || color == MPI_UNDEFINED)
        goto out;
    /* the parts in the parent's order: u[0..n) the first group's, then
     * the second's is appended from u + n */
    part = u + x.n;
    n1 = side(x.c, ck, lfirst ? in->loff : in->roff, lfirst ? in->lsize : in->rsize, color, u);
    n2 = side(x.c, ck, lfirst ? in->roff : in->loff, lfirst ? in->rsize : in->lsize, color, part);
    for (int i = 0; n1 >= 0 && i < n2; i++)
        u[n1 + i] = part[i];
    nl = lfirst ? n1 : n2;
    nr = lfirst ? n2 : n1;
    if (nl < 0 || nr < 0) {
        rv = enc_mpi_xfer_nomem(&x);
        goto out;
    }
    if (nl == 0 || nr == 0)
        goto out;
    if ((rv = enc_mpi_comm_blank_shell(fn, x.c, &shell)) == MPI_SUCCESS)
        rv = enc_mpi_comm_adopt(fn, enc_group_cid_derive(enc_group_cid(x.c->g), seq,
                                                         (uint64_t)color + 1),
                                u, nl + nr, enc_group_last_live(x.c->g), shell, newcomm);
    if (rv == MPI_SUCCESS &&
        (enc_mpi_comm_get(*newcomm)->inter = enc_mpi_inter_new(nl, nr, lfirst)) == NULL)
        rv = enc_mpi_xfer_nomem(&x);
out:
    free(ck);
    free(u);
    return rv;
}

int enc_mpi_inter_split(const void *site, MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    if (color < 0 && color != MPI_UNDEFINED)
        return enc_mpi_raise(MPI_ERR_ARG, "MPI_Comm_split: color %d is negative", color);
    return split("MPI_Comm_split", site, comm, color, key, ENC_COLL_COMM_SPLIT, newcomm);
}

/* Each side passes a group of its own members; the members of both
 * groups make the new intercommunicator, in the groups' orders. */
int enc_mpi_inter_create(const void *site, MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    struct enc_mpi_group_view v;
    struct enc_mpi_group *g = enc_mpi_group_view(group, &v);
    int r = g != NULL ? enc_mpi_group_rank_of(g, enc_engine_rank()) : MPI_UNDEFINED;

    if (group == MPI_GROUP_NULL)
        return enc_mpi_raise(MPI_ERR_GROUP, "MPI_Comm_create: invalid group (MPI_GROUP_NULL)");
    return split("MPI_Comm_create", site, comm, r == MPI_UNDEFINED ? MPI_UNDEFINED : 0, r,
                 ENC_COLL_COMM_CREATE, newcomm);
}
