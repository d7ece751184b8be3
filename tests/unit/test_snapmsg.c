/* test_snapmsg.c - the snapshot <-> encore-run messages (proto/snapmsg.h). */
#include "enc.h"

#include <criterion/criterion.h>

#include "proto/snapmsg.h"

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

Test(snapmsg, hello_positions_bounded)
{
    struct enc_snap_hello h = {.magic = ENC_SNAP_MAGIC, .wire = ENC_SNAP_WIRE, .rank = 0,
                               .pid = 4242, .ncomms = ENC_SNAP_COMMS_MAX};

    cr_assert(enc_snap_hello_valid(&h, 2));
    h.ncomms = ENC_SNAP_COMMS_MAX + 1;
    cr_assert(!enc_snap_hello_valid(&h, 2), "more communicator positions than the limit");
}
