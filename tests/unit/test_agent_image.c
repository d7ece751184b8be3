/*
 * test_agent_image.c - the PARKED and RESTORED messages between an agent
 * and encore-run (run/common/agent_proto.c): where a snapshot image of a
 * rank stands, encoded by the agent and decoded, strictly, by encore-run.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "enc.h"
#include "common/agent_proto.h"

static const struct enc_snap_comm comms[] = {{.cid = 7, .next = 42, .members = 3},
                                             {.cid = 1ull << 40, .next = 0, .members = 4096}};

/* m encoded and decoded again into *d. */
static void round_trip(const struct enc_agent_image *m, struct enc_agent_image *d)
{
    uint8_t *buf;
    size_t len;

    cr_assert_eq(enc_agent_image_encode(m, &buf, &len), ENC_OK);
    cr_assert_eq(enc_agent_image_decode(d, buf, len), ENC_OK);
    free(buf);
}

Test(agent_image, round_trip_with_communicators)
{
    struct enc_agent_image m = {.rank = 3, .inc = 2, .pid = 4321, .seq = 1ull << 33, .ncomms = 2,
                                .comms = (struct enc_snap_comm *)comms}, d;

    round_trip(&m, &d);
    cr_assert_eq(d.rank, 3);
    cr_assert_eq(d.inc, 2);
    cr_assert_eq(d.pid, 4321);
    cr_assert_eq(d.seq, 1ull << 33);
    cr_assert_eq(d.ncomms, 2);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(d.comms[i].cid, comms[i].cid);
        cr_assert_eq(d.comms[i].next, comms[i].next);
        cr_assert_eq(d.comms[i].members, comms[i].members);
    }
    free(d.comms);
}

Test(agent_image, round_trip_world_only)
{
    struct enc_agent_image m = {.rank = 0, .inc = 0, .seq = 87}, d;

    round_trip(&m, &d);
    cr_assert_eq(d.seq, 87);
    cr_assert_eq(d.ncomms, 0);
    cr_assert_null(d.comms);
}

Test(agent_image, short_and_long_payloads_refused)
{
    struct enc_agent_image m = {.rank = 1, .seq = 5, .ncomms = 2,
                                .comms = (struct enc_snap_comm *)comms}, d;
    uint8_t *buf, *longer;
    size_t len;

    cr_assert_eq(enc_agent_image_encode(&m, &buf, &len), ENC_OK);
    for (size_t cut = 0; cut < len; cut++)
        cr_assert_eq(enc_agent_image_decode(&d, buf, cut), ENC_ERR_PROTO, "cut at %zu", cut);
    longer = calloc(1, len + 1);
    memcpy(longer, buf, len);
    cr_assert_eq(enc_agent_image_decode(&d, longer, len + 1), ENC_ERR_PROTO);
    free(longer);
    free(buf);
}

Test(agent_image, too_many_communicators_refused)
{
    struct enc_agent_image m = {.ncomms = ENC_SNAP_COMMS_MAX + 1}, d;
    uint8_t hdr[24] = {0}, *buf;
    size_t len;

    cr_assert_eq(enc_agent_image_encode(&m, &buf, &len), ENC_ERR_INVAL);
    /* rank, inc, pid, seq, then a count past the limit (little or big
     * endian, it is far above ENC_SNAP_COMMS_MAX either way) */
    memset(hdr + 20, 0xff, 4);
    cr_assert_eq(enc_agent_image_decode(&d, hdr, sizeof(hdr)), ENC_ERR_PROTO);
}
