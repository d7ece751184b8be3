/*
 * allreduce_ring.c - ring reduce-scatter then ring allgather.
 *
 * For large messages (bandwidth bound), commutative ops only: 2 (n - 1)
 * steps, each rank sends and receives 2 (n - 1) / n of the message in all,
 * independent of n.  The message is cut into n element-aligned blocks;
 * after the reduce-scatter the rank at ring position p owns the reduced
 * block p + 1, which the allgather then passes around.
 */
#include "enc.h"

#include "engine/coll.h"
#include "engine/scratch.h"
#include "engine/state.h"
#include "topo/topo.h"

struct ring {
    int n, pos, next, prev;
    size_t esz;
};

/* First element of block b (blocks differ in size by at most one). */
static size_t block_off(const struct enc_coll *co, const struct ring *g, int b)
{
    size_t q = co->count / (size_t)g->n, rem = co->count % (size_t)g->n;

    return (size_t)b * q + ENC_MIN((size_t)b, rem);
}

static size_t block_len(const struct enc_coll *co, const struct ring *g, int b)
{
    return block_off(co, g, b + 1) - block_off(co, g, b);
}

static int mod(int a, int n) { return ((a % n) + n) % n; }

static enc_status_t exchange(struct enc_coll *co, const struct ring *g, int sblk, int rblk, void *rbuf)
{
    uint8_t *base = co->recvbuf;
    struct enc_xfer x[2] = {
        enc_xfer_send(g->next, base + block_off(co, g, sblk) * g->esz,
                      block_len(co, g, sblk) * g->esz),
        enc_xfer_recv(g->prev, rbuf, block_len(co, g, rblk) * g->esz),
    };

    return enc_xfer_run(x, 2, &co->ctx);
}

enc_status_t enc_allreduce_ring(struct enc_coll *co)
{
    struct ring g = {.n = co->n, .esz = co->r->elem_size};
    uint8_t *base = co->recvbuf;
    void *tmp;
    enc_status_t rv;

    g.pos = enc_topo_pos(co->locality, g.n, co->me);
    g.next = co->locality[mod(g.pos + 1, g.n)];
    g.prev = co->locality[mod(g.pos - 1, g.n)];
    if ((tmp = enc_scratch_get(ENC_SCRATCH_ALGO, block_len(co, &g, 0) * g.esz)) == NULL)
        return ENC_ERR_NOMEM;
    for (int k = 0; k < g.n - 1; k++) {
        int rblk = mod(g.pos - k - 1, g.n);

        if ((rv = exchange(co, &g, mod(g.pos - k, g.n), rblk, tmp)) != ENC_OK)
            return rv;
        co->r->apply(co->r, tmp, base + block_off(co, &g, rblk) * g.esz,
                     block_len(co, &g, rblk));
    }
    for (int k = 0; k < g.n - 1; k++) {
        int rblk = mod(g.pos - k, g.n);

        if ((rv = exchange(co, &g, mod(g.pos + 1 - k, g.n), rblk,
                           base + block_off(co, &g, rblk) * g.esz)) != ENC_OK)
            return rv;
    }
    return ENC_OK;
}
