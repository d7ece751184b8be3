/*
 * allgatherv_ring.c - ring allgather of per-rank blocks of any size.
 *
 * n - 1 steps; at step k the rank at ring position p forwards the block of
 * the rank at position p - k and receives the one of position p - k - 1,
 * straight into its place in the caller's buffer.
 */
#include "enc.h"

#include "engine/coll.h"
#include "engine/state.h"
#include "topo/topo.h"

static int mod(int a, int n) { return ((a % n) + n) % n; }

enc_status_t enc_allgatherv_ring(struct enc_coll *co)
{
    int n = co->n;
    int pos = enc_topo_pos(co->locality, n, co->me);
    int next = co->locality[mod(pos + 1, n)], prev = co->locality[mod(pos - 1, n)];
    uint8_t *base = co->recvbuf;
    enc_status_t rv;

    for (int k = 0; k < n - 1; k++) {
        int s = co->locality[mod(pos - k, n)], r = co->locality[mod(pos - k - 1, n)];
        struct enc_xfer x[2] = {
            enc_xfer_send(next, base + co->displs[s], co->recvbytes[s]),
            enc_xfer_recv(prev, base + co->displs[r], co->recvbytes[r]),
        };

        if ((rv = enc_xfer_run(x, 2, &co->ctx)) != ENC_OK)
            return rv;
    }
    return ENC_OK;
}
