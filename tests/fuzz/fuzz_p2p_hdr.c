/*
 * fuzz_p2p_hdr.c - point-to-point frame headers as a rank reads them from
 * a peer's connection (p2p/wire.c).
 * Oracle: a header that decodes re-encodes to exactly the same bytes (one
 * encoding per header), and what it announces is within the limits the
 * reader allocates by (a payload only on DATA, RESUME and POSITIONS,
 * within ENC_P2P_MAX_BYTES, ENC_P2P_MAX_ADDR and ENC_P2P_MAX_POS pairs), and
 * only DATA carries a chain; only DATA with a payload is flagged REMOTE.
 * The 16 bytes after a header are decoded as a REMOTE frame's locator,
 * which must re-encode the same too and name a non-null address in a
 * positive pid.
 */
#include "enc.h"
#include "p2p/wire.h"
#include "fuzz.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct enc_p2p_hdr h;
    struct enc_p2p_loc l;
    uint8_t again[ENC_P2P_HDR_BYTES];

    if (size >= ENC_P2P_HDR_BYTES + ENC_P2P_LOC_BYTES &&
        enc_p2p_loc_decode(&l, data + ENC_P2P_HDR_BYTES) == ENC_OK) {
        enc_p2p_loc_encode(&l, again);
        FUZZ_CHECK(memcmp(again, data + ENC_P2P_HDR_BYTES, ENC_P2P_LOC_BYTES) == 0);
        FUZZ_CHECK(l.addr != 0 && l.pid > 0);
    }
    if (enc_p2p_hdr_decode(&h, data, size) != ENC_OK &&
        (size < ENC_P2P_HDR_BYTES || enc_p2p_hdr_decode(&h, data, ENC_P2P_HDR_BYTES) != ENC_OK))
        return 0;
    FUZZ_CHECK(size >= ENC_P2P_HDR_BYTES);
    FUZZ_CHECK(enc_p2p_hdr_decode(&h, data, size) != ENC_OK || size == ENC_P2P_HDR_BYTES);
    FUZZ_CHECK(h.flags == 0 ||
               (h.flags == ENC_P2P_REMOTE && h.kind == ENC_P2P_DATA && h.bytes > 0));
    enc_p2p_hdr_encode(&h, again);
    FUZZ_CHECK(memcmp(again, data, ENC_P2P_HDR_BYTES) == 0);
    FUZZ_CHECK(h.bytes <= ENC_P2P_MAX_BYTES);
    FUZZ_CHECK(h.kind == ENC_P2P_DATA || h.kind == ENC_P2P_RESUME ||
               h.kind == ENC_P2P_POSITIONS || h.bytes == 0);
    FUZZ_CHECK(h.kind != ENC_P2P_POSITIONS ||
               (h.bytes % ENC_P2P_POS_BYTES == 0 &&
                h.bytes / ENC_P2P_POS_BYTES <= ENC_P2P_MAX_POS));
    FUZZ_CHECK(h.kind != ENC_P2P_RESUME || (h.bytes > 0 && h.bytes <= ENC_P2P_MAX_ADDR));
    FUZZ_CHECK(h.kind != ENC_P2P_DATA || (h.src >= 0 && h.tag >= 0));
    FUZZ_CHECK(h.kind == ENC_P2P_DATA || h.chain == 0);
    return 0;
}

void fuzz_seeds(fuzz_emit_fn emit)
{
    const struct enc_p2p_hdr hdrs[] = {
        {.kind = ENC_P2P_DATA, .cid = 0, .src = 1, .tag = 7, .seq = 3, .bytes = 8,
         .chain = 0x5be2a1c07f3d9e41ull},
        {.kind = ENC_P2P_DATA, .mode = ENC_P2P_SYNC, .cid = 0x9a5d4ea665907e61ull, .src = 0,
         .tag = 0, .seq = 0, .bytes = 0, .ack = 12},
        {.kind = ENC_P2P_ACK, .ack = 12},
        {.kind = ENC_P2P_RESUME, .bytes = 9, .ack = 40000},
        {.kind = ENC_P2P_POSITIONS, .bytes = 32},
        {.kind = ENC_P2P_BELL},
    };
    const struct enc_p2p_hdr remote = {.kind = ENC_P2P_DATA, .flags = ENC_P2P_REMOTE, .cid = 0,
                                       .src = 1, .tag = 7, .seq = 4, .bytes = 1 << 20,
                                       .chain = 0x1f2e3d4c5b6a7980ull};
    const struct enc_p2p_loc loc = {.addr = 0x7f0a12345010ull, .pid = 4242};
    const struct enc_p2p_loc lent = {.addr = 0x7f0a12345010ull, .pid = 4242,
                                     .lent = 0x7ffd00001000ull, .ticket = 9};
    uint8_t buf[ENC_P2P_HDR_BYTES + ENC_P2P_LOC_BYTES];
    char name[16];

    for (size_t i = 0; i < sizeof(hdrs) / sizeof(hdrs[0]); i++) {
        enc_p2p_hdr_encode(&hdrs[i], buf);
        snprintf(name, sizeof(name), "kind-%u-%zu", (unsigned)hdrs[i].kind, i);
        emit(name, buf, ENC_P2P_HDR_BYTES);
    }
    enc_p2p_hdr_encode(&remote, buf);
    enc_p2p_loc_encode(&loc, buf + ENC_P2P_HDR_BYTES);
    emit("remote", buf, sizeof(buf));
    enc_p2p_loc_encode(&lent, buf + ENC_P2P_HDR_BYTES);
    emit("remote-lent", buf, sizeof(buf));
}
