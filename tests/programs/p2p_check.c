/*
 * p2p_check - point-to-point on the world and on a derived communicator,
 * each case checked exactly by the program (a wrong value prints
 * "rank R: FAIL ..." and the run exits 1); every rank prints one line per
 * case, so tests/integration/p2p_basic.sh compares the sorted output with
 * native Open MPI's.  Needs at least 2 ranks.
 *   p2p_check [big]   big: the bytes of the large exchange (default 4 MiB)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

static int rank, size, failed;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond)) {                                                      \
            printf("rank %d: FAIL line %d: ", rank, __LINE__);              \
            printf(__VA_ARGS__);                                            \
            printf("\n");                                                   \
            failed = 1;                                                     \
        }                                                                   \
    } while (0)

/* This rank's place on comm and its ring neighbours. */
static void place(MPI_Comm comm, int *r, int *n, int *next, int *prev)
{
    MPI_Comm_rank(comm, r);
    MPI_Comm_size(comm, n);
    *next = (*r + 1) % *n;
    *prev = (*r + *n - 1) % *n;
}

static void ok(const char *what, MPI_Comm comm)
{
    int r;

    MPI_Comm_rank(comm, &r);
    printf("rank %d: %s ok (rank %d there)\n", rank, what, r);
}

/* Ring: blocking Send/Recv in both directions, non-overtaking of 5
 * messages with one tag, Get_count. */
static void ring(MPI_Comm comm)
{
    int r, n, next, prev, v[5], got;
    MPI_Status st;

    place(comm, &r, &n, &next, &prev);
    if (r % 2 == 0) {
        for (int i = 0; i < 5; i++) {
            v[i] = r * 100 + i;
            MPI_Send(&v[i], 1, MPI_INT, next, 7, comm);
        }
        for (int i = 0; i < 5; i++) {
            MPI_Recv(&got, 1, MPI_INT, prev, 7, comm, &st);
            CHECK(got == prev * 100 + i, "ring got %d want %d", got, prev * 100 + i);
        }
    } else {
        for (int i = 0; i < 5; i++) {
            MPI_Recv(&got, 1, MPI_INT, prev, 7, comm, &st);
            CHECK(got == prev * 100 + i, "ring got %d want %d", got, prev * 100 + i);
        }
        for (int i = 0; i < 5; i++) {
            v[i] = r * 100 + i;
            MPI_Send(&v[i], 1, MPI_INT, next, 7, comm);
        }
    }
    MPI_Get_count(&st, MPI_INT, &got);
    CHECK(got == 1 && st.MPI_SOURCE == prev && st.MPI_TAG == 7, "status %d %d %d", got,
          st.MPI_SOURCE, st.MPI_TAG);
    ok("ring", comm);
}

/* Everyone sends to 0, which receives with ANY_SOURCE / ANY_TAG. */
static void gather_any(MPI_Comm comm)
{
    int r, n, sum = 0, v;
    MPI_Status st;

    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    if (r != 0) {
        v = r * r;
        MPI_Send(&v, 1, MPI_INT, 0, r, comm);
    } else {
        for (int i = 1; i < n; i++) {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
            CHECK(v == st.MPI_SOURCE * st.MPI_SOURCE && st.MPI_TAG == st.MPI_SOURCE,
                  "any: %d from %d tag %d", v, st.MPI_SOURCE, st.MPI_TAG);
            sum += v;
        }
        CHECK(sum == (n - 1) * n * (2 * n - 1) / 6, "sum %d", sum);
    }
    MPI_Barrier(comm); /* the wildcard receives must not see the next case's messages */
    ok("any_source", comm);
}

/* Isend/Irecv with a nonblocking collective in one Waitall; Waitany and
 * Testsome over receives. */
static void nonblocking(MPI_Comm comm)
{
    int r, n, next, prev, out[3], in[3] = {0, 0, 0}, red = 0, one = 1, idx, outc, idxs[3];
    MPI_Request req[5];

    place(comm, &r, &n, &next, &prev);
    for (int i = 0; i < 2; i++) {
        out[i] = r * 10 + i;
        MPI_Irecv(&in[i], 1, MPI_INT, prev, 20 + i, comm, &req[i]);
    }
    MPI_Iallreduce(&one, &red, 1, MPI_INT, MPI_SUM, comm, &req[2]);
    for (int i = 0; i < 2; i++)
        MPI_Isend(&out[i], 1, MPI_INT, next, 20 + i, comm, &req[3 + i]);
    MPI_Waitall(5, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 2; i++)
        CHECK(in[i] == prev * 10 + i, "nb in %d", in[i]);
    CHECK(red == n, "iallreduce %d", red);

    for (int i = 0; i < 3; i++) {
        out[i] = r + i;
        MPI_Irecv(&in[i], 1, MPI_INT, prev, 30 + i, comm, &req[i]);
    }
    for (int i = 2; i >= 0; i--)
        MPI_Send(&out[i], 1, MPI_INT, next, 30 + i, comm);
    MPI_Waitany(3, req, &idx, MPI_STATUS_IGNORE);
    CHECK(idx >= 0 && idx < 3 && in[idx] == prev + idx, "waitany %d", idx);
    for (int left = 2; left > 0; left -= outc > 0 ? outc : 0) {
        MPI_Testsome(3, req, &outc, idxs, MPI_STATUSES_IGNORE);
        if (outc == MPI_UNDEFINED)
            break;
    }
    for (int i = 0; i < 3; i++)
        CHECK(in[i] == prev + i && req[i] == MPI_REQUEST_NULL, "testsome %d", i);
    ok("nonblocking", comm);
}

/* Large messages both ways at once (no deadlock), Sendrecv and Isend+Irecv. */
static void large(MPI_Comm comm, size_t big)
{
    int r, n, next, prev;
    size_t cnt = big / sizeof(int);
    int *a = malloc(cnt * sizeof(int)), *b = malloc(cnt * sizeof(int));
    MPI_Request q[2];
    MPI_Status st;
    int c;

    place(comm, &r, &n, &next, &prev);
    for (size_t i = 0; i < cnt; i++)
        a[i] = (int)(i * 3 + (size_t)r);
    MPI_Sendrecv(a, (int)cnt, MPI_INT, next, 1, b, (int)cnt, MPI_INT, prev, 1, comm, &st);
    MPI_Get_count(&st, MPI_INT, &c);
    CHECK(c == (int)cnt, "sendrecv count %d", c);
    for (size_t i = 0; i < cnt; i += 997)
        CHECK(b[i] == (int)(i * 3 + (size_t)prev), "sendrecv b[%zu] %d", i, b[i]);
    memset(b, 0, cnt * sizeof(int));
    MPI_Irecv(b, (int)cnt, MPI_INT, next, 2, comm, &q[0]);
    MPI_Isend(a, (int)cnt, MPI_INT, prev, 2, comm, &q[1]);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    for (size_t i = 0; i < cnt; i += 997)
        CHECK(b[i] == (int)(i * 3 + (size_t)next), "isend b[%zu] %d", i, b[i]);
    free(a);
    free(b);
    ok("large", comm);
}

/* Ssend, Bsend with an attached buffer, Rsend to a posted receive,
 * Sendrecv_replace, self messages. */
static void modes(MPI_Comm comm)
{
    int r, n, next, prev, v, got = -1, pack;
    MPI_Request q;
    void *buf, *det;
    int detsize;

    place(comm, &r, &n, &next, &prev);
    v = r + 1000;
    MPI_Irecv(&got, 1, MPI_INT, prev, 40, comm, &q);
    MPI_Ssend(&v, 1, MPI_INT, next, 40, comm);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    CHECK(got == prev + 1000, "ssend %d", got);

    MPI_Pack_size(1, MPI_INT, comm, &pack);
    pack += MPI_BSEND_OVERHEAD;
    buf = malloc((size_t)pack);
    MPI_Buffer_attach(buf, pack);
    MPI_Bsend(&v, 1, MPI_INT, next, 41, comm);
    MPI_Recv(&got, 1, MPI_INT, prev, 41, comm, MPI_STATUS_IGNORE);
    MPI_Buffer_detach(&det, &detsize);
    CHECK(got == prev + 1000 && det == buf && detsize == pack, "bsend %d", got);
    free(buf);

    MPI_Irecv(&got, 1, MPI_INT, prev, 42, comm, &q);
    MPI_Barrier(comm);
    MPI_Rsend(&v, 1, MPI_INT, next, 42, comm);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    CHECK(got == prev + 1000, "rsend %d", got);

    v = r;
    MPI_Sendrecv_replace(&v, 1, MPI_INT, next, 43, prev, 43, comm, MPI_STATUS_IGNORE);
    CHECK(v == prev, "replace %d", v);

    v = r * 7;
    MPI_Sendrecv(&v, 1, MPI_INT, r, 44, &got, 1, MPI_INT, r, 44, comm, MPI_STATUS_IGNORE);
    CHECK(got == r * 7, "self %d", got);
    ok("modes", comm);
}

/* PROC_NULL, zero-size messages, Probe/Iprobe with Get_count, a vector
 * type received as contiguous, truncation, Cancel of a receive. */
static void edges(MPI_Comm comm)
{
    int r, n, next, prev, v = 5, flag = 0, c, vec[6], flat[3] = {0, 0, 0}, small = 0;
    MPI_Datatype stride2;
    MPI_Status st;
    MPI_Request q;

    place(comm, &r, &n, &next, &prev);
    MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, comm);
    MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, comm, &st);
    MPI_Get_count(&st, MPI_INT, &c);
    CHECK(v == 5 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && c == 0,
          "proc_null");

    MPI_Send(NULL, 0, MPI_INT, next, 50, comm);
    MPI_Probe(prev, 50, comm, &st);
    MPI_Get_count(&st, MPI_INT, &c);
    CHECK(c == 0 && st.MPI_SOURCE == prev, "zero probe %d", c);
    MPI_Recv(NULL, 0, MPI_INT, prev, 50, comm, &st);

    for (int i = 0; i < 6; i++)
        vec[i] = r * 10 + i;
    MPI_Type_vector(3, 1, 2, MPI_INT, &stride2);
    MPI_Type_commit(&stride2);
    MPI_Send(vec, 1, stride2, next, 51, comm);
    while (!flag)
        MPI_Iprobe(MPI_ANY_SOURCE, 51, comm, &flag, &st);
    MPI_Get_count(&st, MPI_INT, &c);
    CHECK(c == 3 && st.MPI_SOURCE == prev, "iprobe count %d src %d", c, st.MPI_SOURCE);
    MPI_Recv(flat, 3, MPI_INT, prev, 51, comm, MPI_STATUS_IGNORE);
    CHECK(flat[0] == prev * 10 && flat[1] == prev * 10 + 2 && flat[2] == prev * 10 + 4,
          "vector %d %d %d", flat[0], flat[1], flat[2]);
    MPI_Send(flat, 3, MPI_INT, prev, 52, comm);
    for (int i = 0; i < 6; i++)
        vec[i] = -1;
    MPI_Recv(vec, 1, stride2, next, 52, comm, MPI_STATUS_IGNORE);
    CHECK(vec[0] == r * 10 && vec[1] == -1 && vec[2] == r * 10 + 2 && vec[4] == r * 10 + 4,
          "unpack %d %d %d", vec[0], vec[2], vec[4]);
    MPI_Type_free(&stride2);

    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Send(flat, 3, MPI_INT, next, 53, comm);
    c = MPI_Recv(&small, 1, MPI_INT, prev, 53, comm, &st);
    MPI_Error_class(c, &c);
    CHECK(c == MPI_ERR_TRUNCATE, "truncate class %d", c);

    MPI_Irecv(&v, 1, MPI_INT, prev, 54, comm, &q);
    MPI_Cancel(&q);
    MPI_Wait(&q, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag == 1, "cancelled %d", flag);
    ok("edges", comm);
}

/* Persistent requests started three times (Startall, Start, Waitall,
 * Test of an inactive one), matched probes and their receives. */
static void persistent(MPI_Comm comm)
{
    int r, n, next, prev, out = 0, in = -1, flag = 0, c, v[2];
    MPI_Request q[3];
    MPI_Message msg;
    MPI_Status st;

    place(comm, &r, &n, &next, &prev);
    MPI_Recv_init(&in, 1, MPI_INT, prev, 60, comm, &q[0]);
    MPI_Send_init(&out, 1, MPI_INT, next, 60, comm, &q[1]);
    MPI_Ssend_init(&out, 1, MPI_INT, next, 62, comm, &q[2]);
    for (int it = 0; it < 3; it++) {
        out = r * 100 + it;
        MPI_Startall(2, q);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        CHECK(in == prev * 100 + it && q[0] != MPI_REQUEST_NULL, "persistent %d: %d", it, in);
    }
    MPI_Test(&q[0], &flag, &st);
    CHECK(flag == 1, "inactive test %d", flag);
    MPI_Request_free(&q[0]);
    MPI_Irecv(&in, 1, MPI_INT, prev, 62, comm, &q[0]);
    MPI_Start(&q[2]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Wait(&q[2], MPI_STATUS_IGNORE);
    CHECK(in == prev * 100 + 2, "ssend_init %d", in);
    MPI_Request_free(&q[1]);
    MPI_Request_free(&q[2]);

    v[0] = r;
    v[1] = -r;
    MPI_Send(v, 2, MPI_INT, next, 61, comm);
    MPI_Mprobe(prev, 61, comm, &msg, &st);
    MPI_Get_count(&st, MPI_INT, &c);
    CHECK(c == 2 && st.MPI_SOURCE == prev, "mprobe %d", c);
    MPI_Mrecv(v, 2, MPI_INT, &msg, MPI_STATUS_IGNORE);
    CHECK(v[0] == prev && v[1] == -prev && msg == MPI_MESSAGE_NULL, "mrecv %d", v[0]);
    MPI_Send(v, 2, MPI_INT, prev, 63, comm);
    for (flag = 0; !flag;)
        MPI_Improbe(MPI_ANY_SOURCE, 63, comm, &flag, &msg, &st);
    MPI_Imrecv(v, 2, MPI_INT, &msg, &q[0]);
    MPI_Wait(&q[0], &st);
    CHECK(v[0] == r && st.MPI_SOURCE == next && st.MPI_TAG == 63, "imrecv %d", v[0]);
    ok("persistent", comm);
}

int main(int argc, char **argv)
{
    size_t big = argc > 1 ? (size_t)atol(argv[1]) : 4u << 20;
    MPI_Comm half;

    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        printf("p2p_check needs 2 ranks or more\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
    ring(MPI_COMM_WORLD);
    gather_any(MPI_COMM_WORLD);
    nonblocking(MPI_COMM_WORLD);
    large(MPI_COMM_WORLD, big);
    modes(MPI_COMM_WORLD);
    ring(half);
    gather_any(half);
    nonblocking(half);
    modes(half);
    persistent(MPI_COMM_WORLD);
    persistent(half);
    edges(half);
    edges(MPI_COMM_WORLD);
    MPI_Comm_free(&half);
    printf("rank %d: %s\n", rank, failed ? "FAILED" : "all ok");
    MPI_Finalize();
    return failed;
}
