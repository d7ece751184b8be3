/*
 * fuzz_hostport.c - "host:port" / "[ipv6]:port" parsing (net/hostport.c),
 * as given in ENCORE_TRACKER.  The first byte picks the host buffer size.
 * Oracle: a parsed host fits, is non-empty, and reappears in the input.
 */
#include "enc.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t cap;
    char *s, *host;
    uint16_t port;

    if (size < 1)
        return 0;
    cap = 1 + data[0] % 80;
    s = fuzz_strndup(data + 1, size - 1);
    host = malloc(cap); /* exact size, so ASan sees any overrun */
    if (host == NULL)
        fuzz_fail("out of memory");
    if (enc_parse_hostport(s, host, cap, &port) == ENC_OK) {
        FUZZ_CHECK(strlen(host) > 0 && strlen(host) < cap);
        FUZZ_CHECK(strstr(s, host) != NULL);
    }
    free(host);
    free(s);
    return 0;
}

void fuzz_seeds(fuzz_emit_fn emit)
{
    emit("ipv4", "\x40" "127.0.0.1:4000", 15);
    emit("name", "\x40" "node-7.cluster:65535", 21);
    emit("ipv6", "\x40" "[::1]:80", 9);
}
