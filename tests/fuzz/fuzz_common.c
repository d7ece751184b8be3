/* fuzz_common.c - helpers shared by the fuzz targets (tests/fuzz/fuzz.h). */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Rejections are logged at WARN and expected here by the million: keep
 * the fuzzer's output readable.  Must run before anything logs (the level
 * is read once). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("ENCORE_LOG", "error", 1);
    return 0;
}

int fuzz_pair(int *peer)
{
    int sv[2];

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0)
        return -1;
    *peer = sv[1];
    return sv[0];
}

void fuzz_send(int peer, const uint8_t *data, size_t size)
{
    size_t off = 0;

    while (off < size) {
        ssize_t n = write(peer, data + off, size - off);
        if (n <= 0)
            break; /* buffer full: the rest is dropped */
        off += (size_t)n;
    }
    shutdown(peer, SHUT_WR);
}

int fuzz_feed(const uint8_t *data, size_t size, int *peer)
{
    int fd = fuzz_pair(peer);

    if (fd >= 0)
        fuzz_send(*peer, data, size);
    return fd;
}

void fuzz_close_pair(int fd, int peer)
{
    if (fd >= 0)
        close(fd);
    if (peer >= 0)
        close(peer);
}

char *fuzz_strndup(const uint8_t *data, size_t size)
{
    char *s = (char *)fuzz_memdup(data, size);

    s[size] = '\0';
    return s;
}

uint8_t *fuzz_memdup(const uint8_t *data, size_t size)
{
    uint8_t *p = malloc(size + 1);

    if (p == NULL)
        fuzz_fail("out of memory");
    if (size > 0)
        memcpy(p, data, size);
    return p;
}

void fuzz_fail(const char *msg)
{
    fprintf(stderr, "fuzz oracle failed: %s\n", msg);
    abort();
}
