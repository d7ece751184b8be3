/* remote.c - large messages read out of the sender's log (remote.h). */
#include "enc.h"

#include <string.h>
#include <unistd.h>

#include "core/tunables.h"
#include "p2p/lend.h"
#include "p2p/remote.h"
#include "p2p/shm_link.h"
#include "shm/shm.h"

static int64_t cma_min = -1; /* -1: not asked yet */
static int lend = -1;        /* -1: not asked yet */

bool enc_p2p_remote_lend(void)
{
    if (lend < 0)
        lend = enc_tunable_bool(ENC_TUNE_P2P_LEND);
    return lend;
}

size_t enc_p2p_remote_min(bool log_kept)
{
    if (cma_min < 0)
        cma_min = log_kept && enc_shm_cma_usable() ? (int64_t)enc_tunable_ll(ENC_TUNE_P2P_CMA_MIN)
                                                   : 0;
    return (size_t)cma_min;
}

/* This process's pid, asked once: a system call per large message (2 us
 * on this project's VMs) otherwise; asked again in a restored image. */
static pid_t self_pid;

void enc_p2p_remote_forget(void)
{
    cma_min = -1;
    self_pid = 0;
}

enc_status_t enc_p2p_remote_encode(const struct p2p_frame *f, uint8_t out[ENC_P2P_REMOTE_WIRE])
{
    return enc_p2p_remote_encode_lent(f, NULL, 0, out);
}

enc_status_t enc_p2p_remote_encode_lent(const struct p2p_frame *f, const void *lent,
                                        uint64_t ticket, uint8_t out[ENC_P2P_REMOTE_WIRE])
{
    struct enc_p2p_loc l = {.addr = (uintptr_t)f->buf,
                            .pid = (int32_t)(self_pid != 0 ? self_pid : (self_pid = getpid())),
                            .lent = (uintptr_t)lent, .ticket = ticket};
    struct enc_p2p_hdr h;

    if (enc_p2p_hdr_decode(&h, f->buf, ENC_P2P_HDR_BYTES) != ENC_OK)
        return ENC_ERR_PROTO;
    h.flags |= ENC_P2P_REMOTE;
    enc_p2p_hdr_encode(&h, out);
    enc_p2p_loc_encode(&l, out + ENC_P2P_HDR_BYTES);
    return ENC_OK;
}

enc_status_t enc_p2p_remote_fetch(int peer, struct p2p_rx *in)
{
    uint8_t logged[ENC_P2P_HDR_BYTES], announced[ENC_P2P_HDR_BYTES];
    struct enc_p2p_ring *ring = enc_p2p_shm_ring(peer, enc_p2p.rank);
    struct enc_p2p_loc l;
    enc_status_t rv;

    if (enc_p2p_loc_decode(&l, in->loc) != ENC_OK)
        return ENC_ERR_PROTO;
    if (l.ticket != 0 && enc_p2p_lend_claim(ring, l.ticket)) {
        /* the header from the log (written before the locator), the
         * payload from the program's buffer while the sender logs it */
        rv = enc_shm_cma_read_pair(l.pid, l.addr, logged, sizeof(logged), l.lent,
                                   in->msg->data, in->msg->bytes);
        if (enc_p2p_lend_return(ring, l.ticket))
            enc_p2p.shm_lent++;
        else if (rv == ENC_OK) /* revoked: the buffer may have changed under the read */
            rv = enc_shm_cma_read2(l.pid, l.addr, logged, sizeof(logged), in->msg->data,
                                   in->msg->bytes);
    } else {
        rv = enc_shm_cma_read2(l.pid, l.addr, logged, sizeof(logged), in->msg->data,
                               in->msg->bytes);
    }
    if (rv != ENC_OK)
        return rv;
    memcpy(announced, in->hdr, sizeof(announced));
    announced[6] = announced[7] = 0; /* the flags, big-endian: 0 in the log */
    if (memcmp(logged, announced, sizeof(announced)) != 0) {
        ENC_ERROR("p2p", "rank %d's locator (pid %d, address %#llx) does not lead to the "
                  "message its ring announced; ENCORE_P2P_CMA_MIN=0 sends every payload "
                  "through the ring", peer, (int)l.pid, (unsigned long long)l.addr);
        return ENC_ERR_PROTO;
    }
    in->got = in->msg->bytes;
    return ENC_OK;
}
