/*
 * cold_ring.c - what keeping results in a large ring costs by itself,
 * without MPI or encore: 16 MiB passed chunk by chunk (1 MiB) through one
 * reused 1 MiB buffer, as a collective without a result log does, against
 * the same 16 MiB written to the next place of a 1 GiB ring (memory not in
 * any cache, as log entries kept until a snapshot are) and read back, as
 * the shared-memory allreduce with its log does.  Prints microseconds per
 * 16 MiB for each, three times.
 *
 *   make bench/cold_ring && bench/cold_ring
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define RING_BYTES ((size_t)1 << 30)
#define MSG_BYTES ((size_t)16 << 20)
#define CHUNK_BYTES ((size_t)1 << 20)
#define ITERS 20

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Shared and populated, as the segment is. */
static char *shared(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE,
                   -1, 0);

    if (p == MAP_FAILED) {
        perror("cold_ring: mmap");
        exit(1);
    }
    return p;
}

int main(void)
{
    char *ring = shared(RING_BYTES), *hot = shared(CHUNK_BYTES);
    char *src = malloc(MSG_BYTES), *dst = malloc(MSG_BYTES);

    if (src == NULL || dst == NULL) {
        fprintf(stderr, "cold_ring: out of memory\n");
        return 1;
    }
    memset(src, 1, MSG_BYTES);
    memset(dst, 2, MSG_BYTES);
    for (int rep = 0; rep < 3; rep++) {
        size_t at = 0;
        double t0 = now_s(), t_hot, t_ring;

        for (int it = 0; it < ITERS; it++)
            for (size_t o = 0; o < MSG_BYTES; o += CHUNK_BYTES) {
                memcpy(hot, src + o, CHUNK_BYTES);
                memcpy(dst + o, hot, CHUNK_BYTES);
            }
        t_hot = (now_s() - t0) / ITERS;
        t0 = now_s();
        for (int it = 0; it < ITERS; it++) {
            for (size_t o = 0; o < MSG_BYTES; o += CHUNK_BYTES) {
                memcpy(ring + at + o, src + o, CHUNK_BYTES);
                memcpy(dst + o, ring + at + o, CHUNK_BYTES);
            }
            at = (at + MSG_BYTES) % RING_BYTES;
        }
        t_ring = (now_s() - t0) / ITERS;
        printf("16 MiB through a reused 1 MiB buffer: %.0f us; through a 1 GiB ring: %.0f us "
               "(%.2fx)\n", t_hot * 1e6, t_ring * 1e6, t_ring / t_hot);
    }
    return 0;
}
