/*
 * group_ops.c - MPI_Group_* on groups of the encore world.  Groups the
 * real MPI made (from MPI_COMM_SELF and its descendants), MPI_GROUP_EMPTY
 * and MPI_GROUP_NULL go to the real MPI by themselves; combined with a
 * group of the world, a group of the real MPI stands for this process (or
 * no one), as it does in a native run.
 */
#include "enc.h"

#include <stdlib.h>

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/mpi_layer.h"

/* Before the real MPI refuses MPI_GROUP_NULL: the new group it leaves
 * untouched is the null handle, so a program that goes on frees nothing. */
static MPI_Group *null_out(MPI_Group in1, MPI_Group in2, MPI_Group *out)
{
    if (out != NULL && (in1 == MPI_GROUP_NULL || in2 == MPI_GROUP_NULL))
        *out = MPI_GROUP_NULL;
    return out;
}

/* 1: a and b as groups of the world in *ga, *gb (one of them is an encore
 * group); 0: the real MPI answers (neither is, or one is MPI_GROUP_NULL,
 * which it refuses as it does natively). */
static int kinds(MPI_Group a, MPI_Group b, struct enc_mpi_group_view *va,
                 struct enc_mpi_group_view *vb, struct enc_mpi_group **ga,
                 struct enc_mpi_group **gb)
{
    if (a == MPI_GROUP_NULL || b == MPI_GROUP_NULL ||
        (!enc_mpi_group_owned(a) && !enc_mpi_group_owned(b)))
        return 0;
    *ga = enc_mpi_group_view(a, va);
    *gb = enc_mpi_group_view(b, vb);
    return *ga != NULL && *gb != NULL;
}

int enc_mpi_Group_size(const void *site, MPI_Group group, int *size)
{
    struct enc_mpi_group *g = enc_mpi_group_get(group);

    if (g == NULL)
        return enc_real_Group_size(group, size);
    *size = g->n;
    return MPI_SUCCESS;
}

int enc_mpi_Group_rank(const void *site, MPI_Group group, int *rank)
{
    struct enc_mpi_group *g = enc_mpi_group_get(group);

    if (g == NULL)
        return enc_real_Group_rank(group, rank);
    *rank = enc_mpi_group_rank_of(g, enc_engine_rank());
    return MPI_SUCCESS;
}

int enc_mpi_Group_free(const void *site, MPI_Group *group)
{
    if (group != NULL && enc_mpi_group_release(group))
        return MPI_SUCCESS;
    return enc_real_Group_free(group);
}

static int check_rank(const char *fn, const struct enc_mpi_group *g, int r)
{
    if (r < 0 || r >= g->n)
        return enc_mpi_raise(MPI_ERR_RANK, "%s: rank %d is not in the group (size %d)", fn, r,
                             g->n);
    return MPI_SUCCESS;
}

/* sel[i] = 1 for the ranks to keep / drop; a rank named twice is an error. */
static int mark(const char *fn, const struct enc_mpi_group *g, int n, const int *ranks,
                char *sel)
{
    for (int i = 0; i < n; i++) {
        int rv = check_rank(fn, g, ranks[i]);

        if (rv != MPI_SUCCESS)
            return rv;
        if (sel[ranks[i]]++)
            return enc_mpi_raise(MPI_ERR_RANK, "%s: rank %d named twice", fn, ranks[i]);
    }
    return MPI_SUCCESS;
}

int enc_mpi_Group_incl(const void *site, MPI_Group group, int n, const int ranks[],
                       MPI_Group *newgroup)
{
    struct enc_mpi_group *g = enc_mpi_group_get(group);
    char *sel;
    int *w, rv;

    if (g == NULL)
        return enc_real_Group_incl(group, n, ranks, null_out(group, group, newgroup));
    sel = calloc((size_t)g->n + 1, 1);
    w = malloc(sizeof(int) * (size_t)n + 1);
    if (sel == NULL || w == NULL)
        rv = enc_mpi_raise(MPI_ERR_NO_MEM, "MPI_Group_incl: out of memory");
    else if ((rv = mark("MPI_Group_incl", g, n, ranks, sel)) == MPI_SUCCESS) {
        for (int i = 0; i < n; i++)
            w[i] = g->w[ranks[i]];
        rv = enc_mpi_group_make("MPI_Group_incl", w, n, newgroup);
    }
    free(sel);
    free(w);
    return rv;
}

int enc_mpi_Group_excl(const void *site, MPI_Group group, int n, const int ranks[],
                       MPI_Group *newgroup)
{
    struct enc_mpi_group *g = enc_mpi_group_get(group);
    char *sel;
    int *w, k = 0, rv;

    if (g == NULL)
        return enc_real_Group_excl(group, n, ranks, null_out(group, group, newgroup));
    sel = calloc((size_t)g->n + 1, 1);
    w = malloc(sizeof(int) * (size_t)g->n + 1);
    if (sel == NULL || w == NULL)
        rv = enc_mpi_raise(MPI_ERR_NO_MEM, "MPI_Group_excl: out of memory");
    else if ((rv = mark("MPI_Group_excl", g, n, ranks, sel)) == MPI_SUCCESS) {
        for (int i = 0; i < g->n; i++)
            if (!sel[i])
                w[k++] = g->w[i];
        rv = enc_mpi_group_make("MPI_Group_excl", w, k, newgroup);
    }
    free(sel);
    free(w);
    return rv;
}

/* Expands ranges into a rank list (at most g->n ranks, each once). */
static int expand(const char *fn, const struct enc_mpi_group *g, int n, int ranges[][3],
                  int *out, int *k)
{
    *k = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2], rv;

        if ((rv = check_rank(fn, g, first)) != MPI_SUCCESS ||
            (rv = check_rank(fn, g, last)) != MPI_SUCCESS)
            return rv;
        if (stride == 0 || (first < last && stride < 0) || (first > last && stride > 0))
            return enc_mpi_raise(MPI_ERR_RANK, "%s: range (%d, %d, %d) has a stride of the "
                                 "wrong sign or 0", fn, first, last, stride);
        for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) {
            if (*k >= g->n)
                return enc_mpi_raise(MPI_ERR_RANK, "%s: ranges name a rank twice", fn);
            out[(*k)++] = r;
        }
    }
    return MPI_SUCCESS;
}

typedef int (*list_fn)(const void *, MPI_Group, int, const int[], MPI_Group *);

static int by_ranges(const char *fn, list_fn list, const void *site, struct enc_mpi_group *g,
                     MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    int *r, k, rv;

    if ((r = malloc(sizeof(int) * (size_t)g->n + 1)) == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    if ((rv = expand(fn, g, n, ranges, r, &k)) == MPI_SUCCESS)
        rv = list(site, group, k, r, newgroup);
    free(r);
    return rv;
}

int enc_mpi_Group_range_incl(const void *site, MPI_Group group, int n, int ranges[][3],
                             MPI_Group *newgroup)
{
    struct enc_mpi_group *g = enc_mpi_group_get(group);

    if (g == NULL)
        return enc_real_Group_range_incl(group, n, ranges,
                                        null_out(group, group, newgroup));
    return by_ranges("MPI_Group_range_incl", enc_mpi_Group_incl, site, g, group, n, ranges,
                     newgroup);
}

int enc_mpi_Group_range_excl(const void *site, MPI_Group group, int n, int ranges[][3],
                             MPI_Group *newgroup)
{
    struct enc_mpi_group *g = enc_mpi_group_get(group);

    if (g == NULL)
        return enc_real_Group_range_excl(group, n, ranges,
                                        null_out(group, group, newgroup));
    return by_ranges("MPI_Group_range_excl", enc_mpi_Group_excl, site, g, group, n, ranges,
                     newgroup);
}

enum setop { UNION, INTERSECTION, DIFFERENCE };

/* Members of a (in a's order) kept by op, then for a union b's others. */
static int set_op(const char *fn, const struct enc_mpi_group *a, const struct enc_mpi_group *b,
                  enum setop op, MPI_Group *out)
{
    int *w = malloc(sizeof(int) * (size_t)(a->n + b->n) + 1), k = 0, rv;

    if (w == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    for (int i = 0; i < a->n; i++) {
        int inb = enc_mpi_group_rank_of(b, a->w[i]) != MPI_UNDEFINED;

        if (op == UNION || (op == INTERSECTION) == inb)
            w[k++] = a->w[i];
    }
    for (int i = 0; op == UNION && i < b->n; i++)
        if (enc_mpi_group_rank_of(a, b->w[i]) == MPI_UNDEFINED)
            w[k++] = b->w[i];
    rv = enc_mpi_group_make(fn, w, k, out);
    free(w);
    return rv;
}

#define SET_FN(Name, OP)                                                                    \
    int enc_mpi_Group_##Name(const void *site, MPI_Group group1, MPI_Group group2,          \
                             MPI_Group *newgroup)                                           \
    {                                                                                       \
        struct enc_mpi_group_view va, vb;                                                   \
        struct enc_mpi_group *a, *b;                                                        \
                                                                                            \
        if (!kinds(group1, group2, &va, &vb, &a, &b))                                       \
            return enc_real_Group_##Name(group1, group2,                                    \
                                         null_out(group1, group2, newgroup));               \
        return set_op("MPI_Group_" #Name, a, b, OP, newgroup);                              \
    }

SET_FN(union, UNION)
SET_FN(intersection, INTERSECTION)
SET_FN(difference, DIFFERENCE)

int enc_mpi_Group_translate_ranks(const void *site, MPI_Group group1, int n, const int ranks1[],
                                  MPI_Group group2, int ranks2[])
{
    const char *fn = "MPI_Group_translate_ranks";
    struct enc_mpi_group_view va, vb;
    struct enc_mpi_group *a, *b;
    int rv;

    if (!kinds(group1, group2, &va, &vb, &a, &b))
        return enc_real_Group_translate_ranks(group1, n, ranks1, group2, ranks2);
    if (n < 0)
        return enc_mpi_raise(MPI_ERR_GROUP, "%s: negative count %d", fn, n);
    for (int i = 0; i < n; i++) {
        /* as Open MPI: nothing translates to or from an empty group */
        if (a->n == 0 || b->n == 0 || ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = a->n == 0 || b->n == 0 ? MPI_UNDEFINED : MPI_PROC_NULL;
            continue;
        }
        if ((rv = check_rank(fn, a, ranks1[i])) != MPI_SUCCESS)
            return rv;
        ranks2[i] = enc_mpi_group_rank_of(b, a->w[ranks1[i]]);
    }
    return MPI_SUCCESS;
}

int enc_mpi_group_compare(const struct enc_mpi_group *a, const struct enc_mpi_group *b)
{
    int same_order = a->n == b->n;

    if (a->n != b->n)
        return MPI_UNEQUAL;
    for (int i = 0; i < a->n; i++) {
        if (enc_mpi_group_rank_of(b, a->w[i]) == MPI_UNDEFINED)
            return MPI_UNEQUAL;
        same_order &= a->w[i] == b->w[i];
    }
    return same_order ? MPI_IDENT : MPI_SIMILAR;
}

int enc_mpi_Group_compare(const void *site, MPI_Group group1, MPI_Group group2, int *result)
{
    struct enc_mpi_group_view va, vb;
    struct enc_mpi_group *a, *b;

    if (!kinds(group1, group2, &va, &vb, &a, &b))
        return enc_real_Group_compare(group1, group2, result);
    *result = enc_mpi_group_compare(a, b);
    return MPI_SUCCESS;
}
