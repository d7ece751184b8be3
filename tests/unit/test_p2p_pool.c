/*
 * test_p2p_pool.c - shim/p2p/pool: the arena of point-to-point payloads.
 * Blocks are distinct, aligned and appended to a lane's chunk (a lane's
 * chunks grow from 64 KiB to the full size); blocks given back in any
 * order free their chunk once all are back, and a freed chunk serves the
 * next blocks without a new mapping; kept chunks stay within the budget
 * (ENCORE_LOG_MEM_MAX / 2); one lane's blocks (a receiver's log, lasting
 * blocks) never pin another's chunk;
 * a block larger than a chunk gets one of its own size; a chunk in use
 * at a fork is reused after the next fork (its pages dropped if it is
 * needed before), and the copy forgets the kept chunks.
 */
#include "enc.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "p2p/pool.h"

static struct enc_p2p_pool_stats st(void)
{
    struct enc_p2p_pool_stats s;

    enc_p2p_pool_stats(&s);
    return s;
}

/* A fork whose copy exits at once. */
static void after_fork(void)
{
    pid_t pid = fork();
    int status;

    if (pid == 0)
        _exit(0);
    cr_assert(pid > 0);
    cr_assert_eq(waitpid(pid, &status, 0), pid);
}

/* A budget of 1 GiB / 2 (the default), or the one a test sets first. */
static void budget_of(const char *log_mem_max) { setenv("ENCORE_LOG_MEM_MAX", log_mem_max, 1); }

Test(p2p_pool, blocks_distinct_aligned_and_appended)
{
    uint8_t *b[100];

    budget_of("1G");
    for (int i = 0; i < 100; i++) {
        b[i] = enc_p2p_pool_get(100 + (size_t)i);
        cr_assert(b[i] != NULL);
        cr_assert_eq((uintptr_t)b[i] % 16, 0);
        memset(b[i], i, 100 + (size_t)i);
    }
    for (int i = 0; i < 100; i++)
        for (size_t k = 0; k < 100 + (size_t)i; k++)
            cr_assert_eq(b[i][k], (uint8_t)i, "block %d overwritten", i);
    cr_assert_eq(st().chunks, 1, "100 small blocks share the lane's first chunk");
    cr_assert_eq(st().bytes, 64 << 10);
    for (int i = 0; i < 100; i++)
        enc_p2p_pool_put(b[i]);
    enc_p2p_pool_put(NULL);
}

Test(p2p_pool, out_of_order_release_then_reuse_without_mapping)
{
    enum { N = 400 };
    void *b[N];
    size_t mapped;

    budget_of("1G");
    for (int i = 0; i < N; i++)
        cr_assert((b[i] = enc_p2p_pool_log_get(3, 20000)) != NULL);
    cr_assert_gt(st().chunks, 3, "8 MB of blocks span several chunks");
    mapped = st().mapped;
    srand(7);
    for (int i = N - 1; i > 0; i--) { /* a shuffled order */
        int j = rand() % (i + 1);
        void *t = b[i];

        b[i] = b[j];
        b[j] = t;
    }
    for (int i = 0; i < N; i++)
        enc_p2p_pool_put(b[i]);
    cr_assert_eq(st().kept_chunks, st().chunks - 1, "every chunk but the lane's current is kept");
    for (int i = 0; i < N; i++)
        cr_assert((b[i] = enc_p2p_pool_log_get(3, 20000)) != NULL);
    cr_assert_eq(st().mapped, mapped, "the same blocks again map nothing new");
    for (int i = 0; i < N; i++)
        enc_p2p_pool_put(b[i]);
}

Test(p2p_pool, chunk_freed_only_when_all_its_blocks_are)
{
    void *a, *b, *c;

    budget_of("1G");
    a = enc_p2p_pool_log_get(0, 40 << 10);
    b = enc_p2p_pool_log_get(0, 20 << 10);
    c = enc_p2p_pool_log_get(0, 100 << 10); /* the next chunk: a and b's is retired */
    cr_assert(a != NULL && b != NULL && c != NULL);
    cr_assert_eq(st().chunks, 2);
    enc_p2p_pool_put(a);
    cr_assert_eq(st().kept_chunks, 0, "b still holds the first chunk");
    enc_p2p_pool_put(b);
    cr_assert_eq(st().kept_chunks, 1);
    enc_p2p_pool_put(c);
}

Test(p2p_pool, kept_chunks_stay_within_the_budget)
{
    enum { N = 16 };
    void *b[N];
    size_t chunks;

    budget_of("1M"); /* kept at most 512 KiB */
    for (int i = 0; i < N; i++)
        cr_assert((b[i] = enc_p2p_pool_get(200 << 10)) != NULL);
    chunks = st().chunks;
    cr_assert_geq(chunks, 6, "3.2 MB in chunks of 64 KiB to 2 MiB");
    for (int i = 0; i < N; i++)
        enc_p2p_pool_put(b[i]);
    cr_assert_leq(st().kept_bytes, 512 << 10);
    cr_assert_geq(st().kept_chunks, 1);
    cr_assert_eq(st().chunks, st().kept_chunks + 1, "the rest unmapped but the lane's current");
    cr_assert_lt(st().chunks, chunks);
}

Test(p2p_pool, one_lane_never_pins_another)
{
    void *x, *y, *z;

    budget_of("1G");
    x = enc_p2p_pool_log_get(1, 1000);
    y = enc_p2p_pool_log_get(2, 1000);
    z = enc_p2p_pool_log_get(2, 80 << 10); /* lane 2 moves on */
    cr_assert(x != NULL && y != NULL && z != NULL);
    cr_assert_eq(st().chunks, 3);
    enc_p2p_pool_put(y);
    cr_assert_eq(st().kept_chunks, 1, "lane 2's first chunk is free though lane 1 holds x");
    enc_p2p_pool_put(x);
    enc_p2p_pool_put(z);
}

Test(p2p_pool, lasting_blocks_never_pin_log_chunks)
{
    void *frame, *hdr, *next;

    budget_of("1G");
    frame = enc_p2p_pool_log_get(0, 1000);
    hdr = enc_p2p_pool_lasting_get(100); /* a spilled frame's header, between frames */
    next = enc_p2p_pool_log_get(0, 80 << 10); /* the log's lane moves on */
    cr_assert(frame != NULL && hdr != NULL && next != NULL);
    enc_p2p_pool_put(frame);
    cr_assert_eq(st().kept_chunks, 1, "the header holds none of the log's chunks");
    enc_p2p_pool_put(next);
    enc_p2p_pool_put(hdr);
}

Test(p2p_pool, large_blocks_and_full_chunks)
{
    size_t two = ENC_P2P_POOL_CHUNK, mapped;
    void *small, *msg, *big, *again;

    budget_of("1G");
    cr_assert((small = enc_p2p_pool_log_get(5, 1000)) != NULL);
    cr_assert((msg = enc_p2p_pool_log_get(5, two)) != NULL); /* a 2 MiB message: a full chunk */
    memset(msg, 1, two);
    cr_assert_eq(st().chunks, 2);
    cr_assert_lt(st().bytes, (64 << 10) + two + (128 << 10), "no chunk of twice its size");
    cr_assert((big = enc_p2p_pool_log_get(5, (size_t)5 << 20)) != NULL); /* one of its own */
    memset(big, 2, (size_t)5 << 20);
    cr_assert_eq(st().chunks, 3);
    enc_p2p_pool_put(msg);
    cr_assert_eq(st().kept_chunks, 1);
    mapped = st().mapped;
    cr_assert((again = enc_p2p_pool_log_get(6, two)) != NULL); /* another lane reuses it */
    cr_assert_eq(st().mapped, mapped);
    cr_assert_eq(again, msg);
    enc_p2p_pool_put(again);
    enc_p2p_pool_put(big);
    enc_p2p_pool_put(small);
}

Test(p2p_pool, fork_drops_shared_chunks_and_the_copy_forgets_kept_ones)
{
    void *held, *k, *after;
    pid_t pid;
    int status;

    budget_of("1G");
    held = enc_p2p_pool_log_get(0, 1000);
    k = enc_p2p_pool_log_get(1, 1000);
    cr_assert(held != NULL && k != NULL);
    (void)enc_p2p_pool_log_get(1, 100 << 10); /* lane 1 moves on: k's chunk retired */
    enc_p2p_pool_put(k);
    cr_assert_eq(st().kept_chunks, 1);
    if ((pid = fork()) == 0) /* the copy: the kept chunk is not mapped here */
        _exit(st().kept_chunks == 0 && st().kept_bytes == 0 ? 0 : 1);
    cr_assert(pid > 0);
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the copy still counts kept chunks");
    after = enc_p2p_pool_log_get(0, 1000);
    cr_assert(after != NULL);
    cr_assert((uint8_t *)after + 1000 <= (uint8_t *)held - 16 ||
                  (uint8_t *)after >= (uint8_t *)held - 16 + (64 << 10),
              "a block after the fork starts in another chunk");
    enc_p2p_pool_put(held);
    cr_assert_eq(st().kept_chunks, 1, "kept, shared with the image");
    cr_assert_eq(st().dropped, 0);
    k = enc_p2p_pool_log_get(2, 1000); /* needed before another fork: its pages dropped */
    cr_assert_eq(st().dropped, 1);
    (void)enc_p2p_pool_log_get(2, 100 << 10); /* lane 2 moves on */
    enc_p2p_pool_put(k);
    after_fork(); /* k's chunk was taken after the last fork: not shared */
    (void)enc_p2p_pool_log_get(3, 1000);
    cr_assert_eq(st().dropped, 1, "a chunk no image shares is reused as it is");
}

Test(p2p_pool, shared_chunk_clean_after_the_next_fork)
{
    void *held, *mine;

    budget_of("1G");
    held = enc_p2p_pool_log_get(0, 1000);
    after_fork(); /* held's chunk is in the image now */
    (void)enc_p2p_pool_log_get(0, 1000); /* the lane moves on */
    enc_p2p_pool_put(held);
    after_fork(); /* a newer image replaces the one that shared it */
    mine = enc_p2p_pool_log_get(1, 1000);
    cr_assert_eq((uint8_t *)mine, (uint8_t *)held, "the freed chunk serves lane 1");
    cr_assert_eq(st().dropped, 0, "clean after the next fork: nothing dropped");
}
