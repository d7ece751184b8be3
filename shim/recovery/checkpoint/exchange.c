/*
 * exchange.c - the collective part of encore_checkpoint() (exchange.h).
 *
 * Phase one: each rank sends its local state to both locality neighbours
 * (length first, then bytes) and keeps theirs as replicas; then a barrier,
 * which sums the point-to-point counts of every rank (channels.h) so that
 * every rank decides alike whether a message is in flight.
 * Only when the barrier completed does the caller commit (phase two) and
 * truncate the log, so a rank never drops a result that a rank still in
 * phase one could need.
 */
#include "enc.h"

#include <endian.h>
#include <stdlib.h>

#include "engine/coll.h"
#include "engine/layer.h"
#include "engine/xfer.h"
#include "reduce/reduce.h"
#include "recovery/checkpoint/ckpt.h"
#include "recovery/channels.h"
#include "recovery/checkpoint/exchange.h"
#include "recovery/ops.h"

/* Local states are bounded only by memory; refuse absurd lengths from the
 * wire rather than trying to allocate them. */
#define CKPT_LOCAL_MAX (1ull << 40)

static enc_status_t swap_with(struct enc_coll *co, struct enc_ckpt *ck, int to, int from,
                              int slot)
{
    uint64_t mine = htobe64(ck->llen), theirs;
    struct enc_xfer x[2] = {enc_xfer_send(to, &mine, 8), enc_xfer_recv(from, &theirs, 8)};
    enc_status_t rv;

    if ((rv = enc_xfer_run(x, 2, &co->ctx)) != ENC_OK)
        return rv;
    theirs = be64toh(theirs);
    if (theirs > CKPT_LOCAL_MAX)
        return ENC_ERR_PROTO;
    free(ck->rep[slot]);
    if ((ck->rep[slot] = malloc(theirs ? theirs : 1)) == NULL)
        return ENC_ERR_NOMEM;
    ck->rep_len[slot] = theirs;
    ck->rep_rank[slot] = from;
    x[0] = enc_xfer_send(to, ck->local, ck->llen);
    x[1] = enc_xfer_recv(from, ck->rep[slot], theirs);
    return enc_xfer_run(x, 2, &co->ctx);
}

enc_status_t enc_ckpt_exchange(void *arg, struct enc_coll *co)
{
    struct enc_ckpt *ck = ((struct enc_recovery *)arg)->taking;
    struct enc_coll barrier = *co;
    struct enc_reducer sum = {.elem_size = sizeof(uint64_t), .commutative = true,
                              .apply = enc_reducer_apply_kernel};
    int next, prev;
    enc_status_t rv;

    if (ck == NULL)
        return ENC_ERR_STATE;
    enc_engine_locality_neighbours(&next, &prev);
    ck->replicas_in = false;
    /* one direction at a time: with two ranks next == prev, and a link
     * carries one message per direction at a time */
    if ((rv = swap_with(co, ck, next, prev, 0)) != ENC_OK ||
        (rv = swap_with(co, ck, prev, next, 1)) != ENC_OK)
        return rv;
    ck->replicas_in = true;
    enc_channels_counts(ck->p2p);
    sum.kernel = enc_kernel_lookup(ENC_T_U64, ENC_OP_SUM);
    barrier.sendbuf = NULL;
    barrier.recvbuf = ck->p2p;
    barrier.bytes = sizeof(ck->p2p);
    barrier.count = ENC_CHANNEL_COUNTS;
    barrier.r = &sum;
    return enc_allreduce_tree(&barrier);
}
