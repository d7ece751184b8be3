#include "enc.h"

#include <pthread.h>
#include <stdlib.h>

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/mpi_layer.h"
#include "reduce/reduce.h"

/*
 * Reduction ops: predefined ones map onto enum enc_op; user ops are
 * recorded when MPI_Op_create is called (the real call still creates the
 * handle, so the op keeps working on MPI_COMM_SELF) because an MPI_Op handle
 * does not portably give its function back.
 */

static const struct { MPI_Op h; enum enc_op op; } enc_mpi_opmap[] = {
    { MPI_MAX, ENC_OP_MAX }, { MPI_MIN, ENC_OP_MIN }, { MPI_SUM, ENC_OP_SUM },
    { MPI_PROD, ENC_OP_PROD }, { MPI_LAND, ENC_OP_LAND }, { MPI_BAND, ENC_OP_BAND },
    { MPI_LOR, ENC_OP_LOR }, { MPI_BOR, ENC_OP_BOR }, { MPI_LXOR, ENC_OP_LXOR },
    { MPI_BXOR, ENC_OP_BXOR }, { MPI_MAXLOC, ENC_OP_MAXLOC },
    { MPI_MINLOC, ENC_OP_MINLOC }, { MPI_REPLACE, ENC_OP_REPLACE },
};

struct enc_mpi_userop {
    MPI_Op h;                 /* MPI_OP_NULL: free slot */
    MPI_User_function *fn;
    int commute;
    enum enc_mpi_op_lang lang; /* C or Fortran calling convention of fn */
};

static pthread_mutex_t enc_mpi_ops_lock = PTHREAD_MUTEX_INITIALIZER;
static struct enc_mpi_userop *enc_mpi_ops;
static size_t enc_mpi_nops;

int enc_mpi_op_lookup(MPI_Op op, enum enc_op *out)
{
    for (size_t i = 0; i < ENC_ARRAY_SIZE(enc_mpi_opmap); i++) {
        if (enc_mpi_opmap[i].h == op) {
            *out = enc_mpi_opmap[i].op;
            return 0;
        }
    }
    return -1;
}

/* Slot for a new op: a free one, else a grown array.  Lock held. */
static ssize_t enc_mpi_op_slot(void)
{
    struct enc_mpi_userop *grown;

    for (size_t i = 0; i < enc_mpi_nops; i++)
        if (enc_mpi_ops[i].h == MPI_OP_NULL)
            return (ssize_t)i;
    grown = realloc(enc_mpi_ops, (enc_mpi_nops + 16) * sizeof(*grown));
    if (grown == NULL)
        return -1;
    for (size_t i = enc_mpi_nops; i < enc_mpi_nops + 16; i++)
        grown[i].h = MPI_OP_NULL;
    enc_mpi_ops = grown;
    enc_mpi_nops += 16;
    return (ssize_t)(enc_mpi_nops - 16);
}

int enc_mpi_op_register(MPI_Op h, MPI_User_function *fn, int commute,
                        enum enc_mpi_op_lang lang)
{
    ssize_t slot;

    pthread_mutex_lock(&enc_mpi_ops_lock);
    slot = enc_mpi_op_slot();
    if (slot >= 0)
        enc_mpi_ops[slot] = (struct enc_mpi_userop){ h, fn, commute, lang };
    pthread_mutex_unlock(&enc_mpi_ops_lock);
    if (slot < 0) {
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

int enc_mpi_Op_free(const void *site, MPI_Op *op)
{
    pthread_mutex_lock(&enc_mpi_ops_lock);
    for (size_t i = 0; op != NULL && i < enc_mpi_nops; i++)
        if (enc_mpi_ops[i].h == *op)
            enc_mpi_ops[i].h = MPI_OP_NULL;
    pthread_mutex_unlock(&enc_mpi_ops_lock);
    return enc_real_Op_free(op);
}

int enc_mpi_user_op(MPI_Op op, MPI_User_function **fn, int *commute, uint32_t *index,
                    enum enc_mpi_op_lang *lang)
{
    int found = -1;

    if (op == MPI_OP_NULL)
        return -1;
    pthread_mutex_lock(&enc_mpi_ops_lock);
    for (size_t i = 0; i < enc_mpi_nops && found < 0; i++) {
        if (enc_mpi_ops[i].h != op)
            continue;
        *fn = enc_mpi_ops[i].fn;
        *commute = enc_mpi_ops[i].commute;
        *index = (uint32_t)i;
        *lang = enc_mpi_ops[i].lang;
        found = 0;
    }
    pthread_mutex_unlock(&enc_mpi_ops_lock);
    return found;
}
