/*
 * test_p2p_shm_ring.c - shim/p2p/shm_ring: a point-to-point ring is a
 * byte stream that keeps order across its wrap, takes no more than its
 * room, gives no more than was published, refuses positions a broken
 * writer could leave (more published than it holds) and a broken reader
 * (more consumed than published), takes a frame (header and payload,
 * one cache line or not) whole or not at all, and a reset empties it and
 * moves `resets`, the writer's signal that the ring is its again; and a
 * writer and a reader in two threads move 64 MiB exactly.
 */
#include "enc.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "p2p/shm_ring.h"

#define CAP 4096u

static struct enc_p2p_ring *ring;

static void setup(void)
{
    ring = aligned_alloc(64, ENC_P2P_RING_HDR + CAP);
    cr_assert(ring != NULL);
    memset(ring, 0, ENC_P2P_RING_HDR + CAP);
}

static void teardown(void) { free(ring); }

TestSuite(p2p_shm_ring, .init = setup, .fini = teardown);

Test(p2p_shm_ring, room_and_order_across_the_wrap)
{
    uint8_t in[3000], out[3000];

    for (int round = 0; round < 10; round++) {
        for (size_t i = 0; i < sizeof(in); i++)
            in[i] = (uint8_t)(i * 7 + (size_t)round);
        cr_assert_eq(enc_p2p_ring_put(ring, CAP, in, sizeof(in)), sizeof(in));
        /* the rest of the room only */
        cr_assert_eq(enc_p2p_ring_put(ring, CAP, in, sizeof(in)), CAP - sizeof(in));
        cr_assert_eq(enc_p2p_ring_put(ring, CAP, in, 1), 0);
        cr_assert_eq(enc_p2p_ring_used(ring), CAP);
        cr_assert_eq(enc_p2p_ring_get(ring, CAP, out, sizeof(out)), sizeof(out));
        cr_assert_arr_eq(out, in, sizeof(in));
        cr_assert_eq(enc_p2p_ring_get(ring, CAP, out, sizeof(out)), CAP - sizeof(in));
        cr_assert_arr_eq(out, in, CAP - sizeof(in));
        cr_assert_eq(enc_p2p_ring_get(ring, CAP, out, 1), 0);
    }
}

Test(p2p_shm_ring, a_broken_writer_gives_nothing)
{
    uint8_t out[16];

    atomic_store(&ring->wpos, (uint64_t)CAP + 1);
    cr_assert_eq(enc_p2p_ring_get(ring, CAP, out, sizeof(out)), 0);
}

/* The writer reads the reader's position when the room it saw is short:
 * one beyond anything written then gives no room. */
Test(p2p_shm_ring, a_broken_reader_gives_no_room)
{
    uint8_t b[CAP] = {1};

    cr_assert_eq(enc_p2p_ring_put(ring, CAP, b, sizeof(b)), CAP);
    atomic_store(&ring->rpos, (uint64_t)CAP * 3);
    cr_assert_eq(enc_p2p_ring_put(ring, CAP, b, 16), 0);
    cr_assert(!enc_p2p_ring_put_all2(ring, CAP, b, 8, b, 8));
}

/* Frames of one cache line (an 8-byte message: its single-store path)
 * and of other lengths, across the wrap: each comes out as it went in,
 * header then payload; one that does not fit leaves the ring as it was. */
Test(p2p_shm_ring, a_frame_goes_in_whole_or_not_at_all)
{
    uint8_t hdr[56], pay[100], out[156];
    size_t lens[] = {8, 100, 8, 0, 8, 37};

    for (int round = 0; round < 300; round++) {
        size_t nb = lens[round % 6];

        for (size_t i = 0; i < sizeof(hdr); i++)
            hdr[i] = (uint8_t)(i + (size_t)round);
        for (size_t i = 0; i < nb; i++)
            pay[i] = (uint8_t)(i * 3 + (size_t)round);
        cr_assert(enc_p2p_ring_put_all2(ring, CAP, hdr, sizeof(hdr), pay, nb));
        cr_assert_eq(enc_p2p_ring_get(ring, CAP, out, sizeof(hdr) + nb), sizeof(hdr) + nb);
        cr_assert_arr_eq(out, hdr, sizeof(hdr));
        cr_assert_arr_eq(out + sizeof(hdr), pay, nb);
    }
    cr_assert_eq(enc_p2p_ring_put(ring, CAP, out, 1), 1);
    while (enc_p2p_ring_put(ring, CAP, out, sizeof(out)) > 0)
        ;
    cr_assert_eq(enc_p2p_ring_used(ring), CAP);
    cr_assert_eq(enc_p2p_ring_get(ring, CAP, out, 60), 60); /* 60 free: a 64-byte frame does not fit */
    cr_assert(!enc_p2p_ring_put_all2(ring, CAP, hdr, sizeof(hdr), pay, 8));
    cr_assert_eq(enc_p2p_ring_used(ring), CAP - 60);
    cr_assert(enc_p2p_ring_put_all2(ring, CAP, hdr, sizeof(hdr), pay, 4));
    cr_assert_eq(enc_p2p_ring_used(ring), CAP);
}

Test(p2p_shm_ring, reset_empties_and_counts)
{
    uint8_t b[100] = {1};

    cr_assert_eq(enc_p2p_ring_put(ring, CAP, b, sizeof(b)), sizeof(b));
    atomic_store(&ring->room_wanted, 1);
    enc_p2p_ring_reset(ring);
    cr_assert_eq(enc_p2p_ring_used(ring), 0);
    cr_assert_eq(atomic_load(&ring->resets), 1);
    cr_assert_eq(atomic_load(&ring->room_wanted), 0);
    cr_assert_eq(enc_p2p_ring_get(ring, CAP, b, sizeof(b)), 0);
    cr_assert_eq(enc_p2p_ring_put(ring, CAP, b, sizeof(b)), sizeof(b));
}

#define STREAM (64u << 20)

static void *writer(void *arg)
{
    uint8_t chunk[1000];
    size_t sent = 0;

    (void)arg;
    while (sent < STREAM) {
        size_t n = ENC_MIN(sizeof(chunk), STREAM - sent), k;

        for (size_t i = 0; i < n; i++)
            chunk[i] = (uint8_t)((sent + i) * 31 >> 3);
        for (size_t off = 0; off < n; off += k)
            k = enc_p2p_ring_put(ring, CAP, chunk + off, n - off);
        sent += n;
    }
    return NULL;
}

Test(p2p_shm_ring, two_threads_stream_exactly)
{
    pthread_t t;
    uint8_t buf[777];
    size_t got = 0;

    cr_assert_eq(pthread_create(&t, NULL, writer, NULL), 0);
    while (got < STREAM) {
        size_t k = enc_p2p_ring_get(ring, CAP, buf, sizeof(buf));

        for (size_t i = 0; i < k; i++)
            if (buf[i] != (uint8_t)((got + i) * 31 >> 3))
                cr_assert_fail("byte %zu is %d", got + i, buf[i]);
        got += k;
    }
    pthread_join(t, NULL);
    cr_assert_eq(enc_p2p_ring_used(ring), 0);
}
