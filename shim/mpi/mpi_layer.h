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

/* ---- comm_table.c: communicators of the encore world ---- */

struct enc_group;
struct enc_mpi_topo;
struct enc_mpi_inter;
struct enc_mpi_comm {
    MPI_Comm h;             /* MPI_COMM_WORLD, or a shell the real MPI made */
    struct enc_group *g;    /* NULL: the world; an intercommunicator's: its union */
    struct enc_mpi_topo *topo; /* process topology (mpi/topo.h), NULL: none */
    struct enc_mpi_inter *inter; /* its two groups (mpi/inter.h), NULL: intra */
};
/* MPI_COMM_WORLD or a communicator derived from it (by handle). */
int enc_mpi_is_encore_comm(MPI_Comm h);
/* An encore intercommunicator (by handle). */
int enc_mpi_is_intercomm(MPI_Comm h);
/* Its entry, NULL when h is not one. */
struct enc_mpi_comm *enc_mpi_comm_get(MPI_Comm h);
enc_status_t enc_mpi_comm_add(MPI_Comm h, struct enc_group *g);
struct enc_group *enc_mpi_comm_remove(MPI_Comm h);
int enc_mpi_comm_size(const struct enc_mpi_comm *c);
/* comm_adopt.c: a fresh shell with no attributes and parent's error
 * handler; registering a shell as the communicator over members (world
 * ranks). */
int enc_mpi_comm_blank_shell(const char *fn, const struct enc_mpi_comm *parent, MPI_Comm *shell);
int enc_mpi_comm_adopt(const char *fn, uint64_t cid, const int *members, int n, int live,
                       MPI_Comm shell, MPI_Comm *newcomm);
int enc_mpi_comm_rank(const struct enc_mpi_comm *c);
/* The ranks a collective's per-rank arrays index: the remote group's on
 * an intercommunicator, else the communicator's. */
int enc_mpi_comm_peers(const struct enc_mpi_comm *c);
/* comm_manage.c: the group of n members of comm from rank first (of its
 * union, on an intercommunicator); how many times this rank made the
 * communicator keyed key before (ids of groups made by their members). */
int enc_mpi_comm_group_of(const char *fn, MPI_Comm comm, int first, int n, MPI_Group *group);
uint64_t enc_mpi_occurrence(uint64_t key);
/* MPI_Comm_split with a digest every rank must pass alike and the name
 * of the operation in signatures (topologies use it). */
int enc_mpi_comm_split_as(const char *fn, const void *site, MPI_Comm comm, int color, int key,
                          uint32_t digest, enum enc_coll_kind what, MPI_Comm *newcomm);

/* ---- group_table.c: groups of the encore world ---- */

struct enc_mpi_group {
    MPI_Group h;            /* a real group handle (or MPI_GROUP_EMPTY) */
    int n;
    int *w;                 /* world rank of each member */
};
/* Its entry (MPI_GROUP_EMPTY included), NULL when h is not one. */
struct enc_mpi_group *enc_mpi_group_get(MPI_Group h);
/* 1 when h is a group of the encore world other than MPI_GROUP_EMPTY. */
int enc_mpi_group_owned(MPI_Group h);
/* h as a group of world ranks: its entry, or for a group the real MPI made
 * (from MPI_COMM_SELF: this process, or no one) a view kept in *v; NULL for
 * MPI_GROUP_NULL. */
struct enc_mpi_group_view {
    struct enc_mpi_group g;
    int me;
};
struct enc_mpi_group *enc_mpi_group_view(MPI_Group h, struct enc_mpi_group_view *v);
/* New group of world ranks (MPI_GROUP_EMPTY, retained, when n is 0). */
int enc_mpi_group_make(const char *fn, const int *world, int n, MPI_Group *out);
/* Frees an encore group; 0 when *h is not one. */
int enc_mpi_group_release(MPI_Group *h);
/* Rank of world rank `world` in g, MPI_UNDEFINED when absent. */
int enc_mpi_group_rank_of(const struct enc_mpi_group *g, int world);
/* group_ops.c: MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL. */
int enc_mpi_group_compare(const struct enc_mpi_group *a, const struct enc_mpi_group *b);

/* ---- icoll.c: the engine's one user at a time ---- */

/* Around the body of a "serial" function (mpi.spec): waits until every
 * nonblocking collective started before on comm has run (MPI_COMM_NULL:
 * none; _all: on every communicator), then holds the engine until leave,
 * handing it to nonblocking collectives of other communicators inside the
 * engine's waits.  Nests. */
void enc_mpi_serial_enter(MPI_Comm comm);
void enc_mpi_serial_enter_all(void);
void enc_mpi_serial_leave(void);

/* ---- request.c: requests of encore operations ---- */

/* A request that is already complete (generalized request of the real MPI). */
int enc_mpi_request_done(MPI_Request *request);

/* ---- p2p_persist.c: MPI_Request_free of a request that is not a
 * nonblocking collective's (point-to-point ones are detached or their
 * persistent shell freed; others go to the real MPI) ---- */
int enc_mpi_p2p_request_free(MPI_Request *request);

/* ---- error.c: surfacing errors ---- */

/* The communicator whose error handler applies to errors raised on this
 * thread: the generated entry points of owned functions set it around the
 * call (enter returns the previous one for leave).  The one exception to
 * "parameters travel with the operation": the argument checks deep in the
 * helpers below raise errors without knowing the communicator. */
MPI_Comm enc_mpi_errcomm_enter(MPI_Comm c);
void enc_mpi_errcomm_leave(MPI_Comm saved);

/* Logs "fn: message" once, then applies the world's error handler:
 * returns mpi_class (MPI_ERRORS_RETURN / user handler) or ends the job. */
int enc_mpi_raise(int mpi_class, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Refusal of fn on an encore communicator (generated stubs). */
int enc_mpi_refuse(const char *fn, enum enc_mpi_why why);
/* Refusal of fn on an encore intercommunicator (generated entry points of
 * owned functions the spec does not mark inter). */
int enc_mpi_refuse_inter(const char *fn);
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
/* A pending nonblocking collective uses op (a no-op for predefined ones):
 * an MPI_Op_free meanwhile takes effect at the last release. */
void enc_mpi_op_hold(MPI_Op op);
void enc_mpi_op_release(MPI_Op op);
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
    /* a user op on a non-contiguous datatype: the engine's elements are
     * packed (enc_mpi_buf_open), and the user function gets them unpacked */
    bool packed;
    MPI_Aint extent, true_lb, true_extent;
};
/* A user op on a non-contiguous datatype makes a packed reducer: its
 * caller hands the engine packed elements (enc_mpi_red_input/output). */
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
/* A reduction's input as the engine reads it: used in place from its true
 * lower bound, or packed into b when red->packed (release with
 * enc_mpi_buf_close, store 0). */
int enc_mpi_red_input(const char *fn, const struct enc_mpi_reducer *red, const void *buf,
                      int count, MPI_Datatype t, struct enc_mpi_buf *b);
/* Writes count reduced elements (src, as the engine holds them) into buf
 * as the datatype lays them out. */
int enc_mpi_red_output(const char *fn, const struct enc_mpi_reducer *red, const void *src,
                       int count, MPI_Datatype t, void *buf);
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
    struct enc_callsig s = { .kind = kind, .count = count, .dtype = dtype,
                             .op = op, .root = root, .site = site };
    return s;
}

/* Same, on communicator c (what: the MPI-level operation, 0 for kind). */
static inline struct enc_callsig enc_mpi_csig(const struct enc_mpi_comm *c,
                                              enum enc_coll_kind kind,
                                              enum enc_coll_kind what, uint64_t count,
                                              uint32_t dtype, uint32_t op, int root,
                                              const void *site)
{
    struct enc_callsig s = enc_mpi_sig(kind, count, dtype, op, root, site);

    s.what = what;
    s.grp = c->g;
    return s;
}

#endif
