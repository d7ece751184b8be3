/*
 * inter_p2p.c - point-to-point on intercommunicators, for
 * tests/integration/inter.sh (any size from 2).
 *
 *   inter_p2p checks      every rank's lines, printed by rank 0 in rank
 *                         order (compared exactly with native Open MPI's)
 *   inter_p2p loop N      N iterations of an exchange over the
 *                         intercommunicator; each rank prints one line at
 *                         the end (the recovery cases compare it),
 *                         world rank 0 the remote sum every 500
 *
 * Both split the world by parity and join the halves with
 * MPI_Intercomm_create (bridge: the world; leaders world ranks 0 and 1).
 * checks: Send/Recv to and from every remote rank (source named, then
 * MPI_ANY_SOURCE/MPI_ANY_TAG, each status's source, tag and count),
 * Sendrecv and Sendrecv_replace between local rank l and remote rank l
 * (MPI_PROC_NULL past the smaller group), Isend/Issend/Irecv/Waitall,
 * Ssend, Probe/Iprobe/Mprobe/Mrecv by MPI_ANY_SOURCE, persistent
 * Send_init/Recv_init started twice, an invalid remote rank refused, the
 * contexts kept apart (one tag on the intercommunicator, its dup and the
 * merged intracommunicator, received in the opposite order), and an
 * intercommunicator over MPI_COMM_SELF between world ranks 0 and 1.
 * loop: per iteration every rank sends its value to every remote rank and
 * receives theirs by MPI_ANY_SOURCE (placed by status source, combined in
 * rank order), then an intercommunicator MPI_Allreduce; collective
 * numbers (encore-run --inject ...:op=K): the split and the creation
 * come first, then 2 per iteration (the Allreduce's).
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank_lines.h"

static int wrank, wsize;

static MPI_Comm make_inter(MPI_Comm *half)
{
    MPI_Comm ic;

    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, half);
    MPI_Intercomm_create(*half, 0, MPI_COMM_WORLD, wrank % 2 == 0 ? 1 : 0, 99, &ic);
    return ic;
}

/* Source, tag and count of a status (count of MPI_INT). */
static void say_status(const char *what, const MPI_Status *st)
{
    int n;

    MPI_Get_count(st, MPI_INT, &n);
    say(what, (int[]){st->MPI_SOURCE, st->MPI_TAG, n}, 3);
}

static void plain(MPI_Comm ic, int lrank, int rsize)
{
    int got[64] = {0}, v;
    MPI_Status st;

    for (int j = 0; j < rsize; j++) {
        v = wrank * 100 + j;
        MPI_Send(&v, 1, MPI_INT, j, 7, ic);
    }
    for (int j = 0; j < rsize; j++) {
        MPI_Recv(&got[j], 1, MPI_INT, j, 7, ic, &st);
        say_status("recv-named status", &st);
    }
    say("recv-named", got, rsize);
    /* Sender lrank uses tag 10 + lrank: the tag tells the status's source. */
    for (int j = 0; j < rsize; j++) {
        int w[2] = {wrank, lrank};

        MPI_Send(w, 2, MPI_INT, j, 10 + lrank, ic);
    }
    memset(got, 0, sizeof(got));
    for (int j = 0; j < rsize; j++) {
        int w[2];

        MPI_Recv(w, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, ic, &st);
        if (st.MPI_TAG != 10 + st.MPI_SOURCE || w[1] != st.MPI_SOURCE)
            say("any-source MISMATCH", (int[]){st.MPI_SOURCE, st.MPI_TAG, w[1]}, 3);
        got[st.MPI_SOURCE] = w[0];
    }
    MPI_Barrier(ic); /* the remote ranks' next messages come after */
    say("recv-any world ranks", got, rsize);
}

static void paired(MPI_Comm ic, int lrank, int lsize, int rsize)
{
    int partner = lrank < rsize && lrank < lsize ? lrank : MPI_PROC_NULL;
    int out[3] = {wrank, lrank, 5}, in[3] = {-1, -1, -1}, rep[2] = {wrank, -wrank};
    MPI_Status st;

    MPI_Sendrecv(out, 3, MPI_INT, partner, 20, in, 3, MPI_INT, partner, 20, ic, &st);
    say("sendrecv", in, 3);
    say_status("sendrecv status", &st);
    MPI_Sendrecv_replace(rep, 2, MPI_INT, partner, 21, partner, 21, ic, &st);
    say("sendrecv-replace", rep, 2);
    say_status("sendrecv-replace status", &st);
}

static void nonblocking(MPI_Comm ic, int rsize)
{
    MPI_Request q[4 * 64];
    MPI_Status sts[4 * 64];
    int out[64], in[64], sin[64], n = 0;

    for (int j = 0; j < rsize; j++) {
        out[j] = wrank * 1000 + j;
        MPI_Irecv(&in[j], 1, MPI_INT, j, 30, ic, &q[n++]);
        MPI_Irecv(&sin[j], 1, MPI_INT, j, 31, ic, &q[n++]);
    }
    for (int j = 0; j < rsize; j++) {
        MPI_Isend(&out[j], 1, MPI_INT, j, 30, ic, &q[n++]);
        MPI_Issend(&out[j], 1, MPI_INT, j, 31, ic, &q[n++]);
    }
    MPI_Waitall(n, q, sts);
    say("irecv", in, rsize);
    say("irecv-of-issend", sin, rsize);
    for (int j = 0; j < 2 * rsize; j++)
        say_status("irecv status", &sts[j]);
    for (int j = 0; j < rsize; j++)
        MPI_Irecv(&in[j], 1, MPI_INT, j, 32, ic, &q[j]);
    for (int j = 0; j < rsize; j++)
        MPI_Ssend(&out[j], 1, MPI_INT, j, 32, ic);
    MPI_Waitall(rsize, q, MPI_STATUSES_IGNORE);
    say("ssend", in, rsize);
}

static void probes(MPI_Comm ic, int rsize)
{
    int got[64] = {0}, v = wrank, flag = 0, n;
    MPI_Status st;
    MPI_Message msg;

    for (int j = 0; j < rsize; j++)
        MPI_Send(&v, 1, MPI_INT, j, 40, ic);
    for (int j = 0; j < rsize; j++) {
        MPI_Probe(MPI_ANY_SOURCE, 40, ic, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        MPI_Recv(&got[st.MPI_SOURCE], n, MPI_INT, st.MPI_SOURCE, 40, ic, MPI_STATUS_IGNORE);
    }
    say("probe world ranks", got, rsize);
    for (int j = 0; j < rsize; j++)
        MPI_Send(&v, 1, MPI_INT, j, 41, ic);
    for (int j = 0; j < rsize; j++) {
        MPI_Mprobe(MPI_ANY_SOURCE, 41, ic, &msg, &st);
        MPI_Mrecv(&got[st.MPI_SOURCE], 1, MPI_INT, &msg, &st);
        if (got[st.MPI_SOURCE] % 2 == wrank % 2)
            say("mprobe MISMATCH", &st.MPI_SOURCE, 1);
    }
    say("mprobe world ranks", got, rsize);
    /* Every rank sends one of tag 42 to remote rank 0, which polls for it;
     * nothing of tag 43 is ever sent. */
    MPI_Send(&v, 1, MPI_INT, 0, 42, ic);
    MPI_Iprobe(MPI_ANY_SOURCE, 43, ic, &flag, &st);
    say("iprobe of nothing", &flag, 1);
    MPI_Comm_rank(ic, &n);
    while (n == 0 && !flag)
        MPI_Iprobe(MPI_ANY_SOURCE, 42, ic, &flag, &st);
    say("iprobe found", &flag, 1);
}

/* The messages of tag 42 to remote rank 0 (every rank sent one). */
static void drain42(MPI_Comm ic, int lrank, int rsize)
{
    int v;

    if (lrank != 0)
        return;
    for (int j = 0; j < rsize; j++) {
        MPI_Recv(&v, 1, MPI_INT, j, 42, ic, MPI_STATUS_IGNORE);
        say("tag-42 from world rank", &v, 1);
    }
}

static void persistent(MPI_Comm ic, int lrank, int lsize, int rsize)
{
    int partner = lrank < rsize && lrank < lsize ? lrank : MPI_PROC_NULL;
    int out = wrank, in = -1;
    MPI_Request q[2];
    MPI_Status st[2];

    MPI_Send_init(&out, 1, MPI_INT, partner, 50, ic, &q[0]);
    MPI_Recv_init(&in, 1, MPI_INT, partner, 50, ic, &q[1]);
    for (int k = 0; k < 2; k++) {
        out = wrank + 10 * k;
        MPI_Startall(2, q);
        MPI_Waitall(2, q, st);
        say("persistent", &in, 1);
        say_status("persistent status", &st[1]);
    }
    MPI_Request_free(&q[0]);
    MPI_Request_free(&q[1]);
}

static void refusal(MPI_Comm ic, int rsize)
{
    int v = 0, rc, cls;

    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    rc = MPI_Send(&v, 1, MPI_INT, rsize, 60, ic);
    MPI_Error_class(rc, &cls);
    say("send to remote size refused", (int[]){rc != MPI_SUCCESS, cls == MPI_ERR_RANK}, 2);
}

/* Tag 5 on the intercommunicator, its dup and the merged communicator:
 * sent in one order, received in the opposite one. */
static void contexts(MPI_Comm ic, int lrank, int lsize, int rsize)
{
    int partner = lrank < rsize && lrank < lsize ? lrank : MPI_PROC_NULL;
    int a = wrank, b = wrank + 100, c = wrank + 200, in[3] = {-1, -1, -1}, mr, ms;
    MPI_Comm dup, merged;

    MPI_Comm_dup(ic, &dup);
    MPI_Intercomm_merge(ic, wrank % 2, &merged);
    MPI_Comm_rank(merged, &mr);
    MPI_Comm_size(merged, &ms);
    MPI_Send(&a, 1, MPI_INT, partner, 5, dup);
    MPI_Send(&b, 1, MPI_INT, partner, 5, ic);
    MPI_Send(&c, 1, MPI_INT, (mr + 1) % ms, 5, merged);
    MPI_Recv(&in[2], 1, MPI_INT, (mr + ms - 1) % ms, 5, merged, MPI_STATUS_IGNORE);
    MPI_Recv(&in[1], 1, MPI_INT, partner, 5, ic, MPI_STATUS_IGNORE);
    MPI_Recv(&in[0], 1, MPI_INT, partner, 5, dup, MPI_STATUS_IGNORE);
    say("contexts dup-inter-merged", in, 3);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&merged);
}

/* World ranks 0 and 1, each its own group. */
static void over_self(void)
{
    MPI_Comm ic;
    int out = wrank * 7, in = -1;
    MPI_Status st;

    if (wrank > 1)
        return;
    MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 1 - wrank, 98, &ic);
    MPI_Sendrecv(&out, 1, MPI_INT, 0, 3, &in, 1, MPI_INT, MPI_ANY_SOURCE, 3, ic, &st);
    say("over-self", &in, 1);
    say_status("over-self status", &st);
    MPI_Comm_free(&ic);
}

static void checks(void)
{
    MPI_Comm half, ic;
    int lrank, lsize, rsize;

    ic = make_inter(&half);
    MPI_Comm_rank(ic, &lrank);
    MPI_Comm_size(ic, &lsize);
    MPI_Comm_remote_size(ic, &rsize);
    plain(ic, lrank, rsize);
    paired(ic, lrank, lsize, rsize);
    nonblocking(ic, rsize);
    probes(ic, rsize);
    drain42(ic, lrank, rsize);
    persistent(ic, lrank, lsize, rsize);
    refusal(ic, rsize);
    contexts(ic, lrank, lsize, rsize);
    over_self();
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
    say_flush();
}

static void loop(int iters)
{
    MPI_Comm half, ic;
    int lrank, rsize;
    uint64_t v, in[64], all;
    MPI_Status st;
    MPI_Request q[64];

    ic = make_inter(&half);
    MPI_Comm_rank(ic, &lrank);
    MPI_Comm_remote_size(ic, &rsize);
    v = 0x9e3779b97f4a7c15ull * (uint64_t)(wrank + 1);
    for (int it = 0; it < iters; it++) {
        for (int j = 0; j < rsize; j++)
            MPI_Isend(&v, 1, MPI_UINT64_T, j, it % 1000, ic, &q[j]);
        for (int j = 0; j < rsize; j++) {
            uint64_t x;

            MPI_Recv(&x, 1, MPI_UINT64_T, MPI_ANY_SOURCE, it % 1000, ic, &st);
            in[st.MPI_SOURCE] = x;
        }
        MPI_Waitall(rsize, q, MPI_STATUSES_IGNORE);
        /* A value misplaced by its status's source changes the result. */
        for (int j = 0; j < rsize; j++)
            v = v * 6364136223846793005ull + in[j] * (uint64_t)(2 * j + 3);
        MPI_Allreduce(&v, &all, 1, MPI_UINT64_T, MPI_SUM, ic);
        v ^= all >> 7;
        if (wrank == 0 && (it + 1) % 500 == 0)
            printf("iteration %d sum %016llx\n", it + 1, (unsigned long long)all);
    }
    printf("rank %d lrank %d iters %d state %016llx\n", wrank, lrank, iters,
           (unsigned long long)v);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress lines as they come */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2 || wsize > 64) {
        if (wrank == 0)
            fprintf(stderr, "inter_p2p: needs 2 to 64 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (argc > 2 && strcmp(argv[1], "loop") == 0)
        loop(atoi(argv[2]));
    else
        checks();
    MPI_Finalize();
    return 0;
}
