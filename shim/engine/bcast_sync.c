/*
 * bcast_sync.c - broadcast on a group: an empty message up the tree, then
 * the data down.
 *
 * 2 * depth steps.  The extra up phase means no member (the root included)
 * finishes before every member entered the broadcast in this epoch, the
 * property group recovery relies on (group_coll.c): then a result in any
 * member's log is one every member can take.
 */
#include "enc.h"

#include "engine/coll.h"
#include "engine/state.h"

static int up(struct enc_coll *co, const struct enc_tree_node *t)
{
    struct enc_xfer x[ENC_TREE_MAX_CHILDREN];
    static uint8_t none;
    int rv;

    for (int i = 0; i < t->nchildren; i++)
        x[i] = enc_xfer_recv(t->children[i], &none, 0);
    if ((rv = enc_xfer_run(x, t->nchildren, &co->ctx)) != ENC_OK || t->parent < 0)
        return rv;
    x[0] = enc_xfer_send(t->parent, &none, 0);
    return enc_xfer_run(x, 1, &co->ctx);
}

enc_status_t enc_bcast_sync(struct enc_coll *co)
{
    struct enc_xfer x[ENC_TREE_MAX_CHILDREN];
    struct enc_tree_node t;
    int rv;

    enc_topo_tree(co->locality, co->n, co->root, co->me, &t);
    if ((rv = up(co, &t)) != ENC_OK)
        return rv;
    if (t.parent >= 0) {
        x[0] = enc_xfer_recv(t.parent, co->recvbuf, co->bytes);
        if ((rv = enc_xfer_run(x, 1, &co->ctx)) != ENC_OK)
            return rv;
    }
    for (int i = 0; i < t.nchildren; i++)
        x[i] = enc_xfer_send(t.children[i], co->recvbuf, co->bytes);
    return enc_xfer_run(x, t.nchildren, &co->ctx);
}
