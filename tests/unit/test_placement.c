/*
 * test_placement.c - encore-run's host list and mapping (run/launcher/placement.c):
 * -H lists, hostfile lines, fill by slot, --map-by node, oversubscription,
 * and the host a lost host's rank moves to.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <unistd.h>

#include "enc.h"
#include "launcher/launcher.h"
#include "launcher/placement.h"

static struct enc_run_hostlist hl;
static char msg[512];

static void reset(void) { memset(&hl, 0, sizeof(hl)); }

TestSuite(placement, .init = reset);

Test(placement, host_list_with_and_without_slots)
{
    cr_assert_eq(enc_run_hosts_parse_list(&hl, "a:2,b,c:3", msg, sizeof(msg)), ENC_OK);
    cr_assert_eq(hl.n, 3);
    cr_assert_str_eq(hl.h[0].name, "a");
    cr_assert_eq(hl.h[0].slots, 2);
    cr_assert_str_eq(hl.h[1].name, "b");
    cr_assert_eq(hl.h[1].slots, 1);
    cr_assert_eq(hl.h[2].slots, 3);
}

Test(placement, host_named_twice_accumulates_slots)
{
    cr_assert_eq(enc_run_hosts_parse_list(&hl, "a,b,a:2", msg, sizeof(msg)), ENC_OK);
    cr_assert_eq(hl.n, 2);
    cr_assert_eq(hl.h[0].slots, 3);
}

Test(placement, malformed_host_lists_rejected)
{
    static const char *bad[] = {"", "a,,b", "a:", "a:0", "a:x", ":2", "a:2:3", "a,", "a:+2",
                                "a: 2", "a b:2", "a:1048577"};

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        reset();
        cr_assert_eq(enc_run_hosts_parse_list(&hl, bad[i], msg, sizeof(msg)), ENC_ERR_INVAL, "%s", bad[i]);
    }
}

Test(placement, errors_are_one_line_naming_the_entry)
{
    cr_assert_eq(enc_run_hosts_parse_list(&hl, "a:2,h:0", msg, sizeof(msg)), ENC_ERR_INVAL);
    cr_assert_str_eq(msg, "entry 'h:0': expected name or name:N (a name of 1..63 characters, "
                          "N in 1..1048576)");
    cr_assert_eq(enc_run_hosts_parse_line(&hl, "n1 slots=x # c\n", 1, msg, sizeof(msg)),
                 ENC_ERR_INVAL);
    cr_assert_str_eq(msg, "'n1 slots=x ': expected host [slots=N] [max_slots=M] (a name of "
                          "1..63 characters, N in 1..1048576)");
    cr_assert_eq(enc_run_hosts_parse_list(&hl, "b:1048576,b", msg, sizeof(msg)), ENC_ERR_INVAL);
    cr_assert_str_eq(msg, "host b: more than 1048576 slots in all");
}

Test(placement, too_many_hosts)
{
    char name[16];

    for (int i = 0; i < ENC_RUN_MAX_HOSTS; i++) {
        snprintf(name, sizeof(name), "h%d", i);
        cr_assert_eq(enc_run_hosts_add(&hl, name, 1, msg, sizeof(msg)), ENC_OK);
    }
    cr_assert_eq(enc_run_hosts_add(&hl, "one-more", 1, msg, sizeof(msg)), ENC_ERR_INVAL);
    cr_assert_str_eq(msg, "host one-more: more than 256 hosts");
    cr_assert_eq(enc_run_hosts_slots(&hl), ENC_RUN_MAX_HOSTS);
}

Test(placement, hostfile_lines)
{
    cr_assert_eq(enc_run_hosts_parse_line(&hl, "# comment\n", 4, msg, sizeof(msg)), ENC_OK);
    cr_assert_eq(enc_run_hosts_parse_line(&hl, "   \n", 4, msg, sizeof(msg)), ENC_OK);
    cr_assert_eq(hl.n, 0);
    cr_assert_eq(enc_run_hosts_parse_line(&hl, "n1 slots=2 max_slots=8  # two\n", 4, msg, sizeof(msg)),
                 ENC_OK);
    cr_assert_eq(enc_run_hosts_parse_line(&hl, "n2\n", 4, msg, sizeof(msg)), ENC_OK);
    cr_assert_eq(enc_run_hosts_parse_line(&hl, "\tn3   max_slots=2", 4, msg, sizeof(msg)), ENC_OK);
    cr_assert_eq(hl.n, 3);
    cr_assert_eq(hl.h[0].slots, 2);
    cr_assert_eq(hl.h[1].slots, 4, "no slots=: the default (cores)");
    cr_assert_eq(hl.h[2].slots, 4, "max_slots alone does not set slots");
}

Test(placement, bad_hostfile_lines_rejected)
{
    cr_assert_eq(enc_run_hosts_parse_line(&hl, "n1 slots=0", 1, msg, sizeof(msg)), ENC_ERR_INVAL);
    cr_assert_eq(enc_run_hosts_parse_line(&hl, "n1 slots=", 1, msg, sizeof(msg)), ENC_ERR_INVAL);
    cr_assert_eq(enc_run_hosts_parse_line(&hl, "n1 bogus=3", 1, msg, sizeof(msg)), ENC_ERR_INVAL);
    cr_assert_eq(hl.n, 0);
}

Test(placement, hostfile_file)
{
    char path[] = "/tmp/enc_hostfile_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");

    fputs("# cluster\nx slots=3\n\ny slots=1\n", f);
    fclose(f);
    cr_assert_eq(enc_run_hosts_parse_file(&hl, path, 2, msg, sizeof(msg)), ENC_OK);
    cr_assert_eq(hl.n, 2);
    cr_assert_eq(hl.h[0].slots, 3);
    cr_assert_eq(hl.h[1].slots, 1);
    reset();
    cr_assert_eq(enc_run_hosts_parse_file(&hl, "/nonexistent/hostfile", 2, msg, sizeof(msg)),
                 ENC_ERR_INVAL);
    cr_assert_str_eq(msg, "cannot read it: No such file or directory");
    f = fopen(path, "w");
    fputs("x slots=3\n\ny slots=-1\n", f);
    fclose(f);
    cr_assert_eq(enc_run_hosts_parse_file(&hl, path, 2, msg, sizeof(msg)), ENC_ERR_INVAL);
    cr_assert(strncmp(msg, "line 3 'y slots=-1': expected host", 34) == 0, "%s", msg);
    f = fopen(path, "w");
    fputs("# only a comment\n", f);
    fclose(f);
    reset();
    cr_assert_eq(enc_run_hosts_parse_file(&hl, path, 2, msg, sizeof(msg)), ENC_ERR_INVAL);
    cr_assert_str_eq(msg, "names no host");
    unlink(path);
}

static void map_expect(const char *list, int np, bool by_node, bool over, const int *want)
{
    int got[64];

    reset();
    cr_assert_eq(enc_run_hosts_parse_list(&hl, list, msg, sizeof(msg)), ENC_OK);
    cr_assert_eq(enc_run_map(&hl, np, by_node, over, got), ENC_OK, "%s -n %d", list, np);
    for (int r = 0; r < np; r++)
        cr_assert_eq(got[r], want[r], "%s -n %d: rank %d on host %d, expected %d", list, np,
                     r, got[r], want[r]);
}

Test(placement, map_by_slot_fills_hosts_in_order)
{
    map_expect("a:2,b:3", 5, false, false, (int[]){0, 0, 1, 1, 1});
    map_expect("a:2,b:3", 3, false, false, (int[]){0, 0, 1});
}

Test(placement, map_by_node_round_robin)
{
    map_expect("a:2,b:3", 5, true, false, (int[]){0, 1, 0, 1, 1});
    map_expect("a:1,b:1,c:2", 4, true, false, (int[]){0, 1, 2, 2});
}

Test(placement, more_ranks_than_slots)
{
    int got[8];

    cr_assert_eq(enc_run_hosts_parse_list(&hl, "a:2,b:1", msg, sizeof(msg)), ENC_OK);
    cr_assert_eq(enc_run_map(&hl, 4, false, false, got), ENC_ERR_INVAL);
    map_expect("a:2,b:1", 5, false, true, (int[]){0, 0, 1, 0, 0});
    map_expect("a:2,b:1", 5, true, true, (int[]){0, 1, 0, 0, 1});
}

Test(placement, free_host_skips_lost_and_full_hosts)
{
    int host_of[4] = {0, 0, 1, 1}, h = -1;

    cr_assert_eq(enc_run_hosts_parse_list(&hl, "a:2,b:2,c:1", msg, sizeof(msg)), ENC_OK);
    hl.h[1].lost = true;
    cr_assert_eq(enc_run_free_host(&hl, host_of, 4, &h), ENC_OK);
    cr_assert_eq(h, 2);
    host_of[2] = 2;
    cr_assert_eq(enc_run_free_host(&hl, host_of, 4, &h), ENC_ERR_NOT_FOUND);
}

Test(placement, local_host_names)
{
    cr_assert_eq(enc_run_hosts_parse_list(&hl, "localhost:2,farhost.invalid", msg, sizeof(msg)), ENC_OK);
    enc_run_hosts_mark_local(&hl);
    cr_assert(hl.h[0].local);
    cr_assert(!hl.h[1].local);
}

Test(placement, slurm_nodelist_compressed)
{
    char names[16][ENC_RUN_HOST_NAME_MAX];
    int n = 0;

    cr_assert_eq(enc_run_slurm_nodelist("node[1-3,5],login,gpu[07-08]", names, &n, 16), ENC_OK);
    cr_assert_eq(n, 7);
    cr_assert_str_eq(names[0], "node1");
    cr_assert_str_eq(names[2], "node3");
    cr_assert_str_eq(names[3], "node5");
    cr_assert_str_eq(names[4], "login");
    cr_assert_str_eq(names[5], "gpu07");
    cr_assert_str_eq(names[6], "gpu08");
    cr_assert_eq(enc_run_slurm_nodelist("n[3-1]", names, &n, 16), ENC_ERR_INVAL);
    cr_assert_eq(enc_run_slurm_nodelist("n[1-2", names, &n, 16), ENC_ERR_INVAL);
    cr_assert_eq(enc_run_slurm_nodelist("n[1-20]", names, &n, 16), ENC_ERR_INVAL);
    cr_assert_eq(enc_run_slurm_nodelist("n[1-9223372036854775807]", names, &n, 16), ENC_ERR_INVAL);
    cr_assert_eq(enc_run_slurm_nodelist("n[-1]", names, &n, 16), ENC_ERR_INVAL);
    cr_assert_eq(enc_run_slurm_nodelist("n[ 1]", names, &n, 16), ENC_ERR_INVAL);
}

Test(placement, slurm_tasks_per_node)
{
    int s[4];

    cr_assert_eq(enc_run_slurm_tasks("2(x3),1", s, 4), ENC_OK);
    cr_assert_eq(s[0], 2);
    cr_assert_eq(s[2], 2);
    cr_assert_eq(s[3], 1);
    cr_assert_eq(enc_run_slurm_tasks("2(x3)", s, 4), ENC_ERR_INVAL, "too few counts");
    cr_assert_eq(enc_run_slurm_tasks("2(x3", s, 3), ENC_ERR_INVAL);
}

/* --bind-to auto is mpirun's default: nothing on an oversubscribed host,
 * else a core each for one or two ranks, a package each for more; an
 * explicit policy stays, "none" is no binding. */
Test(placement, bind_policy_as_mpirun)
{
    struct enc_run_opts o = {.np = 2};

    cr_assert_str_eq(enc_run_bind_policy(&o, 2, 2), "core");
    cr_assert_null(enc_run_bind_policy(&o, 2, 1), "2 ranks on 1 slot: oversubscribed");
    o.np = 4;
    cr_assert_null(enc_run_bind_policy(&o, 4, 2), "4 ranks on 2 slots: oversubscribed");
    cr_assert_str_eq(enc_run_bind_policy(&o, 2, 2), "package");
    o.bind_to = "auto";
    cr_assert_str_eq(enc_run_bind_policy(&o, 4, 8), "package");
    o.bind_to = "core";
    cr_assert_str_eq(enc_run_bind_policy(&o, 4, 2), "core", "explicit: even oversubscribed");
    o.bind_to = "none";
    cr_assert_null(enc_run_bind_policy(&o, 1, 8));
}
