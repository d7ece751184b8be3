/*
 * p2p_poll - a master/worker program whose master acts on every kind of
 * nondeterministic outcome encore records (docs/p2p.md, 5.1): rank 0
 * hands out tasks and collects results in rounds of three phases, each
 * ended by an MPI_Allreduce of the phase's sum (so kills can be placed at
 * a collective):
 *   A  polls MPI_Iprobe(MPI_ANY_SOURCE) and receives from the source it
 *      reported (a named-source MPI_Recv), every 5th result through a
 *      spare MPI_Irecv(MPI_ANY_SOURCE) cancelled after a moment (whether
 *      it was cancelled depends on timing; if not, it holds a result);
 *   B  keeps one MPI_Irecv per worker and polls MPI_Testany;
 *   C  the same with MPI_Testsome and MPI_Waitsome alternately, and an
 *      MPI_Test / MPI_Request_get_status poll on a lone receive.
 * The next task goes to the worker whose result came, so which worker
 * does which task depends on every outcome.  Workers take 0-2 ms per
 * task (sleeping).  Rank 0 prints "phase P task T worker W value V" per
 * result, "round R sum S" per round, and how many polls found nothing
 * before each that found something; with the master killed and
 * restarted, its replay must give every task to the worker the first run
 * gave it and find nothing exactly as often (tests/integration/p2p_hard.sh
 * counts the distinct lines).
 *   p2p_poll [rounds] [tasks per phase]
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <mpi.h>

enum { TAG_TASK = 1, TAG_RESULT = 2, TAG_STOP = 3, TAG_IDLE = 4, TAG_SYNC = 5 };

static long work(int task)
{
    long v = 0;

    for (int i = 0; i < 1000; i++)
        v += (long)task * i % 977;
    return v;
}

struct master {
    int size, tasks, next, end, got;
    long sum;
    char phase;
};

/* Gives worker w the next task of the phase, or tells it to idle; returns
 * whether a task went. */
static int give(struct master *m, int w)
{
    if (m->next < m->end) {
        MPI_Send(&m->next, 1, MPI_INT, w, TAG_TASK, MPI_COMM_WORLD);
        m->next++;
        return 1;
    }
    MPI_Send(&m->next, 1, MPI_INT, w, TAG_IDLE, MPI_COMM_WORLD);
    return 0;
}

static void take(struct master *m, const long res[2], int w)
{
    printf("phase %c task %ld worker %d value %ld\n", m->phase, res[0], w, res[1]);
    m->sum += res[1];
    m->got++;
}

/* How many polls found nothing, printed per poll loop ("probe K empty E",
 * "lone K test E status F"), and whether each spare receive was cancelled
 * ("spare K cancelled C"): timing decides them, so they differ from run
 * to run, but a replayed master must print exactly what its first
 * incarnation printed. */
static int probes, lones, spares;

static void phase_a(struct master *m)
{
    long res[2];
    MPI_Status st;
    int empty;

    for (int w = 1; w < m->size; w++)
        give(m, w);
    while (m->got < m->tasks) {
        int flag = 0;

        if (m->got % 5 == 4) {
            MPI_Request spare;
            int cancelled;

            MPI_Irecv(res, 2, MPI_LONG, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &spare);
            usleep(500);
            MPI_Cancel(&spare);
            MPI_Wait(&spare, &st);
            MPI_Test_cancelled(&st, &cancelled);
            printf("spare %d cancelled %d\n", spares++, cancelled);
            if (!cancelled) {
                take(m, res, st.MPI_SOURCE);
                give(m, st.MPI_SOURCE);
                continue;
            }
        }
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, &st);
        for (empty = 0; !flag; empty++)
            MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, &st);
        printf("probe %d empty %d\n", probes++, empty);
        MPI_Recv(res, 2, MPI_LONG, st.MPI_SOURCE, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        take(m, res, st.MPI_SOURCE);
        give(m, st.MPI_SOURCE);
    }
}

/* Phases B and C: one receive per worker with a task. */
static void phase_bc(struct master *m, int some)
{
    MPI_Request req[64];
    long res[64][2];
    int idx[64], n = m->size - 1, count = 0, turn = 0;
    MPI_Status sts[64];

    for (int w = 1; w <= n; w++) {
        req[w - 1] = MPI_REQUEST_NULL;
        if (give(m, w))
            MPI_Irecv(res[w - 1], 2, MPI_LONG, w, TAG_RESULT, MPI_COMM_WORLD, &req[w - 1]);
    }
    while (m->got < m->tasks) {
        if (!some) {
            int i, flag = 0;

            while (!flag)
                MPI_Testany(n, req, &i, &flag, MPI_STATUS_IGNORE);
            idx[0] = i;
            count = 1;
        } else if (turn++ % 2 == 0) {
            count = 0;
            while (count == 0)
                MPI_Testsome(n, req, &count, idx, sts);
        } else {
            MPI_Waitsome(n, req, &count, idx, sts);
        }
        for (int k = 0; k < count; k++) {
            int w = idx[k] + 1;

            take(m, res[idx[k]], w);
            if (give(m, w))
                MPI_Irecv(res[idx[k]], 2, MPI_LONG, w, TAG_RESULT, MPI_COMM_WORLD, &req[idx[k]]);
        }
    }
}

/* One more task to worker 1 polled with MPI_Test, one to the last worker
 * polled with MPI_Request_get_status. */
static void lone(struct master *m)
{
    MPI_Request r;
    long res[2];
    int flag = 0, task = m->next++, w = m->size - 1, tests = 0, statuses = 0;

    MPI_Irecv(res, 2, MPI_LONG, 1, TAG_RESULT, MPI_COMM_WORLD, &r);
    MPI_Send(&task, 1, MPI_INT, 1, TAG_TASK, MPI_COMM_WORLD);
    for (MPI_Test(&r, &flag, MPI_STATUS_IGNORE); !flag; tests++)
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    take(m, res, 1);
    task = m->next++;
    flag = 0;
    MPI_Irecv(res, 2, MPI_LONG, w, TAG_RESULT, MPI_COMM_WORLD, &r);
    MPI_Send(&task, 1, MPI_INT, w, TAG_TASK, MPI_COMM_WORLD);
    for (MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE); !flag; statuses++)
        MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    take(m, res, w);
    printf("lone %d test %d status %d\n", lones++, tests, statuses);
}

/* The phase is over: workers leave their receive loop for the collective. */
static long end_phase(int size, long mine)
{
    long total = 0;

    for (int w = 1; w < size; w++)
        MPI_Send(&w, 1, MPI_INT, w, TAG_SYNC, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    return total;
}

static void master(int size, int rounds, int tasks)
{
    struct master m = {.size = size, .tasks = tasks};
    int stop = 0;

    for (int r = 0; r < rounds; r++) {
        long total = 0;

        for (int p = 0; p < 3; p++) {
            m.phase = (char)('A' + p);
            m.got = 0;
            m.end = m.next + tasks;
            if (p == 0)
                phase_a(&m);
            else
                phase_bc(&m, p == 2);
            if (p == 2) {
                m.tasks = 2;
                m.got = 0;
                lone(&m);
                m.tasks = tasks;
            }
            total += end_phase(size, 0);
        }
        printf("round %d sum %ld workers %ld\n", r, m.sum, total);
        m.sum = 0;
    }
    for (int w = 1; w < size; w++)
        MPI_Send(&stop, 1, MPI_INT, w, TAG_STOP, MPI_COMM_WORLD);
}

static void worker(int rank)
{
    int task;
    long res[2], done = 0, total;
    MPI_Status st;

    for (;;) {
        MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP)
            break;
        if (st.MPI_TAG == TAG_SYNC) {
            MPI_Allreduce(&done, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            done = 0;
            continue;
        }
        if (st.MPI_TAG == TAG_IDLE)
            continue; /* until the phase ends */
        usleep((unsigned)((task * 7 + rank * 13) % 3) * 700);
        res[0] = task;
        res[1] = work(task);
        done++;
        MPI_Send(res, 2, MPI_LONG, 0, TAG_RESULT, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 3, tasks = argc > 2 ? atoi(argv[2]) : 60;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (size < 2 || size > 65) {
        if (rank == 0)
            fprintf(stderr, "p2p_poll: needs 2 to 65 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0)
        master(size, rounds, tasks);
    else
        worker(rank);
    MPI_Finalize();
    return 0;
}
