/*
 * bcast_tree.c - pipelined broadcast down the locality tree.
 *
 * The tree is rooted at the broadcast root; each rank forwards a segment to
 * its children as soon as it has arrived from its parent, so for large
 * messages the time approaches one message transfer plus depth segments.
 */
#include "enc.h"

#include "engine/coll.h"
#include "engine/state.h"
#include "topo/topo.h"

enc_status_t enc_bcast_tree(struct enc_coll *co)
{
    struct enc_xfer x[ENC_TREE_MAX_CHILDREN + 1];
    struct enc_tree_node t;
    const size_t *ready = NULL;
    int n = 0;

    enc_topo_tree(co->locality, co->n, co->root, co->me, &t);
    if (t.parent >= 0) {
        x[n] = enc_xfer_recv(t.parent, co->recvbuf, co->bytes);
        ready = &x[n].done;
        n++;
    }
    for (int i = 0; i < t.nchildren; i++) {
        x[n] = enc_xfer_send(t.children[i], co->recvbuf, co->bytes);
        x[n].limit = ready;
        x[n].max_frame = enc_eng.bcast_segment; /* forward segment by segment */
        n++;
    }
    return enc_xfer_run(x, n, &co->ctx);
}
