/*
 * group_table.c - groups of the encore world, by handle.
 *
 * As with communicators (comm_table.c), each encore group's MPI_Group is a
 * real Open MPI group (a one-process group made from MPI_COMM_SELF's, a
 * new object each time), so passing it anywhere is safe; the table maps it
 * to the world ranks it stands for.  MPI_GROUP_EMPTY is the empty group;
 * an empty result is the real MPI_GROUP_EMPTY with the reference the real
 * MPI_Group_free of the application's handle gives back (Open MPI counts
 * them, and frees its static object when the count reaches zero).  Under
 * MPI_THREAD_MULTIPLE threads make and free groups at once: the table has
 * a lock (an entry stays valid until its own handle is freed).
 */
#include "enc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "core/vec.h"
#include "engine/engine.h"
#include "mpi/mpi_layer.h"

static struct {
    pthread_mutex_t lock;
    struct enc_mpi_group **g;
    int n;
    size_t cap;
} table = {.lock = PTHREAD_MUTEX_INITIALIZER};

static struct enc_mpi_group empty = {.h = MPI_GROUP_EMPTY, .n = 0};

/* The entry of h (the lock held), NULL when none. */
static struct enc_mpi_group *find(MPI_Group h)
{
    for (int i = 0; i < table.n; i++)
        if (table.g[i]->h == h)
            return table.g[i];
    return NULL;
}

struct enc_mpi_group *enc_mpi_group_get(MPI_Group h)
{
    struct enc_mpi_group *g;

    if (h == MPI_GROUP_EMPTY)
        return &empty;
    if (h == MPI_GROUP_NULL)
        return NULL;
    pthread_mutex_lock(&table.lock);
    g = find(h);
    pthread_mutex_unlock(&table.lock);
    return g;
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

static void free_group(struct enc_mpi_group *g)
{
    if (g->h != MPI_GROUP_NULL)
        enc_real_Group_free(&g->h);
    free(g->w);
    free(g);
}

/* Adds g to the table: false when it cannot grow. */
static bool add(struct enc_mpi_group *g)
{
    bool ok;

    pthread_mutex_lock(&table.lock);
    if ((ok = ENC_VEC_RESERVE(table.g, table.cap, (size_t)table.n + 1) == ENC_OK))
        table.g[table.n++] = g;
    pthread_mutex_unlock(&table.lock);
    return ok;
}

int enc_mpi_group_make(const char *fn, const int *world, int n, MPI_Group *out)
{
    struct enc_mpi_group *g;

    if (n == 0) /* as the real MPI makes it: retained */
        return enc_real_Group_incl(MPI_GROUP_EMPTY, 0, world, out);
    if ((g = calloc(1, sizeof(*g))) == NULL || (g->w = malloc(sizeof(int) * (size_t)n)) == NULL) {
        free(g);
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    if (new_shell(&g->h) != MPI_SUCCESS) {
        g->h = MPI_GROUP_NULL;
        free_group(g);
        return enc_mpi_raise(MPI_ERR_INTERN, "%s: the real MPI could not make a group handle",
                             fn);
    }
    memcpy(g->w, world, sizeof(int) * (size_t)n);
    g->n = n;
    *out = g->h;
    if (add(g))
        return MPI_SUCCESS;
    free_group(g);
    *out = MPI_GROUP_NULL;
    return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
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
    return h != MPI_GROUP_EMPTY && h != MPI_GROUP_NULL && enc_mpi_group_get(h) != NULL;
}

int enc_mpi_group_release(MPI_Group *h)
{
    struct enc_mpi_group *g = NULL;

    pthread_mutex_lock(&table.lock);
    for (int i = 0; i < table.n && g == NULL; i++) {
        if (table.g[i]->h == *h) {
            g = table.g[i];
            table.g[i] = table.g[--table.n];
        }
    }
    pthread_mutex_unlock(&table.lock);
    if (g == NULL)
        return 0;
    free_group(g);
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
