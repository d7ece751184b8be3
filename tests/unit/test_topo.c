/*
 * test_topo.c - shim/topo: ring order from localities, binomial trees over
 * ring positions, locality detection and binding on synthetic topologies.
 */
#include "enc.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "topo/topo.h"

#define MAXN 64

static struct enc_locality loc(const char *host, int package, int numa, int core)
{
    struct enc_locality l = { .package = package, .numa = numa, .core = core };

    snprintf(l.host, sizeof(l.host), "%s", host);
    return l;
}

static void expect_order(const int *got, const int *want, int n)
{
    for (int i = 0; i < n; i++)
        cr_expect_eq(got[i], want[i], "order[%d] = %d, want %d", i, got[i], want[i]);
}

Test(topo, ring_order_groups_hosts_then_packages_cores_rank)
{
    const struct enc_locality locs[] = {
        loc("b", 0, 0, 1), loc("a", 1, 0, 2), loc("b", 0, 0, 0), loc("a", 0, 0, 0),
        loc("a", -1, -1, -1), loc("b", 1, 1, 3), loc("a", 1, 0, 2), loc("b", 0, 0, 0),
    };
    const int want[] = { 4, 3, 1, 6, 2, 7, 0, 5 };
    int order[8];

    enc_topo_locality_order(locs, 8, order);
    expect_order(order, want, 8);
}

Test(topo, ring_order_unknown_localities_sort_by_host_then_rank)
{
    const struct enc_locality locs[] = {
        loc("n2", -1, -1, -1), loc("n1", -1, -1, -1), loc("n2", -1, -1, -1),
        loc("n1", -1, -1, -1), loc("n0", -1, -1, -1),
    };
    const int want[] = { 4, 1, 3, 0, 2 };
    int order[5];

    enc_topo_locality_order(locs, 5, order);
    expect_order(order, want, 5);
}

Test(topo, ring_order_numa_before_core_and_unknown_first)
{
    const struct enc_locality locs[] = {
        loc("h", 0, 1, 0), loc("h", 0, 0, 5), loc("h", 0, -1, 9), loc("h", -1, 3, 3),
    };
    const int want[] = { 3, 2, 1, 0 };
    int order[4];

    enc_topo_locality_order(locs, 4, order);
    expect_order(order, want, 4);
}

Test(topo, ring_order_one_rank)
{
    const struct enc_locality locs[] = { loc("x", 2, 2, 2) };
    int order[1] = { 42 };

    enc_topo_locality_order(locs, 1, order);
    cr_expect_eq(order[0], 0);
}

Test(topo, pos_of_absent_rank_is_minus_one)
{
    const int order[] = { 2, 0, 1 };

    cr_expect_eq(enc_topo_pos(order, 3, 1), 2);
    cr_expect_eq(enc_topo_pos(order, 3, 2), 0);
    cr_expect_eq(enc_topo_pos(order, 3, 3), -1);
}

/* ---- trees ---- */

struct tree {
    int n, root;
    const int *order;
    struct enc_tree_node node[MAXN]; /* by rank */
};

static void build(struct tree *t, const int *order, int n, int root)
{
    t->n = n;
    t->root = root;
    t->order = order;
    for (int r = 0; r < n; r++)
        enc_topo_tree(order, n, root, r, &t->node[r]);
}

static int rot(const struct tree *t, int rank)
{
    int base = enc_topo_pos(t->order, t->n, t->root);

    return (enc_topo_pos(t->order, t->n, rank) - base + t->n) % t->n;
}

static int ceil_log2(int n)
{
    int d = 0;

    while ((1 << d) < n)
        d++;
    return d;
}

/* Visits the subtree of r in pre-order (self, then children in order),
 * appending rotated positions to seq. */
static void preorder(const struct tree *t, int r, int *seq, int *len)
{
    seq[(*len)++] = rot(t, r);
    for (int c = 0; c < t->node[r].nchildren; c++)
        preorder(t, t->node[r].children[c], seq, len);
}

static void check_edges(const struct tree *t)
{
    int edges = 0, parents = 0;

    for (int r = 0; r < t->n; r++) {
        const struct enc_tree_node *nd = &t->node[r];

        edges += nd->nchildren;
        parents += nd->parent >= 0;
        cr_assert_eq(nd->parent < 0, r == t->root, "n %d root %d rank %d parent %d",
                     t->n, t->root, r, nd->parent);
        for (int c = 0; c < nd->nchildren; c++) {
            cr_assert_eq(t->node[nd->children[c]].parent, r);
            if (c > 0)
                cr_assert_lt(rot(t, nd->children[c - 1]), rot(t, nd->children[c]));
        }
    }
    cr_assert_eq(edges, t->n - 1, "n %d root %d: %d edges", t->n, t->root, edges);
    cr_assert_eq(parents, t->n - 1);
}

static void check_parent_lists_child(const struct tree *t)
{
    for (int r = 0; r < t->n; r++) {
        int p = t->node[r].parent, found = 0;

        if (p < 0)
            continue;
        for (int c = 0; c < t->node[p].nchildren; c++)
            found += t->node[p].children[c] == r;
        cr_assert_eq(found, 1, "n %d root %d: %d not a child of its parent %d",
                     t->n, t->root, r, p);
    }
}

static void check_depth(const struct tree *t)
{
    for (int r = 0; r < t->n; r++) {
        int depth = 0;

        for (int x = r; t->node[x].parent >= 0; x = t->node[x].parent)
            cr_assert_leq(++depth, ceil_log2(t->n), "n %d root %d rank %d too deep",
                          t->n, t->root, r);
    }
}

/* Every node reachable, and each subtree is the contiguous run of rotated
 * positions starting at its root (so pre-order is 0, 1, ..., n-1). */
static void check_subtrees(const struct tree *t)
{
    for (int r = 0; r < t->n; r++) {
        int seq[MAXN], len = 0;

        preorder(t, r, seq, &len);
        if (r == t->root)
            cr_assert_eq(len, t->n, "n %d root %d: %d reachable", t->n, t->root, len);
        for (int i = 0; i < len; i++)
            cr_assert_eq(seq[i], seq[0] + i, "n %d root %d: subtree of %d not contiguous",
                         t->n, t->root, r);
    }
}

static void check_all_trees(const int *(*make_order)(int n, int *buf))
{
    static struct tree t;
    int buf[MAXN];

    for (int n = 1; n <= MAXN; n++) {
        const int *order = make_order(n, buf);

        for (int root = 0; root < n; root++) {
            build(&t, order, n, root);
            check_edges(&t);
            check_parent_lists_child(&t);
            check_depth(&t);
            check_subtrees(&t);
        }
    }
}

static const int *identity(int n, int *buf)
{
    for (int i = 0; i < n; i++)
        buf[i] = i;
    return buf;
}

/* A ring order that is not the identity: ranks reversed, then rotated. */
static const int *scrambled(int n, int *buf)
{
    for (int i = 0; i < n; i++)
        buf[i] = (n - 1 - i + n / 3) % n;
    return buf;
}

Test(topo, tree_every_n_1_to_64_every_root_identity_order)
{
    check_all_trees(identity);
}

Test(topo, tree_every_n_1_to_64_every_root_scrambled_order)
{
    check_all_trees(scrambled);
}

struct want_node {
    int parent, nchildren, children[3];
};

static void expect_tree(int n, int root, const struct want_node *want)
{
    int order[MAXN];

    identity(n, order);
    for (int r = 0; r < n; r++) {
        struct enc_tree_node nd;

        enc_topo_tree(order, n, root, r, &nd);
        cr_expect_eq(nd.parent, want[r].parent, "rank %d parent %d", r, nd.parent);
        cr_assert_eq(nd.nchildren, want[r].nchildren, "rank %d has %d children", r,
                     nd.nchildren);
        for (int c = 0; c < nd.nchildren; c++)
            cr_expect_eq(nd.children[c], want[r].children[c], "rank %d child %d", r, c);
    }
}

Test(topo, tree_7_ranks_root_0)
{
    const struct want_node want[7] = {
        { -1, 3, { 1, 2, 4 } }, { 0, 0, { 0 } }, { 0, 1, { 3 } }, { 2, 0, { 0 } },
        { 0, 2, { 5, 6 } },     { 4, 0, { 0 } }, { 4, 0, { 0 } },
    };

    expect_tree(7, 0, want);
}

Test(topo, tree_7_ranks_root_3)
{
    const struct want_node want[7] = {
        { 3, 2, { 1, 2 } }, { 0, 0, { 0 } }, { 0, 0, { 0 } }, { -1, 3, { 4, 5, 0 } },
        { 3, 0, { 0 } },    { 3, 1, { 6 } }, { 5, 0, { 0 } },
    };

    expect_tree(7, 3, want);
}

Test(topo, tree_over_ring_order_follows_positions)
{
    /* Ring 5 0 3 1 4 2, root 3 (position 2): rotated ring 3 1 4 2 5 0. */
    const int order[] = { 5, 0, 3, 1, 4, 2 };
    struct enc_tree_node nd;

    enc_topo_tree(order, 6, 3, 3, &nd);
    cr_expect_eq(nd.parent, -1);
    cr_assert_eq(nd.nchildren, 3);
    cr_expect_eq(nd.children[0], 1);
    cr_expect_eq(nd.children[1], 4);
    cr_expect_eq(nd.children[2], 5);
    enc_topo_tree(order, 6, 3, 4, &nd);
    cr_expect_eq(nd.parent, 3);
    cr_assert_eq(nd.nchildren, 1);
    cr_expect_eq(nd.children[0], 2);
    enc_topo_tree(order, 6, 3, 0, &nd);
    cr_expect_eq(nd.parent, 5);
    cr_expect_eq(nd.nchildren, 0);
}

/* ---- locality and binding (synthetic topology, forked child) ---- */

static void use_synthetic(const char *desc)
{
    setenv("HWLOC_SYNTHETIC", desc, 1);
    unsetenv("HWLOC_XMLFILE");
    unsetenv("HWLOC_THISSYSTEM");
    unsetenv("HWLOC_FSROOT");
    unsetenv(ENC_TOPO_SIM_CPUBIND_ENV);
}

struct bound {
    int bind_rv, detect_rv;
    struct enc_locality loc;
};

/* Binds with (policy, index) in a child, so the binding and the environment
 * stay there, detects, and hands the result back through a pipe. */
static struct bound bind_and_detect(const char *policy, int index)
{
    struct bound b = { 0 };
    int fds[2], status = 0;
    pid_t pid;

    cr_assert_eq(pipe(fds), 0);
    cr_assert_geq(pid = fork(), 0);
    if (pid == 0) {
        close(fds[0]);
        use_synthetic("pack:2 core:2 pu:1");
        b.bind_rv = enc_topo_bind(policy, index);
        b.detect_rv = enc_locality_detect(&b.loc);
        _exit(write(fds[1], &b, sizeof(b)) == (ssize_t)sizeof(b) ? 0 : 1);
    }
    close(fds[1]);
    cr_assert_eq(read(fds[0], &b, sizeof(b)), (ssize_t)sizeof(b));
    close(fds[0]);
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return b;
}

Test(topo, locality_synthetic_bound_to_core_3_is_package_1_core_3)
{
    struct bound b = bind_and_detect("core", 3);

    cr_expect_eq(b.bind_rv, 0);
    cr_expect_eq(b.detect_rv, 0);
    cr_expect_eq(b.loc.package, 1);
    cr_expect_eq(b.loc.numa, 0);
    cr_expect_eq(b.loc.core, 3);
}

Test(topo, locality_synthetic_core_index_wraps_round_robin)
{
    struct bound b = bind_and_detect("core", 6);

    cr_expect_eq(b.bind_rv, 0);
    cr_expect_eq(b.loc.package, 1);
    cr_expect_eq(b.loc.core, 2);
}

Test(topo, locality_synthetic_bound_to_package_3_is_package_1_first_core)
{
    struct bound b = bind_and_detect("package", 3);

    cr_expect_eq(b.bind_rv, 0);
    cr_expect_eq(b.loc.package, 1);
    cr_expect_eq(b.loc.core, 2);
}

Test(topo, locality_synthetic_unbound_is_unknown)
{
    struct bound b = bind_and_detect("none", 0);

    cr_expect_eq(b.bind_rv, 0);
    cr_expect_eq(b.detect_rv, 0);
    cr_expect_eq(b.loc.package, -1);
    cr_expect_eq(b.loc.numa, -1);
    cr_expect_eq(b.loc.core, -1);
}

Test(topo, bind_unknown_policy_or_negative_index_is_inval)
{
    cr_expect_eq(enc_topo_bind("socket", 0), ENC_ERR_INVAL);
    cr_expect_eq(enc_topo_bind(NULL, 0), ENC_ERR_INVAL);
    cr_expect_eq(enc_topo_bind("core", -1), ENC_ERR_INVAL);
    cr_expect_eq(enc_topo_bind("none", 5), 0);
}

Test(topo, locality_encore_host_overrides_hostname)
{
    struct enc_locality l;

    use_synthetic("pack:1 core:1 pu:1");
    setenv("ENCORE_HOST", "fake-node-7", 1);
    cr_assert_eq(enc_locality_detect(&l), 0);
    cr_expect_str_eq(l.host, "fake-node-7");
}

Test(topo, locality_long_encore_host_is_truncated)
{
    char name[100];
    struct enc_locality l;

    memset(name, 'h', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    use_synthetic("pack:1 core:1 pu:1");
    setenv("ENCORE_HOST", name, 1);
    cr_assert_eq(enc_locality_detect(&l), 0);
    cr_expect_eq(strlen(l.host), ENC_LOC_HOST_MAX - 1);
}

Test(topo, locality_without_encore_host_is_the_hostname)
{
    char name[256] = "";
    struct enc_locality l;

    use_synthetic("pack:1 core:1 pu:1");
    unsetenv("ENCORE_HOST");
    cr_assert_eq(gethostname(name, sizeof(name)), 0);
    name[ENC_LOC_HOST_MAX - 1] = '\0';
    cr_assert_eq(enc_locality_detect(&l), 0);
    cr_expect_str_eq(l.host, name);
}
