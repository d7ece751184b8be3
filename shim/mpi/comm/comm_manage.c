/*
 * comm_manage.c - MPI_Comm_create / create_group / group / compare / free
 * on the encore world and the communicators derived from it.
 *
 * MPI_Comm_create is a collective on the parent: an allgather of each
 * rank's group digest (MPI-3 lets disjoint groups create disjoint
 * communicators in one call), checked for agreement among the members.
 * MPI_Comm_create_group is collective over the group only: its first
 * collective, on the new communicator itself, is that same check; its
 * communicator id derives from the parent's, the tag, the group and how often
 * this rank made that same (parent, tag, group) before.
 */
#include "enc.h"

#include <stdlib.h>

#include <mpi.h>

#include "engine/engine.h"
#include "engine/group.h"
#include "mpi/inter/inter.h"
#include "mpi/mpi_layer.h"

int enc_mpi_comm_group_of(const char *fn, MPI_Comm comm, int first, int n, MPI_Group *group)
{
    struct enc_mpi_comm *c = enc_mpi_comm_get(comm);
    int *w = malloc(sizeof(int) * (size_t)n + 1), rv;

    if (w == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    for (int i = 0; i < n; i++)
        w[i] = enc_group_world_rank(c->g, first + i);
    rv = enc_mpi_group_make(fn, w, n, group);
    free(w);
    return rv;
}

/* An intercommunicator's is its local group. */
int enc_mpi_Comm_group(const void *site, MPI_Comm comm, MPI_Group *group)
{
    struct enc_mpi_comm *c = enc_mpi_comm_get(comm);

    if (c->inter != NULL)
        return enc_mpi_comm_group_of("MPI_Comm_group", comm, c->inter->loff, c->inter->lsize,
                                     group);
    return enc_mpi_comm_group_of("MPI_Comm_group", comm, 0, enc_mpi_comm_size(c), group);
}

/* The world ranks of comm in *v: an encore communicator's members, or for
 * one the real MPI made from MPI_COMM_SELF this process.  v->g.w is
 * malloc'd; NULL when out of memory. */
static struct enc_mpi_group *comm_members(MPI_Comm comm, struct enc_mpi_group_view *v)
{
    struct enc_mpi_comm *c = enc_mpi_comm_get(comm);
    int n = c != NULL ? enc_mpi_comm_size(c) : 1;

    v->me = enc_engine_rank();
    v->g = (struct enc_mpi_group){.h = MPI_GROUP_NULL, .n = n};
    if ((v->g.w = malloc(sizeof(int) * (size_t)n)) == NULL)
        return NULL;
    for (int i = 0; i < n; i++)
        v->g.w[i] = c != NULL ? enc_group_world_rank(c->g, i) : v->me;
    return &v->g;
}

/* Compares n members of a from offset ao with n of b from bo. */
static int cmp_part(const struct enc_mpi_group *a, int ao, const struct enc_mpi_group *b, int bo)
{
    struct enc_mpi_group x = {.h = MPI_GROUP_NULL, .n = a->n, .w = a->w + ao};
    struct enc_mpi_group y = {.h = MPI_GROUP_NULL, .n = b->n, .w = b->w + bo};

    return enc_mpi_group_compare(&x, &y);
}

/* Two intercommunicators compare as their local and their remote groups
 * do (the worse of the two); an intercommunicator and an intracommunicator
 * are MPI_UNEQUAL. */
static int compare_inter(MPI_Comm a, MPI_Comm b, int *result)
{
    struct enc_mpi_comm *x = enc_mpi_comm_get(a), *y = enc_mpi_comm_get(b);
    int r = MPI_UNEQUAL;

    if (x != NULL && y != NULL && x->inter != NULL && y->inter != NULL) {
        struct enc_mpi_group gx = {.h = MPI_GROUP_NULL}, gy = {.h = MPI_GROUP_NULL};
        int u = enc_mpi_comm_size(x), rl, rr;

        if (u != enc_mpi_comm_size(y) || (gx.w = malloc(sizeof(int) * 2 * (size_t)u)) == NULL)
            goto out;
        gy.w = gx.w + u;
        for (int i = 0; i < u; i++) {
            gx.w[i] = enc_group_world_rank(x->g, i);
            gy.w[i] = enc_group_world_rank(y->g, i);
        }
        gx.n = x->inter->lsize, gy.n = y->inter->lsize;
        rl = cmp_part(&gx, x->inter->loff, &gy, y->inter->loff);
        gx.n = x->inter->rsize, gy.n = y->inter->rsize;
        rr = cmp_part(&gx, x->inter->roff, &gy, y->inter->roff);
        r = rl == MPI_UNEQUAL || rr == MPI_UNEQUAL ? MPI_UNEQUAL
            : rl == MPI_SIMILAR || rr == MPI_SIMILAR ? MPI_SIMILAR : MPI_CONGRUENT;
        free(gx.w);
    }
out:
    *result = r;
    return MPI_SUCCESS;
}

int enc_mpi_Comm_compare(const void *site, MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    struct enc_mpi_group_view va, vb;
    struct enc_mpi_group *a, *b;
    int r;

    if (comm1 == MPI_COMM_NULL || comm2 == MPI_COMM_NULL)
        return enc_real_Comm_compare(comm1, comm2, result); /* MPI_ERR_COMM */
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (enc_mpi_is_intercomm(comm1) || enc_mpi_is_intercomm(comm2))
        return compare_inter(comm1, comm2, result);
    a = comm_members(comm1, &va);
    b = comm_members(comm2, &vb);
    if (a != NULL && b != NULL) {
        r = enc_mpi_group_compare(a, b);
        *result = r == MPI_IDENT ? MPI_CONGRUENT : r;
    }
    free(va.g.w);
    free(vb.g.w);
    if (a == NULL || b == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "MPI_Comm_compare: out of memory");
    return MPI_SUCCESS;
}

static int free_comm(const char *fn, MPI_Comm *comm)
{
    struct enc_group *g;

    if (*comm == MPI_COMM_WORLD)
        return enc_real_Comm_free(comm); /* erroneous: the real MPI says so */
    g = enc_mpi_comm_remove(*comm);
    enc_group_destroy(g);
    (void)fn;
    /* the real free runs the attribute delete callbacks */
    return enc_real_Comm_free(comm);
}

int enc_mpi_Comm_free(const void *site, MPI_Comm *comm)
{
    return free_comm("MPI_Comm_free", comm);
}

int enc_mpi_Comm_disconnect(const void *site, MPI_Comm *comm)
{
    return free_comm("MPI_Comm_disconnect", comm);
}

/* ---- create ---- */

static uint64_t digest(const struct enc_mpi_group *g)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)g->n;

    for (int i = 0; i < g->n; i++) {
        h ^= (uint64_t)g->w[i] + 0x9e3779b97f4a7c15ull;
        h *= 1099511628211ull;
    }
    return h;
}

/* A shell with the parent's error handler, registered over g's members. */
static int make_comm(const char *fn, const struct enc_mpi_comm *p, uint64_t cid,
                     const struct enc_mpi_group *g, int live, MPI_Comm *newcomm)
{
    MPI_Comm shell;
    int rv = enc_mpi_comm_blank_shell(fn, p, &shell);

    return rv != MPI_SUCCESS ? rv : enc_mpi_comm_adopt(fn, cid, g->w, g->n, live, shell, newcomm);
}

/* Every member of g is a member of the parent. */
static int check_subset(const char *fn, const struct enc_mpi_comm *p,
                        const struct enc_mpi_group *g)
{
    for (int i = 0; i < g->n; i++) {
        int found = 0;

        for (int j = 0; j < enc_mpi_comm_size(p) && !found; j++)
            found = enc_group_world_rank(p->g, j) == g->w[i];
        if (!found)
            return enc_mpi_raise(MPI_ERR_GROUP, "%s: the group has world rank %d, which is not "
                                 "in the communicator", fn, g->w[i]);
    }
    return MPI_SUCCESS;
}

static struct enc_mpi_group *group_arg(const char *fn, MPI_Group group,
                                       struct enc_mpi_group_view *v, int *rv)
{
    struct enc_mpi_group *g = enc_mpi_group_view(group, v);

    *rv = g != NULL ? MPI_SUCCESS
                    : enc_mpi_raise(MPI_ERR_GROUP, "%s: invalid group (MPI_GROUP_NULL)", fn);
    return g;
}

/* The digests the members of g sent must all equal g's. */
static int check_digests(const char *fn, const struct enc_mpi_comm *p,
                         const struct enc_mpi_group *g, const uint64_t *all)
{
    uint64_t d = digest(g);

    for (int j = 0; j < enc_mpi_comm_size(p); j++) {
        int w = enc_group_world_rank(p->g, j);

        if (enc_mpi_group_rank_of(g, w) != MPI_UNDEFINED && all[j] != d)
            return enc_mpi_raise(MPI_ERR_GROUP, "%s: rank %d passed a different group than "
                                 "rank %d, though both are in it", fn, j, enc_mpi_comm_rank(p));
    }
    return MPI_SUCCESS;
}

static int gather_digests(const void *site, const struct enc_mpi_comm *p,
                          enum enc_coll_kind what, uint64_t mine, uint64_t *all)
{
    int n = enc_mpi_comm_size(p);
    size_t *a = malloc(sizeof(size_t) * 2 * (size_t)n);
    struct enc_callsig sig = enc_mpi_csig(p, ENC_COLL_ALLGATHERV, what,
                                          (uint64_t)n * sizeof(uint64_t), ENC_SIG_DTYPE_BYTES,
                                          ENC_SIG_OP_NONE, -1, site);
    enc_status_t st;

    if (a == NULL)
        return ENC_ERR_NOMEM;
    for (int i = 0; i < n; i++) {
        a[i] = sizeof(uint64_t);
        a[n + i] = (size_t)i * sizeof(uint64_t);
    }
    st = enc_allgatherv(&mine, sizeof(mine), all, a, a + n, &sig);
    free(a);
    return st;
}

int enc_mpi_Comm_create(const void *site, MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    if (enc_mpi_is_intercomm(comm))
        return enc_mpi_inter_create(site, comm, group, newcomm);
    const char *fn = "MPI_Comm_create";
    struct enc_mpi_comm *p = enc_mpi_comm_get(comm);
    uint64_t seq = enc_group_seq(p->g), *all;
    struct enc_mpi_group_view v;
    struct enc_mpi_group *g;
    enc_status_t st;
    int rv;

    if ((g = group_arg(fn, group, &v, &rv)) == NULL || (rv = check_subset(fn, p, g)) != MPI_SUCCESS)
        return rv;
    if ((all = malloc(sizeof(uint64_t) * (size_t)enc_mpi_comm_size(p))) == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    if ((st = gather_digests(site, p, ENC_COLL_COMM_CREATE, digest(g), all)) != ENC_OK) {
        free(all);
        return enc_mpi_engine_error(fn, st);
    }
    rv = check_digests(fn, p, g, all);
    free(all);
    *newcomm = MPI_COMM_NULL;
    if (rv != MPI_SUCCESS || enc_mpi_group_rank_of(g, enc_engine_rank()) == MPI_UNDEFINED)
        return rv;
    return make_comm(fn, p, enc_group_cid_derive(enc_group_cid(p->g), seq, digest(g)), g,
                     enc_group_last_live(p->g), newcomm);
}

/* tag is a valid tag (0 to the real MPI's MPI_TAG_UB). */
static int check_tag(const char *fn, int tag)
{
    int *ub = NULL, flag = 0;

    if (tag >= 0 && (enc_real_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag) !=
                     MPI_SUCCESS || !flag || tag <= *ub))
        return MPI_SUCCESS;
    return enc_mpi_raise(MPI_ERR_TAG, "%s: invalid tag %d", fn, tag);
}

uint64_t enc_mpi_occurrence(uint64_t key)
{
    static struct { uint64_t key, n; } *seen;
    static size_t nseen;

    for (size_t i = 0; i < nseen; i++)
        if (seen[i].key == key)
            return seen[i].n++;
    void *a = realloc(seen, (nseen + 1) * sizeof(*seen));

    if (a == NULL)
        return UINT64_MAX;
    seen = a;
    seen[nseen].key = key;
    seen[nseen++].n = 1;
    return 0;
}

int enc_mpi_Comm_create_group(const void *site, MPI_Comm comm, MPI_Group group, int tag,
                              MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create_group";
    struct enc_mpi_comm *p = enc_mpi_comm_get(comm), *c;
    struct enc_mpi_group_view v;
    struct enc_mpi_group *g;
    uint64_t key, *all;
    enc_status_t st;
    int rv;

    if ((rv = check_tag(fn, tag)) != MPI_SUCCESS)
        return rv;
    *newcomm = MPI_COMM_NULL;
    /* as Open MPI: a rank outside the group (MPI_GROUP_NULL and
     * MPI_GROUP_EMPTY included) gets MPI_COMM_NULL and takes no part */
    if (group == MPI_GROUP_NULL || ((g = enc_mpi_group_view(group, &v)) != NULL &&
                                    enc_mpi_group_rank_of(g, enc_engine_rank()) == MPI_UNDEFINED))
        return MPI_SUCCESS;
    if ((g = group_arg(fn, group, &v, &rv)) == NULL || (rv = check_subset(fn, p, g)) != MPI_SUCCESS)
        return rv;
    key = enc_group_cid_derive(enc_group_cid(p->g), (uint64_t)(unsigned)tag, digest(g));
    /* a new group starts uncertain: its first collective asks the members */
    if ((rv = make_comm(fn, p, enc_group_cid_derive(key, enc_mpi_occurrence(key), 'G'), g, 0,
                        newcomm)) != MPI_SUCCESS)
        return rv;
    c = enc_mpi_comm_get(*newcomm);
    if ((all = malloc(sizeof(uint64_t) * (size_t)g->n)) == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    st = gather_digests(site, c, ENC_COLL_COMM_CREATE, digest(g) ^ (uint64_t)(unsigned)tag, all);
    for (int i = 0; st == ENC_OK && i < g->n; i++)
        if (all[i] != all[0])
            st = ENC_ERR_MISMATCH;
    free(all);
    if (st != ENC_OK) {
        free_comm(fn, newcomm);
        return enc_mpi_engine_error(fn, st);
    }
    return MPI_SUCCESS;
}
