/*
 * cold_ring.c - what keeping results in a large ring costs by itself,
 * without MPI or encore: 16 MiB passed chunk by chunk (1 MiB) through one
 * reused 1 MiB buffer, as a collective without a result log does, against
 * the same 16 MiB written to the next place of a 1 GiB ring and read back,
 * as the shared-memory allreduce with its log does.  The ring is made as
 * the host's segment is (memfd, fallocate: pages reserved, never written)
 * and passed through in three ways (shim/shm/resbuf.c):
 *   mapped   memcpy in and out through the mapping: every page faults once
 *   file     pwrite in, pread out: the kernel copies, no page is mapped
 *   warmed   a second pass over pages written once (by the file pass):
 *            MADV_POPULATE_READ per 2 MiB (a read fault maps sixteen
 *            written pages), then memcpy in and out
 * and once more mapped over the pages the mapped pass already touched
 * (warm: the steady state of a ring that wraps).  Prints milliseconds per
 * 16 MiB for each, three times (three fresh ranges of the ring).
 *
 *   make bench/cold_ring && bench/cold_ring
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

#define RING_BYTES ((size_t)1 << 30)
#define MSG_BYTES ((size_t)16 << 20)
#define CHUNK_BYTES ((size_t)1 << 20)
#define ITERS 4 /* 16 MiB each: a range of 64 MiB of the ring per pass */
#define RANGE (ITERS * MSG_BYTES)

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

/* ms per 16 MiB through [base, base + RANGE) of the ring, in one way. */
enum way { HOT, MAPPED, FILE_IO, WARMED };
static double pass(enum way w, int fd, char *ring, size_t base, char *hot, const char *src,
                   char *dst)
{
    double t0 = now_s();

    for (int it = 0; it < ITERS; it++) {
        size_t at = base + (size_t)it * MSG_BYTES;

        if (w == WARMED && madvise(ring + at, MSG_BYTES, MADV_POPULATE_READ) != 0)
            die("cold_ring: madvise");
        for (size_t o = 0; o < MSG_BYTES; o += CHUNK_BYTES) {
            char *through = w == HOT ? hot : ring + at + o;

            if (w == FILE_IO) {
                if (pwrite(fd, src + o, CHUNK_BYTES, (off_t)(at + o)) != (ssize_t)CHUNK_BYTES ||
                    pread(fd, dst + o, CHUNK_BYTES, (off_t)(at + o)) != (ssize_t)CHUNK_BYTES)
                    die("cold_ring: pwrite/pread");
                continue;
            }
            memcpy(through, src + o, CHUNK_BYTES);
            memcpy(dst + o, through, CHUNK_BYTES);
        }
    }
    return (now_s() - t0) / ITERS * 1e3;
}

int main(void)
{
    int fd = memfd_create("cold_ring", 0);
    char *ring, *hot, *src = malloc(MSG_BYTES), *dst = malloc(MSG_BYTES);

    if (fd < 0 || ftruncate(fd, (off_t)RING_BYTES) != 0 ||
        fallocate(fd, 0, 0, (off_t)RING_BYTES) != 0)
        die("cold_ring: memfd");
    ring = mmap(NULL, RING_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    hot = mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE,
               -1, 0);
    if (ring == MAP_FAILED || hot == MAP_FAILED || src == NULL || dst == NULL)
        die("cold_ring: memory");
    memset(src, 1, MSG_BYTES);
    memset(dst, 2, MSG_BYTES);
    printf("ms per 16 MiB in and out: reused 1 MiB buffer | ring through the mapping | "
           "pwrite/pread | written pages, populated by read | mapping again (warm)\n");
    for (int rep = 0; rep < 3; rep++) {
        size_t a = (size_t)rep * 2 * RANGE, b = a + RANGE;
        double t_hot = pass(HOT, fd, ring, 0, hot, src, dst);
        double t_map = pass(MAPPED, fd, ring, a, hot, src, dst);
        double t_file = pass(FILE_IO, fd, ring, b, hot, src, dst);
        double t_warmed = pass(WARMED, fd, ring, b, hot, src, dst);
        double t_warm = pass(MAPPED, fd, ring, a, hot, src, dst);

        printf("%.2f | %.2f (%.2fx) | %.2f (%.2fx) | %.2f (%.2fx) | %.2f (%.2fx)\n", t_hot, t_map,
               t_map / t_hot, t_file, t_file / t_hot, t_warmed, t_warmed / t_hot, t_warm,
               t_warm / t_hot);
    }
    return 0;
}
