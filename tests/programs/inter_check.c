/*
 * inter_check.c - intercommunicators, for tests/integration/inter.sh (run
 * at 4 ranks; any size from 2 works).
 *
 * For two splits of the world (even / odd ranks; rank 1 / the others) it
 * makes an intercommunicator with MPI_Intercomm_create (bridge: the
 * world), prints its queries (Comm_test_inter, size, rank, remote size,
 * remote and local groups as world ranks), runs every intercommunicator
 * collective (Barrier, Bcast with MPI_ROOT / MPI_PROC_NULL, Allreduce,
 * Reduce, Allgather(v), Gather(v), Scatter(v), Alltoall(v,w),
 * Reduce_scatter(_block), and Ibcast, Iallreduce, Ialltoall, Iallgather
 * pending together), on a dup too, merges it both ways, splits it
 * (MPI_Comm_split by local rank parity, reversed keys) and cuts it
 * (MPI_Comm_create with each side's local rank 0 and, on the lower side,
 * its last), and makes one between ranks 0 and 1 over MPI_COMM_SELF.  Each rank's lines are
 * gathered and printed by rank 0, so the output compares exactly with
 * native Open MPI's.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank_lines.h"

static int wrank, wsize;
/* World ranks of a group. */
static void say_group(const char *what, MPI_Group g)
{
    MPI_Group world;
    int n, in[64], out[64];

    MPI_Group_size(g, &n);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int i = 0; i < n; i++)
        in[i] = i;
    MPI_Group_translate_ranks(g, n, in, world, out);
    say(what, out, n);
    MPI_Group_free(&world);
}

static void queries(const char *name, MPI_Comm ic)
{
    int flag, n, r, rn;
    MPI_Group g;
    char what[128];

    MPI_Comm_test_inter(ic, &flag);
    MPI_Comm_size(ic, &n);
    MPI_Comm_rank(ic, &r);
    MPI_Comm_remote_size(ic, &rn);
    snprintf(what, sizeof(what), "%s inter-size-rank-remote", name);
    say(what, (int[]){flag, n, r, rn}, 4);
    MPI_Comm_remote_group(ic, &g);
    snprintf(what, sizeof(what), "%s remote-group", name);
    say_group(what, g);
    MPI_Group_free(&g);
    MPI_Comm_group(ic, &g);
    snprintf(what, sizeof(what), "%s local-group", name);
    say_group(what, g);
    MPI_Group_free(&g);
}

/* The rooted ones from each group's rank `root` in turn. */
static void rooted(const char *name, MPI_Comm ic, int low)
{
    int n, r, rn, buf[64], out[64], cnt[64], dsp[64];
    char what[128];

    MPI_Comm_size(ic, &n);
    MPI_Comm_rank(ic, &r);
    MPI_Comm_remote_size(ic, &rn);
    for (int g = 0; g < 2; g++) {
        /* group g (0: low) sends from its last rank */
        int sending = (g == 0) == low, root;

        if (sending)
            root = r == n - 1 ? MPI_ROOT : MPI_PROC_NULL;
        else
            root = rn - 1;
        for (int i = 0; i < 64; i++)
            buf[i] = 100 * wrank + i, out[i] = -1;
        MPI_Bcast(buf, 3, MPI_INT, root, ic);
        snprintf(what, sizeof(what), "%s from %d bcast", name, g);
        say(what, buf, 3);
        for (int i = 0; i < 64; i++)
            buf[i] = 100 * wrank + i;
        MPI_Reduce(buf, out, 4, MPI_INT, MPI_SUM, root, ic);
        snprintf(what, sizeof(what), "%s to %d reduce", name, g);
        say(what, out, 4);
        MPI_Gather(buf + r, 2, MPI_INT, out, 2, MPI_INT, root, ic);
        snprintf(what, sizeof(what), "%s to %d gather", name, g);
        say(what, out, 2 * rn);
        for (int i = 0; i < rn; i++)
            cnt[i] = 1 + i % 2, dsp[i] = 3 * (rn - 1 - i);
        for (int i = 0; i < 64; i++)
            out[i] = -1;
        MPI_Gatherv(buf, 1 + r % 2, MPI_INT, out, cnt, dsp, MPI_INT, root, ic);
        snprintf(what, sizeof(what), "%s to %d gatherv", name, g);
        say(what, out, 3 * rn);
        for (int i = 0; i < 64; i++)
            out[i] = -1;
        MPI_Scatter(buf, 2, MPI_INT, out, 2, MPI_INT, root, ic);
        snprintf(what, sizeof(what), "%s from %d scatter", name, g);
        say(what, out, 2);
        MPI_Scatterv(buf, cnt, dsp, MPI_INT, out, 1 + r % 2, MPI_INT, root, ic);
        snprintf(what, sizeof(what), "%s from %d scatterv", name, g);
        say(what, out, 2);
    }
}

static void unrooted(const char *name, MPI_Comm ic)
{
    int n, r, rn, buf[64], out[64], sc[64], sd[64], rc[64], rd[64];
    MPI_Aint unused;
    MPI_Datatype st[64], rt[64];
    MPI_Request req[4];
    char what[128];

    (void)unused;
    MPI_Comm_size(ic, &n);
    MPI_Comm_rank(ic, &r);
    MPI_Comm_remote_size(ic, &rn);
    for (int i = 0; i < 64; i++)
        buf[i] = 100 * wrank + i, out[i] = -1;
    MPI_Barrier(ic);
    MPI_Allreduce(buf, out, 3, MPI_INT, MPI_SUM, ic);
    snprintf(what, sizeof(what), "%s allreduce", name);
    say(what, out, 3);
    MPI_Allreduce(buf, out, 2, MPI_INT, MPI_MAX, ic);
    snprintf(what, sizeof(what), "%s allreduce-max", name);
    say(what, out, 2);
    MPI_Allgather(buf + 1, 2, MPI_INT, out, 2, MPI_INT, ic);
    snprintf(what, sizeof(what), "%s allgather", name);
    say(what, out, 2 * rn);
    for (int i = 0; i < rn; i++)
        rc[i] = 1 + i % 2, rd[i] = 2 * i;
    for (int i = 0; i < 64; i++)
        out[i] = -1;
    MPI_Allgatherv(buf, 1 + r % 2, MPI_INT, out, rc, rd, MPI_INT, ic);
    snprintf(what, sizeof(what), "%s allgatherv", name);
    say(what, out, 2 * rn);
    MPI_Alltoall(buf, 2, MPI_INT, out, 2, MPI_INT, ic);
    snprintf(what, sizeof(what), "%s alltoall", name);
    say(what, out, 2 * rn);
    /* to remote rank i: 1 + (r + i) % 2 ints; from it: 1 + (i + r) % 2 */
    for (int i = 0; i < rn; i++) {
        sc[i] = 1 + (r + i) % 2, sd[i] = 3 * i;
        rc[i] = 1 + (i + r) % 2, rd[i] = 2 * i;
    }
    for (int i = 0; i < 64; i++)
        out[i] = -1;
    MPI_Alltoallv(buf, sc, sd, MPI_INT, out, rc, rd, MPI_INT, ic);
    snprintf(what, sizeof(what), "%s alltoallv", name);
    say(what, out, 2 * rn);
    for (int i = 0; i < rn; i++) {
        sd[i] = (int)sizeof(int) * 3 * i, rd[i] = (int)sizeof(int) * 2 * i;
        st[i] = rt[i] = MPI_INT;
    }
    for (int i = 0; i < 64; i++)
        out[i] = -1;
    MPI_Alltoallw(buf, sc, sd, st, out, rc, rd, rt, ic);
    snprintf(what, sizeof(what), "%s alltoallw", name);
    say(what, out, 2 * rn);
    /* reduce_scatter: vectors of 2 n (block: 2 each) on both sides need
     * 2 n == 2 rn, so only when the groups are as large; the v form with
     * this group's counts summing to 6 */
    for (int i = 0; i < n; i++)
        rc[i] = i == 0 ? 6 - 2 * (n - 1) : 2;
    if (n <= 3 && rn <= 3) {
        MPI_Reduce_scatter(buf, out, rc, MPI_INT, MPI_SUM, ic);
        snprintf(what, sizeof(what), "%s reduce_scatter", name);
        say(what, out, rc[r]);
    }
    if (n == rn) {
        MPI_Reduce_scatter_block(buf, out, 2, MPI_INT, MPI_SUM, ic);
        snprintf(what, sizeof(what), "%s reduce_scatter_block", name);
        say(what, out, 2);
    }
    int o1[8], o2[64], o3[64], o4[64], b1[8];
    for (int i = 0; i < 8; i++)
        b1[i] = 100 * wrank + i;
    MPI_Ibcast(b1, 2, MPI_INT, MPI_PROC_NULL, ic, &req[0]); /* nobody's root: a no-op */
    MPI_Iallreduce(buf, o1, 2, MPI_INT, MPI_SUM, ic, &req[1]);
    MPI_Ialltoall(buf, 1, MPI_INT, o2, 1, MPI_INT, ic, &req[2]);
    MPI_Iallgather(buf + 5, 1, MPI_INT, o3, 1, MPI_INT, ic, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    memcpy(o4, b1, sizeof(b1));
    snprintf(what, sizeof(what), "%s ibcast-iallreduce", name);
    say(what, (int[]){o4[0], o4[1], o1[0], o1[1]}, 4);
    snprintf(what, sizeof(what), "%s ialltoall", name);
    say(what, o2, rn);
    snprintf(what, sizeof(what), "%s iallgather", name);
    say(what, o3, rn);
}

static void merged(const char *name, MPI_Comm ic, int high)
{
    MPI_Comm m;
    int n, r, sum, one = wrank;
    char what[128];

    MPI_Intercomm_merge(ic, high, &m);
    MPI_Comm_size(m, &n);
    MPI_Comm_rank(m, &r);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, m);
    snprintf(what, sizeof(what), "%s size-rank-sum", name);
    say(what, (int[]){n, r, sum}, 3);
    MPI_Comm_free(&m);
}

/* MPI_Comm_split and MPI_Comm_create on the intercommunicator. */
static void sub_inter(const char *name, MPI_Comm ic, int low)
{
    MPI_Comm sub;
    MPI_Group g, part;
    int lr, n, sum, me = wrank, keep[2] = {0, 0};
    char what[128];

    MPI_Comm_rank(ic, &lr);
    MPI_Comm_size(ic, &n);
    MPI_Comm_split(ic, lr % 2, -lr, &sub);
    snprintf(what, sizeof(what), "%s split", name);
    if (sub == MPI_COMM_NULL) {
        say(what, NULL, 0);
    } else {
        queries(what, sub);
        MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, sub);
        snprintf(what, sizeof(what), "%s split allreduce", name);
        say(what, &sum, 1);
        MPI_Comm_free(&sub);
    }
    keep[1] = n - 1;
    MPI_Comm_group(ic, &g);
    MPI_Group_incl(g, low && n > 1 ? 2 : 1, keep, &part);
    MPI_Comm_create(ic, part, &sub);
    snprintf(what, sizeof(what), "%s create", name);
    if (sub == MPI_COMM_NULL) {
        say(what, NULL, 0);
    } else {
        queries(what, sub);
        MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, sub);
        snprintf(what, sizeof(what), "%s create allreduce", name);
        say(what, &sum, 1);
        MPI_Comm_free(&sub);
    }
    MPI_Group_free(&part);
    MPI_Group_free(&g);
}

static void one_split(const char *name, int color, int tag)
{
    MPI_Comm local, ic, dup;
    int lr, low = color == 0, leader = -1;
    char what[128];

    MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local);
    MPI_Comm_rank(local, &lr);
    /* the other group's leader: its lowest world rank */
    for (int i = 0; i < wsize && leader < 0; i++)
        if ((name[0] == 'p' ? i % 2 : i == 1) != color)
            leader = i;
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, leader, tag, &ic);
    queries(name, ic);
    unrooted(name, ic);
    rooted(name, ic, low);
    sub_inter(name, ic, low);
    MPI_Comm_dup(ic, &dup);
    snprintf(what, sizeof(what), "%s dup", name);
    queries(what, dup);
    unrooted(what, dup);
    MPI_Comm_free(&dup);
    snprintf(what, sizeof(what), "%s merge-by-group", name);
    merged(what, ic, color);
    snprintf(what, sizeof(what), "%s merge-reversed", name);
    merged(what, ic, !color);
    snprintf(what, sizeof(what), "%s merge-same", name);
    merged(what, ic, 0);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
}

int main(int argc, char **argv)
{
    MPI_Comm ic;
    int x, y = -1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    one_split("parity", wrank % 2, 7);
    one_split("one", wrank == 1, 8);
    if (wrank < 2) {
        MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 1 - wrank, 9, &ic);
        queries("self", ic);
        x = 10 + wrank;
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, ic);
        say("self allreduce", &y, 1);
        MPI_Comm_free(&ic);
    }
    say_flush();
    MPI_Finalize();
    return 0;
}
