/*
 * test_p2p_wire.c - shim/p2p/wire: frame headers round-trip exactly, the
 * REMOTE flag only on a DATA frame with a payload, and a REMOTE frame's
 * locator (address, pid) round-trips while a null address, a pid that is
 * not positive or reserved bits are refused.
 */
#include "enc.h"

#include <criterion/criterion.h>
#include <string.h>

#include "p2p/wire.h"

static enc_status_t roundtrip(const struct enc_p2p_hdr *h, struct enc_p2p_hdr *out)
{
    uint8_t buf[ENC_P2P_HDR_BYTES];

    enc_p2p_hdr_encode(h, buf);
    return enc_p2p_hdr_decode(out, buf, sizeof(buf));
}

Test(p2p_wire, remote_data_roundtrips)
{
    struct enc_p2p_hdr h = {.kind = ENC_P2P_DATA, .mode = ENC_P2P_SYNC, .flags = ENC_P2P_REMOTE,
                            .cid = 0x1122334455667788ull, .src = 3, .tag = 99, .seq = 17,
                            .bytes = 6u << 20, .ack = 5, .chain = 0xdeadbeefcafef00dull},
                       out;

    cr_assert_eq(roundtrip(&h, &out), ENC_OK);
    cr_assert_eq(out.kind, h.kind);
    cr_assert_eq(out.mode, h.mode);
    cr_assert_eq(out.flags, ENC_P2P_REMOTE);
    cr_assert_eq(out.cid, h.cid);
    cr_assert_eq(out.src, h.src);
    cr_assert_eq(out.tag, h.tag);
    cr_assert_eq(out.seq, h.seq);
    cr_assert_eq(out.bytes, h.bytes);
    cr_assert_eq(out.ack, h.ack);
    cr_assert_eq(out.chain, h.chain);
    h.flags = 0;
    cr_assert_eq(roundtrip(&h, &out), ENC_OK);
    cr_assert_eq(out.flags, 0);
}

Test(p2p_wire, remote_only_on_data_with_payload)
{
    struct enc_p2p_hdr out;
    const struct enc_p2p_hdr bad[] = {
        {.kind = ENC_P2P_DATA, .flags = ENC_P2P_REMOTE, .src = 0, .tag = 0, .bytes = 0},
        {.kind = ENC_P2P_ACK, .flags = ENC_P2P_REMOTE, .ack = 1},
        {.kind = ENC_P2P_BELL, .flags = ENC_P2P_REMOTE},
        {.kind = ENC_P2P_DATA, .flags = 2, .src = 0, .tag = 0, .bytes = 8},
        {.kind = ENC_P2P_DATA, .flags = 0x8001, .src = 0, .tag = 0, .bytes = 8},
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        cr_assert_eq(roundtrip(&bad[i], &out), ENC_ERR_PROTO, "header %zu", i);
}

Test(p2p_wire, locator_roundtrips_and_refuses_nonsense)
{
    struct enc_p2p_loc l = {.addr = 0x00007f3a9c200010ull, .pid = 31337}, out;
    uint8_t buf[ENC_P2P_LOC_BYTES];

    enc_p2p_loc_encode(&l, buf);
    cr_assert_eq(enc_p2p_loc_decode(&out, buf), ENC_OK);
    cr_assert_eq(out.addr, l.addr);
    cr_assert_eq(out.pid, l.pid);
    cr_assert_eq(out.lent, 0);
    cr_assert_eq(out.ticket, 0);
    buf[15] = 1; /* reserved */
    cr_assert_eq(enc_p2p_loc_decode(&out, buf), ENC_ERR_PROTO);
    l.lent = 0x00007ffd12345000ull;
    l.ticket = 77;
    enc_p2p_loc_encode(&l, buf);
    cr_assert_eq(enc_p2p_loc_decode(&out, buf), ENC_OK);
    cr_assert_eq(out.lent, l.lent);
    cr_assert_eq(out.ticket, 77);
    l.ticket = 0; /* a lent address without a ticket */
    enc_p2p_loc_encode(&l, buf);
    cr_assert_eq(enc_p2p_loc_decode(&out, buf), ENC_ERR_PROTO);
    l.lent = 0; /* a ticket without an address */
    l.ticket = 5;
    enc_p2p_loc_encode(&l, buf);
    cr_assert_eq(enc_p2p_loc_decode(&out, buf), ENC_ERR_PROTO);
    l.lent = 4096; /* a ticket beyond what the ring's word holds */
    l.ticket = ENC_P2P_LEND_TICKET_MAX + 1;
    enc_p2p_loc_encode(&l, buf);
    cr_assert_eq(enc_p2p_loc_decode(&out, buf), ENC_ERR_PROTO);
    l.ticket = 0;
    l.lent = 0;
    l.addr = 0;
    enc_p2p_loc_encode(&l, buf);
    cr_assert_eq(enc_p2p_loc_decode(&out, buf), ENC_ERR_PROTO);
    l.addr = 4096;
    l.pid = 0;
    enc_p2p_loc_encode(&l, buf);
    cr_assert_eq(enc_p2p_loc_decode(&out, buf), ENC_ERR_PROTO);
    l.pid = -5;
    enc_p2p_loc_encode(&l, buf);
    cr_assert_eq(enc_p2p_loc_decode(&out, buf), ENC_ERR_PROTO);
}
