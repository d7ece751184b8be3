/*
 * sockio.c - byte I/O on non-blocking sockets, mapped to encore statuses.
 *
 * EOF is ENC_ERR_PEER_CLOSED, any other I/O error ENC_ERR_PEER_RESET and an
 * expired deadline ENC_ERR_TIMEOUT, so recovery can tell a dead peer from a
 * bug.  MSG_DONTWAIT keeps the "some" calls non-blocking even on a blocking
 * fd, and MSG_NOSIGNAL turns SIGPIPE into EPIPE.
 */
#include "enc.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include "net/sock.h"

static ssize_t io_error(int err)
{
    if (err == EAGAIN || err == EWOULDBLOCK)
        return 0;
    ENC_DEBUG("sock", "socket I/O: %s", strerror(err));
    return ENC_ERR_PEER_RESET;
}

ssize_t enc_sock_write_some(int fd, const void *buf, size_t len)
{
    ssize_t n;

    if (len == 0)
        return 0;
    do {
        n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    return n >= 0 ? n : io_error(errno);
}

ssize_t enc_sock_read_some(int fd, void *buf, size_t len)
{
    ssize_t n;

    if (len == 0)
        return 0;
    do {
        n = recv(fd, buf, len, MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n == 0)
        return ENC_ERR_PEER_CLOSED;
    return n > 0 ? n : io_error(errno);
}

/* Sleeps until fd is ready for events or the deadline passes. */
static int wait_ready(int fd, short events, uint64_t deadline)
{
    struct pollfd p = {.fd = fd, .events = events};
    int n;

    if (enc_ms_left(deadline) == 0)
        return ENC_ERR_TIMEOUT;
    do {
        n = poll(&p, 1, enc_ms_left(deadline));
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        ENC_ERROR("sock", "poll: %m");
        return ENC_ERR_SYS;
    }
    /* Readiness, POLLERR or POLLHUP: the next I/O call reports which. */
    return n == 0 ? ENC_ERR_TIMEOUT : ENC_OK;
}

typedef ssize_t (*io_fn)(int fd, void *buf, size_t len);

static ssize_t write_some_cb(int fd, void *buf, size_t len)
{
    return enc_sock_write_some(fd, buf, len);
}

static int io_all(int fd, uint8_t *p, size_t len, uint64_t deadline, io_fn fn, short ev)
{
    size_t done = 0;
    ssize_t n;
    int rv;

    while (done < len) {
        n = fn(fd, p + done, len - done);
        if (n < 0)
            return (int)n;
        done += (size_t)n;
        if (n == 0 && (rv = wait_ready(fd, ev, deadline)) != 0)
            return rv;
    }
    return ENC_OK;
}

enc_status_t enc_sock_write_all(int fd, const void *buf, size_t len, uint64_t deadline)
{
    /* The cast only lets one loop serve both directions; writes never store. */
    return io_all(fd, (uint8_t *)(uintptr_t)buf, len, deadline, write_some_cb, POLLOUT);
}

enc_status_t enc_sock_read_all(int fd, void *buf, size_t len, uint64_t deadline)
{
    return io_all(fd, buf, len, deadline, enc_sock_read_some, POLLIN);
}
