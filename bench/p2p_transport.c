/*
 * p2p_transport.c - which same-host transport moves a point-to-point
 * message fastest on this machine: staging through shared memory (the
 * sender copies in, the receiver copies out, chunk by chunk, pipelined) or
 * cross-memory attach (the receiver reads the sender's buffer with
 * process_vm_readv: one copy, but a rendezvous), each with and without
 * the sender-based log copy.  Standalone (no MPI, no libencore): two
 * processes, fork, one MAP_SHARED mapping, spinning waits (one core each).
 *
 *     make bench/p2p_transport && bench/p2p_transport [reps]
 *
 * Prints, per size, the one-way time of a ping-pong (blocking send and
 * receive) and the streaming bandwidth of a window of 64 messages (the
 * osu_bw pattern), in MB/s, each the best of TRIALS runs.  docs/p2p.md
 * quotes the figures.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LINE 64
#define WINDOW 64
#define TRIALS 7 /* best of: other processes share the cores */
#define LOG_BYTES ((size_t)256 << 20) /* the sender's log (a ring, pre-faulted) */

enum mode { STAGE, STAGE_LOG, CMA, CMA_LOG, NMODES };
static const char *mode_name[] = {"stage", "stage+log", "cma", "cma+log"};

/* What one side publishes: written by its owner only, one cache line. */
struct side {
    _Atomic uint64_t posted;   /* stage: chunks posted */
    _Atomic uint64_t consumed; /* stage: the peer's chunks consumed */
    _Atomic uint64_t cposted;  /* cma: descriptors posted */
    _Atomic uint64_t cdone;    /* cma: the peer's descriptors read */
    _Atomic uint64_t addr;     /* cma: the buffer to read */
    _Atomic uint64_t len;
    _Atomic int32_t pid;
    uint8_t pad[LINE - 52];
};

struct shared {
    struct side s[2];          /* s[i]: written by process i */
    _Atomic uint64_t small[2][LINE / 8]; /* 8-byte eager ping-pong: seq, payload */
};

static struct shared *sh;
static uint8_t *ring[2];       /* staging ring written by process i */
static size_t chunk = 64 * 1024;
static unsigned nslots = 8;
static uint8_t *logbuf, *peerlog; /* mine, and the peer's (shared) */
static size_t logpos;

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void spin_until_ge(_Atomic uint64_t *p, uint64_t v)
{
    while (atomic_load_explicit(p, memory_order_acquire) < v)
        __builtin_ia32_pause();
}

static void log_copy(const uint8_t *src, size_t n)
{
    if (logpos + n > LOG_BYTES)
        logpos = 0;
    memcpy(logbuf + logpos, src, n);
    logpos += n;
}

/* Staging: me -> peer, n bytes through my ring; the log variant writes
 * straight into the log, which is the staging area (its entry stays). */
static uint64_t sent_chunks[2], got_chunks[2];

static void stage_send(int me, const uint8_t *src, size_t n, int with_log)
{
    struct side *mine = &sh->s[me];

    for (size_t off = 0; off < n || n == 0; off += chunk) {
        size_t k = n - off < chunk ? n - off : chunk;
        uint64_t c = sent_chunks[me];
        uint64_t slots = with_log ? LOG_BYTES / chunk / 2 : nslots;
        if (c >= slots)
            spin_until_ge(&sh->s[!me].consumed, c - slots + 1);
        if (!with_log)
            memcpy(ring[me] + (c % nslots) * chunk, src + off, k);
        else
            log_copy(src + off, k);
        atomic_store_explicit(&mine->posted, ++sent_chunks[me], memory_order_release);
        if (n == 0)
            break;
    }
}

static void stage_recv(int me, uint8_t *dst, size_t n, int with_log, size_t *peer_logpos)
{
    int peer = !me;

    for (size_t off = 0; off < n || n == 0; off += chunk) {
        size_t k = n - off < chunk ? n - off : chunk;
        uint64_t c = got_chunks[me];
        spin_until_ge(&sh->s[peer].posted, c + 1);
        if (!with_log) {
            memcpy(dst + off, ring[peer] + (c % nslots) * chunk, k);
        } else {
            /* the peer's log is in the shared mapping too (see main) */
            if (*peer_logpos + k > LOG_BYTES)
                *peer_logpos = 0;
            memcpy(dst + off, peerlog + *peer_logpos, k);
            *peer_logpos += k;
        }
        atomic_store_explicit(&sh->s[me].consumed, ++got_chunks[me], memory_order_release);
        if (n == 0)
            break;
    }
}

/* CMA: post (addr, len), the receiver reads and says so. */
static uint64_t cma_posted[2], cma_got[2];

static void cma_post(int me, const uint8_t *src, size_t n)
{
    struct side *mine = &sh->s[me];

    atomic_store_explicit(&mine->addr, (uint64_t)(uintptr_t)src, memory_order_relaxed);
    atomic_store_explicit(&mine->len, n, memory_order_relaxed);
    atomic_store_explicit(&mine->cposted, ++cma_posted[me], memory_order_release);
}

static void cma_recv(int me, uint8_t *dst)
{
    struct side *p = &sh->s[!me];
    struct iovec l, r;

    spin_until_ge(&p->cposted, cma_got[me] + 1);
    l.iov_base = dst;
    l.iov_len = atomic_load(&p->len);
    r.iov_base = (void *)(uintptr_t)atomic_load(&p->addr);
    r.iov_len = l.iov_len;
    if (l.iov_len && process_vm_readv(atomic_load(&p->pid), &l, 1, &r, 1, 0) != (ssize_t)l.iov_len) {
        perror("process_vm_readv");
        exit(2);
    }
    atomic_store_explicit(&sh->s[me].cdone, ++cma_got[me], memory_order_release);
}

static size_t peer_logpos;

static void xsend(int me, enum mode m, const uint8_t *src, size_t n)
{
    if (m == STAGE || m == STAGE_LOG) {
        stage_send(me, src, n, m == STAGE_LOG);
        return;
    }
    cma_post(me, src, n);
    if (m == CMA_LOG)
        log_copy(src, n);    /* overlaps the peer's read */
    spin_until_ge(&sh->s[!me].cdone, cma_posted[me]);
}

static void xrecv(int me, enum mode m, uint8_t *dst, size_t n)
{
    if (m == STAGE || m == STAGE_LOG)
        stage_recv(me, dst, n, m == STAGE_LOG, &peer_logpos);
    else
        cma_recv(me, dst);
}

/* One-way time of a ping-pong of n bytes (s). */
static double pingpong(int me, enum mode m, uint8_t *buf, size_t n, int reps)
{
    double t0 = 0;

    for (int i = -reps / 10 - 1; i < reps; i++) {
        if (i == 0)
            t0 = now();
        if (me == 0) {
            xsend(me, m, buf, n);
            xrecv(me, m, buf, n);
        } else {
            xrecv(me, m, buf, n);
            xsend(me, m, buf, n);
        }
    }
    return (now() - t0) / reps / 2;
}

/* Bandwidth of windows of WINDOW messages 0 -> 1, one small ack each (B/s).
 * cma posts the whole window before waiting (as Isend x 64 + Waitall). */
static double stream(int me, enum mode m, uint8_t *buf, size_t n, int reps)
{
    double t0 = 0;

    for (int i = -1; i < reps; i++) {
        if (i == 0)
            t0 = now();
        for (int w = 0; w < WINDOW; w++) {
            if (me == 0 && (m == CMA || m == CMA_LOG)) {
                /* one descriptor at a time: the receiver reads in order */
                cma_post(me, buf, n);
                if (m == CMA_LOG)
                    log_copy(buf, n);
                spin_until_ge(&sh->s[1].cdone, cma_posted[me]);
            } else if (me == 0) {
                xsend(me, m, buf, n);
            } else {
                xrecv(me, m, buf, n);
            }
        }
        if (me == 0)
            xrecv(me, STAGE, buf, 0);
        else
            xsend(me, STAGE, buf, 0);
    }
    return (double)n * WINDOW * reps / (now() - t0);
}

/* 8-byte eager messages: payload and seq in one line, spinning. */
static double small_latency(int me, int reps)
{
    uint64_t seq = 0;
    double t0 = 0;

    for (int i = -reps / 10 - 1; i < reps; i++) {
        if (i == 0)
            t0 = now();
        seq++;
        if (me == 0) {
            sh->small[0][1] = seq * 3;
            atomic_store_explicit(&sh->small[0][0], seq, memory_order_release);
            spin_until_ge(&sh->small[1][0], seq);
        } else {
            spin_until_ge(&sh->small[0][0], seq);
            sh->small[1][1] = sh->small[0][1];
            atomic_store_explicit(&sh->small[1][0], seq, memory_order_release);
        }
    }
    return (now() - t0) / reps / 2;
}

static void barrier(int me)
{
    static uint64_t b;

    b++;
    atomic_store(&sh->small[me][2], b);
    spin_until_ge(&sh->small[!me][2], b);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 20;
    size_t maxn = (size_t)4 << 20;
    size_t ringbytes = (size_t)nslots * (256 * 1024);
    uint8_t *mem = mmap(NULL, sizeof(*sh) + 2 * ringbytes + 2 * LOG_BYTES,
                        PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    uint8_t *logs;
    int me = 0;
    pid_t child;

    if (mem == MAP_FAILED)
        return perror("mmap"), 1;
    sh = (struct shared *)mem;
    ring[0] = mem + 4096;
    ring[1] = ring[0] + ringbytes;
    logs = ring[1] + ringbytes;
    child = fork();
    if (child < 0)
        return perror("fork"), 1;
    me = child == 0;
    /* process 0 logs into logs[0], and process 1 reads it there (STAGE_LOG) */
    logbuf = logs + (size_t)me * LOG_BYTES;
    peerlog = logs + (size_t)!me * LOG_BYTES;
    atomic_store(&sh->s[me].pid, getpid());
    uint8_t *buf = aligned_alloc(4096, maxn);
    memset(buf, me + 1, maxn);
    barrier(me);
    double lat = 1;
    for (int trial = 0; trial < TRIALS; trial++) {
        barrier(me);
        double x = small_latency(me, 100000);
        lat = x < lat ? x : lat;
    }
    if (me == 0)
        printf("8 B eager through a shared line, one way: %.0f ns\n", lat * 1e9);
    static const size_t chunks[] = {16 * 1024, 64 * 1024, 256 * 1024};
    for (unsigned c = 0; c < 3; c++) {
        chunk = chunks[c];
        if (me == 0)
            printf("\nchunk %zu KiB, %u slots\n%9s %-10s %12s %12s\n", chunk >> 10, nslots,
                   "bytes", "mode", "one-way us", "stream MB/s");
        for (size_t n = 64 * 1024; n <= maxn; n *= 4)
            for (int m = 0; m < NMODES; m++) {
                if (c > 0 && (m == CMA || m == CMA_LOG))
                    continue; /* chunk size does not matter to cma */
                /* the log's reader follows the writer's position */
                double t = 1e9, bw = 0;
                for (int trial = 0; trial < TRIALS; trial++) {
                    logpos = peer_logpos = 0;
                    barrier(me);
                    double x = pingpong(me, m, buf, n, reps * 4);
                    t = x < t ? x : t;
                    logpos = peer_logpos = 0;
                    barrier(me);
                    x = stream(me, m, buf, n, reps);
                    bw = x > bw ? x : bw;
                }
                if (me == 0)
                    printf("%9zu %-10s %12.1f %12.0f\n", n, mode_name[m], t * 1e6, bw / 1e6);
            }
    }
    barrier(me);
    if (me == 0)
        waitpid(child, NULL, 0);
    return 0;
}
