/*
 * mpi_layer.h - private interface of the MPI interposition layer.
 *
 * Entry points (MPI_X and PMPI_X) are generated from mpi.spec into
 * gen/wrappers.c; they call the enc_mpi_<Name>() implementations below for
 * owned functions in encore mode, and enc_real_<Name>() (the real Open MPI)
 * otherwise.
 *
 * Two kinds of return value, never mixed in one variable:
 * - enc_status_t (ENC_OK, ENC_ERR_NOT_FOUND for a failed lookup, other
 *   negative codes): encore's own status, as everywhere in libencore;
 * - int, on the path that ends in an MPI entry point (the enc_mpi_<Name>
 *   implementations and the helpers that check the application's
 *   arguments): MPI_SUCCESS, or an MPI error class that has ALREADY been
 *   surfaced (logged once and the world's error handler applied; see
 *   error.c), so callers just return it to the application.
 */
#ifndef ENC_MPI_MPI_LAYER_H
#define ENC_MPI_MPI_LAYER_H

#include <mpi.h>

#include "core/status.h"
#include "engine/engine.h"
#include "mpi/gen/entries.h"
#include "reduce/reduce.h"

/* ---- mode.c: mode, world state, re-entry guard, real symbols ---- */

/* 1 when ENCORE_TRACKER is set (decided once per process). */
int enc_mpi_encore_mode(void);
/* 1 when a call should be served by libencore: encore mode and not inside a
 * call into the real MPI on this thread. */
int enc_mpi_intercepting(void);
/* Sets the thread's re-entry guard; returns the previous value for leave. */
int enc_mpi_guard_enter(void);
void enc_mpi_guard_leave(int saved);
/* dlsym(RTLD_NEXT, name); a missing symbol ends the process (no MPI). */
void *enc_mpi_resolve(const char *name);
/* 1 between a successful MPI_Init and MPI_Finalize in encore mode. */
int enc_mpi_world_ready(void);
/* Set by lifecycle.c when the world comes up (1) and goes down (0). */
void enc_mpi_world_set_ready(int ready);

/* ---- error.c: surfacing errors ---- */

/* Logs "fn: message" once, then applies the world's error handler:
 * returns mpi_class (MPI_ERRORS_RETURN / user handler) or ends the job. */
int enc_mpi_raise(int mpi_class, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Refusal of fn on MPI_COMM_WORLD (generated stubs). */
int enc_mpi_refuse(const char *fn, enum enc_mpi_why why);
/* An engine call of fn failed with status (the engine already logged it). */
int enc_mpi_engine_error(const char *fn, enc_status_t status);
/* MPI error class for an encore status. */
int enc_mpi_class_of(enc_status_t status);

/* ---- dtype.c: datatypes ---- */

/* Predefined datatype -> encore element type; ENC_ERR_NOT_FOUND when t is
 * not one (or has no encore type of its size). */
enc_status_t enc_mpi_type_lookup(MPI_Datatype t, enum enc_type *out);
/* Printable name ("MPI_DOUBLE", or the name set on a derived type). */
const char *enc_mpi_type_name(MPI_Datatype t, char *buf, size_t len);

/* Memory layout of count elements of a datatype. */
struct enc_mpi_layout {
    size_t size;       /* bytes of data in one element */
    MPI_Aint lb;       /* true lower bound: data starts at buf + lb */
    MPI_Aint extent;   /* stride between elements */
    int contiguous;    /* count elements are size*count bytes at buf + lb */
};
int enc_mpi_type_layout(const char *fn, MPI_Datatype t, int count, struct enc_mpi_layout *l);

/* ---- op.c: predefined and user reduction ops ---- */

/* Predefined op -> enum enc_op; ENC_ERR_NOT_FOUND when op is not one. */
enc_status_t enc_mpi_op_lookup(MPI_Op op, enum enc_op *out);
/* Calling convention of a user function: C (MPI_Datatype *) or Fortran
 * (every argument by reference, datatype a Fortran handle). */
enum enc_mpi_op_lang { ENC_MPI_OP_C, ENC_MPI_OP_FORTRAN };
/* Records a user op the real MPI created (fortran/ registers Fortran ones);
 * on failure frees h and returns the surfaced error. */
int enc_mpi_op_register(MPI_Op h, MPI_User_function *fn, int commute,
                        enum enc_mpi_op_lang lang);
/* Registered user op: function, commute flag, index for the signature,
 * calling convention; ENC_ERR_NOT_FOUND when op is not one. */
enc_status_t enc_mpi_user_op(MPI_Op op, MPI_User_function **fn, int *commute, uint32_t *index,
                             enum enc_mpi_op_lang *lang);

/* ---- mpi_reducer.c: MPI (datatype, op) -> struct enc_reducer ---- */

struct enc_mpi_reducer {
    struct enc_reducer r;
    MPI_Aint lb;       /* user ops get pointers at element start - lb */
    uint32_t sig_dtype;
    uint32_t sig_op;
};
int enc_mpi_reducer_make(const char *fn, MPI_Datatype t, MPI_Op op, int count,
                         struct enc_mpi_reducer *red);

/* ---- buffer.c: any datatype as contiguous bytes ---- */

struct enc_mpi_buf {
    void *data;        /* contiguous bytes for the engine */
    size_t bytes;
    void *tmp;         /* packed copy when the datatype is not contiguous */
};
/* View count elements at buf as bytes; load: pack the current contents
 * (needed for data that is sent). */
int enc_mpi_buf_open(const char *fn, void *buf, int count, MPI_Datatype t, int load,
                     struct enc_mpi_buf *b);
/* store: unpack received bytes back into buf; always releases b. */
int enc_mpi_buf_close(const char *fn, struct enc_mpi_buf *b, void *buf, int count,
                      MPI_Datatype t, int store);
/* Pack / unpack count elements (chunked, so > INT_MAX bytes work). */
int enc_mpi_pack(const char *fn, const void *buf, size_t count, MPI_Datatype t,
                 size_t size, MPI_Aint extent, void *out);
int enc_mpi_unpack(const char *fn, const void *in, size_t count, MPI_Datatype t,
                   size_t size, MPI_Aint extent, void *buf);

/* ---- callsig ---- */

static inline struct enc_callsig enc_mpi_sig(enum enc_coll_kind kind, uint64_t count,
                                             uint32_t dtype, uint32_t op, int root,
                                             const void *site)
{
    struct enc_callsig s = { .kind = (uint8_t)kind, .count = count, .dtype = dtype,
                             .op = op, .root = root, .site = site };
    return s;
}

#endif
