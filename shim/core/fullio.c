/*
 * fullio.c - reads and writes that do all they were asked to (fullio.h).
 */
#include "enc.h"

#include <errno.h>
#include <unistd.h>

#include "core/fullio.h"

size_t enc_write_full(int fd, const void *buf, size_t len, off_t off)
{
    size_t done = 0;

    while (done < len) {
        const char *p = (const char *)buf + done;
        ssize_t n = off < 0 ? write(fd, p, len - done) : pwrite(fd, p, len - done, off + (off_t)done);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    return done;
}

size_t enc_read_full(int fd, void *buf, size_t len, off_t off)
{
    size_t done = 0;

    while (done < len) {
        char *p = (char *)buf + done;
        ssize_t n = off < 0 ? read(fd, p, len - done) : pread(fd, p, len - done, off + (off_t)done);

        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            errno = 0;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    return done;
}
