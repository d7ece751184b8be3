/*
 * comm_new.c - MPI_Comm_dup / dup_with_info / idup / split / split_type on
 * the encore world and the communicators derived from it.
 *
 * Creation is a collective on the parent through the engine (logged and
 * replayed like any other, what = COMM_DUP / COMM_SPLIT): dup is a
 * barrier, split an allgather of every rank's (colour, key, digest): the
 * digest is 0 for a split, a hash of the shape for a topology (topo.c).  On
 * replay the logged triple of this rank must equal this call's, else the
 * job stops with a replay divergence.  A dup keeps its parent's topology, or its two groups.  The child's communicator id derives from the
 * parent's, the parent's sequence number of the creating collective and the
 * colour (engine/group.h).
 */
#include "enc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "engine/engine.h"
#include "engine/group.h"
#include "mpi/coll/icoll.h"
#include "mpi/inter/inter.h"
#include "mpi/mpi_layer.h"
#include "mpi/topo/topo.h"

static int *parent_members(const struct enc_mpi_comm *p, int *n)
{
    int *m;

    *n = enc_mpi_comm_size(p);
    if ((m = malloc(sizeof(int) * (size_t)*n + 1)) == NULL)
        return NULL;
    for (int i = 0; i < *n; i++)
        m[i] = enc_group_world_rank(p->g, i);
    return m;
}

static int dup_comm(const char *fn, const void *site, MPI_Comm comm, MPI_Comm *newcomm)
{
    struct enc_mpi_comm *p = enc_mpi_comm_get(comm);
    uint64_t cid = enc_group_cid_derive(enc_group_cid(p->g), enc_group_seq(p->g), 'D');
    struct enc_callsig sig = enc_mpi_csig(p, ENC_COLL_BARRIER, ENC_COLL_COMM_DUP, 0,
                                          ENC_SIG_DTYPE_BYTES, ENC_SIG_OP_NONE, -1, site);
    struct enc_mpi_topo *t = NULL;
    struct enc_mpi_inter *in = NULL;
    MPI_Comm shell;
    enc_status_t st;
    int *m, n, rv;

    if ((p->topo != NULL && (t = enc_mpi_topo_copy(p->topo)) == NULL) ||
        (p->inter != NULL && (in = enc_mpi_inter_copy(p->inter)) == NULL)) {
        enc_mpi_topo_free(t);
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    if ((st = enc_barrier(&sig)) != ENC_OK) {
        enc_mpi_topo_free(t);
        enc_mpi_inter_free(in);
        return enc_mpi_engine_error(fn, st);
    }
    /* the real dup runs the attribute copy callbacks and keeps the handler */
    if ((rv = enc_real_Comm_dup(comm, &shell)) != MPI_SUCCESS) {
        enc_mpi_topo_free(t);
        enc_mpi_inter_free(in);
        return enc_mpi_raise(rv, "%s: the real MPI could not duplicate the handle", fn);
    }
    if ((m = parent_members(p, &n)) == NULL) {
        enc_mpi_topo_free(t);
        enc_mpi_inter_free(in);
        enc_real_Comm_free(&shell);
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    rv = enc_mpi_comm_adopt(fn, cid, m, n, enc_group_last_live(p->g), shell, newcomm);
    free(m);
    if (rv == MPI_SUCCESS) {
        enc_mpi_comm_get(*newcomm)->topo = t;
        enc_mpi_comm_get(*newcomm)->inter = in;
    } else {
        enc_mpi_topo_free(t);
        enc_mpi_inter_free(in);
    }
    return rv;
}

int enc_mpi_Comm_dup(const void *site, MPI_Comm comm, MPI_Comm *newcomm)
{
    return dup_comm("MPI_Comm_dup", site, comm, newcomm);
}

int enc_mpi_Comm_dup_with_info(const void *site, MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    int rv = dup_comm("MPI_Comm_dup_with_info", site, comm, newcomm);

    if (rv == MPI_SUCCESS && info != MPI_INFO_NULL)
        enc_real_Comm_set_info(*newcomm, info);
    return rv;
}

static int run_idup(const void *site, const struct enc_mpi_icoll_args *a)
{
    return dup_comm("MPI_Comm_idup", site, a->comm, a->newcomm);
}

/* A nonblocking collective like the others (icoll.c): *newcomm is written
 * when it has run, as MPI lets the program read it only after completion. */
int enc_mpi_Comm_idup(const void *site, MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    struct enc_mpi_icoll_args a = {.comm = comm, .newcomm = newcomm};

    return enc_mpi_icoll_start("MPI_Comm_idup", site, run_idup, &a, request);
}

/* ---- split ---- */

struct member { int color, key, rank; };

static int by_key(const void *a, const void *b)
{
    const struct member *x = a, *y = b;

    return x->key != y->key ? (x->key < y->key ? -1 : 1) : x->rank - y->rank;
}

/* World ranks of the members of colour `color`, ordered by (key, rank);
 * ck holds (colour, key, digest) per rank. */
static int *split_members(const struct enc_mpi_comm *p, const int *ck, int color, int *n)
{
    int size = enc_mpi_comm_size(p), k = 0;
    struct member *a = malloc(sizeof(*a) * (size_t)size + 1);
    int *m = malloc(sizeof(int) * (size_t)size + 1);

    if (a == NULL || m == NULL) {
        free(a);
        free(m);
        return NULL;
    }
    for (int i = 0; i < size; i++)
        if (ck[3 * i] == color)
            a[k++] = (struct member){ck[3 * i], ck[3 * i + 1], i};
    qsort(a, (size_t)k, sizeof(*a), by_key);
    for (int i = 0; i < k; i++)
        m[i] = enc_group_world_rank(p->g, a[i].rank);
    free(a);
    *n = k;
    return m;
}

/* Allgather of (colour, key, digest) on the parent; checks this rank's
 * logged triple, and that every rank passed the same digest (of what MPI
 * says every rank passes alike: a topology's shape). */
static int exchange(const char *fn, const void *site, const struct enc_mpi_comm *p,
                    enum enc_coll_kind what, const int mine[3], int *ck)
{
    int size = enc_mpi_comm_size(p), me = enc_mpi_comm_rank(p);
    size_t *a = malloc(sizeof(size_t) * 2 * (size_t)size);
    struct enc_callsig sig = enc_mpi_csig(p, ENC_COLL_ALLGATHERV, what,
                                          (uint64_t)size * 3 * sizeof(int),
                                          ENC_SIG_DTYPE_BYTES, ENC_SIG_OP_NONE, -1, site);
    enc_status_t st;

    if (a == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    for (int i = 0; i < size; i++) {
        a[i] = 3 * sizeof(int);
        a[size + i] = (size_t)i * 3 * sizeof(int);
    }
    st = enc_allgatherv(mine, 3 * sizeof(int), ck, a, a + size, &sig);
    free(a);
    if (st != ENC_OK)
        return enc_mpi_engine_error(fn, st);
    if (memcmp(&ck[3 * me], mine, 3 * sizeof(int)) != 0) {
        char msg[256];

        snprintf(msg, sizeof(msg), "replay divergence in %s: this call has color %d key %d "
                 "(arguments digest %08x); the log has color %d key %d (%08x)", fn, mine[0],
                 mine[1], (unsigned)mine[2], ck[3 * me], ck[3 * me + 1],
                 (unsigned)ck[3 * me + 2]);
        enc_engine_abort(1, msg);
    }
    for (int i = 0; i < size; i++)
        if (ck[3 * i + 2] != mine[2])
            return enc_mpi_raise(MPI_ERR_ARG, "%s: rank %d passed other arguments than rank %d "
                                 "(every rank must pass the same)", fn, i, me);
    return MPI_SUCCESS;
}

int enc_mpi_comm_split_as(const char *fn, const void *site, MPI_Comm comm, int color, int key,
                          uint32_t digest, enum enc_coll_kind what, MPI_Comm *newcomm)
{
    struct enc_mpi_comm *p = enc_mpi_comm_get(comm);
    uint64_t seq = enc_group_seq(p->g);
    int *ck = malloc(sizeof(int) * 3 * (size_t)enc_mpi_comm_size(p));
    int *m = NULL, n, rv, mine[3] = {color, key, (int)digest};
    MPI_Comm shell;

    if (ck == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    if (color < 0 && color != MPI_UNDEFINED) {
        free(ck);
        return enc_mpi_raise(MPI_ERR_ARG, "%s: color %d is negative", fn, color);
    }
    if ((rv = exchange(fn, site, p, what, mine, ck)) != MPI_SUCCESS)
        goto out;
    *newcomm = MPI_COMM_NULL;
    if (color == MPI_UNDEFINED)
        goto out;
    if ((m = split_members(p, ck, color, &n)) == NULL) {
        rv = enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        goto out;
    }
    if ((rv = enc_mpi_comm_blank_shell(fn, p, &shell)) == MPI_SUCCESS)
        rv = enc_mpi_comm_adopt(fn, enc_group_cid_derive(enc_group_cid(p->g), seq,
                                                         (uint64_t)color + 1),
                                m, n, enc_group_last_live(p->g), shell, newcomm);
out:
    free(ck);
    free(m);
    return rv;
}

int enc_mpi_Comm_split(const void *site, MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    if (enc_mpi_is_intercomm(comm))
        return enc_mpi_inter_split(site, comm, color, key, newcomm);
    return enc_mpi_comm_split_as("MPI_Comm_split", site, comm, color, key, 0,
                                 ENC_COLL_COMM_SPLIT, newcomm);
}

/* Colour of this rank for MPI_COMM_TYPE_SHARED: the lowest rank of the
 * parent on the same host (host identity as the launcher registered it). */
static int host_color(const struct enc_mpi_comm *p)
{
    const char *me = enc_group_host(enc_group_world_rank(p->g, enc_mpi_comm_rank(p)));

    for (int i = 0; i < enc_mpi_comm_size(p); i++)
        if (strcmp(enc_group_host(enc_group_world_rank(p->g, i)), me) == 0)
            return i;
    return 0;
}

int enc_mpi_Comm_split_type(const void *site, MPI_Comm comm, int split_type, int key,
                            MPI_Info info, MPI_Comm *newcomm)
{
    struct enc_mpi_comm *p = enc_mpi_comm_get(comm);
    int color;

    (void)info;
    if (split_type == MPI_UNDEFINED)
        color = MPI_UNDEFINED;
    else if (split_type == MPI_COMM_TYPE_SHARED)
        color = host_color(p);
    else
        return enc_mpi_raise(MPI_ERR_ARG, "MPI_Comm_split_type: split_type %d is not "
                             "supported in encore mode (MPI_COMM_TYPE_SHARED and "
                             "MPI_UNDEFINED are)", split_type);
    return enc_mpi_comm_split_as("MPI_Comm_split_type", site, comm, color, key, 0,
                                 ENC_COLL_COMM_SPLIT, newcomm);
}
