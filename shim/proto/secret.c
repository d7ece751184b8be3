/*
 * secret.c - the per-job secret: generation, hex form, and loading it from
 * the environment.  The secret's bytes and hex are never logged, and copies
 * made while loading are wiped.
 */
#include "enc.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "proto/auth.h"

#define ENC_SECRET_HEX_LEN (2 * ENC_SECRET_LEN)

enc_status_t enc_secret_generate(struct enc_secret *s)
{
    if (RAND_bytes(s->key, ENC_SECRET_LEN) != 1) {
        ENC_ERROR("auth", "RAND_bytes failed: cannot generate the job secret");
        return ENC_ERR_SYS;
    }
    return ENC_OK;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

enc_status_t enc_secret_from_hex(struct enc_secret *s, const char *hex)
{
    struct enc_secret tmp;

    if (hex == NULL || strlen(hex) != ENC_SECRET_HEX_LEN)
        return ENC_ERR_INVAL;
    for (size_t i = 0; i < ENC_SECRET_LEN; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            OPENSSL_cleanse(&tmp, sizeof(tmp));
            return ENC_ERR_INVAL;
        }
        tmp.key[i] = (uint8_t)(hi << 4 | lo);
    }
    *s = tmp;
    OPENSSL_cleanse(&tmp, sizeof(tmp));
    return ENC_OK;
}

void enc_secret_to_hex(const struct enc_secret *s, char out[2 * ENC_SECRET_LEN + 1])
{
    static const char digits[] = "0123456789abcdef";

    for (size_t i = 0; i < ENC_SECRET_LEN; i++) {
        out[2 * i] = digits[s->key[i] >> 4];
        out[2 * i + 1] = digits[s->key[i] & 0xf];
    }
    out[ENC_SECRET_HEX_LEN] = '\0';
}

/* The file holds the hex, optionally followed by whitespace (a newline). */
static int secret_from_file(struct enc_secret *s, const char *path)
{
    char buf[ENC_SECRET_HEX_LEN + 64];
    ssize_t n;
    int rv, fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        ENC_WARN("auth", "ENCORE_SECRET_FILE %s: %m", path);
        return ENC_ERR_INVAL;
    }
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n < 0)
        n = 0;
    while (n > 0 && strchr(" \t\r\n", buf[n - 1]) != NULL)
        n--;
    buf[n] = '\0';
    rv = enc_secret_from_hex(s, buf);
    OPENSSL_cleanse(buf, sizeof(buf));
    if (rv != 0)
        ENC_WARN("auth", "ENCORE_SECRET_FILE %s does not hold %d hex digits", path,
                 ENC_SECRET_HEX_LEN);
    return rv;
}

enc_status_t enc_secret_from_env(struct enc_secret *s)
{
    const char *hex = enc_tunable_str(ENC_TUNE_SECRET);
    const char *path = enc_tunable_str(ENC_TUNE_SECRET_FILE);

    if (*hex != '\0') {
        if (enc_secret_from_hex(s, hex) == 0)
            return ENC_OK;
        ENC_WARN("auth", "ENCORE_SECRET is not %d hex digits", ENC_SECRET_HEX_LEN);
        return ENC_ERR_INVAL;
    }
    if (*path != '\0')
        return secret_from_file(s, path);
    ENC_WARN("auth", "no job secret: neither ENCORE_SECRET nor ENCORE_SECRET_FILE is set");
    return ENC_ERR_INVAL;
}
