/*
 * handle_check.c - the real MPI's special handles (MPI_GROUP_EMPTY,
 * MPI_GROUP_NULL, empty groups from every group constructor, MPI_COMM_NULL,
 * MPI_COMM_SELF, MPI_REQUEST_NULL, MPI_OP_NULL, MPI_ERRHANDLER_NULL,
 * MPI_DATATYPE_NULL) created, compared, translated and freed, for
 * tests/integration/handles.sh: every rank writes "case: result" lines
 * (error classes by name, handles as "empty"/"null"/"other") to
 * --out-dir/rank.R (or stdout),
 * compared exactly between native mpirun and encore-run.  MPI_ERRORS_RETURN
 * is set on MPI_COMM_WORLD and MPI_COMM_SELF first, so erroneous calls return their class;
 * only calls the standard (or Open MPI) defines are made, never a use of a
 * freed handle.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *out;
static int wrank, wsize;

static const char *cls(int rv)
{
    static const struct { int c; const char *name; } t[] = {
        {MPI_SUCCESS, "ok"}, {MPI_ERR_GROUP, "MPI_ERR_GROUP"}, {MPI_ERR_COMM, "MPI_ERR_COMM"},
        {MPI_ERR_RANK, "MPI_ERR_RANK"}, {MPI_ERR_ARG, "MPI_ERR_ARG"},
        {MPI_ERR_OP, "MPI_ERR_OP"}, {MPI_ERR_TYPE, "MPI_ERR_TYPE"},
        {MPI_ERR_REQUEST, "MPI_ERR_REQUEST"}, {MPI_ERR_TAG, "MPI_ERR_TAG"},
        {MPI_ERR_COUNT, "MPI_ERR_COUNT"}, {MPI_ERR_ROOT, "MPI_ERR_ROOT"},
        {MPI_ERR_OTHER, "MPI_ERR_OTHER"}, {MPI_ERR_INTERN, "MPI_ERR_INTERN"},
    };
    static char buf[32];
    int c = rv;

    MPI_Error_class(rv, &c);
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (t[i].c == c)
            return t[i].name;
    snprintf(buf, sizeof(buf), "class %d", c);
    return buf;
}

static const char *gname(MPI_Group g)
{
    return g == MPI_GROUP_EMPTY ? "empty" : g == MPI_GROUP_NULL ? "null" : "other";
}

static const char *cmpname(int r)
{
    return r == MPI_IDENT ? "ident" : r == MPI_CONGRUENT ? "congruent"
         : r == MPI_SIMILAR ? "similar" : r == MPI_UNEQUAL ? "unequal" : "?";
}

static const char *rk(int r)
{
    static char buf[4][16];
    static int k;

    k = (k + 1) % 4;
    if (r == MPI_UNDEFINED)
        return "undef";
    if (r == MPI_PROC_NULL)
        return "procnull";
    snprintf(buf[k], sizeof(buf[k]), "%d", r);
    return buf[k];
}

#define SAY(...) do { fprintf(out, __VA_ARGS__); fputc('\n', out); } while (0)

/* A group and its freeing, as a program sees them. */
static void show_free(const char *what, int rv, MPI_Group g)
{
    const char *is = gname(g);
    int size = -1, rank = -2, frv;

    if (rv == MPI_SUCCESS) {
        MPI_Group_size(g, &size);
        MPI_Group_rank(g, &rank);
    }
    frv = rv == MPI_SUCCESS ? MPI_Group_free(&g) : MPI_SUCCESS;
    SAY("%s: %s is=%s size=%d rank=%s free=%s after=%s", what, cls(rv), is, size, rk(rank),
        cls(frv), gname(g));
}

static void empty_groups(MPI_Group w)
{
    MPI_Group g, e1, e2, evens, odds;
    int all[1] = {0}, *ranks = malloc(sizeof(int) * (size_t)wsize);
    int r0[1][3] = {{0, wsize - 1, 1}}, rv, k = 0;

    for (int i = 0; i < wsize; i++)
        ranks[i] = i;
    for (int i = 0; i < wsize; i += 2)
        ranks[k++] = i;
    MPI_Group_incl(w, k, ranks, &evens);
    MPI_Group_excl(w, k, ranks, &odds);
    for (int i = 0; i < wsize; i++)
        ranks[i] = i;
    rv = MPI_Group_incl(w, 0, all, &g);
    show_free("incl 0", rv, g);
    rv = MPI_Group_excl(w, wsize, ranks, &g);
    show_free("excl all", rv, g);
    rv = MPI_Group_range_incl(w, 0, r0, &g);
    show_free("range_incl 0", rv, g);
    rv = MPI_Group_range_excl(w, 1, r0, &g);
    show_free("range_excl all", rv, g);
    rv = MPI_Group_union(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY, &g);
    show_free("union empty empty", rv, g);
    rv = MPI_Group_intersection(w, MPI_GROUP_EMPTY, &g);
    show_free("intersection w empty", rv, g);
    rv = MPI_Group_intersection(evens, odds, &g);
    show_free("intersection evens odds", rv, g);
    rv = MPI_Group_difference(w, w, &g);
    show_free("difference w w", rv, g);
    rv = MPI_Group_difference(MPI_GROUP_EMPTY, w, &g);
    show_free("difference empty w", rv, g);
    rv = MPI_Group_incl(MPI_GROUP_EMPTY, 0, all, &g);
    show_free("incl of empty", rv, g);
    rv = MPI_Group_excl(MPI_GROUP_EMPTY, 0, all, &g);
    show_free("excl of empty", rv, g);
    rv = MPI_Group_union(w, MPI_GROUP_EMPTY, &g);
    show_free("union w empty", rv, g);
    rv = MPI_Group_union(evens, odds, &g);
    show_free("union evens odds", rv, g);

    /* many empty groups made and freed: each free must be balanced */
    for (int i = 0; i < 1000; i++) {
        if ((rv = MPI_Group_incl(w, 0, all, &e1)) != MPI_SUCCESS ||
            (rv = MPI_Group_difference(w, w, &e2)) != MPI_SUCCESS ||
            (rv = MPI_Group_free(&e1)) != MPI_SUCCESS || (rv = MPI_Group_free(&e2)) != MPI_SUCCESS)
            break;
    }
    SAY("1000 empty groups made and freed: %s", cls(rv));

    /* compare and translate with empty groups */
    MPI_Group_incl(w, 0, all, &e1);
    MPI_Group_difference(evens, w, &e2);
    {
        int c1, c2, c3, c4, t[3] = {-7, -7, -7}, from[3] = {0, MPI_PROC_NULL, 0}, size, rank;

        MPI_Group_compare(e1, MPI_GROUP_EMPTY, &c1);
        MPI_Group_compare(e1, e2, &c2);
        MPI_Group_compare(MPI_GROUP_EMPTY, w, &c3);
        MPI_Group_compare(w, e2, &c4);
        SAY("compare e1 EMPTY %s, e1 e2 %s, EMPTY w %s, w e2 %s", cmpname(c1), cmpname(c2),
            cmpname(c3), cmpname(c4));
        rv = MPI_Group_translate_ranks(w, 2, from, MPI_GROUP_EMPTY, t);
        SAY("translate w->EMPTY %s: %s %s", cls(rv), rk(t[0]), rk(t[1]));
        rv = MPI_Group_translate_ranks(w, 2, from, e1, t);
        SAY("translate w->e1 %s: %s %s", cls(rv), rk(t[0]), rk(t[1]));
        rv = MPI_Group_translate_ranks(e2, 2, from, w, t);
        SAY("translate e2->w %s: %s %s", cls(rv), rk(t[0]), rk(t[1]));
        rv = MPI_Group_translate_ranks(w, 2, from, w, t);
        SAY("translate w->w %s: %s %s", cls(rv), rk(t[0]), rk(t[1]));
        t[0] = -7;
        rv = MPI_Group_translate_ranks(w, 0, from, evens, t);
        SAY("translate 0 ranks %s: %d", cls(rv), t[0]);
        MPI_Group_size(e1, &size);
        MPI_Group_rank(e1, &rank);
        SAY("empty size %d rank %s", size, rk(rank));
    }
    MPI_Group_free(&e1);
    MPI_Group_free(&e2);
    MPI_Group_free(&evens);
    MPI_Group_free(&odds);
    free(ranks);
}

static void bad_groups(MPI_Group w)
{
    MPI_Group g = MPI_GROUP_NULL, n = MPI_GROUP_NULL;
    int r[2] = {0, wsize}, t[1], x, rv;
    int stride0[1][3] = {{0, 0, 0}};

    rv = MPI_Group_free(&n);
    SAY("free GROUP_NULL: %s", cls(rv));
    SAY("size GROUP_NULL: %s", cls(MPI_Group_size(MPI_GROUP_NULL, &x)));
    SAY("rank GROUP_NULL: %s", cls(MPI_Group_rank(MPI_GROUP_NULL, &x)));
    SAY("incl GROUP_NULL: %s", cls(MPI_Group_incl(MPI_GROUP_NULL, 0, r, &g)));
    SAY("union w GROUP_NULL: %s", cls(MPI_Group_union(w, MPI_GROUP_NULL, &g)));
    SAY("difference GROUP_NULL w: %s", cls(MPI_Group_difference(MPI_GROUP_NULL, w, &g)));
    SAY("compare w GROUP_NULL: %s", cls(MPI_Group_compare(w, MPI_GROUP_NULL, &x)));
    SAY("translate w->GROUP_NULL: %s", cls(MPI_Group_translate_ranks(w, 1, r, MPI_GROUP_NULL, t)));
    SAY("translate n=-1: %s", cls(MPI_Group_translate_ranks(w, -1, r, w, t)));
    SAY("incl rank out of range: %s", cls(MPI_Group_incl(w, 1, r + 1, &g)));
    SAY("incl n > size: %s", cls(MPI_Group_incl(w, wsize + 1, r, &g)));
    SAY("excl rank out of range: %s", cls(MPI_Group_excl(w, 1, r + 1, &g)));
    SAY("range_incl stride 0: %s", cls(MPI_Group_range_incl(w, 1, stride0, &g)));
    SAY("range_excl stride 0: %s", cls(MPI_Group_range_excl(w, 1, stride0, &g)));
    SAY("comm_group COMM_NULL: %s", cls(MPI_Comm_group(MPI_COMM_NULL, &g)));
    SAY("untouched output: %s", gname(g));
}

/* Groups the real MPI made from MPI_COMM_SELF with groups of the world. */
static void self_groups(MPI_Group w)
{
    MPI_Group s, u, d;
    int c, t[1], zero[1] = {0}, size, rank, rv;

    MPI_Comm_group(MPI_COMM_SELF, &s);
    MPI_Group_compare(s, w, &c);
    SAY("compare self w: %s", cmpname(c));
    rv = MPI_Group_translate_ranks(s, 1, zero, w, t);
    SAY("translate self->w: %s %s", cls(rv), rv == MPI_SUCCESS ? rk(t[0]) : "-");
    t[0] = wrank;
    rv = MPI_Group_translate_ranks(w, 1, t, s, t);
    SAY("translate w->self: %s %s", cls(rv), rv == MPI_SUCCESS ? rk(t[0]) : "-");
    rv = MPI_Group_union(s, w, &u);
    if (rv == MPI_SUCCESS) {
        MPI_Group_size(u, &size);
        MPI_Group_rank(u, &rank);
        MPI_Group_compare(u, w, &c);
        SAY("union self w: size %d rank %s vs w %s", size, rk(rank), cmpname(c));
        MPI_Group_free(&u);
    } else
        SAY("union self w: %s", cls(rv));
    rv = MPI_Group_difference(w, s, &d);
    if (rv == MPI_SUCCESS) {
        MPI_Group_size(d, &size);
        MPI_Group_rank(d, &rank);
        SAY("difference w self: size %d rank %s is %s", size, rk(rank), gname(d));
        MPI_Group_free(&d);
    } else
        SAY("difference w self: %s", cls(rv));
    MPI_Group_free(&s);
}

static void comms(MPI_Group w)
{
    MPI_Comm c = MPI_COMM_NULL, d, sd, n;
    MPI_Group g, e;
    int r, rv, zero[1] = {0};

    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Comm_dup(MPI_COMM_SELF, &sd);
    SAY("compare WORLD COMM_NULL: %s", cls(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &r)));
    SAY("compare COMM_NULL d: %s", cls(MPI_Comm_compare(MPI_COMM_NULL, d, &r)));
    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &r);
    SAY("compare WORLD SELF: %s", cmpname(r));
    MPI_Comm_compare(MPI_COMM_SELF, d, &r);
    SAY("compare SELF d: %s", cmpname(r));
    MPI_Comm_compare(sd, MPI_COMM_WORLD, &r);
    SAY("compare dup(SELF) WORLD: %s", cmpname(r));
    MPI_Comm_compare(d, MPI_COMM_WORLD, &r);
    SAY("compare d WORLD: %s", cmpname(r));
    MPI_Comm_compare(d, d, &r);
    SAY("compare d d: %s", cmpname(r));
    n = MPI_COMM_NULL;
    SAY("free COMM_NULL: %s", cls(MPI_Comm_free(&n)));
    n = MPI_COMM_WORLD;
    SAY("free WORLD: %s", cls(MPI_Comm_free(&n)));
    n = MPI_COMM_SELF;
    SAY("free SELF: %s", cls(MPI_Comm_free(&n)));
    SAY("dup COMM_NULL: %s", cls(MPI_Comm_dup(MPI_COMM_NULL, &n)));
    SAY("size COMM_NULL: %s", cls(MPI_Comm_size(MPI_COMM_NULL, &r)));

    rv = MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c);
    SAY("create GROUP_EMPTY: %s %s", cls(rv), c == MPI_COMM_NULL ? "null" : "comm");
    MPI_Group_incl(w, 0, zero, &e);
    rv = MPI_Comm_create(MPI_COMM_WORLD, e, &c);
    SAY("create empty incl: %s %s", cls(rv), c == MPI_COMM_NULL ? "null" : "comm");
    c = MPI_COMM_SELF;
    rv = MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_EMPTY, 5, &c);
    SAY("create_group GROUP_EMPTY: %s %s", cls(rv), c == MPI_COMM_NULL ? "null" : "comm");
    c = MPI_COMM_SELF;
    rv = MPI_Comm_create_group(MPI_COMM_WORLD, e, 5, &c);
    SAY("create_group empty incl: %s %s", cls(rv), c == MPI_COMM_NULL ? "null" : "comm");
    c = MPI_COMM_SELF;
    rv = MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 5, &c);
    SAY("create_group GROUP_NULL: %s %s", cls(rv), c == MPI_COMM_NULL ? "null" : "comm");
    MPI_Group_free(&e);
    /* the group of the other ranks: this one is not in it */
    MPI_Group_excl(w, 1, &wrank, &g);
    c = MPI_COMM_SELF;
    rv = MPI_Comm_create_group(MPI_COMM_WORLD, g, 6, &c);
    SAY("create_group without me: %s %s", cls(rv), c == MPI_COMM_NULL ? "null" : "comm");
    if (c != MPI_COMM_NULL && c != MPI_COMM_SELF)
        MPI_Comm_free(&c);
    MPI_Group_free(&g);
    rv = MPI_Comm_create_group(MPI_COMM_WORLD, w, -1, &c);
    SAY("create_group tag -1: %s", cls(rv));
    /* a group of one: this rank's, from MPI_COMM_SELF */
    MPI_Comm_group(MPI_COMM_SELF, &g);
    rv = MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &c);
    if (rv == MPI_SUCCESS && c != MPI_COMM_NULL) {
        int size, cr;

        MPI_Comm_size(c, &size);
        MPI_Comm_compare(c, MPI_COMM_SELF, &cr);
        SAY("create_group self group: size %d vs SELF %s", size, cmpname(cr));
        MPI_Comm_free(&c);
        SAY("freed: %s", c == MPI_COMM_NULL ? "null" : "comm");
    } else
        SAY("create_group self group: %s", cls(rv));
    MPI_Group_free(&g);
    rv = MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, &c);
    SAY("split UNDEFINED: %s %s", cls(rv), c == MPI_COMM_NULL ? "null" : "comm");
    MPI_Comm_free(&d);
    SAY("free d: %s", d == MPI_COMM_NULL ? "null" : "comm");
    MPI_Comm_free(&sd);
}

static void requests(void)
{
    MPI_Request q = MPI_REQUEST_NULL, a[3];
    MPI_Status st;
    MPI_Comm d;
    int flag = -1, idx = -2, count = -1, rv;

    SAY("request_free REQUEST_NULL: %s", cls(MPI_Request_free(&q)));
    rv = MPI_Wait(&q, &st);
    MPI_Get_count(&st, MPI_BYTE, &count);
    SAY("wait REQUEST_NULL: %s src %s tag %d count %d", cls(rv), rk(st.MPI_SOURCE), st.MPI_TAG,
        count);
    rv = MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
    SAY("test REQUEST_NULL: %s flag %d", cls(rv), flag);
    a[0] = a[1] = a[2] = MPI_REQUEST_NULL;
    rv = MPI_Waitany(3, a, &idx, MPI_STATUS_IGNORE);
    SAY("waitany all null: %s index %s", cls(rv), rk(idx));
    MPI_Ibarrier(MPI_COMM_WORLD, &a[1]);
    rv = MPI_Waitall(3, a, MPI_STATUSES_IGNORE);
    SAY("waitall with nulls: %s after %d %d %d", cls(rv), a[0] == MPI_REQUEST_NULL,
        a[1] == MPI_REQUEST_NULL, a[2] == MPI_REQUEST_NULL);
    MPI_Comm_idup(MPI_COMM_WORLD, &d, &q);
    for (flag = 0; !flag;)
        MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
    SAY("idup test: %s", q == MPI_REQUEST_NULL ? "null" : "request");
    MPI_Ibarrier(d, &q);
    rv = MPI_Wait(&q, MPI_STATUS_IGNORE);
    SAY("wait ibarrier: %s %s", cls(rv), q == MPI_REQUEST_NULL ? "null" : "request");
    rv = MPI_Wait(&q, MPI_STATUS_IGNORE);
    SAY("wait again: %s %s", cls(rv), q == MPI_REQUEST_NULL ? "null" : "request");
    MPI_Comm_free(&d);
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void user_max(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++)
        if (((int *)in)[i] > ((int *)inout)[i])
            ((int *)inout)[i] = ((int *)in)[i];
}

static void ops(void)
{
    MPI_Op o = MPI_OP_NULL, a, b;
    int x = wrank + 1, y = 0, rv;

    SAY("op_free OP_NULL: %s", cls(MPI_Op_free(&o)));
    o = MPI_SUM;
    SAY("op_free SUM: %s", cls(MPI_Op_free(&o)));
    MPI_Op_create(user_sum, 1, &a);
    MPI_Op_free(&a);
    SAY("op freed: %s", a == MPI_OP_NULL ? "null" : "op");
    MPI_Op_create(user_max, 1, &b);
    rv = MPI_Allreduce(&x, &y, 1, MPI_INT, b, MPI_COMM_WORLD);
    SAY("allreduce second op: %s %d", cls(rv), y);
    MPI_Op_free(&b);
    SAY("allreduce OP_NULL: %s", cls(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL,
                                                      MPI_COMM_WORLD)));
}

static int handled;
static MPI_Comm handled_comm;

static void on_error(MPI_Comm *c, int *code, ...)
{
    (void)code;
    handled++;
    handled_comm = *c;
}

static void errhandlers(void)
{
    MPI_Errhandler e, mine;
    MPI_Comm d;
    MPI_Group w, g;
    int x = 0, bad = wsize, rv;

    SAY("set ERRHANDLER_NULL: %s",
        cls(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL)));
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Comm_get_errhandler(d, &e);
    SAY("dup inherits: %s", e == MPI_ERRORS_RETURN ? "ERRORS_RETURN" : "other");
    MPI_Errhandler_free(&e);
    SAY("errhandler freed: %s", e == MPI_ERRHANDLER_NULL ? "null" : "errhandler");
    MPI_Comm_create_errhandler(on_error, &mine);
    MPI_Comm_set_errhandler(d, mine);
    handled = 0;
    rv = MPI_Bcast(&x, 1, MPI_INT, bad, d);
    SAY("bcast bad root on d: %s handled %d on d %d", cls(rv), handled, handled_comm == d);
    rv = MPI_Comm_call_errhandler(d, MPI_ERR_OTHER);
    SAY("call_errhandler d: %s handled %d", cls(rv), handled);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, mine);
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    handled = 0;
    rv = MPI_Group_incl(w, 1, &bad, &g);
    SAY("incl bad rank, handler on world: %s handled %d on world %d", cls(rv), handled,
        handled_comm == MPI_COMM_WORLD);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&mine);
    MPI_Group_free(&w);
    MPI_Comm_free(&d);
}

static void datatypes(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL, v;
    int x[4] = {wrank, 1, 2, 3}, y[4] = {0};

    SAY("allreduce DATATYPE_NULL: %s",
        cls(MPI_Allreduce(x, y, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD)));
    SAY("bcast DATATYPE_NULL: %s", cls(MPI_Bcast(x, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD)));
    SAY("allgather DATATYPE_NULL: %s",
        cls(MPI_Allgather(x, 1, MPI_DATATYPE_NULL, y, 1, MPI_INT, MPI_COMM_WORLD)));
    SAY("allreduce count -1: %s", cls(MPI_Allreduce(x, y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)));
    SAY("allreduce count -1 OP_NULL: %s",
        cls(MPI_Allreduce(x, y, -1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD)));
    SAY("bcast count -1 DATATYPE_NULL: %s",
        cls(MPI_Bcast(x, -1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD)));
    t = MPI_INT;
    SAY("type_free INT: %s", cls(MPI_Type_free(&t)));
    MPI_Type_contiguous(2, MPI_INT, &v);
    MPI_Type_commit(&v);
    MPI_Bcast(x, 2, v, 0, MPI_COMM_WORLD);
    SAY("bcast derived: %d %d %d %d", x[0], x[1], x[2], x[3]);
    SAY("allreduce SUM on derived: %s", cls(MPI_Allreduce(x, y, 1, v, MPI_SUM, MPI_COMM_WORLD)));
    MPI_Type_free(&v);
    SAY("type freed: %s", v == MPI_DATATYPE_NULL ? "null" : "type");
}

int main(int argc, char **argv)
{
    MPI_Group w;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    out = stdout;
    if (argc == 3 && strcmp(argv[1], "--out-dir") == 0) {
        char path[4096];

        snprintf(path, sizeof(path), "%s/rank.%d", argv[2], wrank);
        if ((out = fopen(path, "w")) == NULL) {
            perror(path);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    setvbuf(out, NULL, _IOLBF, 0); /* lines before a crash are kept */
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    empty_groups(w);
    bad_groups(w);
    self_groups(w);
    comms(w);
    requests();
    ops();
    errhandlers();
    datatypes();
    MPI_Group_free(&w);
    SAY("group freed: %s", gname(w));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    SAY("done");
    fclose(out);
    return 0;
}
