/* test_wire.c - bounds-checked big-endian payload encoding (proto/wire.h). */
#include "enc.h"

#include <criterion/criterion.h>
#include <string.h>

#include "proto/wire.h"

Test(wire, integers_are_big_endian_and_round_trip)
{
    static const uint8_t want[] = {0xab, 0x12, 0x34, 0xde, 0xad, 0xbe, 0xef,
                                   0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
    uint8_t buf[32];
    struct enc_wbuf w;
    struct enc_rbuf r;
    uint8_t a;
    uint16_t b;
    uint32_t c;
    uint64_t d;

    enc_w_init(&w, buf, sizeof(buf));
    enc_w_u8(&w, 0xab);
    enc_w_u16(&w, 0x1234);
    enc_w_u32(&w, 0xdeadbeef);
    enc_w_u64(&w, 0x0102030405060708ull);
    cr_assert_eq(w.err, 0);
    cr_assert_eq(w.len, sizeof(want));
    cr_assert_arr_eq(buf, want, sizeof(want));

    enc_r_init(&r, buf, w.len);
    enc_r_u8(&r, &a);
    enc_r_u16(&r, &b);
    enc_r_u32(&r, &c);
    enc_r_u64(&r, &d);
    cr_assert_eq(enc_r_done(&r), ENC_OK);
    cr_assert_eq(a, 0xab);
    cr_assert_eq(b, 0x1234);
    cr_assert_eq(c, 0xdeadbeefu);
    cr_assert_eq(d, 0x0102030405060708ull);
}

Test(wire, strings_and_bytes_round_trip)
{
    uint8_t buf[64], raw[3] = {1, 2, 3}, got[3];
    char s[16], empty[4];
    struct enc_wbuf w;
    struct enc_rbuf r;

    enc_w_init(&w, buf, sizeof(buf));
    enc_w_str(&w, "node-7");
    enc_w_str(&w, "");
    enc_w_bytes(&w, raw, sizeof(raw));
    cr_assert_eq(w.len, 2 + 6 + 2 + 3);
    cr_assert_eq(buf[0], 0);
    cr_assert_eq(buf[1], 6);
    cr_assert_arr_eq(buf + 2, "node-7", 6);

    enc_r_init(&r, buf, w.len);
    enc_r_str(&r, s, sizeof(s));
    enc_r_str(&r, empty, sizeof(empty));
    enc_r_bytes(&r, got, sizeof(got));
    cr_assert_eq(enc_r_done(&r), ENC_OK);
    cr_assert_str_eq(s, "node-7");
    cr_assert_str_eq(empty, "");
    cr_assert_arr_eq(got, raw, sizeof(raw));
}

Test(wire, writer_overrun_sets_err_and_stops_writing)
{
    uint8_t buf[8] = {0};
    struct enc_wbuf w;

    enc_w_init(&w, buf, 3);
    enc_w_u16(&w, 0x0102);
    enc_w_u32(&w, 0xffffffffu);
    cr_assert_eq(w.err, 1);
    cr_assert_eq(w.len, 2);
    enc_w_u8(&w, 0x55);
    cr_assert_eq(w.len, 2, "writes after an overrun are no-ops");
    cr_assert_eq(buf[2], 0);
    cr_assert_eq(buf[3], 0);
}

Test(wire, writer_string_overrun_sets_err)
{
    uint8_t buf[5];
    struct enc_wbuf w;

    enc_w_init(&w, buf, sizeof(buf));
    enc_w_str(&w, "four");
    cr_assert_eq(w.err, 1);
}

Test(wire, reader_overrun_sets_err_and_zeroes_output)
{
    uint8_t buf[2] = {0x12, 0x34};
    struct enc_rbuf r;
    uint32_t v = 77;
    uint16_t later = 99;

    enc_r_init(&r, buf, sizeof(buf));
    enc_r_u32(&r, &v);
    cr_assert_eq(r.err, 1);
    cr_assert_eq(v, 0);
    enc_r_u16(&r, &later);
    cr_assert_eq(later, 0, "reads after an overrun are no-ops");
    cr_assert_eq(r.off, 0);
    cr_assert_eq(enc_r_done(&r), ENC_ERR_PROTO);
}

Test(wire, trailing_bytes_fail_done)
{
    uint8_t buf[3] = {1, 2, 3};
    struct enc_rbuf r;
    uint16_t v;

    enc_r_init(&r, buf, sizeof(buf));
    enc_r_u16(&r, &v);
    cr_assert_eq(r.err, 0);
    cr_assert_eq(enc_r_done(&r), ENC_ERR_PROTO);
}

/* Feeds raw string bytes (u16 length + body) to enc_r_str. */
static int read_str(const uint8_t *buf, size_t len, size_t cap, char *out)
{
    struct enc_rbuf r;

    enc_r_init(&r, buf, len);
    enc_r_str(&r, out, cap);
    return enc_r_done(&r);
}

Test(wire, string_that_fills_cap_is_rejected)
{
    static const uint8_t buf[] = {0, 4, 'a', 'b', 'c', 'd'};
    char s[8];

    cr_assert_eq(read_str(buf, sizeof(buf), 4, s), ENC_ERR_PROTO, "no room for the NUL");
    cr_assert_eq(read_str(buf, sizeof(buf), 5, s), ENC_OK);
    cr_assert_str_eq(s, "abcd");
}

Test(wire, string_with_embedded_nul_is_rejected)
{
    static const uint8_t buf[] = {0, 3, 'a', 0, 'b'};
    char s[8];

    cr_assert_eq(read_str(buf, sizeof(buf), sizeof(s), s), ENC_ERR_PROTO);
}

Test(wire, string_longer_than_buffer_is_rejected)
{
    static const uint8_t buf[] = {0, 9, 'a', 'b'};
    char s[16];

    cr_assert_eq(read_str(buf, sizeof(buf), sizeof(s), s), ENC_ERR_PROTO);
    cr_assert_str_eq(s, "");
}
