/*
 * det_copy.c - encore-run's copy of each rank's determinant file (S2 of
 * docs/p2p.md 5.3): a rank off encore-run's host ships the bytes of its
 * file from some record on (DET_PUT) and waits for the ack before anything
 * that could depend on them leaves it; a rank restarted on another host
 * after its host was lost reads the copy back (DET_GET -> DET_DATA).
 *
 * The copy is the file's bytes at the same offsets: a record shipped again
 * (a NONE run that grew) replaces its older copy.  encore-run is the one
 * process whose loss ends the job anyway, so the copy is as safe as the
 * job.  Not trimmed (the copy grows by 40 bytes per recorded outcome).
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include "proto/detmsg.h"
#include "tracker/tracker_int.h"

enc_status_t enc_trk_det_put(struct enc_tracker *t, struct trk_rank *r, struct trk_conn *c)
{
    struct enc_msg_det m;
    uint8_t ack[8];
    int n;

    /* a shipment starts at most where the copy ends (det_store.c ships
     * from its first changed byte; a new incarnation from 0): no holes */
    if (enc_msg_det_decode(&m, c->rd.payload, (size_t)c->rd.hdr.len) != ENC_OK ||
        m.off > r->det_len)
        return ENC_ERR_PROTO;
    if (m.off + m.n > r->det_cap) {
        size_t cap = ENC_MAX((size_t)(m.off + m.n), r->det_cap * 2);
        uint8_t *b = realloc(r->det, cap);

        if (b == NULL)
            return ENC_ERR_NOMEM;
        memset(b + r->det_cap, 0, cap - r->det_cap);
        r->det = b;
        r->det_cap = cap;
    }
    if (m.n > 0)
        memcpy(r->det + m.off, m.bytes, m.n);
    r->det_len = ENC_MAX(r->det_len, (size_t)(m.off + m.n));
    r->det_kept = true;
    if (m.word == 0) /* not the last chunk of a shipment */
        return ENC_OK;
    n = enc_msg_det_ack_encode(m.word, ack, sizeof(ack));
    return n < 0 ? n : enc_trk_send(t, c, ENC_MSG_DET_ACK, ack, (size_t)n);
}

enc_status_t enc_trk_det_get(struct enc_tracker *t, const struct trk_rank *r, struct trk_conn *c)
{
    uint8_t *buf = malloc(ENC_DETMSG_HDR + ENC_DETMSG_CHUNK);
    size_t off = 0;
    enc_status_t rv = buf == NULL ? ENC_ERR_NOMEM : ENC_OK;

    ENC_DEBUG("tracker", "rank %d asks for its determinants: %zu bytes kept", c->rank,
              r->det_len);
    do { /* one DATA at least, even for an empty copy */
        struct enc_msg_det m = {.word = r->det_len, .off = off,
                                .bytes = r->det != NULL ? r->det + off : buf, /* empty */
                                .n = (uint32_t)ENC_MIN(r->det_len - off, ENC_DETMSG_CHUNK)};
        int n = rv == ENC_OK ? enc_msg_det_encode(&m, buf, ENC_DETMSG_HDR + ENC_DETMSG_CHUNK)
                             : rv;

        rv = n < 0 ? n : enc_trk_send(t, c, ENC_MSG_DET_DATA, buf, (size_t)n);
        off += m.n;
    } while (rv == ENC_OK && off < r->det_len);
    free(buf);
    return rv;
}

bool enc_tracker_rank_det_kept(const struct enc_tracker *t, int rank)
{
    return rank >= 0 && rank < t->cfg.size && t->ranks[rank].det_kept;
}
