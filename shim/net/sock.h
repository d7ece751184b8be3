/*
 * sock.h - TCP sockets: non-blocking, TCP_NODELAY, close-on-exec, bounded.
 *
 * I/O helpers map errors to statuses: EOF -> ENC_ERR_PEER_CLOSED,
 * ECONNRESET/EPIPE/other I/O errors -> ENC_ERR_PEER_RESET, deadline ->
 * ENC_ERR_TIMEOUT.  Writes use MSG_NOSIGNAL (no SIGPIPE).
 */
#ifndef ENC_NET_SOCK_H
#define ENC_NET_SOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Listens on host (NULL: all addresses) and port (0: kernel's choice). */
enc_status_t enc_sock_listen(const char *host, uint16_t port, int *fd, uint16_t *bound_port);
/* Connects with a deadline; the result is non-blocking. */
enc_status_t enc_sock_connect(const char *host, uint16_t port, uint64_t deadline, int *fd);
/* Accepts one pending connection (non-blocking result); ENC_ERR_TIMEOUT
 * when none is pending (EAGAIN). */
enc_status_t enc_sock_accept(int lfd, int *fd);
enc_status_t enc_sock_set_nonblock(int fd);
void enc_sock_close(int *fd);

/* Whole-buffer I/O on a non-blocking fd, polling until deadline. */
enc_status_t enc_sock_write_all(int fd, const void *buf, size_t len, uint64_t deadline);
enc_status_t enc_sock_read_all(int fd, void *buf, size_t len, uint64_t deadline);

/* One non-blocking attempt: returns bytes moved (>= 0; 0 means EAGAIN) or a
 * negative status.  read returns ENC_ERR_PEER_CLOSED on EOF. */
ssize_t enc_sock_write_some(int fd, const void *buf, size_t len);
ssize_t enc_sock_read_some(int fd, void *buf, size_t len);

/* "host:port" -> host, port.  IPv6 as "[::1]:port". */
enc_status_t enc_parse_hostport(const char *s, char *host, size_t hostcap, uint16_t *port);

#endif
