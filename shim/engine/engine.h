/*
 * engine.h - encore's collective engine on the encore world (MPI-free).
 *
 * The MPI layer (shim/mpi) converts MPI arguments into these calls; the
 * engine moves bytes over authenticated TCP links and reduces with a
 * struct enc_reducer.  Recovery (shim/recovery) is a layer above it that
 * registers its ops (engine/layer.h) before enc_engine_init().
 *
 * All functions return ENC_OK or a negative status.  A failure the job
 * cannot survive is reported to the tracker by the engine itself (the job
 * then ends with one clear line); the caller only maps the status to an MPI
 * error class.
 */
#ifndef ENC_ENGINE_ENGINE_H
#define ENC_ENGINE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "reduce/reduce.h"

enum enc_coll_kind {
    ENC_COLL_ALLREDUCE = 1,
    ENC_COLL_REDUCE,
    ENC_COLL_BCAST,
    ENC_COLL_BARRIER,
    ENC_COLL_ALLGATHERV,
    ENC_COLL_FINALIZE,
    ENC_COLL_CHECKPOINT,
    /* MPI-level operations built on the ones above (enc_callsig.what):
     * they name the call in logs and replay checks */
    ENC_COLL_GATHER,
    ENC_COLL_SCATTER,
    ENC_COLL_ALLTOALL,
    ENC_COLL_REDUCE_SCATTER,
    ENC_COLL_SCAN,
    ENC_COLL_EXSCAN,
    ENC_COLL_COMM_DUP,
    ENC_COLL_COMM_SPLIT,
    ENC_COLL_COMM_CREATE,
    ENC_COLL_COMM_SETUP, /* a new communicator's channels (engine/group_chan.c) */
    ENC_COLL_COMM_TOPO,  /* a process topology's communicator */
    ENC_COLL_NEIGHBOR,   /* a neighbour collective */
    ENC_COLL_INTERCOMM,  /* an intercommunicator's creation or merge */
    ENC_COLL_KIND_COUNT,
};

struct enc_group; /* engine/group.h: a communicator's members */

/* Ids of datatypes / ops in a signature: enc_type / enc_op values for
 * predefined ones, these bases for others. */
#define ENC_SIG_DTYPE_DERIVED 0x1000u /* + size in bytes of one element */
#define ENC_SIG_DTYPE_BYTES 0x0fffu   /* opaque bytes (bcast, allgather) */
#define ENC_SIG_OP_USER 0x100u        /* + user op index */
#define ENC_SIG_OP_NONE 0xffffu

/*
 * Caller signature of one collective: identical on every rank for the same
 * collective (except the call site, which is per module image), checked
 * across ranks (digest in every data frame) and against the result log on
 * replay.
 */
struct enc_callsig {
    enum enc_coll_kind kind;
    uint64_t count;         /* elements; total bytes for allgatherv */
    uint32_t dtype;         /* enum enc_type or ENC_SIG_DTYPE_* */
    uint32_t op;            /* enum enc_op, ENC_SIG_OP_USER + n, or ENC_SIG_OP_NONE */
    int32_t root;           /* -1 when the collective has no root */
    const void *site;       /* return address of the MPI entry point's caller */
    enum enc_coll_kind what; /* MPI-level operation when not kind (0: kind) */
    const struct enc_group *grp; /* communicator derived from the world; NULL: world */
};

/* The MPI-level operation a signature stands for: what, else kind. */
static inline int enc_coll_what(const struct enc_callsig *sig)
{
    return sig->what ? sig->what : sig->kind;
}

/* How elements are combined. */
struct enc_reducer {
    size_t elem_size;       /* bytes per element */
    bool commutative;       /* false: combine strictly in rank order */
    /* inout[i] = in[i] op inout[i] for n elements; in is the lower rank's. */
    void (*apply)(const struct enc_reducer *r, const void *in, void *inout, size_t n);
    enc_kernel_fn kernel;   /* predefined op: used by the default apply */
    void *user_fn;          /* user op (MPI_User_function *), used by the MPI layer */
    uintptr_t user_dtype;   /* MPI_Datatype for user_fn, opaque here */
};

/* Default apply for predefined ops: calls r->kernel. */
void enc_reducer_apply_kernel(const struct enc_reducer *r, const void *in, void *inout,
                              size_t n);

/* Joins the job described by the environment (ENCORE_TRACKER,
 * ENCORE_RANK, ENCORE_SIZE, ENCORE_INCARNATION, ENCORE_SECRET[_FILE]). */
enc_status_t enc_engine_init(void);
/* True once enc_engine_init succeeded and until finalize. */
bool enc_engine_active(void);
int enc_engine_rank(void);
int enc_engine_size(void);

/* sendbuf NULL means in place (data already in recvbuf). */
enc_status_t enc_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                           const struct enc_reducer *r, const struct enc_callsig *sig);
/* recvbuf is written on root only (it may be NULL elsewhere). */
enc_status_t enc_reduce(const void *sendbuf, void *recvbuf, size_t count,
                        const struct enc_reducer *r, int root, const struct enc_callsig *sig);
enc_status_t enc_bcast(void *buf, size_t bytes, int root, const struct enc_callsig *sig);
enc_status_t enc_barrier(const struct enc_callsig *sig);
/* Rank i's block of recvbytes[i] bytes lands at recvbuf + displs[i].
 * sendbuf NULL means in place (own block already at displs[rank]). */
enc_status_t enc_allgatherv(const void *sendbuf, size_t sendbytes, void *recvbuf,
                            const size_t *recvbytes, const size_t *displs,
                            const struct enc_callsig *sig);

/* The allreduce of count elements (sig->kind ENC_COLL_ALLREDUCE), logged
 * whole so any survivor can answer any rank, of which this rank gets
 * elements [lo, lo + len) in recvbuf (a reduce_scatter); sendbuf not
 * NULL, and may be recvbuf. */
enc_status_t enc_reduce_scatter(const void *sendbuf, void *recvbuf, size_t count, size_t lo,
                                size_t len, const struct enc_reducer *r,
                                const struct enc_callsig *sig);
/* sendbuf: this rank's row, n blocks of `block` bytes (block j for rank
 * j); recvbuf: its column (block j from rank j).  sendbuf may be recvbuf
 * (in place).  Runs, and is logged, as the allgatherv of the rows
 * (sig->kind ENC_COLL_ALLGATHERV, count n * n * block bytes). */
enc_status_t enc_alltoall(const void *sendbuf, void *recvbuf, size_t block,
                          const struct enc_callsig *sig);

/* How collectives of this process that run on different threads take
 * turns in the engine (the MPI layer's nonblocking collectives): the
 * engine has one user at a time, and its waits call pass() when wanted()
 * says another collective waits for the engine and nothing arrived for
 * this one.  pass() returns on this thread's next turn.  While shared()
 * says another thread may ask for the engine at any moment, the waits
 * sleep at most a millisecond at a time, so they see it ask. */
struct enc_turns {
    bool (*wanted)(void);
    bool (*shared)(void);
    void (*pass)(void);
    int (*waiting)(void); /* how many wait for the engine (NULL: unknown) */
};
void enc_engine_set_turns(const struct enc_turns *t);
/* shared() has just become true: wakes a wait that went to sleep before,
 * for longer than a millisecond, so that it sees other threads ask. */
void enc_engine_turn_wake(void);
/* A thread that ran collectives ends: frees its scratch buffers. */
void enc_engine_thread_end(void);

/* Final barrier, report to the tracker, close everything. */
enc_status_t enc_engine_finalize(void);
/* Ends the whole job (MPI_Abort, fatal errors): tells the tracker, exits
 * this process with code.  Never returns. */
void enc_engine_abort(int code, const char *reason) __attribute__((noreturn));

#endif
