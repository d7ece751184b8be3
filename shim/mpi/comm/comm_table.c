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
 * MPI_COMM_WORLD or on a shell here (enc_mpi_is_encore_comm).  The
 * workers of nonblocking collectives add communicators (MPI_Comm_idup)
 * while the application looks others up, so the table has a lock; the
 * world needs none.
 */
#include "enc.h"

#include <pthread.h>
#include <stdlib.h>

#include <mpi.h>

#include "core/vec.h"
#include "engine/group.h"
#include "mpi/mpi_layer.h"
#include "mpi/inter/inter.h"
#include "mpi/topo/topo.h"

static struct {
    pthread_rwlock_t lock;
    struct enc_mpi_comm **c;
    int n;
    size_t cap;
} table = {.lock = PTHREAD_RWLOCK_INITIALIZER};

static struct enc_mpi_comm world = {.h = MPI_COMM_WORLD, .g = NULL};

static int find(MPI_Comm h)
{
    for (int i = 0; i < table.n; i++)
        if (table.c[i]->h == h)
            return i;
    return -1;
}

/* The entry of h, NULL when h is not a derived encore communicator. */
static struct enc_mpi_comm *lookup(MPI_Comm h)
{
    struct enc_mpi_comm *c = NULL;
    int i;

    if (h == MPI_COMM_NULL || __atomic_load_n(&table.n, __ATOMIC_RELAXED) == 0)
        return NULL;
    pthread_rwlock_rdlock(&table.lock);
    if ((i = find(h)) >= 0)
        c = table.c[i];
    pthread_rwlock_unlock(&table.lock);
    return c;
}

int enc_mpi_is_encore_comm(MPI_Comm h)
{
    return h == MPI_COMM_WORLD || lookup(h) != NULL;
}

int enc_mpi_is_intercomm(MPI_Comm h)
{
    struct enc_mpi_comm *c = h == MPI_COMM_WORLD ? NULL : lookup(h);

    return c != NULL && c->inter != NULL;
}

struct enc_mpi_comm *enc_mpi_comm_get(MPI_Comm h)
{
    if (h == MPI_COMM_WORLD)
        return &world;
    return lookup(h);
}

enc_status_t enc_mpi_comm_add(MPI_Comm h, struct enc_group *g)
{
    struct enc_mpi_comm *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return ENC_ERR_NOMEM;
    pthread_rwlock_wrlock(&table.lock);
    if (ENC_VEC_RESERVE(table.c, table.cap, (size_t)table.n + 1) != ENC_OK) {
        pthread_rwlock_unlock(&table.lock);
        free(c);
        return ENC_ERR_NOMEM;
    }
    c->h = h;
    c->g = g;
    table.c[table.n] = c;
    __atomic_store_n(&table.n, table.n + 1, __ATOMIC_RELAXED);
    pthread_rwlock_unlock(&table.lock);
    return ENC_OK;
}

/* Forgets h, its topology and groups; returns its group (the caller frees it) or
 * NULL. */
struct enc_group *enc_mpi_comm_remove(MPI_Comm h)
{
    struct enc_group *g = NULL;
    int i;

    pthread_rwlock_wrlock(&table.lock);
    if ((i = find(h)) >= 0) {
        g = table.c[i]->g;
        enc_mpi_topo_free(table.c[i]->topo);
        enc_mpi_inter_free(table.c[i]->inter);
        free(table.c[i]);
        table.c[i] = table.c[table.n - 1];
        __atomic_store_n(&table.n, table.n - 1, __ATOMIC_RELAXED);
    }
    pthread_rwlock_unlock(&table.lock);
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

int enc_mpi_comm_peers(const struct enc_mpi_comm *c)
{
    return c->inter != NULL ? c->inter->rsize : enc_mpi_comm_size(c);
}
