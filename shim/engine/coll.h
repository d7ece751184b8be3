/*
 * coll.h - one collective call as the dispatcher, the algorithms and the
 * layer above the engine (engine/layer.h) see it.
 */
#ifndef ENC_ENGINE_COLL_H
#define ENC_ENGINE_COLL_H

#include <stdbool.h>

#include "core/status.h"
#include "engine/chan.h"
#include "engine/engine.h"
#include "engine/xfer.h"

struct enc_coll {
    const struct enc_callsig *sig;
    struct enc_coll_ctx ctx;
    /* the communicator, in its own ranks (0..n-1): the algorithms' view */
    int n, me;
    const int *locality;        /* ranks in locality order */
    const int *order;           /* ranks in rank order (identity) */
    struct enc_chan *chan;      /* the communicator's shared-memory channel */
    const struct enc_hier *hier; /* its hosts, when its algorithm is hierarchical */
    bool replayed;              /* out: answered from the log */
    uint32_t epoch;             /* epoch of the current attempt */
    const void *sendbuf;        /* NULL: in place */
    void *recvbuf;
    size_t count;               /* elements (allreduce, reduce) */
    size_t bytes;               /* bytes of one rank's data / of the result */
    const struct enc_reducer *r;
    int root;
    const size_t *recvbytes;    /* allgatherv */
    const size_t *displs;
    /* An alltoall: the allgatherv of every rank's row of n blocks of
     * `block` bytes (sendbuf: this rank's; recvbytes[j] = n * block,
     * displs packed), logged whole so any survivor can answer any rank;
     * this rank's column (block j from rank j) goes to column + j * block.
     * recvbuf is then NULL when the algorithm reads only the column, else
     * scratch for every row (coll_live.c).  NULL: a plain allgatherv. */
    void *column;
    size_t block;
    /* Only part of the result is wanted (a reduce_scatter): the caller
     * reads it itself (enc_coll_result_read), so a result kept in the
     * host's result buffer is not copied to recvbuf. */
    bool part;
    /* The full result, identical on every rank, once the algorithm ran:
     * where it lives and how it maps to the caller's buffer. */
    void *result;
    bool layer;                 /* run by the layer's exchange op */
    /* out: the result (packed, as enc_coll_result_pack) also stays in the
     * host's shared-memory result buffer at position resbuf_at, where the
     * layer may keep it (engine/layer.h) */
    bool in_resbuf;
    uint64_t resbuf_at;
};

/* Packs an allgatherv result block after block / spreads it back (an
 * alltoall's: its column out of the rows, which then are co->result). */
void enc_coll_result_pack(const struct enc_coll *co, void *dst);
void enc_coll_result_unpack(struct enc_coll *co, const void *src);
/* An alltoall's column out of its packed rows. */
void enc_coll_column_take(const struct enc_coll *co, const void *rows);

/* Algorithms: one per file, one signature.  They run in the current epoch
 * and return ENC_OK or the first failure. */
typedef enc_status_t (*enc_algo_fn)(struct enc_coll *co);

enc_status_t enc_allreduce_tree(struct enc_coll *co);  /* allreduce_tree.c */
enc_status_t enc_allreduce_ring(struct enc_coll *co);  /* allreduce_ring.c */
enc_status_t enc_bcast_tree(struct enc_coll *co);      /* bcast_tree.c */
enc_status_t enc_bcast_sync(struct enc_coll *co);      /* bcast_sync.c */
enc_status_t enc_allgatherv_ring(struct enc_coll *co); /* allgatherv_ring.c */

/* "allreduce" etc. */
const char *enc_coll_kind_name(int kind);

#endif
