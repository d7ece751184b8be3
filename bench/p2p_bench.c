/*
 * p2p_bench - point-to-point between ranks 0 and 1 (bench/p2p.sh): for
 * each message size from 8 B to 4 MiB, the one-way latency (half a
 * blocking ping-pong), the bandwidth of a window of 64 Isends answered by
 * one zero-byte message, the message rate of that window, and the
 * bidirectional bandwidth (both ranks send a window of 32 to each other
 * at once; the bytes of both directions count), and from 32 KiB the
 * steady bandwidth: the same windows timed over STEADY_TIMED bytes after
 * STEADY_WARM bytes untimed (a job's first traffic, which the short
 * bandwidth test is, pays for memory touched the first time: encore's
 * sender copies every payload into its log, whose memory is reused only
 * after the receiver's snapshot; 0 below 32 KiB).  Prints one line per
 * size:
 *   size <bytes> latency_us <t> bandwidth_MBps <b> rate_kmsgs <r> bibw_MBps <bb> steady_MBps <s>
 * The ping-pong's payload is checked on arrival.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#define WINDOW 64
#define STEADY_MIN ((size_t)32 << 10)
#define STEADY_WARM ((size_t)1 << 30)
#define STEADY_TIMED ((size_t)512 << 20)

/* Rounds timed and untimed before, as the OSU micro-benchmarks count
 * them (osu_latency: 10000 after 100 up to 8 KiB, 1000 after 10 above;
 * osu_bw and osu_bibw: windows 100 after 10, 20 after 2): a few hundred
 * rounds measured mostly caches and adaptive spins still learning. */
#define LARGE ((size_t)8 << 10)
static int lat_iters(size_t bytes) { return bytes <= LARGE ? 10000 : 1000; }
static int lat_warm(size_t bytes) { return bytes <= LARGE ? 100 : 10; }
static int bw_iters(size_t bytes) { return bytes <= LARGE ? 100 : 20; }
static int bw_warm(size_t bytes) { return bytes <= LARGE ? 10 : 2; }

static double latency(int rank, char *buf, size_t bytes, int warm, int iters)
{
    double t0 = 0;

    for (int i = -warm; i < iters; i++) {
        if (i == 0)
            t0 = MPI_Wtime();
        if (rank == 0) {
            buf[0] = (char)i;
            MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (buf[0] != (char)(i + 1)) {
                fprintf(stderr, "p2p_bench: wrong payload\n");
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        } else {
            MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            buf[0]++;
            MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t0) / iters / 2 * 1e6;
}

/* iters windows timed after warm untimed ones */
static double bandwidth(int rank, char *buf, size_t bytes, int warm, int iters)
{
    MPI_Request q[WINDOW];
    double t0 = 0;

    for (int i = -warm; i < iters; i++) {
        if (i == 0)
            t0 = MPI_Wtime();
        for (int w = 0; w < WINDOW; w++) {
            char *b = buf + (size_t)w * bytes;

            if (rank == 0)
                MPI_Isend(b, (int)bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &q[w]);
            else
                MPI_Irecv(b, (int)bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &q[w]);
        }
        MPI_Waitall(WINDOW, q, MPI_STATUSES_IGNORE);
        if (rank == 0)
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
    }
    return (double)bytes * WINDOW * iters / (MPI_Wtime() - t0) / 1e6;
}

/* Both ranks send a half window to each other from the buffer's first
 * half and receive into its second half. */
static double bibandwidth(int rank, char *buf, size_t bytes, int warm, int iters)
{
    MPI_Request q[WINDOW];
    int half = WINDOW / 2, peer = 1 - rank;
    double t0 = 0;

    for (int i = -warm; i < iters; i++) {
        if (i == 0)
            t0 = MPI_Wtime();
        for (int w = 0; w < half; w++) {
            MPI_Irecv(buf + (size_t)(half + w) * bytes, (int)bytes, MPI_BYTE, peer, 4,
                      MPI_COMM_WORLD, &q[w]);
            MPI_Isend(buf + (size_t)w * bytes, (int)bytes, MPI_BYTE, peer, 4, MPI_COMM_WORLD,
                      &q[half + w]);
        }
        MPI_Waitall(WINDOW, q, MPI_STATUSES_IGNORE);
    }
    return 2.0 * (double)bytes * half * iters / (MPI_Wtime() - t0) / 1e6;
}

int main(int argc, char **argv)
{
    size_t max = argc > 1 ? (size_t)atol(argv[1]) : 4u << 20;
    int rank;
    char *buf;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    buf = malloc(max * WINDOW);
    memset(buf, 1, max * WINDOW);
    for (size_t bytes = 8; bytes <= max; bytes *= 8) {
        double lat = latency(rank, buf, bytes, lat_warm(bytes), lat_iters(bytes));
        double bw = bandwidth(rank, buf, bytes, bw_warm(bytes), bw_iters(bytes));
        double bibw = bibandwidth(rank, buf, bytes, bw_warm(bytes), bw_iters(bytes));
        double steady = 0;

        if (bytes >= STEADY_MIN)
            steady = bandwidth(rank, buf, bytes, (int)(STEADY_WARM / (bytes * WINDOW)),
                               (int)(STEADY_TIMED / (bytes * WINDOW)));
        if (rank == 0)
            printf("size %zu latency_us %.2f bandwidth_MBps %.1f rate_kmsgs %.1f bibw_MBps %.1f "
                   "steady_MBps %.1f\n",
                   bytes, lat, bw, bw * 1e3 / (double)bytes, bibw, steady);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
