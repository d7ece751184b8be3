/*
 * fuzz_secret.c - the job secret from the environment (proto/secret.c):
 * ENCORE_SECRET as hex, or the contents of ENCORE_SECRET_FILE (here a
 * memfd, so no disk).  The first byte picks which.
 * Oracle: an accepted secret prints back as the same hex digits
 * (case-folded) that were given.
 */
#define _GNU_SOURCE
#include "enc.h"
#include "fuzz.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int hex_matches(const char *given, const struct enc_secret *s)
{
    char hex[2 * ENC_SECRET_LEN + 1];

    enc_secret_to_hex(s, hex);
    for (size_t i = 0; i < sizeof(hex) - 1; i++)
        if (tolower((unsigned char)given[i]) != hex[i])
            return 0;
    return 1;
}

static void from_env(const char *s)
{
    struct enc_secret k;

    unsetenv("ENCORE_SECRET_FILE");
    setenv("ENCORE_SECRET", s, 1);
    if (enc_secret_from_env(&k) == ENC_OK)
        FUZZ_CHECK(strlen(s) == 2 * ENC_SECRET_LEN && hex_matches(s, &k));
}

static void from_file(const uint8_t *data, size_t size)
{
    struct enc_secret k;
    char path[64];
    int fd = memfd_create("fuzz-secret", MFD_CLOEXEC);

    if (fd < 0)
        return;
    if (write(fd, data, size) == (ssize_t)size) {
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        unsetenv("ENCORE_SECRET");
        setenv("ENCORE_SECRET_FILE", path, 1);
        if (enc_secret_from_env(&k) == ENC_OK)
            FUZZ_CHECK(size >= 2 * ENC_SECRET_LEN && hex_matches((const char *)data, &k));
    }
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s;

    if (size < 1)
        return 0;
    if (data[0] & 1) {
        from_file(data + 1, size - 1);
        return 0;
    }
    s = fuzz_strndup(data + 1, size - 1);
    from_env(s);
    free(s);
    return 0;
}

void fuzz_seeds(fuzz_emit_fn emit)
{
    struct enc_secret k = {.key = "0123456789abcdef0123456789abcdef"};
    char buf[2 + 2 * ENC_SECRET_LEN + 1];

    enc_secret_to_hex(&k, buf + 1);
    buf[0] = 0;
    emit("env-hex", buf, 1 + 2 * ENC_SECRET_LEN);
    buf[0] = 1;
    buf[1 + 2 * ENC_SECRET_LEN] = '\n';
    emit("file-hex-newline", buf, 2 + 2 * ENC_SECRET_LEN);
}
