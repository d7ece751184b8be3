/*
 * fuzz_match.c - the matching engine (p2p/match.c) driven by a sequence of
 * arrivals, posts (wildcards and pinned ones), probes, matched probes and
 * cancels read from the input, three bytes per operation.
 * Oracle: every answer equals that of a plain model of MPI's rules (lists
 * scanned in order), and the queue counts agree after every operation.
 */
#include "enc.h"
#include "p2p/match.h"
#include "fuzz.h"

#include <string.h>

#define POOL 256
#define SRCS 4

static struct enc_match m;
static struct enc_match_msg msg[POOL];
static struct enc_match_recv rcv[POOL];
static int nmsg, nrcv;
static uint64_t next_seq[SRCS];

/* The model: ids in post / arrival order. */
static int posted[POOL], nposted;
static int unexp[POOL], nunexp;

static bool matches(int src, int tag, const struct enc_match_msg *x)
{
    return (src == ENC_MATCH_ANY || src == x->src) && (tag == ENC_MATCH_ANY || tag == x->tag);
}

static bool recv_takes(const struct enc_match_recv *r, const struct enc_match_msg *x)
{
    if (r->pin)
        return r->src == x->src && r->pin == x->seq + 1;
    return matches(r->src, r->tag, x);
}

static void drop(int *a, int *n, int i)
{
    memmove(&a[i], &a[i + 1], (size_t)(*n - i - 1) * sizeof(*a));
    (*n)--;
}

/* Model of an arrival: pinned receives first, then the earliest posted. */
static int model_arrive(const struct enc_match_msg *x)
{
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < nposted; i++) {
            const struct enc_match_recv *r = &rcv[posted[i]];
            if ((pass == 0) != (r->pin != 0) || !recv_takes(r, x))
                continue;
            int id = posted[i];
            drop(posted, &nposted, i);
            return id;
        }
    unexp[nunexp++] = (int)(x - msg);
    return -1;
}

static int model_find(const struct enc_match_recv *r)
{
    for (int i = 0; i < nunexp; i++)
        if (recv_takes(r, &msg[unexp[i]]))
            return i;
    return -1;
}

static void op_arrive(uint8_t a, uint8_t b)
{
    struct enc_match_msg *x = &msg[nmsg++];
    struct enc_match_recv *got;
    int want;

    x->src = a % SRCS;
    x->tag = b % 3;
    x->seq = next_seq[x->src]++;
    want = model_arrive(x);
    FUZZ_CHECK(enc_match_arrive(&m, x, &got) == ENC_OK);
    FUZZ_CHECK((got ? (int)(got - rcv) : -1) == want);
}

static void op_post(uint8_t a, uint8_t b, bool pin)
{
    struct enc_match_recv *r = &rcv[nrcv++];
    struct enc_match_msg *got;
    int i;

    r->src = pin ? a % SRCS : a % (SRCS + 1) == SRCS ? ENC_MATCH_ANY : a % (SRCS + 1);
    r->tag = b % 4 == 3 ? ENC_MATCH_ANY : b % 4;
    r->pin = pin ? (uint64_t)(b % 8) + 1 : 0;
    i = model_find(r);
    FUZZ_CHECK(enc_match_post(&m, r, &got) == ENC_OK);
    if (i < 0) {
        FUZZ_CHECK(got == NULL);
        posted[nposted++] = (int)(r - rcv);
        return;
    }
    FUZZ_CHECK(got == &msg[unexp[i]]);
    drop(unexp, &nunexp, i);
}

static void op_probe(uint8_t a, uint8_t b, bool remove)
{
    struct enc_match_recv pat = {
        .src = a % (SRCS + 1) == SRCS ? ENC_MATCH_ANY : a % (SRCS + 1),
        .tag = b % 4 == 3 ? ENC_MATCH_ANY : b % 4,
    };
    int i = model_find(&pat);
    struct enc_match_msg *got = remove ? enc_match_mprobe(&m, pat.src, pat.tag)
                                       : enc_match_probe(&m, pat.src, pat.tag);

    FUZZ_CHECK(got == (i < 0 ? NULL : &msg[unexp[i]]));
    if (remove && i >= 0)
        drop(unexp, &nunexp, i);
}

static void op_cancel(uint8_t a)
{
    struct enc_match_recv *r;
    int at = -1;

    if (nrcv == 0)
        return;
    r = &rcv[a % nrcv];
    for (int i = 0; i < nposted; i++)
        if (posted[i] == (int)(r - rcv))
            at = i;
    FUZZ_CHECK(enc_match_cancel(&m, r) == (at >= 0));
    if (at >= 0)
        drop(posted, &nposted, at);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enc_match_init(&m);
    memset(msg, 0, sizeof(msg));
    memset(rcv, 0, sizeof(rcv));
    memset(next_seq, 0, sizeof(next_seq));
    nmsg = nrcv = nposted = nunexp = 0;
    for (size_t i = 0; i + 3 <= size && nmsg < POOL && nrcv < POOL; i += 3) {
        uint8_t a = data[i + 1], b = data[i + 2];
        switch (data[i] % 8) {
        case 0: case 1: op_arrive(a, b); break;
        case 2: case 3: op_post(a, b, false); break;
        case 4: op_probe(a, b, false); break;
        case 5: op_probe(a, b, true); break;
        case 6: op_cancel(a); break;
        case 7: op_post(a, b, true); break;
        }
        FUZZ_CHECK(m.nposted == (size_t)nposted && m.nunexpected == (size_t)nunexp);
    }
    enc_match_fini(&m);
    return 0;
}

void fuzz_seeds(fuzz_emit_fn emit)
{
    static const unsigned mixes[][8] = {
        {3, 3, 1, 1, 1, 1, 1, 0},   /* arrivals and posts, a few probes, no pins */
        {2, 2, 2, 2, 1, 1, 1, 1},   /* everything */
        {4, 1, 3, 1, 0, 0, 0, 0},   /* many unexpected messages, wildcard posts */
    };
    uint8_t buf[3 * 300];
    unsigned rng = 7;
    char name[16];

    for (size_t k = 0; k < sizeof(mixes) / sizeof(mixes[0]); k++) {
        for (size_t i = 0; i < sizeof(buf); i += 3) {
            unsigned total = 0, pick, op = 0;
            for (int j = 0; j < 8; j++)
                total += mixes[k][j];
            rng = rng * 1103515245u + 12345u;
            pick = (rng >> 8) % total;
            while (pick >= mixes[k][op])
                pick -= mixes[k][op++];
            buf[i] = (uint8_t)op;
            rng = rng * 1103515245u + 12345u;
            buf[i + 1] = (uint8_t)(rng >> 8);
            buf[i + 2] = (uint8_t)(rng >> 16);
        }
        snprintf(name, sizeof(name), "mix-%zu", k);
        emit(name, buf, sizeof(buf));
    }
}
