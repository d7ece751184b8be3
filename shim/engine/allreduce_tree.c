/*
 * allreduce_tree.c - reduce up a binomial tree, broadcast the result down.
 *
 * For small messages (latency bound): 2 * depth steps, each edge carries
 * the whole message once in each direction.  Commutative ops use the
 * locality tree (locality order, mostly intra-host edges); non-commutative ops
 * the tree over rank order rooted at rank 0, where each child subtree is the
 * next contiguous run of ranks, so combining self, then children in order
 * reduces in rank order as MPI requires.
 */
#include "enc.h"

#include <string.h>

#include "engine/coll.h"
#include "engine/scratch.h"
#include "engine/state.h"
#include "topo/topo.h"

static enc_status_t gather_children(struct enc_coll *co, const struct enc_tree_node *t, uint8_t *tmp)
{
    struct enc_xfer x[ENC_TREE_MAX_CHILDREN];

    for (int i = 0; i < t->nchildren; i++)
        x[i] = enc_xfer_recv(t->children[i], tmp + (size_t)i * co->bytes, co->bytes);
    return enc_xfer_run(x, t->nchildren, &co->ctx);
}

/* acc = acc op child_i for each child in position order. */
static void combine(struct enc_coll *co, const struct enc_tree_node *t, uint8_t *tmp)
{
    const struct enc_reducer *r = co->r;

    if (co->bytes == 0)
        return;
    for (int i = 0; i < t->nchildren; i++) {
        uint8_t *child = tmp + (size_t)i * co->bytes;

        if (r->commutative) {
            r->apply(r, child, co->recvbuf, co->count);
        } else {
            r->apply(r, co->recvbuf, child, co->count); /* child = acc op child */
            memcpy(co->recvbuf, child, co->bytes);
        }
    }
}

static enc_status_t up_and_down(struct enc_coll *co, const struct enc_tree_node *t)
{
    struct enc_xfer x[ENC_TREE_MAX_CHILDREN];
    enc_status_t rv;
    int n = 0;

    if (t->parent >= 0) {
        x[0] = enc_xfer_send(t->parent, co->recvbuf, co->bytes);
        x[1] = enc_xfer_recv(t->parent, co->recvbuf, co->bytes);
        /* the parent answers only after our send completed: run in order */
        if ((rv = enc_xfer_run(&x[0], 1, &co->ctx)) != ENC_OK ||
            (rv = enc_xfer_run(&x[1], 1, &co->ctx)) != ENC_OK)
            return rv;
    }
    for (int i = 0; i < t->nchildren; i++)
        x[n++] = enc_xfer_send(t->children[i], co->recvbuf, co->bytes);
    return enc_xfer_run(x, n, &co->ctx);
}

enc_status_t enc_allreduce_tree(struct enc_coll *co)
{
    const int *order = co->r && !co->r->commutative ? co->order : co->locality;
    struct enc_tree_node t;
    uint8_t *tmp;
    enc_status_t rv;

    enc_topo_tree(order, co->n, order[0], co->me, &t);
    tmp = enc_scratch_get(ENC_SCRATCH_ALGO, (size_t)t.nchildren * co->bytes);
    if (tmp == NULL)
        return ENC_ERR_NOMEM;
    if ((rv = gather_children(co, &t, tmp)) != ENC_OK)
        return rv;
    combine(co, &t, tmp);
    return up_and_down(co, &t);
}
