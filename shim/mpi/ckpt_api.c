/*
 * ckpt_api.c - the entry points of the checkpoint API (include/encore.h):
 * the MPI layer's rules around recovery's checkpoint (recovery/checkpoint/api.c).
 *
 * A checkpoint is a collective, so it takes the engine like any serial call
 * (icoll.c).  It is refused while the application holds requests of
 * nonblocking collectives it has not completed: a rank restarted from the
 * checkpoint would resume without those requests, and results that land
 * after the state was taken would be missing from it.  The refusal counts
 * requests the application has not completed, so every rank of an SPMD
 * program refuses the same call, whatever the progress of its collectives.
 *
 * Point-to-point: a rank that used messages keeps its channel positions
 * and determinant clock with its local state (p2p/checkpoint.c), appended
 * after the program's bytes with a trailer, and a rank restarted from the
 * checkpoint sets them again when it loads it, before its first message.
 * Recovery refuses the checkpoint on every rank while a message is in
 * flight across it.  Loading it is refused (the job ends with one line)
 * in a restarted rank that already sent or received messages: their
 * numbers would not be the checkpoint's.
 */
#include "enc.h"

#include <encore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "mpi/coll/icoll.h"
#include "mpi/mpi_layer.h"
#include "p2p/p2p.h"
#include "proto/wire.h"
#include "recovery/recovery.h"

static enc_status_t refuse_pending(const char *fn)
{
    int n = enc_mpi_icoll_outstanding();

    if (n == 0)
        return ENC_OK;
    ENC_ERROR("ckpt", "%s: refused: %d nonblocking collective%s started and not completed "
              "(complete them with MPI_Wait or MPI_Test first)", fn, n, n == 1 ? "" : "s");
    return ENC_ERR_STATE;
}

/* The trailer after the positions: u64 the program's local bytes, u64 the
 * positions' bytes, u64 this magic ("ENCKP2P1"), big-endian. */
#define TRAILER_BYTES 24
#define TRAILER_MAGIC 0x454e434b50325031ull

/* local, then the channel positions and the trailer, in *out (malloc'd). */
static enc_status_t with_positions(const void *local, size_t len, void **out, size_t *outlen)
{
    void *pos;
    size_t plen;
    uint8_t *buf;
    struct enc_wbuf w;
    enc_status_t rv;

    if ((rv = enc_p2p_ckpt_save(&pos, &plen)) != ENC_OK)
        return rv;
    if ((buf = malloc(len + plen + TRAILER_BYTES)) == NULL) {
        free(pos);
        return ENC_ERR_NOMEM;
    }
    if (len > 0)
        memcpy(buf, local, len);
    if (plen > 0)
        memcpy(buf + len, pos, plen);
    free(pos);
    enc_w_init(&w, buf + len + plen, TRAILER_BYTES);
    enc_w_u64(&w, len);
    enc_w_u64(&w, plen);
    enc_w_u64(&w, TRAILER_MAGIC);
    *out = buf;
    *outlen = len + plen + TRAILER_BYTES;
    return ENC_OK;
}

/* Splits what with_positions made: false when buf has no trailer (a
 * checkpoint of a rank that sent no message). */
static bool split_positions(const uint8_t *buf, size_t len, size_t *local, const uint8_t **pos,
                            size_t *plen)
{
    struct enc_rbuf r;
    uint64_t l, p, magic;

    if (len < TRAILER_BYTES)
        return false;
    enc_r_init(&r, buf + len - TRAILER_BYTES, TRAILER_BYTES);
    enc_r_u64(&r, &l);
    enc_r_u64(&r, &p);
    enc_r_u64(&r, &magic);
    if (r.err || magic != TRAILER_MAGIC || l > len || p > len - l ||
        l + p != len - TRAILER_BYTES)
        return false;
    *local = l;
    *pos = buf + l;
    *plen = p;
    return true;
}

int encore_checkpoint(const void *global, size_t global_len, const void *local, size_t local_len)
{
    void *both = NULL;
    size_t both_len = 0;
    enc_status_t rv;

    if ((rv = refuse_pending("encore_checkpoint")) != ENC_OK)
        return rv;
    if ((local_len && !local) || (global_len && !global))
        return ENC_ERR_INVAL;
    if (enc_p2p_announced() && (rv = with_positions(local, local_len, &both, &both_len)) != ENC_OK)
        return rv;
    enc_mpi_serial_enter_all();
    rv = both != NULL ? enc_recovery_checkpoint(global, global_len, both, both_len)
                      : enc_recovery_checkpoint(global, global_len, local, local_len);
    enc_mpi_serial_leave();
    free(both);
    return rv;
}

/* A restarted rank that loaded checkpoint version now: it goes on from
 * the checkpoint's channel positions. */
static void resume_channels(const uint8_t *pos, size_t plen, int version)
{
    char msg[300];
    enc_status_t rv;

    if (enc_p2p_announced()) {
        snprintf(msg, sizeof(msg), "encore_load_checkpoint: rank %d sent or received "
                 "point-to-point messages before loading checkpoint %d, which holds its "
                 "message positions: load the checkpoint before the first message",
                 enc_engine_rank(), version);
        enc_engine_abort(1, msg);
    }
    if ((rv = enc_p2p_ckpt_load(pos, plen)) != ENC_OK) {
        snprintf(msg, sizeof(msg), "encore_load_checkpoint: rank %d cannot set the message "
                 "positions of checkpoint %d: %s", enc_engine_rank(), version,
                 encore_strerror(rv));
        enc_engine_abort(1, msg);
    }
}

int encore_load_checkpoint(void *global, size_t *global_len, void *local, size_t *local_len)
{
    bool fresh = encore_version() == 0;
    const uint8_t *pos;
    size_t both_len = 0, mine, plen;
    uint8_t *both;
    int version;
    enc_status_t rv;

    if ((rv = refuse_pending("encore_load_checkpoint")) != ENC_OK)
        return rv;
    enc_mpi_serial_enter_all();
    version = enc_recovery_load_checkpoint(global, global_len, NULL, &both_len);
    if (version <= 0 || (both = malloc(both_len ? both_len : 1)) == NULL) {
        enc_mpi_serial_leave();
        return version < 0 ? version : version == 0 ? 0 : ENC_ERR_NOMEM;
    }
    (void)enc_recovery_load_checkpoint(NULL, NULL, both, &both_len);
    if (!split_positions(both, both_len, &mine, &pos, &plen)) {
        mine = both_len;
        plen = 0;
    } else if (fresh) {
        resume_channels(pos, plen, version);
    }
    if (local_len != NULL) {
        if (local != NULL && mine > 0)
            memcpy(local, both, ENC_MIN(*local_len, mine));
        *local_len = mine;
    }
    enc_mpi_serial_leave();
    free(both);
    return version;
}
