/* test_log_holders.c - the result log's holder rule and whom a rank asks
 * (shim/recovery/log/holders.c), on synthetic hosts: one rule for the world
 * and every communicator, distinct hosts first. */
#include "enc.h"

#include <criterion/criterion.h>
#include <stdlib.h>

#include "recovery/log/holders.h"

/* The engine's view of the world, stood in for: rank r lives on hosts[r]. */
static const char *hosts[8];
static int world_size;

const char *enc_engine_peer_host(int rank) { return hosts[rank]; }
int enc_engine_size(void) { return world_size; }

/* Replicas come from ENCORE_REPLICAS, read once per process. */
static void setup(void)
{
    setenv("ENCORE_REPLICAS", "2", 1);
}

static int holders_of(const struct enc_log_comm *c, uint64_t seq, int root, int *out)
{
    int n = 0;

    for (int i = 0; i < c->n; i++)
        if (enc_log_is_holder(c, seq, root, i))
            out[n++] = i;
    return n;
}

TestSuite(holders, .init = setup);

Test(holders, communicator_whose_first_members_share_a_host)
{
    /* world ranks 0,1 on host a, 2,3 on b; the communicator lists them
     * reversed, so its members 0 and 1 are both on b */
    static const int rev[4] = {3, 2, 1, 0};
    struct enc_log_comm c = {.cid = 7, .n = 4, .members = rev};
    int h[4];

    hosts[0] = hosts[1] = "a";
    hosts[2] = hosts[3] = "b";
    world_size = 4;
    cr_assert_eq(holders_of(&c, 0, -1, h), 2);
    cr_assert_eq(h[0], 0); /* world rank 3, on b */
    cr_assert_eq(h[1], 2); /* world rank 1, on a: not member 1 (b again) */
}

Test(holders, world_on_one_host_takes_consecutive_ranks)
{
    struct enc_log_comm w = {.cid = 0, .n = 4, .members = NULL};
    int h[4];

    for (int r = 0; r < 4; r++)
        hosts[r] = "a";
    world_size = 4;
    cr_assert_eq(holders_of(&w, ENC_HOLDER_RUN, -1, h), 2); /* the second run starts at 1 */
    cr_assert_eq(h[0], 1);
    cr_assert_eq(h[1], 2);
}

Test(holders, broadcast_root_holds_what_it_sent)
{
    struct enc_log_comm w = {.cid = 0, .n = 4, .members = NULL};

    hosts[0] = hosts[1] = "a";
    hosts[2] = hosts[3] = "b";
    world_size = 4;
    cr_assert(enc_log_is_holder(&w, 5, 3, 3));
    cr_assert(enc_log_is_holder(&w, 5, 3, 0)); /* the next rank on another host */
    cr_assert(!enc_log_is_holder(&w, 5, 3, 2));
}

Test(holders, candidates_holders_first_never_me_only_those_ahead)
{
    static const int members[3] = {4, 5, 6};
    struct enc_log_ask a = {.comm = {.cid = 9, .n = 3, .members = members}, .me = 0,
                            .root = -1};
    uint64_t completed[7] = {0, 0, 0, 0, 10, 10, 3};
    int peers[3];

    hosts[4] = "a";
    hosts[5] = "a";
    hosts[6] = "b";
    world_size = 7;
    /* holders of entry 0: member 0 (world 4, a), then member 2 (world 6, b) */
    cr_assert_eq(enc_log_candidates(&a, 0, peers), 2);
    cr_assert_eq(peers[0], 6);
    cr_assert_eq(peers[1], 5);
    a.completed = completed; /* world rank 6 completed only 3 collectives */
    a.need = 5;
    cr_assert_eq(enc_log_candidates(&a, 0, peers), 1);
    cr_assert_eq(peers[0], 5);
}
