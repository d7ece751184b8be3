/*
 * sock.c - creating TCP sockets: listen, connect with a deadline, accept.
 *
 * Every socket is non-blocking and close-on-exec (ranks fork and exec
 * helpers; a leaked link would keep a dead peer's connection alive) and has
 * TCP_NODELAY (collectives are latency-bound).  Buffer sizes are left to
 * kernel autotuning.
 */
#include "enc.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/sock.h"

#define ENC_LISTEN_BACKLOG 4096

static int set_nodelay(int fd)
{
    int one = 1;

    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0) {
        ENC_ERROR("sock", "TCP_NODELAY: %m");
        return ENC_ERR_SYS;
    }
    return ENC_OK;
}

enc_status_t enc_sock_set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);

    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0) {
        ENC_ERROR("sock", "O_NONBLOCK: %m");
        return ENC_ERR_SYS;
    }
    return ENC_OK;
}

void enc_sock_close(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static int resolve(const char *host, uint16_t port, int flags, struct addrinfo **res)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = flags | AI_NUMERICSERV};
    char portstr[8];
    int rc;

    /* NULL host: all IPv4 addresses (0.0.0.0), which every peer can reach. */
    hints.ai_family = host == NULL ? AF_INET : AF_UNSPEC;
    snprintf(portstr, sizeof(portstr), "%u", port);
    rc = getaddrinfo(host, portstr, &hints, res);
    if (rc != 0) {
        ENC_WARN("sock", "cannot resolve %s: %s", host ? host : "*", gai_strerror(rc));
        return ENC_ERR_INVAL;
    }
    return ENC_OK;
}

static int new_socket(const struct addrinfo *ai)
{
    return socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                  ai->ai_protocol);
}

static uint16_t local_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);

    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0)
        return 0;
    if (ss.ss_family == AF_INET6)
        return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* One candidate address; -1 with errno set on failure. */
static int listen_one(const struct addrinfo *ai)
{
    int one = 1;
    int fd = new_socket(ai);

    if (fd < 0)
        return -1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 ||
        listen(fd, ENC_LISTEN_BACKLOG) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

enc_status_t enc_sock_listen(const char *host, uint16_t port, int *fd, uint16_t *bound_port)
{
    struct addrinfo *res, *ai;
    int rv, lfd = -1;

    *fd = -1;
    if ((rv = resolve(host, port, AI_PASSIVE, &res)) != 0)
        return rv;
    for (ai = res; ai != NULL && lfd < 0; ai = ai->ai_next)
        lfd = listen_one(ai);
    freeaddrinfo(res);
    if (lfd < 0) {
        ENC_ERROR("sock", "cannot listen on %s port %u: %m", host ? host : "*", port);
        return ENC_ERR_SYS;
    }
    *fd = lfd;
    if (bound_port != NULL)
        *bound_port = local_port(lfd);
    return ENC_OK;
}

/* Waits for a non-blocking connect to finish; errno-style result. */
static int connect_wait(int fd, uint64_t deadline)
{
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int err = 0;
    socklen_t el = sizeof(err);
    int n;

    do {
        n = poll(&p, 1, enc_ms_left(deadline));
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return errno;
    if (n == 0)
        return ETIMEDOUT;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0)
        return errno;
    return err;
}

/* One candidate address: 0 and *fd set, or an errno value. */
static int connect_one(const struct addrinfo *ai, uint64_t deadline, int *fd)
{
    int err = 0;
    int s = new_socket(ai);

    if (s < 0)
        return errno;
    if (connect(s, ai->ai_addr, ai->ai_addrlen) != 0)
        err = errno == EINPROGRESS ? connect_wait(s, deadline) : errno;
    if (err == 0 && set_nodelay(s) != 0)
        err = EIO;
    if (err != 0) {
        close(s);
        return err;
    }
    *fd = s;
    return 0;
}

enc_status_t enc_sock_connect(const char *host, uint16_t port, uint64_t deadline, int *fd)
{
    struct addrinfo *res, *ai;
    int rv, err = ENOENT;

    *fd = -1;
    if (host == NULL)
        return ENC_ERR_INVAL;
    if ((rv = resolve(host, port, 0, &res)) != 0)
        return rv;
    for (ai = res; ai != NULL && *fd < 0 && err != ETIMEDOUT; ai = ai->ai_next)
        err = connect_one(ai, deadline, fd);
    freeaddrinfo(res);
    if (*fd >= 0)
        return ENC_OK;
    /* Refusal is normal while a peer restarts: the caller decides how loud. */
    ENC_DEBUG("sock", "connect %s port %u: %s", host, port, strerror(err));
    return err == ETIMEDOUT ? ENC_ERR_TIMEOUT : ENC_ERR_PEER_RESET;
}

enc_status_t enc_sock_accept(int lfd, int *fd)
{
    int s;

    *fd = -1;
    do {
        s = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    } while (s < 0 && errno == EINTR);
    if (s < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return ENC_ERR_TIMEOUT;
    /* The connection died while queued: nothing to accept after all. */
    if (s < 0 && errno == ECONNABORTED)
        return ENC_ERR_TIMEOUT;
    if (s < 0) {
        ENC_ERROR("sock", "accept: %m");
        return ENC_ERR_SYS;
    }
    if (set_nodelay(s) != 0) {
        close(s);
        return ENC_ERR_SYS;
    }
    *fd = s;
    return ENC_OK;
}
