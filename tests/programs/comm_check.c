/*
 * comm_check.c - communicators and groups derived from MPI_COMM_WORLD, and
 * the collectives on them, for tests/integration/comm_matrix.sh: every
 * rank writes deterministic result lines to --out-dir/rank.R (or stdout),
 * compared bit for bit between native mpirun and encore-run.
 *
 * Covers: Comm_dup, dup_with_info, idup, split (two colours, reversed keys,
 * MPI_UNDEFINED), split_type(SHARED), create, create_group, compare, free,
 * Comm_group and the group operations, names, attributes with copy/delete
 * callbacks, MPI_ERRORS_RETURN on a derived communicator; then every
 * collective (blocking and nonblocking) on each of them; the nonblocking
 * ones all started at once, with a real MPI request on MPI_COMM_SELF in
 * the same arrays, completed with Wait, Test, Request_free, Waitall,
 * Waitany, Testany, Waitsome and Testall while the rank computes; and
 * gather, scatter, alltoall, allgather, igather with a vector datatype.
 */
#include <mpi.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *out;
static int wrank, wsize;

static void line(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
}

static void check(int rv, const char *what)
{
    if (rv != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: %s failed (%d)\n", wrank, what, rv);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

static uint64_t digest(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;

    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* ---- attributes ---- */

static int copies, deletes;

static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *outv, int *flag)
{
    (void)c; (void)key; (void)extra;
    copies++;
    *(void **)outv = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c; (void)key; (void)val; (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static void attributes(void)
{
    int key, nocopy, flag;
    void *val;
    MPI_Comm d, d2;

    check(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL), "create_keyval");
    check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &nocopy, NULL),
          "create_keyval null");
    check(MPI_Comm_dup(MPI_COMM_WORLD, &d), "dup");
    check(MPI_Comm_set_attr(d, key, (void *)(intptr_t)40), "set_attr");
    check(MPI_Comm_set_attr(d, nocopy, (void *)(intptr_t)7), "set_attr");
    check(MPI_Comm_dup(d, &d2), "dup of dup");
    check(MPI_Comm_get_attr(d2, key, &val, &flag), "get_attr");
    line("attr copied flag=%d val=%ld copies=%d", flag, flag ? (long)(intptr_t)val : -1L, copies);
    check(MPI_Comm_get_attr(d2, nocopy, &val, &flag), "get_attr");
    line("attr nullcopy flag=%d", flag);
    check(MPI_Comm_set_name(d2, "second dup"), "set_name");
    {
        char name[MPI_MAX_OBJECT_NAME];
        int len;

        check(MPI_Comm_get_name(d2, name, &len), "get_name");
        line("name '%s' len %d", name, len);
        check(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len), "get_name world");
        line("world name '%s'", name);
    }
    check(MPI_Comm_delete_attr(d, key), "delete_attr");
    check(MPI_Comm_free(&d2), "free d2");
    check(MPI_Comm_free(&d), "free d");
    line("deletes=%d null=%d", deletes, d == MPI_COMM_NULL);
    MPI_Comm_free_keyval(&key);
    MPI_Comm_free_keyval(&nocopy);
}

/* ---- groups ---- */

static void groups(void)
{
    MPI_Group world, evens, odds, u, x, dif, r, r2;
    int n = (wsize + 1) / 2, *ev = malloc(sizeof(int) * (size_t)n + 1), size, rank, cmp;
    int ranges[1][3] = {{wsize - 1, 0, -2}};
    int *tr = malloc(sizeof(int) * (size_t)wsize), *from = malloc(sizeof(int) * (size_t)wsize);

    for (int i = 0; i < n; i++)
        ev[i] = 2 * i;
    for (int i = 0; i < wsize; i++)
        from[i] = i;
    check(MPI_Comm_group(MPI_COMM_WORLD, &world), "comm_group");
    check(MPI_Group_incl(world, n, ev, &evens), "incl");
    check(MPI_Group_excl(world, n, ev, &odds), "excl");
    check(MPI_Group_union(odds, evens, &u), "union");
    check(MPI_Group_intersection(world, odds, &x), "intersection");
    check(MPI_Group_difference(world, evens, &dif), "difference");
    check(MPI_Group_range_incl(world, 1, ranges, &r), "range_incl");
    check(MPI_Group_range_excl(world, 1, ranges, &r2), "range_excl");
    MPI_Group gs[] = {world, evens, odds, u, x, dif, r, r2};
    const char *names[] = {"world", "evens", "odds", "union", "inter", "diff", "rincl", "rexcl"};

    for (int g = 0; g < 8; g++) {
        check(MPI_Group_size(gs[g], &size), "group_size");
        check(MPI_Group_rank(gs[g], &rank), "group_rank");
        check(MPI_Group_translate_ranks(world, wsize, from, gs[g], tr), "translate");
        char buf[512] = "";
        for (int i = 0; i < wsize; i++)
            snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " %d", tr[i]);
        check(MPI_Group_compare(world, gs[g], &cmp), "group_compare");
        line("group %s size %d rank %d cmp %d translate%s", names[g], size, rank, cmp, buf);
    }
    check(MPI_Group_compare(u, world, &cmp), "group_compare");
    line("union vs world %d", cmp);
    for (int g = 0; g < 8; g++)
        if (gs[g] != MPI_GROUP_EMPTY)
            check(MPI_Group_free(&gs[g]), "group_free");
    free(ev);
    free(tr);
    free(from);
}

/* ---- collectives on one communicator ---- */

static void colls(MPI_Comm c, const char *tag)
{
    int size, rank, sum = 0, mx, root;
    double d[5], dr[5];
    int ag[64], agv[128], counts[64], displs[64];

    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    root = size - 1;
    for (int i = 0; i < 5; i++)
        d[i] = wrank * 3 + i + 0.5;
    check(MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, c), "allreduce");
    check(MPI_Allreduce(d, dr, 5, MPI_DOUBLE, MPI_SUM, c), "allreduce d");
    line("%s size %d rank %d allreduce %d %a %a", tag, size, rank, sum, dr[0], dr[4]);
    mx = -1;
    check(MPI_Reduce(&wrank, &mx, 1, MPI_INT, MPI_MAX, root, c), "reduce");
    line("%s reduce max %d", tag, mx);
    int b = rank == 0 ? 1000 + wrank : -1;
    check(MPI_Bcast(&b, 1, MPI_INT, 0, c), "bcast");
    line("%s bcast %d", tag, b);
    check(MPI_Barrier(c), "barrier");
    check(MPI_Allgather(&wrank, 1, MPI_INT, ag, 1, MPI_INT, c), "allgather");
    for (int i = 0; i < size; i++) {
        counts[i] = i % 3;
        displs[i] = 2 * i;
    }
    int mine[2] = {wrank * 10, wrank * 10 + 1};
    memset(agv, 0xff, sizeof(agv));
    check(MPI_Allgatherv(mine, rank % 3, MPI_INT, agv, counts, displs, MPI_INT, c),
          "allgatherv");
    line("%s allgather %016llx allgatherv %016llx", tag,
         (unsigned long long)digest(ag, sizeof(int) * (size_t)size),
         (unsigned long long)digest(agv, sizeof(int) * 2 * (size_t)size));
}

/* Gather, Scatter, Alltoall (v and in-place forms), Reduce_scatter,
 * Scan, Exscan on c. */
static void more_colls(MPI_Comm c, const char *tag)
{
    int size, rank, root, cnt[64], dsp[64], rc[64], rd[64];
    int sb[256], rb[256], x[8], y[8];

    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    root = size / 2;
    for (int i = 0; i < 256; i++)
        sb[i] = wrank * 1000 + i;
    memset(rb, 0xff, sizeof(rb));
    check(MPI_Gather(sb, 2, MPI_INT, rb, 2, MPI_INT, root, c), "gather");
    line("%s gather %016llx", tag, (unsigned long long)digest(rb, sizeof(rb)));
    for (int i = 0; i < size; i++) {
        cnt[i] = i % 3 + 1;
        dsp[i] = 3 * (size - 1 - i);
    }
    memset(rb, 0xff, sizeof(rb));
    check(MPI_Gatherv(sb, rank % 3 + 1, MPI_INT, rb, cnt, dsp, MPI_INT, root, c), "gatherv");
    line("%s gatherv %016llx", tag, (unsigned long long)digest(rb, sizeof(rb)));
    memset(rb, 0xff, sizeof(rb));
    if (rank == root)
        for (int i = 0; i < size; i++)
            rb[2 * i] = rb[2 * i + 1] = 7 * i + wrank;
    check(MPI_Gather(rank == root ? MPI_IN_PLACE : sb, 2, MPI_INT, rb, 2, MPI_INT, root, c),
          "gather in place");
    line("%s gather inplace %016llx", tag, (unsigned long long)digest(rb, sizeof(rb)));
    memset(rb, 0xff, sizeof(rb));
    check(MPI_Scatter(sb, 3, MPI_INT, rb, 3, MPI_INT, root, c), "scatter");
    line("%s scatter %d %d %d %d", tag, rb[0], rb[1], rb[2], rb[3]);
    memset(rb, 0xff, sizeof(rb));
    check(MPI_Scatterv(sb, cnt, dsp, MPI_INT, rb, rank % 3 + 1, MPI_INT, root, c), "scatterv");
    line("%s scatterv %d %d %d %d", tag, rb[0], rb[1], rb[2], rb[3]);
    memset(rb, 0xff, sizeof(rb));
    check(MPI_Alltoall(sb, 2, MPI_INT, rb, 2, MPI_INT, c), "alltoall");
    line("%s alltoall %016llx", tag, (unsigned long long)digest(rb, sizeof(rb)));
    for (int i = 0; i < size; i++) {
        rc[i] = (i + rank) % 3;
        rd[i] = 2 * i;
        cnt[i] = (rank + i) % 3;
        dsp[i] = 3 * i;
    }
    memset(rb, 0xff, sizeof(rb));
    check(MPI_Alltoallv(sb, cnt, dsp, MPI_INT, rb, rc, rd, MPI_INT, c), "alltoallv");
    line("%s alltoallv %016llx", tag, (unsigned long long)digest(rb, sizeof(rb)));
    for (int i = 0; i < 2 * size; i++)
        rb[i] = wrank * 10 + i;
    check(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, 2, MPI_INT, c), "alltoall ip");
    line("%s alltoall inplace %016llx", tag,
         (unsigned long long)digest(rb, sizeof(int) * 2 * (size_t)size));
    for (int i = 0; i < size; i++)
        cnt[i] = i % 2 + 1;
    memset(rb, 0xff, sizeof(rb));
    check(MPI_Reduce_scatter(sb, rb, cnt, MPI_INT, MPI_SUM, c), "reduce_scatter");
    line("%s reduce_scatter %d %d %d", tag, rb[0], rb[1], rb[2]);
    memset(rb, 0xff, sizeof(rb));
    check(MPI_Reduce_scatter_block(sb, rb, 2, MPI_INT, MPI_MAX, c), "reduce_scatter_block");
    line("%s reduce_scatter_block %d %d %d", tag, rb[0], rb[1], rb[2]);
    for (int i = 0; i < 8; i++)
        x[i] = wrank * 3 + i;
    memset(y, 0xff, sizeof(y));
    check(MPI_Scan(x, y, 8, MPI_INT, MPI_SUM, c), "scan");
    line("%s scan %d %d", tag, y[0], y[7]);
    memset(y, 0xff, sizeof(y));
    check(MPI_Exscan(x, y, 8, MPI_INT, MPI_SUM, c), "exscan");
    line("%s exscan %d %d", tag, rank == 0 ? 0 : y[0], rank == 0 ? 0 : y[7]);
    check(MPI_Scan(MPI_IN_PLACE, x, 8, MPI_INT, MPI_PROD, c), "scan ip");
    line("%s scan inplace %d %d", tag, x[0], x[7]);
}

/* ---- nonblocking collectives ---- */

enum { NREQ = 17 };

struct ibufs {
    int sum, mx, b, sb[256], ag[64], agv[128], g[256], gv[256], sc[8], scv[8], a2a[256],
        a2av[256], rs[8], rsb[8], scan[8], exscan[8], self_in, self_out;
    int cnt[64], dsp[64], rc[64], rd[64], rsc[64];
};

/* Starts every nonblocking collective on c, and a real MPI request on
 * MPI_COMM_SELF that must complete in the same arrays. */
static void istart(MPI_Comm c, struct ibufs *u, MPI_Request *r)
{
    int size, rank, root, n = 0;

    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    root = size / 2;
    memset(u, 0xff, sizeof(*u));
    for (int i = 0; i < 256; i++)
        u->sb[i] = wrank * 1000 + i;
    for (int i = 0; i < size; i++) {
        u->cnt[i] = i % 3 + 1;
        u->dsp[i] = 3 * (size - 1 - i);
        u->rc[i] = (i + rank) % 3;
        u->rd[i] = 2 * i;
        u->rsc[i] = i % 2 + 1;
    }
    u->b = rank == 0 ? 2000 + wrank : -1;
    u->self_in = 77 + wrank;
    check(MPI_Iallreduce(&wrank, &u->sum, 1, MPI_INT, MPI_SUM, c, &r[n++]), "iallreduce");
    check(MPI_Ireduce(&wrank, &u->mx, 1, MPI_INT, MPI_MAX, root, c, &r[n++]), "ireduce");
    check(MPI_Ibcast(&u->b, 1, MPI_INT, 0, c, &r[n++]), "ibcast");
    check(MPI_Ibarrier(c, &r[n++]), "ibarrier");
    check(MPI_Iallgather(&wrank, 1, MPI_INT, u->ag, 1, MPI_INT, c, &r[n++]), "iallgather");
    check(MPI_Iallgatherv(u->sb, rank % 3 + 1, MPI_INT, u->agv, u->cnt, u->dsp, MPI_INT, c,
                          &r[n++]), "iallgatherv");
    check(MPI_Igather(u->sb, 2, MPI_INT, u->g, 2, MPI_INT, root, c, &r[n++]), "igather");
    check(MPI_Igatherv(u->sb, rank % 3 + 1, MPI_INT, u->gv, u->cnt, u->dsp, MPI_INT, root, c,
                       &r[n++]), "igatherv");
    check(MPI_Iscatter(u->sb, 3, MPI_INT, u->sc, 3, MPI_INT, root, c, &r[n++]), "iscatter");
    check(MPI_Iscatterv(u->sb, u->cnt, u->dsp, MPI_INT, u->scv, rank % 3 + 1, MPI_INT, root, c,
                        &r[n++]), "iscatterv");
    check(MPI_Ialltoall(u->sb, 2, MPI_INT, u->a2a, 2, MPI_INT, c, &r[n++]), "ialltoall");
    check(MPI_Ialltoallv(u->sb, u->rc, u->rd, MPI_INT, u->a2av, u->rc, u->rd, MPI_INT, c,
                         &r[n++]), "ialltoallv");
    check(MPI_Ireduce_scatter(u->sb, u->rs, u->rsc, MPI_INT, MPI_SUM, c, &r[n++]),
          "ireduce_scatter");
    check(MPI_Ireduce_scatter_block(u->sb, u->rsb, 2, MPI_INT, MPI_MAX, c, &r[n++]),
          "ireduce_scatter_block");
    check(MPI_Iscan(u->sb, u->scan, 8, MPI_INT, MPI_SUM, c, &r[n++]), "iscan");
    check(MPI_Iexscan(u->sb, u->exscan, 8, MPI_INT, MPI_SUM, c, &r[n++]), "iexscan");
    check(MPI_Irecv(&u->self_out, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &r[n++]), "irecv self");
}

/* Something to do while the collectives progress. */
static double compute(int steps)
{
    double x = 1.0;

    for (int i = 0; i < steps; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

/* Completes r[0..NREQ) with every completion call, mixing in the self
 * send that matches the self receive. */
static void icomplete(MPI_Request *r)
{
    MPI_Request s;
    int idx, flag = 0, outc, outs[NREQ];
    double x = compute(200000);

    check(MPI_Wait(&r[0], MPI_STATUS_IGNORE), "wait");
    while (!flag)
        check(MPI_Test(&r[1], &flag, MPI_STATUS_IGNORE), "test");
    /* MPI-3.1 5.12 makes freeing an active nonblocking collective request
     * erroneous and Open MPI refuses it; encore lets the collective run
     * and frees the request after */
    if (getenv("ENCORE_TRACKER"))
        check(MPI_Request_free(&r[3]), "request_free");
    else
        check(MPI_Wait(&r[3], MPI_STATUS_IGNORE), "wait ibarrier");
    check(MPI_Isend(&wrank, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &s), "isend self");
    check(MPI_Waitall(2, (MPI_Request[]){r[2], s}, MPI_STATUSES_IGNORE), "waitall");
    r[2] = MPI_REQUEST_NULL;
    check(MPI_Waitany(NREQ, r, &idx, MPI_STATUS_IGNORE), "waitany");
    for (flag = 0; !flag;)
        check(MPI_Testany(NREQ, r, &idx, &flag, MPI_STATUS_IGNORE), "testany");
    check(MPI_Waitsome(NREQ, r, &outc, outs, MPI_STATUSES_IGNORE), "waitsome");
    for (flag = 0; !flag;)
        check(MPI_Testall(NREQ, r, &flag, MPI_STATUSES_IGNORE), "testall");
    line("compute %d", x > 1.0);
}

static void icolls(MPI_Comm c, const char *tag)
{
    struct ibufs u;
    MPI_Request r[NREQ];
    int size, rank;

    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    istart(c, &u, r);
    icomplete(r);
    check(MPI_Barrier(c), "barrier after request_free");
    line("%s i sum %d max %d bcast %d self %d", tag, u.sum, u.mx, u.b, u.self_out);
    line("%s i allgather %016llx allgatherv %016llx", tag,
         (unsigned long long)digest(u.ag, sizeof(int) * (size_t)size),
         (unsigned long long)digest(u.agv, sizeof(u.agv)));
    line("%s i gather %016llx gatherv %016llx scatter %d %d scatterv %d %d", tag,
         (unsigned long long)digest(u.g, sizeof(u.g)), (unsigned long long)digest(u.gv, sizeof(u.gv)),
         u.sc[0], u.sc[2], u.scv[0], u.scv[2]);
    line("%s i alltoall %016llx alltoallv %016llx", tag,
         (unsigned long long)digest(u.a2a, sizeof(u.a2a)),
         (unsigned long long)digest(u.a2av, sizeof(u.a2av)));
    line("%s i reduce_scatter %d %d block %d %d scan %d %d exscan %d %d", tag, u.rs[0], u.rs[1],
         u.rsb[0], u.rsb[1], u.scan[0], u.scan[7], rank == 0 ? 0 : u.exscan[0],
         rank == 0 ? 0 : u.exscan[7]);
}

/* Gather, Scatter, Alltoall, Allgather and Igather with a vector datatype
 * (3 ints, stride 2) on one side and MPI_INT on the other. */
static void vectors(MPI_Comm c, const char *tag)
{
    MPI_Datatype v;
    MPI_Request r;
    int size, rank, root, sb[1024], rb[1024];

    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    root = size - 1;
    check(MPI_Type_vector(3, 1, 2, MPI_INT, &v), "type_vector");
    check(MPI_Type_commit(&v), "type_commit");
    for (int i = 0; i < 1024; i++)
        sb[i] = wrank * 1000 + i;
    memset(rb, 0xff, sizeof(rb));
    check(MPI_Gather(sb, 1, v, rb, 3, MPI_INT, root, c), "gather vector");
    line("%s vector gather %016llx", tag, (unsigned long long)digest(rb, sizeof(rb)));
    memset(rb, 0xff, sizeof(rb));
    check(MPI_Scatter(sb, 3, MPI_INT, rb, 1, v, root, c), "scatter vector");
    line("%s vector scatter %016llx", tag, (unsigned long long)digest(rb, 64));
    memset(rb, 0xff, sizeof(rb));
    check(MPI_Alltoall(sb, 1, v, rb, 3, MPI_INT, c), "alltoall vector");
    line("%s vector alltoall %016llx", tag, (unsigned long long)digest(rb, sizeof(rb)));
    memset(rb, 0xff, sizeof(rb));
    check(MPI_Allgather(sb, 3, MPI_INT, rb, 1, v, c), "allgather vector");
    line("%s vector allgather %016llx", tag, (unsigned long long)digest(rb, sizeof(rb)));
    memset(rb, 0xff, sizeof(rb));
    check(MPI_Igather(sb, 1, v, rb, 1, v, 0, c, &r), "igather vector");
    MPI_Type_free(&v); /* allowed while the collective is pending */
    check(MPI_Wait(&r, MPI_STATUS_IGNORE), "wait igather vector");
    line("%s vector igather %016llx", tag, (unsigned long long)digest(rb, sizeof(rb)));
}

static int opt(int argc, char **argv, const char *name, char **val)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0) {
            *val = argv[i + 1];
            return 1;
        }
    return 0;
}

static void creation(void)
{
    MPI_Comm d, di, dd, s, st, cr, cg, und;
    MPI_Request req;
    MPI_Group world, evens;
    int cmp, size, rank, n = (wsize + 1) / 2, ev[64];

    check(MPI_Comm_dup(MPI_COMM_WORLD, &d), "dup");
    check(MPI_Comm_dup_with_info(d, MPI_INFO_NULL, &di), "dup_with_info");
    check(MPI_Comm_idup(di, &dd, &req), "idup");
    check(MPI_Wait(&req, MPI_STATUS_IGNORE), "wait idup");
    check(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &s), "split");
    check(MPI_Comm_split(MPI_COMM_WORLD, wrank == 0 ? MPI_UNDEFINED : 1, 0, &und), "split undef");
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, wrank, MPI_INFO_NULL, &st),
          "split_type");
    check(MPI_Comm_group(MPI_COMM_WORLD, &world), "group");
    for (int i = 0; i < n; i++)
        ev[i] = 2 * i;
    check(MPI_Group_incl(world, n, ev, &evens), "incl");
    check(MPI_Comm_create(MPI_COMM_WORLD, evens, &cr), "create");
    cg = MPI_COMM_NULL;
    if (wrank % 2 == 0)
        check(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, &cg), "create_group");
    line("undefined split null=%d", und == MPI_COMM_NULL);
    MPI_Comm cs[] = {MPI_COMM_WORLD, d, di, dd, s, st, cr, cg, und};
    const char *names[] = {"world", "dup", "dupinfo", "idup", "split", "shared", "create",
                           "cgroup", "undef"};
    for (int i = 0; i < 9; i++) {
        if (cs[i] == MPI_COMM_NULL) {
            line("%s null", names[i]);
            continue;
        }
        MPI_Comm_size(cs[i], &size);
        MPI_Comm_rank(cs[i], &rank);
        check(MPI_Comm_compare(MPI_COMM_WORLD, cs[i], &cmp), "compare");
        int inter = -1;
        MPI_Comm_test_inter(cs[i], &inter);
        line("%s size %d rank %d compare %d inter %d", names[i], size, rank, cmp, inter);
        colls(cs[i], names[i]);
        more_colls(cs[i], names[i]);
        icolls(cs[i], names[i]);
        vectors(cs[i], names[i]);
    }
    check(MPI_Comm_compare(d, di, &cmp), "compare");
    line("dup vs dupinfo %d", cmp);
    for (int i = 1; i < 9; i++)
        if (cs[i] != MPI_COMM_NULL)
            check(MPI_Comm_free(&cs[i]), "free");
    MPI_Group_free(&evens);
    MPI_Group_free(&world);
}

static void errors(void)
{
    MPI_Comm d;
    int x = 0, rv, cls;

    check(MPI_Comm_dup(MPI_COMM_WORLD, &d), "dup");
    check(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN), "set_errhandler");
    rv = MPI_Bcast(&x, 1, MPI_INT, wsize + 5, d);
    MPI_Error_class(rv, &cls);
    line("bad root on dup: error class %s", cls == MPI_ERR_ROOT ? "MPI_ERR_ROOT" : "other");
    MPI_Comm_free(&d);
}

int main(int argc, char **argv)
{
    char *dir;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    out = stdout;
    if (opt(argc, argv, "--out-dir", &dir)) {
        char path[4096];

        snprintf(path, sizeof(path), "%s/rank.%d", dir, wrank);
        if ((out = fopen(path, "w")) == NULL) {
            perror(path);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    creation();
    groups();
    attributes();
    errors();
    fclose(out);
    MPI_Finalize();
    return 0;
}
