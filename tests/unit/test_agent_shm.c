/*
 * test_agent_shm.c - encore-agent's --shm argument (run/common/agent_proto.c):
 * the host's ranks formatted by encore-run and parsed, strictly, by the agent;
 * and the memory an EXITED note carries back (enc_agent_mem_*).
 */
#include <criterion/criterion.h>
#include <stdio.h>

#include "enc.h"
#include "common/agent_proto.h"

static int ranks[8], np, n;

Test(agent_shm, format_lists_the_hosts_ranks)
{
    static const int host_of[] = {0, 1, 0, 1, 1};
    char s[64];

    cr_assert(enc_agent_shm_format(s, sizeof(s), 5, host_of, 1));
    cr_assert_str_eq(s, "5:1,3,4");
    cr_assert(enc_agent_shm_format(s, sizeof(s), 5, host_of, 0));
    cr_assert_str_eq(s, "5:0,2");
    cr_assert_not(enc_agent_shm_format(s, sizeof(s), 5, host_of, 2)); /* no ranks */
    cr_assert_not(enc_agent_shm_format(s, 4, 5, host_of, 1));          /* too long */
}

Test(agent_shm, format_needs_two_ranks)
{
    static const int host_of[] = {0, 1, 1};
    char s[64];

    cr_assert_not(enc_agent_shm_format(s, sizeof(s), 3, host_of, 0));
}

Test(agent_shm, parse_round_trip)
{
    cr_assert_eq(enc_agent_shm_parse("5:1,3,4", 1024, &np, ranks, 8, &n), ENC_OK);
    cr_assert_eq(np, 5);
    cr_assert_eq(n, 3);
    cr_assert_eq(ranks[0], 1);
    cr_assert_eq(ranks[1], 3);
    cr_assert_eq(ranks[2], 4);
}

Test(agent_shm, malformed_rejected)
{
    static const char *bad[] = {"", "5", "5:", ":1,2", "1:0", "5:1,,2", "5:1,2,", "5:2,1",
                                "5:1,1", "5:5", "5:-1", "5:+1", "5:1 ,2", "x:1", "5:1,a",
                                "2000:1,2", "5:0,1,2,3,4", "99999999999:1"};

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        cr_expect_neq(enc_agent_shm_parse(bad[i], 1024, &np, ranks, 4, &n), ENC_OK, "%s",
                      bad[i]);
}

Test(agent_mem, formatted_and_parsed_back)
{
    struct enc_agent_mem m = {.private_kb = 15360, .shm_used_kb = -1, .shm_alloc_kb = 1058816}, got;
    char s[96];

    enc_agent_mem_format(&m, s, sizeof(s));
    cr_assert_str_eq(s, "15360 -1 1058816");
    enc_agent_mem_parse(s, &got);
    cr_assert_eq(got.private_kb, 15360);
    cr_assert_eq(got.shm_used_kb, -1);
    cr_assert_eq(got.shm_alloc_kb, 1058816);
}

Test(agent_mem, missing_or_malformed_fields_unknown)
{
    struct enc_agent_mem got;

    enc_agent_mem_parse("2048", &got);
    cr_assert_eq(got.private_kb, 2048);
    cr_assert_eq(got.shm_used_kb, -1);
    cr_assert_eq(got.shm_alloc_kb, -1);
    enc_agent_mem_parse("x 5 6", &got);
    cr_assert_eq(got.private_kb, -1);
    cr_assert_eq(got.shm_used_kb, -1);
    enc_agent_mem_parse("1 -7 99999999999999", &got);
    cr_assert_eq(got.private_kb, 1);
    cr_assert_eq(got.shm_used_kb, -1);
    cr_assert_eq(got.shm_alloc_kb, -1);
}
