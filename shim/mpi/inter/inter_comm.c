/*
 * inter_comm.c - MPI_Intercomm_create, Intercomm_merge and the queries of
 * an intercommunicator (Comm_test_inter, Comm_remote_size/group).
 *
 * Intercomm_create needs no point-to-point: the two leaders exchange their
 * groups in a collective of a two-member group of their own (its id
 * derives from the bridge communicator's, the tag, the pair and how often
 * this rank made that pair before, as MPI_Comm_create_group's does), each
 * leader broadcasts the other group over its local communicator, and every
 * member of both groups then makes the communicator over their union
 * (inter.h).  Every step is a logged collective, so a restarted rank
 * remakes it by replay.  The local communicator may also be one the real
 * MPI made from MPI_COMM_SELF (a group of this rank alone).
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "engine/engine.h"
#include "engine/group.h"
#include "mpi/coll/coll_bytes.h"
#include "mpi/inter/inter.h"
#include "mpi/mpi_layer.h"

/* The local group of an Intercomm_create: world ranks, size, this rank. */
struct local {
    struct enc_mpi_comm *c;  /* NULL: a communicator of the real MPI */
    int n, me, *w;
};

static int local_group(const char *fn, MPI_Comm comm, struct local *l)
{
    int size = 0;

    l->c = enc_mpi_comm_get(comm);
    if (l->c == NULL && (enc_real_Comm_size(comm, &size) != MPI_SUCCESS || size != 1))
        return enc_mpi_raise(MPI_ERR_COMM, "%s: the local communicator is neither an encore "
                             "communicator nor one of this rank alone", fn);
    l->n = l->c != NULL ? enc_mpi_comm_size(l->c) : 1;
    l->me = l->c != NULL ? enc_mpi_comm_rank(l->c) : 0;
    if ((l->w = malloc(sizeof(int) * (size_t)l->n)) == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    for (int i = 0; i < l->n; i++)
        l->w[i] = l->c != NULL ? enc_group_world_rank(l->c->g, i) : enc_engine_rank();
    return MPI_SUCCESS;
}

/* What a leader learns and tells its group: the remote group's size, its
 * leader's world rank and the pair's communicator id; then its members. */
struct remote {
    int64_t hdr[3];
    int *w;
};

/* The leaders' exchange, in a group of the two of them. */
static int leaders(const char *fn, const void *site, const struct local *l, MPI_Comm bridge,
                   int remote_leader, int tag, struct remote *r)
{
    struct enc_mpi_comm *b = enc_mpi_comm_get(bridge), pair = {.h = MPI_COMM_NULL};
    int me = enc_engine_rank(), two[2], peer, rv;
    uint64_t key, bytes = sizeof(int) * (size_t)(l->n + 1), *sizes = NULL;
    uint8_t *all = NULL;
    int *mine;

    if (b == NULL || b->inter != NULL)
        return enc_mpi_raise(MPI_ERR_COMM, "%s: the bridge communicator of the leaders is not "
                             "an encore intracommunicator", fn);
    if (remote_leader < 0 || remote_leader >= enc_mpi_comm_size(b) ||
        (peer = enc_group_world_rank(b->g, remote_leader)) == me)
        return enc_mpi_raise(MPI_ERR_RANK, "%s: remote leader %d is not another rank of the "
                             "bridge communicator (size %d)", fn, remote_leader,
                             enc_mpi_comm_size(b));
    two[0] = me < peer ? me : peer;
    two[1] = me < peer ? peer : me;
    key = enc_group_cid_derive(enc_group_cid(b->g), (uint64_t)(unsigned)tag,
                               ((uint64_t)(unsigned)two[0] << 32) | (unsigned)two[1]);
    key = enc_group_cid_derive(key, enc_mpi_occurrence(key), 'X');
    if (enc_group_new(key, two, 2, 0, &pair.g) != ENC_OK || enc_group_setup(pair.g) != ENC_OK) {
        enc_group_destroy(pair.g);
        return enc_mpi_raise(MPI_ERR_INTERN, "%s: the leaders' group could not be made", fn);
    }
    if ((mine = malloc(bytes)) == NULL || (sizes = malloc(16)) == NULL) {
        rv = enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        goto out;
    }
    struct enc_mpi_xfer x = {fn, site, &pair, 2, enc_group_my_rank(pair.g), -1,
                             ENC_COLL_INTERCOMM};
    mine[0] = l->n;
    memcpy(mine + 1, l->w, sizeof(int) * (size_t)l->n);
    if ((rv = enc_mpi_share_sizes(&x, &bytes, 1, sizes)) != MPI_SUCCESS ||
        (rv = enc_mpi_share_data(&x, mine, sizes, &all)) != MPI_SUCCESS)
        goto out;
    const int *theirs = (const int *)(all + (x.me == 0 ? sizes[0] : 0));
    r->hdr[0] = theirs[0];
    r->hdr[1] = peer;
    r->hdr[2] = (int64_t)key;
    if ((r->w = malloc(sizeof(int) * (size_t)theirs[0] + 1)) == NULL)
        rv = enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    else
        memcpy(r->w, theirs + 1, sizeof(int) * (size_t)theirs[0]);
out:
    enc_group_destroy(pair.g);
    free(mine);
    free(sizes);
    free(all);
    return rv;
}

static int bcast(const char *fn, const void *site, struct enc_mpi_comm *c, void *buf,
                 size_t bytes, int root)
{
    struct enc_callsig sig = enc_mpi_csig(c, ENC_COLL_BCAST, ENC_COLL_INTERCOMM, bytes,
                                          ENC_SIG_DTYPE_BYTES, ENC_SIG_OP_NONE, root, site);
    enc_status_t st = enc_bcast(buf, bytes, root, &sig);

    return st == ENC_OK ? MPI_SUCCESS : enc_mpi_engine_error(fn, st);
}

/* The leader's findings reach every member of its group. */
static int tell_group(const char *fn, const void *site, const struct local *l, int leader,
                      struct remote *r)
{
    int rv;

    if (l->c == NULL || l->n == 1)
        return MPI_SUCCESS;
    if ((rv = bcast(fn, site, l->c, r->hdr, sizeof(r->hdr), leader)) != MPI_SUCCESS)
        return rv;
    if (l->me != leader && (r->w = malloc(sizeof(int) * (size_t)r->hdr[0] + 1)) == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    return bcast(fn, site, l->c, r->w, sizeof(int) * (size_t)r->hdr[0], leader);
}

/* The communicator over the union, its group of lower leader first. */
static int make_inter(const char *fn, MPI_Comm local_comm, const struct local *l, int leader,
                      const struct remote *r, MPI_Comm *newcomm)
{
    int rn = (int)r->hdr[0], lfirst = l->w[leader] < (int)r->hdr[1], rv;
    int *u = malloc(sizeof(int) * (size_t)(l->n + rn) + 1);
    struct enc_mpi_comm parent = {.h = local_comm};
    struct enc_mpi_inter *in = enc_mpi_inter_new(l->n, rn, lfirst);
    MPI_Comm shell;

    if (u == NULL || in == NULL) {
        free(u);
        enc_mpi_inter_free(in);
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    memcpy(u + (lfirst ? 0 : rn), l->w, sizeof(int) * (size_t)l->n);
    memcpy(u + (lfirst ? l->n : 0), r->w, sizeof(int) * (size_t)rn);
    if ((rv = enc_mpi_comm_blank_shell(fn, &parent, &shell)) == MPI_SUCCESS)
        rv = enc_mpi_comm_adopt(fn, enc_group_cid_derive((uint64_t)r->hdr[2], 0, 'U'), u,
                                l->n + rn, 0, shell, newcomm);
    free(u);
    if (rv == MPI_SUCCESS)
        enc_mpi_comm_get(*newcomm)->inter = in;
    else
        enc_mpi_inter_free(in);
    return rv;
}

int enc_mpi_Intercomm_create(const void *site, MPI_Comm local_comm, int local_leader,
                             MPI_Comm bridge_comm, int remote_leader, int tag,
                             MPI_Comm *newintercomm)
{
    const char *fn = "MPI_Intercomm_create";
    struct local l = {0};
    struct remote r = {{0}, NULL};
    int rv;

    if ((rv = local_group(fn, local_comm, &l)) != MPI_SUCCESS)
        return rv;
    if (local_leader < 0 || local_leader >= l.n) {
        rv = enc_mpi_raise(MPI_ERR_RANK, "%s: local leader %d is not a rank of the local "
                           "communicator (size %d)", fn, local_leader, l.n);
        goto out;
    }
    if (l.me == local_leader &&
        (rv = leaders(fn, site, &l, bridge_comm, remote_leader, tag, &r)) != MPI_SUCCESS)
        goto out;
    if ((rv = tell_group(fn, site, &l, local_leader, &r)) == MPI_SUCCESS)
        rv = make_inter(fn, local_comm, &l, local_leader, &r, newintercomm);
out:
    free(l.w);
    free(r.w);
    return rv;
}

/* Both groups in one: the group that passes high = 0 first (the union's
 * order when both pass the same), each in its own order. */
int enc_mpi_Intercomm_merge(const void *site, MPI_Comm intercomm, int high,
                            MPI_Comm *newintracomm)
{
    struct enc_mpi_comm *c = enc_mpi_comm_get(intercomm);
    int n = enc_mpi_comm_size(c);

    if (c->inter == NULL)
        return enc_mpi_raise(MPI_ERR_COMM, "MPI_Intercomm_merge: the communicator is not an "
                             "intercommunicator");
    return enc_mpi_comm_split_as("MPI_Intercomm_merge", site, intercomm, 0,
                                 (high ? n : 0) + enc_mpi_comm_rank(c), 0, ENC_COLL_INTERCOMM,
                                 newintracomm);
}

int enc_mpi_Comm_test_inter(const void *site, MPI_Comm comm, int *flag)
{
    *flag = enc_mpi_comm_get(comm)->inter != NULL;
    return MPI_SUCCESS;
}

static const struct enc_mpi_inter *inter_of(const char *fn, MPI_Comm comm, int *rv)
{
    const struct enc_mpi_inter *in = enc_mpi_comm_get(comm)->inter;

    *rv = in != NULL ? MPI_SUCCESS
                     : enc_mpi_raise(MPI_ERR_COMM, "%s: the communicator is not an "
                                     "intercommunicator", fn);
    return in;
}

int enc_mpi_Comm_remote_size(const void *site, MPI_Comm comm, int *size)
{
    int rv;
    const struct enc_mpi_inter *in = inter_of("MPI_Comm_remote_size", comm, &rv);

    if (in != NULL)
        *size = in->rsize;
    return rv;
}

int enc_mpi_Comm_remote_group(const void *site, MPI_Comm comm, MPI_Group *group)
{
    int rv;
    const struct enc_mpi_inter *in = inter_of("MPI_Comm_remote_group", comm, &rv);

    return in != NULL ? enc_mpi_comm_group_of("MPI_Comm_remote_group", comm, in->roff,
                                              in->rsize, group)
                      : rv;
}
