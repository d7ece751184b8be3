/*
 * test_p2p_det_store.c - shim/p2p/det_store: what one incarnation records
 * (SIGKILLed right after, in a child process) the next one finds by clock:
 * a NONE run covers exactly its calls, a DONE set comes back whole and in
 * order, records of two kinds at one clock (a wildcard receive's MATCH and
 * its CANCEL) are both found, a replayed call records nothing again, and
 * the file grows past its first mapping.  What is shipped to encore-run
 * (enc_det_store_unshipped), applied at its offsets, rebuilds the file on
 * another host (enc_det_store_open_from).
 */
#include "enc.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "p2p/det_store.h"

static char dir[64];

static void setup(void)
{
    char rank_dir[96];

    snprintf(dir, sizeof(dir), "/tmp/test_det_store.XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(rank_dir, sizeof(rank_dir), "%s/rank", dir);
    setenv("ENCORE_RANK_TMPDIR", rank_dir, 1);
}

static void teardown(void)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    (void)system(cmd);
}

TestSuite(p2p_det_store, .init = setup, .fini = teardown);

/* Runs body as incarnation 0 of rank 3 in a child that SIGKILLs itself. */
static void first_incarnation(void (*body)(void))
{
    pid_t pid = fork();
    int st;

    cr_assert(pid >= 0);
    if (pid == 0) {
        if (enc_det_store_open(3, 0) != ENC_OK)
            _exit(2);
        body();
        kill(getpid(), SIGKILL);
        _exit(3);
    }
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the child did not run to its kill");
}

static void polls(void)
{
    struct enc_det done[3];

    /* clocks 1..5 found nothing, 6 completed indices 4, 0, 2, 7..8 nothing */
    for (int i = 0; i < 5; i++)
        enc_det_store_none(enc_det_store_tick());
    for (int i = 0; i < 3; i++)
        done[i] = (struct enc_det){.kind = ENC_DET_DONE, .clock = 6, .idx = (uint32_t)(4 - 2 * i),
                                   .flags = i == 2 ? ENC_DET_LAST : 0};
    (void)enc_det_store_tick();
    enc_det_store_record_n(done, 3);
    enc_det_store_none(enc_det_store_tick());
    enc_det_store_none(enc_det_store_tick());
}

Test(p2p_det_store, runs_and_sets_survive_a_kill)
{
    struct enc_det d, set[4];

    first_incarnation(polls);
    cr_assert_eq(enc_det_store_open(3, 1), ENC_OK);
    for (uint64_t c = 1; c <= 5; c++) {
        cr_assert(enc_det_store_find(c, &d), "clock %llu", (unsigned long long)c);
        cr_assert_eq(d.kind, ENC_DET_NONE);
        cr_assert_eq(d.clock, 1);
        cr_assert_eq(d.seq, 5);
        cr_assert_eq(d.creator, 3);
    }
    cr_assert_eq(enc_det_store_find_all(6, set, 4), 3);
    cr_assert_eq(set[0].idx, 4);
    cr_assert_eq(set[1].idx, 2);
    cr_assert_eq(set[2].idx, 0);
    cr_assert_eq(set[2].flags, ENC_DET_LAST);
    cr_assert(enc_det_store_find(8, &d));
    cr_assert_eq(d.kind, ENC_DET_NONE);
    cr_assert_eq(d.clock, 7);
    cr_assert_eq(d.seq, 2);
    cr_assert_not(enc_det_store_find(9, &d), "past the records the call runs live");
    /* a replayed call records nothing again */
    enc_det_store_none(3);
    cr_assert_eq(enc_det_store_made(), 0);
}

static void cancel_after_match(void)
{
    struct enc_det m = {.kind = ENC_DET_MATCH, .clock = 1, .cid = 9, .src = 2, .tag = 5,
                        .seq = 11};
    struct enc_det c = {.kind = ENC_DET_CANCEL, .clock = 1, .cid = 9, .seq = 0};

    (void)enc_det_store_tick();
    enc_det_store_record(&m);
    enc_det_store_record(&c);
}

Test(p2p_det_store, two_kinds_at_one_clock)
{
    struct enc_det all[4];

    first_incarnation(cancel_after_match);
    cr_assert_eq(enc_det_store_open(3, 1), ENC_OK);
    cr_assert_eq(enc_det_store_find_all(1, all, 4), 2);
    cr_assert_eq(all[0].kind, ENC_DET_MATCH);
    cr_assert_eq(all[0].src, 2);
    cr_assert_eq(all[0].seq, 11);
    cr_assert_eq(all[1].kind, ENC_DET_CANCEL);
    cr_assert_eq(all[1].seq, 0);
}

static void many(void)
{
    /* alternate NONE and DONE so no run merges: 60,000 records, past 1 MiB */
    for (int i = 0; i < 30000; i++) {
        struct enc_det d = {.kind = ENC_DET_DONE, .flags = ENC_DET_LAST, .idx = (uint32_t)i};

        enc_det_store_none(enc_det_store_tick());
        d.clock = enc_det_store_tick();
        enc_det_store_record(&d);
    }
}

Test(p2p_det_store, the_file_grows)
{
    struct enc_det d;

    first_incarnation(many);
    cr_assert_eq(enc_det_store_open(3, 1), ENC_OK);
    cr_assert(enc_det_store_find(60000, &d));
    cr_assert_eq(d.kind, ENC_DET_DONE);
    cr_assert_eq(d.idx, 29999);
    cr_assert(enc_det_store_find(59999, &d));
    cr_assert_eq(d.kind, ENC_DET_NONE);
    cr_assert_eq(d.seq, 1);
}

Test(p2p_det_store, incarnation_zero_starts_empty)
{
    struct enc_det d;

    first_incarnation(polls);
    cr_assert_eq(enc_det_store_open(3, 0), ENC_OK);
    cr_assert_not(enc_det_store_find(1, &d));
}

/* Applies what enc_det_store_unshipped hands out to copy (as encore-run's
 * det_copy.c does); the copy's length. */
static size_t ship(uint8_t *copy, size_t len)
{
    uint64_t v, off;
    uint8_t *b;
    size_t n;

    if (enc_det_store_unshipped(&v, &off, &b, &n)) {
        cr_assert_eq(v, enc_det_store_version());
        cr_assert_eq(off % ENC_DET_WIRE, 0);
        memcpy(copy + off, b, n);
        len = len > off + n ? len : off + n;
        free(b);
    }
    return len;
}

static uint8_t shipped[4096];
static size_t nshipped;

/* polls(), shipped after every call: encore-run's copy, kept in a file of
 * the test's directory (the child is killed). */
static void polls_shipped(void)
{
    char path[128];
    FILE *f;
    uint64_t v0 = enc_det_store_version(), v, off;
    uint8_t *b;
    size_t n;

    cr_assert_not(enc_det_store_unshipped(&v, &off, &b, &n), "a fresh store has nothing");
    for (int i = 0; i < 5; i++) {
        enc_det_store_none(enc_det_store_tick());
        nshipped = ship(shipped, nshipped); /* the one NONE run, grown: shipped again */
    }
    cr_assert_gt(enc_det_store_version(), v0);
    polls();
    nshipped = ship(shipped, nshipped);
    cr_assert_not(enc_det_store_unshipped(&v, &off, &b, &n), "nothing changed since");
    snprintf(path, sizeof(path), "%s/copy", dir);
    cr_assert_not_null(f = fopen(path, "w"));
    cr_assert_eq(fwrite(shipped, 1, nshipped, f), nshipped);
    fclose(f);
}

Test(p2p_det_store, the_copy_replaces_a_lost_file)
{
    char path[128];
    struct enc_det d, set[4];
    FILE *f;

    first_incarnation(polls_shipped);
    snprintf(path, sizeof(path), "%s/copy", dir);
    cr_assert_not_null(f = fopen(path, "r"));
    nshipped = fread(shipped, 1, sizeof(shipped), f);
    fclose(f);
    cr_assert_eq(nshipped, 5 * ENC_DET_WIRE, "NONE(10), DONE x3, NONE(2): %zu bytes", nshipped);
    snprintf(path, sizeof(path), "%s/p2p-determinants.3", dir);
    cr_assert_eq(unlink(path), 0); /* restarted on another host: no file there */
    cr_assert_eq(enc_det_store_open_from(3, 1, shipped, nshipped), ENC_OK);
    cr_assert(enc_det_store_find(1, &d));
    cr_assert_eq(d.kind, ENC_DET_NONE);
    cr_assert_eq(d.seq, 10, "the run as last shipped, grown: %llu", (unsigned long long)d.seq);
    cr_assert_eq(enc_det_store_find_all(6, set, 4), 3); /* polls() records its set at 6 */
    cr_assert_eq(set[0].idx, 4);
    cr_assert(enc_det_store_find(13, &d));
    cr_assert_eq(d.clock, 12);
    cr_assert_eq(d.seq, 2);
    cr_assert_not(enc_det_store_find(14, &d));
}

Test(p2p_det_store, a_longer_file_is_kept_over_a_shorter_copy)
{
    struct enc_det d;
    uint8_t one[ENC_DET_WIRE];

    first_incarnation(polls);
    enc_det_encode(&(struct enc_det){.kind = ENC_DET_NONE, .clock = 1, .seq = 1}, one);
    cr_assert_eq(enc_det_store_open_from(3, 1, one, sizeof(one)), ENC_OK);
    cr_assert(enc_det_store_find(5, &d), "the file here is newer than the copy");
    cr_assert_eq(d.seq, 5);
}

/* A file whose first record is unpublished (a DONE set cut short by a
 * kill: its later records written, its first kind byte not) under a
 * shorter copy: the stale records past the copy are not read. */
Test(p2p_det_store, stale_records_past_an_adopted_copy_are_not_read)
{
    char path[128];
    uint8_t file[3 * ENC_DET_WIRE] = {0}, one[ENC_DET_WIRE];
    struct enc_det d;
    FILE *f;

    enc_det_encode(&(struct enc_det){.kind = ENC_DET_DONE, .clock = 2, .idx = 1}, file + 40);
    enc_det_encode(&(struct enc_det){.kind = ENC_DET_DONE, .clock = 2, .idx = 2,
                                     .flags = ENC_DET_LAST}, file + 80);
    snprintf(path, sizeof(path), "%s/p2p-determinants.3", dir);
    cr_assert_not_null(f = fopen(path, "w"));
    cr_assert_eq(fwrite(file, 1, sizeof(file), f), sizeof(file));
    fclose(f);
    enc_det_encode(&(struct enc_det){.kind = ENC_DET_NONE, .clock = 1, .seq = 1}, one);
    cr_assert_eq(enc_det_store_open_from(3, 1, one, sizeof(one)), ENC_OK);
    cr_assert(enc_det_store_find(1, &d));
    cr_assert_eq(d.kind, ENC_DET_NONE);
    cr_assert_eq(enc_det_store_find_all(2, &d, 1), 0, "a stale record was read");
}
