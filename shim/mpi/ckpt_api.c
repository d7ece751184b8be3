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
 * It is refused too once the rank used point-to-point messages (a rank of
 * a program where only some ranks do refuses alone: its peers then wait
 * in the checkpoint's collective until the collective timeout).
 */
#include "enc.h"

#include <encore.h>

#include "mpi/icoll.h"
#include "mpi/mpi_layer.h"
#include "p2p/p2p.h"
#include "recovery/recovery.h"

static enc_status_t refuse_pending(const char *fn)
{
    int n = enc_mpi_icoll_outstanding();

    /* A rank restarted from the checkpoint would number its messages from
     * 0 again and its peers would drop them as re-sends. */
    if (enc_p2p_announced()) {
        ENC_ERROR("ckpt", "%s: refused: this rank has used point-to-point messages, whose "
                  "channel positions are not part of a checkpoint yet", fn);
        return ENC_ERR_STATE;
    }

    if (n == 0)
        return ENC_OK;
    ENC_ERROR("ckpt", "%s: refused: %d nonblocking collective%s started and not completed "
              "(complete them with MPI_Wait or MPI_Test first)", fn, n, n == 1 ? "" : "s");
    return ENC_ERR_STATE;
}

int encore_checkpoint(const void *global, size_t global_len, const void *local, size_t local_len)
{
    enc_status_t rv;

    if ((rv = refuse_pending("encore_checkpoint")) != ENC_OK)
        return rv;
    enc_mpi_serial_enter_all();
    rv = enc_recovery_checkpoint(global, global_len, local, local_len);
    enc_mpi_serial_leave();
    return rv;
}

int encore_load_checkpoint(void *global, size_t *global_len, void *local, size_t *local_len)
{
    enc_status_t rv;

    if ((rv = refuse_pending("encore_load_checkpoint")) != ENC_OK)
        return rv;
    enc_mpi_serial_enter_all();
    rv = enc_recovery_load_checkpoint(global, global_len, local, local_len);
    enc_mpi_serial_leave();
    return rv;
}
