/* test_snapmsg.c - the snapshot <-> encore-run messages and the
 * ENCORE_SNAPSHOT_S syntax (proto/snapmsg.h). */
#include "enc.h"

#include <criterion/criterion.h>

#include "proto/snapmsg.h"

Test(snapmsg, interval_auto_and_numbers)
{
    bool adaptive;
    double s;

    cr_assert_eq(enc_snap_parse_interval(NULL, &adaptive, &s), ENC_OK);
    cr_assert(adaptive);
    cr_assert_eq(enc_snap_parse_interval("", &adaptive, &s), ENC_OK);
    cr_assert(adaptive);
    cr_assert_eq(enc_snap_parse_interval("auto", &adaptive, &s), ENC_OK);
    cr_assert(adaptive);
    cr_assert_eq(enc_snap_parse_interval("0", &adaptive, &s), ENC_OK);
    cr_assert(!adaptive);
    cr_assert_eq(s, 0.0);
    cr_assert_eq(enc_snap_parse_interval("2.5", &adaptive, &s), ENC_OK);
    cr_assert(!adaptive);
    cr_assert_eq(s, 2.5);
}

Test(snapmsg, interval_malformed)
{
    const char *bad[] = {"abc", "-1", "2x", " 3", "nan", "inf", "auto2", "1e400"};
    bool adaptive;
    double s;

    for (size_t i = 0; i < ENC_ARRAY_SIZE(bad); i++)
        cr_assert_eq(enc_snap_parse_interval(bad[i], &adaptive, &s), ENC_ERR_INVAL, "%s", bad[i]);
}

Test(snapmsg, hello_checks)
{
    struct enc_snap_hello h = {.magic = ENC_SNAP_MAGIC, .wire = ENC_SNAP_WIRE, .rank = 3,
                               .incarnation = 0, .pid = 4242, .seq = 17};

    cr_assert(enc_snap_hello_valid(&h, 4));
    cr_assert(!enc_snap_hello_valid(&h, 3), "rank out of range");
    h.magic ^= 1;
    cr_assert(!enc_snap_hello_valid(&h, 4), "bad magic");
    h.magic ^= 1;
    h.wire = ENC_SNAP_WIRE + 1;
    cr_assert(!enc_snap_hello_valid(&h, 4), "other wire version");
    h.wire = ENC_SNAP_WIRE;
    h.pid = 1;
    cr_assert(!enc_snap_hello_valid(&h, 4), "pid 1");
}
