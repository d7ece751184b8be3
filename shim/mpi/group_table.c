/*
 * group_table.c - groups of the encore world, by handle.
 *
 * As with communicators (comm_table.c), each encore group's MPI_Group is a
 * real Open MPI group (a one-process group made from MPI_COMM_SELF's, a
 * new object each time), so passing it anywhere is safe; the table maps it
 * to the world ranks it stands for.  MPI_GROUP_EMPTY is the empty group;
 * an empty result is the real MPI_GROUP_EMPTY with the reference the real
 * MPI_Group_free of the application's handle gives back (Open MPI counts
 * them, and frees its static object when the count reaches zero).
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "core/vec.h"
#include "engine/engine.h"
#include "mpi/mpi_layer.h"

static struct {
    struct enc_mpi_group **g;
    int n;
    size_t cap;
} table;

static struct enc_mpi_group empty = {.n = 0};

static int find(MPI_Group h)
{
    for (int i = 0; i < table.n; i++)
        if (table.g[i]->h == h)
            return i;
    return -1;
}

struct enc_mpi_group *enc_mpi_group_get(MPI_Group h)
{
    int i;

    if (h == MPI_GROUP_EMPTY) {
        empty.h = MPI_GROUP_EMPTY;
        return &empty;
    }
    return h != MPI_GROUP_NULL && (i = find(h)) >= 0 ? table.g[i] : NULL;
}

static int new_shell(MPI_Group *h)
{
    MPI_Group self;
    int zero = 0, rv;

    if ((rv = enc_real_Comm_group(MPI_COMM_SELF, &self)) != MPI_SUCCESS)
        return rv;
    rv = enc_real_Group_incl(self, 1, &zero, h);
    enc_real_Group_free(&self);
    return rv;
}

int enc_mpi_group_make(const char *fn, const int *world, int n, MPI_Group *out)
{
    struct enc_mpi_group *g;

    if (n == 0) /* as the real MPI makes it: retained */
        return enc_real_Group_incl(MPI_GROUP_EMPTY, 0, world, out);
    if ((g = calloc(1, sizeof(*g))) == NULL || (g->w = malloc(sizeof(int) * (size_t)n)) == NULL ||
        ENC_VEC_RESERVE(table.g, table.cap, (size_t)table.n + 1) != ENC_OK) {
        if (g)
            free(g->w);
        free(g);
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    if (new_shell(&g->h) != MPI_SUCCESS) {
        free(g->w);
        free(g);
        return enc_mpi_raise(MPI_ERR_INTERN, "%s: the real MPI could not make a group handle",
                             fn);
    }
    memcpy(g->w, world, sizeof(int) * (size_t)n);
    g->n = n;
    table.g[table.n++] = g;
    *out = g->h;
    return MPI_SUCCESS;
}

struct enc_mpi_group *enc_mpi_group_view(MPI_Group h, struct enc_mpi_group_view *v)
{
    struct enc_mpi_group *g = enc_mpi_group_get(h);
    int n;

    if (g != NULL || h == MPI_GROUP_NULL)
        return g;
    /* the real MPI's world is this process alone: its groups hold it or no one */
    if (enc_real_Group_size(h, &n) != MPI_SUCCESS || n < 0 || n > 1)
        return NULL;
    v->me = enc_engine_rank();
    v->g = (struct enc_mpi_group){.h = h, .n = n, .w = &v->me};
    return &v->g;
}

int enc_mpi_group_owned(MPI_Group h)
{
    return h != MPI_GROUP_EMPTY && h != MPI_GROUP_NULL && find(h) >= 0;
}

int enc_mpi_group_release(MPI_Group *h)
{
    int i = find(*h);

    if (i < 0)
        return 0;
    enc_real_Group_free(&table.g[i]->h);
    free(table.g[i]->w);
    free(table.g[i]);
    table.g[i] = table.g[--table.n];
    *h = MPI_GROUP_NULL;
    return 1;
}

int enc_mpi_group_rank_of(const struct enc_mpi_group *g, int world)
{
    for (int i = 0; i < g->n; i++)
        if (g->w[i] == world)
            return i;
    return MPI_UNDEFINED;
}
