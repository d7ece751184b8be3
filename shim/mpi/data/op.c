/*
 * op.c - reduction ops: predefined ones map onto enum enc_op; user ops are
 * recorded when MPI_Op_create is called (the real call still creates the
 * handle, so the op keeps working on MPI_COMM_SELF) because an MPI_Op handle
 * does not portably give its function back.
 */
#include "enc.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/mpi_layer.h"
#include "reduce/reduce.h"

static const struct { MPI_Op h; enum enc_op op; } opmap[] = {
    { MPI_MAX, ENC_OP_MAX }, { MPI_MIN, ENC_OP_MIN }, { MPI_SUM, ENC_OP_SUM },
    { MPI_PROD, ENC_OP_PROD }, { MPI_LAND, ENC_OP_LAND }, { MPI_BAND, ENC_OP_BAND },
    { MPI_LOR, ENC_OP_LOR }, { MPI_BOR, ENC_OP_BOR }, { MPI_LXOR, ENC_OP_LXOR },
    { MPI_BXOR, ENC_OP_BXOR }, { MPI_MAXLOC, ENC_OP_MAXLOC },
    { MPI_MINLOC, ENC_OP_MINLOC }, { MPI_REPLACE, ENC_OP_REPLACE },
};

struct userop {
    MPI_Op h;                 /* MPI_OP_NULL: free slot */
    MPI_User_function *fn;
    int commute;
    enum enc_mpi_op_lang lang; /* C or Fortran calling convention of fn */
    int holds;                /* pending nonblocking collectives using it */
    bool freed;               /* MPI_Op_free'd while held: freed on the last release */
};

static pthread_mutex_t ops_lock = PTHREAD_MUTEX_INITIALIZER;
static struct userop *ops;
static size_t nops;

enc_status_t enc_mpi_op_lookup(MPI_Op op, enum enc_op *out)
{
    for (size_t i = 0; i < ENC_ARRAY_SIZE(opmap); i++) {
        if (opmap[i].h == op) {
            *out = opmap[i].op;
            return ENC_OK;
        }
    }
    return ENC_ERR_NOT_FOUND;
}

/* Index of a slot for a new op: a free one, else one of a grown array.
 * ENC_ERR_NOMEM when the array cannot grow.  Lock held. */
static enc_status_t op_slot(size_t *slot)
{
    struct userop *grown;

    for (size_t i = 0; i < nops; i++) {
        if (ops[i].h == MPI_OP_NULL) {
            *slot = i;
            return ENC_OK;
        }
    }
    if ((grown = realloc(ops, (nops + 16) * sizeof(*grown))) == NULL)
        return ENC_ERR_NOMEM;
    for (size_t i = nops; i < nops + 16; i++)
        grown[i].h = MPI_OP_NULL;
    ops = grown;
    *slot = nops;
    nops += 16;
    return ENC_OK;
}

int enc_mpi_op_register(MPI_Op h, MPI_User_function *fn, int commute,
                        enum enc_mpi_op_lang lang)
{
    size_t slot;
    enc_status_t rv;

    pthread_mutex_lock(&ops_lock);
    if ((rv = op_slot(&slot)) == ENC_OK)
        ops[slot] = (struct userop){ .h = h, .fn = fn, .commute = commute, .lang = lang };
    pthread_mutex_unlock(&ops_lock);
    if (rv != ENC_OK) {
        enc_real_Op_free(&h);
        return enc_mpi_raise(MPI_ERR_NO_MEM, "MPI_Op_create: out of memory");
    }
    return MPI_SUCCESS;
}

int enc_mpi_Op_create(const void *site, MPI_User_function *function, int commute, MPI_Op *op)
{
    int rv = enc_real_Op_create(function, commute, op);

    if (rv != MPI_SUCCESS)
        return rv;
    if ((rv = enc_mpi_op_register(*op, function, commute, ENC_MPI_OP_C)) != MPI_SUCCESS)
        *op = MPI_OP_NULL;
    return rv;
}

/* The slot of user op h (the lock held), NULL for a predefined one. */
static struct userop *find_user(MPI_Op h)
{
    for (size_t i = 0; h != MPI_OP_NULL && i < nops; i++)
        if (ops[i].h == h && !ops[i].freed)
            return &ops[i];
    return NULL;
}

/* MPI lets the program free an op that a pending nonblocking collective
 * uses: the collective completes with it, and the op goes afterwards. */
int enc_mpi_Op_free(const void *site, MPI_Op *op)
{
    struct userop *u;

    pthread_mutex_lock(&ops_lock);
    if (op != NULL && (u = find_user(*op)) != NULL) {
        if (u->holds > 0) {
            u->freed = true;
            *op = MPI_OP_NULL;
            pthread_mutex_unlock(&ops_lock);
            return MPI_SUCCESS;
        }
        u->h = MPI_OP_NULL;
    }
    pthread_mutex_unlock(&ops_lock);
    return enc_real_Op_free(op);
}

void enc_mpi_op_hold(MPI_Op op)
{
    struct userop *u;

    pthread_mutex_lock(&ops_lock);
    if ((u = find_user(op)) != NULL)
        u->holds++;
    pthread_mutex_unlock(&ops_lock);
}

void enc_mpi_op_release(MPI_Op op)
{
    MPI_Op h = MPI_OP_NULL;

    pthread_mutex_lock(&ops_lock);
    for (size_t i = 0; op != MPI_OP_NULL && i < nops; i++) {
        if (ops[i].h != op || ops[i].holds == 0)
            continue;
        if (--ops[i].holds == 0 && ops[i].freed) {
            h = ops[i].h;
            ops[i] = (struct userop){.h = MPI_OP_NULL};
        }
        break;
    }
    pthread_mutex_unlock(&ops_lock);
    if (h != MPI_OP_NULL)
        enc_real_Op_free(&h);
}

enc_status_t enc_mpi_user_op(MPI_Op op, MPI_User_function **fn, int *commute, uint32_t *index,
                             enum enc_mpi_op_lang *lang)
{
    enc_status_t found = ENC_ERR_NOT_FOUND;

    if (op == MPI_OP_NULL)
        return ENC_ERR_NOT_FOUND;
    pthread_mutex_lock(&ops_lock);
    for (size_t i = 0; i < nops && found != ENC_OK; i++) {
        if (ops[i].h != op)
            continue;
        *fn = ops[i].fn;
        *commute = ops[i].commute;
        *index = (uint32_t)i;
        *lang = ops[i].lang;
        found = ENC_OK;
    }
    pthread_mutex_unlock(&ops_lock);
    return found;
}
