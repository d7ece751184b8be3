/*
 * comm_table.c - communicators derived from the encore world, by handle.
 *
 * Handle choice: each derived communicator's MPI_Comm is a real Open MPI
 * communicator ("shell") that the real MPI made over MPI_COMM_SELF
 * (PMPI_Comm_dup of the parent's shell for dup, so attribute copy
 * callbacks run natively; PMPI_Comm_split of MPI_COMM_SELF otherwise).
 * So every function that merely passes a handle through (names,
 * attributes, keyvals, error handlers, MPI_Pack's comm, Comm_test_inter,
 * Topo_test) gets a valid Open MPI object and answers natively, and
 * MPI_Comm_free of the shell runs the delete callbacks.  This table maps
 * shells to encore groups; the generated entry points route every call on
 * MPI_COMM_WORLD or on a shell here (enc_mpi_is_encore_comm).
 */
#include "enc.h"

#include <stdlib.h>

#include <mpi.h>

#include "engine/group.h"
#include "mpi/mpi_layer.h"

static struct {
    struct enc_mpi_comm **c;
    int n, cap;
} table;

static struct enc_mpi_comm world = {.g = NULL};

static int find(MPI_Comm h)
{
    for (int i = 0; i < table.n; i++)
        if (table.c[i]->h == h)
            return i;
    return -1;
}

int enc_mpi_is_encore_comm(MPI_Comm h)
{
    return h == MPI_COMM_WORLD || (h != MPI_COMM_NULL && table.n > 0 && find(h) >= 0);
}

struct enc_mpi_comm *enc_mpi_comm_get(MPI_Comm h)
{
    int i;

    if (h == MPI_COMM_WORLD) {
        world.h = MPI_COMM_WORLD;
        return &world;
    }
    return h != MPI_COMM_NULL && (i = find(h)) >= 0 ? table.c[i] : NULL;
}

enc_status_t enc_mpi_comm_add(MPI_Comm h, struct enc_group *g)
{
    struct enc_mpi_comm *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return ENC_ERR_NOMEM;
    if (table.n == table.cap) {
        int cap = table.cap ? 2 * table.cap : 16;
        struct enc_mpi_comm **a = realloc(table.c, (size_t)cap * sizeof(*a));

        if (a == NULL) {
            free(c);
            return ENC_ERR_NOMEM;
        }
        table.c = a;
        table.cap = cap;
    }
    c->h = h;
    c->g = g;
    table.c[table.n++] = c;
    return ENC_OK;
}

/* Forgets h; returns its group (the caller frees it) or NULL. */
struct enc_group *enc_mpi_comm_remove(MPI_Comm h)
{
    int i = find(h);
    struct enc_group *g;

    if (i < 0)
        return NULL;
    g = table.c[i]->g;
    free(table.c[i]);
    table.c[i] = table.c[--table.n];
    return g;
}

int enc_mpi_comm_size(const struct enc_mpi_comm *c)
{
    return enc_group_my_size(c->g);
}

int enc_mpi_comm_rank(const struct enc_mpi_comm *c)
{
    return enc_group_my_rank(c->g);
}
