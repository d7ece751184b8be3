/*
 * fuzz_agent.c - the encore-run <-> encore-agent payload decoders
 * (run/common/agent_proto.c): a note (HELLO, KILL, STARTED, FAILED, EXITED)
 * or a SPAWN.  The first byte picks which, the rest is the payload.
 * Oracle: a payload that decodes re-encodes to one that decodes to the same
 * message; a decoded SPAWN has a program and NULL-terminated vectors.
 */
#include "enc.h"
#include "common/agent_proto.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

static void note(const uint8_t *p, size_t len)
{
    struct enc_agent_note m, again;
    uint8_t *buf;
    size_t n;

    if (enc_agent_note_decode(&m, p, len) != ENC_OK)
        return;
    FUZZ_CHECK(enc_agent_note_encode(&m, &buf, &n) == ENC_OK);
    FUZZ_CHECK(n == len && memcmp(buf, p, n) == 0);
    FUZZ_CHECK(enc_agent_note_decode(&again, buf, n) == ENC_OK);
    FUZZ_CHECK(again.rank == m.rank && again.inc == m.inc && again.value == m.value &&
               strcmp(again.text, m.text) == 0);
    free(buf);
}

static int count(char **v)
{
    int n = 0;

    while (v[n] != NULL)
        n++;
    return n;
}

static void same_vec(char **a, char **b)
{
    FUZZ_CHECK(count(a) == count(b));
    for (int i = 0; a[i] != NULL; i++)
        FUZZ_CHECK(strcmp(a[i], b[i]) == 0);
}

static void spawn(const uint8_t *p, size_t len)
{
    struct enc_agent_spawn m, again;
    uint8_t *buf;
    size_t n;

    if (enc_agent_spawn_decode(&m, p, len) != ENC_OK)
        return;
    FUZZ_CHECK(m.path != NULL && m.cwd != NULL && m.argv != NULL && m.env != NULL);
    FUZZ_CHECK(m.argv[0] != NULL);
    FUZZ_CHECK(enc_agent_spawn_encode(&m, NULL, &buf, &n) == ENC_OK);
    FUZZ_CHECK(enc_agent_spawn_decode(&again, buf, n) == ENC_OK);
    FUZZ_CHECK(again.rank == m.rank && again.inc == m.inc && again.bind_index == m.bind_index &&
               again.tag_output == m.tag_output);
    FUZZ_CHECK(strcmp(again.bind_to, m.bind_to) == 0 && strcmp(again.cwd, m.cwd) == 0 &&
               strcmp(again.path, m.path) == 0);
    same_vec(again.argv, m.argv);
    same_vec(again.env, m.env);
    enc_agent_spawn_free(&again);
    enc_agent_spawn_free(&m);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *p;

    if (size < 1)
        return 0;
    p = fuzz_memdup(data + 1, size - 1); /* exact size, so ASan sees any overread */
    if (data[0] % 2 == 0)
        note(p, size - 1);
    else
        spawn(p, size - 1);
    free(p);
    return 0;
}

void fuzz_seeds(fuzz_emit_fn emit)
{
    struct enc_agent_note hello = {.rank = 1, .value = 4242, .text = "node2"};
    char *argv[] = {"/bin/prog", "--iters", "30", NULL};
    char *env[] = {"PATH=/usr/bin", "ENCORE_SECRET=0", "ENCORE_RANK=3", NULL};
    const char *const skip[] = {"ENCORE_SECRET=", NULL};
    struct enc_agent_spawn sp = {.rank = 3, .inc = 1, .bind_index = 1, .tag_output = true,
                                 .bind_to = "core", .cwd = "/work", .path = "/bin/prog",
                                 .argv = argv, .env = env};
    uint8_t buf[1024], *enc;
    size_t n;

    if (enc_agent_note_encode(&hello, &enc, &n) == ENC_OK && n < sizeof(buf)) {
        buf[0] = 0;
        memcpy(buf + 1, enc, n);
        emit("note-hello", buf, n + 1);
        free(enc);
    }
    if (enc_agent_spawn_encode(&sp, skip, &enc, &n) == ENC_OK && n < sizeof(buf)) {
        buf[0] = 1;
        memcpy(buf + 1, enc, n);
        emit("spawn", buf, n + 1);
        free(enc);
    }
}
