/*
 * xfer.h - framed, non-blocking transfers on data links and the one
 * progress loop that drives them (the engine's algorithms and a layer's
 * registered exchange use it).
 *
 * An algorithm describes one step as an array of transfers (send this
 * buffer to rank a, receive that one from rank b) and calls
 * enc_xfer_run(), which moves them all concurrently with poll(2) while also
 * watching the tracker (a death notice interrupts the wait), new
 * connections and the registered layer's connections (engine/layer.h).
 * Every wait is bounded by ENCORE_COLL_TIMEOUT_MS without progress.
 */
#ifndef ENC_ENGINE_XFER_H
#define ENC_ENGINE_XFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "proto/frame.h"

enum enc_xfer_dir { ENC_XFER_SEND, ENC_XFER_RECV };

struct enc_xfer {
    int peer;
    int dir;
    uint8_t *buf;
    size_t len;
    const size_t *limit;    /* SEND: bytes of buf ready so far (pipelining); NULL = len */
    size_t done;            /* payload bytes moved */
    uint8_t hdr[ENC_FRAME_HDR_SIZE];
    size_t hdr_done;
    size_t frame_left;      /* payload bytes left in the current frame */
    bool in_frame;
    int frames;
    size_t max_frame;       /* SEND: largest frame payload; 0 = ENC_DATA_MAX_PAYLOAD */
};

/* What every data frame of the current collective carries. */
struct enc_coll_ctx {
    uint64_t seq;
    uint32_t check;
    const int *peers;       /* communicator rank -> world rank; NULL: world */
};

static inline struct enc_xfer enc_xfer_send(int peer, const void *buf, size_t len)
{
    return (struct enc_xfer){.peer = peer, .dir = ENC_XFER_SEND, .buf = (uint8_t *)buf, .len = len};
}

static inline struct enc_xfer enc_xfer_recv(int peer, void *buf, size_t len)
{
    return (struct enc_xfer){.peer = peer, .dir = ENC_XFER_RECV, .buf = buf, .len = len};
}

/* Drives all n transfers to completion. */
enc_status_t enc_xfer_run(struct enc_xfer *x, int n, const struct enc_coll_ctx *c);

#endif
