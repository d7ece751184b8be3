/* test_recovery_parts.c - the MPI-free parts of shim/recovery: log-service
 * requests (logreq.c), the bootstrap occurrence counter (bootstrap.c), the
 * log's buffer pool (bufpool.c) and the interned module names of call
 * sites (sitemod.c). */
#include "enc.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "recovery/log/bufpool.h"
#include "recovery/log/bootstrap.h"
#include "recovery/log/logreq.h"
#include "recovery/log/sitemod.h"

static const struct enc_logreq sample = {
    .what = ENC_LOGREQ_BOOTSTRAP, .seq = 0x0102030405060708ull, .site_off = 0x1234,
    .site_mod = "kmeans", .occ = 7, .version = 3, .rank = 5,
    .kind = 1, .root = -1, .count = 1ull << 33, .dtype = 9, .op = 2,
};

Test(logreq, round_trip_keeps_every_field)
{
    uint8_t wire[ENC_LOGREQ_WIRE];
    struct enc_logreq got;

    enc_logreq_encode(&sample, wire);
    cr_assert_eq(enc_logreq_decode(&got, wire, sizeof(wire)), ENC_OK);
    cr_assert_eq(got.what, sample.what);
    cr_assert_eq(got.seq, sample.seq);
    cr_assert_eq(got.site_off, sample.site_off);
    cr_assert_str_eq(got.site_mod, "kmeans");
    cr_assert_eq(got.occ, 7);
    cr_assert_eq(got.version, 3);
    cr_assert_eq(got.rank, 5);
    cr_assert_eq(got.kind, 1);
    cr_assert_eq(got.root, -1);
    cr_assert_eq(got.count, 1ull << 33);
    cr_assert_eq(got.dtype, 9);
    cr_assert_eq(got.op, 2);
}

Test(logreq, wrong_length_and_unknown_kind_rejected)
{
    uint8_t wire[ENC_LOGREQ_WIRE];
    struct enc_logreq q = sample, got;

    enc_logreq_encode(&q, wire);
    cr_assert_eq(enc_logreq_decode(&got, wire, sizeof(wire) - 1), ENC_ERR_PROTO);
    q.what = 0;
    enc_logreq_encode(&q, wire);
    cr_assert_eq(enc_logreq_decode(&got, wire, sizeof(wire)), ENC_ERR_PROTO);
    q.what = ENC_LOGREQ_COMM_POS + 1; /* one past the last kind */
    enc_logreq_encode(&q, wire);
    cr_assert_eq(enc_logreq_decode(&got, wire, sizeof(wire)), ENC_ERR_PROTO);
}

Test(logreq, module_name_is_always_terminated)
{
    uint8_t wire[ENC_LOGREQ_WIRE];
    struct enc_logreq got;

    enc_logreq_encode(&sample, wire);
    memset(wire + 1 + 8 + 8, 'x', sizeof(got.site_mod)); /* no NUL inside */
    cr_assert_eq(enc_logreq_decode(&got, wire, sizeof(wire)), ENC_OK);
    cr_assert_eq(strlen(got.site_mod), sizeof(got.site_mod) - 1);
}

Test(bootstrap, occurrences_count_per_call_site)
{
    cr_assert(enc_bootstrap_active());
    cr_assert_eq(enc_bootstrap_occurrence("prog", 0x10), 0);
    cr_assert_eq(enc_bootstrap_occurrence("prog", 0x20), 0);
    cr_assert_eq(enc_bootstrap_occurrence("prog", 0x10), 1);
    cr_assert_eq(enc_bootstrap_occurrence("libx.so", 0x10), 0);
    for (uint64_t off = 0x100; off < 0x100 + 500; off++) /* grows its table */
        cr_assert_eq(enc_bootstrap_occurrence("prog", off), 0);
    cr_assert_eq(enc_bootstrap_occurrence("prog", 0x10), 2);
    cr_assert_eq(enc_bootstrap_occurrence("prog", 0x20), 1);
    enc_bootstrap_end();
    cr_assert(!enc_bootstrap_active());
}

Test(bufpool, returned_buffers_are_reused_when_they_fit)
{
    size_t cap, cap2;
    void *a = enc_bufpool_get(1 << 20, &cap), *b;

    cr_assert_not_null(a);
    cr_assert_geq(cap, (size_t)1 << 20);
    enc_bufpool_put(a, cap);
    b = enc_bufpool_get(800 << 10, &cap2); /* fits, wastes under half */
    cr_assert_eq(b, a);
    cr_assert_eq(cap2, cap);
    enc_bufpool_put(b, cap2);
    b = enc_bufpool_get(100 << 10, &cap2); /* would waste most of it */
    cr_assert_neq(b, a);
    enc_bufpool_put(b, cap2);
    enc_bufpool_drain();
}

Test(bufpool, large_buffers_are_whole_huge_pages)
{
    size_t cap;
    void *p = enc_bufpool_get((5u << 20) + 1, &cap);

    cr_assert_not_null(p);
    cr_assert_eq(cap, (size_t)6 << 20);
    cr_assert_eq((uintptr_t)p % (2u << 20), 0);
    memset(p, 0xab, cap);
    enc_bufpool_put(p, cap);
    enc_bufpool_drain();
}

/* What a fork()ed child (a snapshot image) sees of a buffer's bytes. */
static int byte_in_child(const uint8_t *p)
{
    int st = 0;
    pid_t pid = fork();

    if (pid == 0)
        _exit(p[0]);
    cr_assert_geq(pid, 0);
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

Test(bufpool, pooled_buffers_are_wiped_in_a_fork_unless_kept)
{
    size_t cap, small_cap;
    uint8_t *p, *small;

    enc_bufpool_set_wipe(true);
    p = enc_bufpool_get(100 << 10, &cap);          /* pooled size: its own mapping */
    small = enc_bufpool_get(1000, &small_cap);      /* the arena: never wiped */
    cr_assert_not_null(p);
    cr_assert_not_null(small);
    cr_assert(enc_bufpool_wiped(cap));
    cr_assert(!enc_bufpool_wiped(small_cap));
    memset(p, 0xab, cap);
    memset(small, 0xcd, small_cap);
    cr_assert_eq(byte_in_child(p), 0);
    cr_assert_eq(byte_in_child(small), 0xcd);
    enc_bufpool_keep_on_fork(p, cap, true);
    cr_assert_eq(byte_in_child(p), 0xab);
    enc_bufpool_put(p, cap);
    p = enc_bufpool_get(100 << 10, &cap);          /* reused: wiped again */
    cr_assert_eq(byte_in_child(p), 0);
    enc_bufpool_put(p, cap);
    enc_bufpool_put(small, small_cap);
    enc_bufpool_drain();
    enc_bufpool_set_wipe(false);
}

/* Small buffers come from 2 MiB chunks: 16-byte aligned, never overlapping,
 * every byte of each writable, and a chunk whose buffers all came back is
 * carved again from its start. */
Test(bufpool, small_buffers_share_chunks_and_reuse_an_emptied_one)
{
    enum { N = 200 };
    static void *p[N];
    static size_t cap[N];
    size_t len[N], cap_again = 0;
    void *again;

    for (int i = 0; i < N; i++) {
        len[i] = 1 + (size_t)i * 317 % 60000;
        p[i] = enc_bufpool_get(len[i], &cap[i]);
        cr_assert_not_null(p[i]);
        cr_assert_geq(cap[i], len[i]);
        cr_assert_lt(cap[i], (size_t)64 << 10);
        cr_assert_eq((uintptr_t)p[i] % 16, 0);
        cr_assert_lt(cap[i] - len[i], (size_t)16); /* no more than alignment asks */
        cr_assert(!enc_bufpool_wiped(cap[i]));
        memset(p[i], i & 0xff, len[i]);
    }
    for (int i = 0; i < N; i++) /* nobody wrote over anybody */
        for (size_t b = 0; b < len[i]; b += 97)
            cr_assert_eq(((uint8_t *)p[i])[b], i & 0xff, "buffer %d byte %zu", i, b);
    /* about 6 MiB were carved, in 3 or 4 chunks: once every buffer came
     * back, half as much again lands in those chunks, no new one */
    size_t total = 0;

    for (int i = 0; i < N; i++) {
        total += cap[i];
        enc_bufpool_put(p[i], cap[i]);
    }
    for (size_t got = 0; got < total / 2; got += cap_again) {
        uintptr_t chunk;
        bool seen = false;

        again = enc_bufpool_get(60000, &cap_again);
        cr_assert_not_null(again);
        chunk = (uintptr_t)again & ~(uintptr_t)((2u << 20) - 1);
        for (int i = 0; i < N && !seen; i++)
            seen = ((uintptr_t)p[i] & ~(uintptr_t)((2u << 20) - 1)) == chunk;
        cr_assert(seen, "a new chunk after %zu of %zu bytes", got, total);
        memset(again, 1, 60000);
    }
    enc_bufpool_drain();
}

Test(bufpool, just_below_the_pooled_size_is_its_own_mapping)
{
    size_t cap;
    void *p = enc_bufpool_get((64 << 10) - 1, &cap); /* rounded up, not the arena's */

    cr_assert_not_null(p);
    cr_assert_eq(cap, (size_t)64 << 10);
    memset(p, 1, cap);
    enc_bufpool_put(p, cap);
    enc_bufpool_drain();
}

Test(sitemod, a_name_has_one_index_and_reads_back)
{
    uint16_t a = enc_sitemod_intern("kmeans"), b = enc_sitemod_intern("libpetsc.so.3.18");

    cr_assert(a != 0 && b != 0 && a != b && a != ENC_SITEMOD_NONE && b != ENC_SITEMOD_NONE);
    cr_assert_eq(enc_sitemod_intern("kmeans"), a);
    cr_assert_str_eq(enc_sitemod_name(a), "kmeans");
    cr_assert_str_eq(enc_sitemod_name(b), "libpetsc.so.3.18");
    cr_assert_eq(enc_sitemod_intern(""), 0);
    cr_assert_str_eq(enc_sitemod_name(0), "");
    cr_assert_str_eq(enc_sitemod_name(ENC_SITEMOD_MAX - 1), ""); /* never given out */
}

Test(sitemod, a_long_name_is_cut_as_the_wire_cuts_it)
{
    char lng[100], cut[ENC_SITEMOD_BYTES];
    uint16_t id;

    memset(lng, 'm', sizeof(lng) - 1);
    lng[sizeof(lng) - 1] = '\0';
    memcpy(cut, lng, sizeof(cut) - 1);
    cut[sizeof(cut) - 1] = '\0';
    id = enc_sitemod_intern(lng);
    cr_assert_neq(id, ENC_SITEMOD_NONE);
    cr_assert_eq(enc_sitemod_intern(cut), id); /* the same name once cut */
    cr_assert_str_eq(enc_sitemod_name(id), cut);
}

Test(sitemod, a_full_table_gives_none_and_keeps_what_it_has)
{
    char name[ENC_SITEMOD_BYTES];
    uint16_t first = enc_sitemod_intern("first"), id = 0;

    for (int i = 0; i < ENC_SITEMOD_MAX + 1 && id != ENC_SITEMOD_NONE; i++) {
        snprintf(name, sizeof(name), "mod%d", i);
        id = enc_sitemod_intern(name);
    }
    cr_assert_eq(id, ENC_SITEMOD_NONE);
    cr_assert_eq(enc_sitemod_intern("first"), first);
    cr_assert_str_eq(enc_sitemod_name(first), "first");
}
