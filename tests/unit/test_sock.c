/* test_sock.c - TCP sockets with bounded waits and address parsing
 * (net/sock.h). */
#include "enc.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/sock.h"

static int lfd = -1, cfd = -1, sfd = -1;

static void teardown(void)
{
    enc_sock_close(&cfd);
    enc_sock_close(&sfd);
    enc_sock_close(&lfd);
}

/* Listens on host, connects to it and accepts; all bounded. */
static void connect_pair(const char *host)
{
    uint16_t port = 0;
    struct pollfd p;

    cr_assert_eq(enc_sock_listen(host, 0, &lfd, &port), ENC_OK);
    cr_assert_neq(port, 0);
    cr_assert_eq(enc_sock_connect(host, port, enc_deadline_ms(5000), &cfd), ENC_OK);
    p = (struct pollfd){.fd = lfd, .events = POLLIN};
    cr_assert_eq(poll(&p, 1, 5000), 1);
    cr_assert_eq(enc_sock_accept(lfd, &sfd), ENC_OK);
}

static void assert_sock_options(int fd)
{
    int nodelay = 0;
    socklen_t len = sizeof(nodelay);

    cr_assert(fcntl(fd, F_GETFL) & O_NONBLOCK);
    cr_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
    cr_assert_eq(getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &nodelay, &len), 0);
    cr_assert_neq(nodelay, 0);
}

Test(sock, ipv4_connect_accept_and_transfer, .fini = teardown, .timeout = 20)
{
    char got[6] = {0};

    connect_pair("127.0.0.1");
    assert_sock_options(cfd);
    assert_sock_options(sfd);
    cr_assert_eq(enc_sock_write_all(cfd, "hello", 5, enc_deadline_ms(5000)), ENC_OK);
    cr_assert_eq(enc_sock_read_all(sfd, got, 5, enc_deadline_ms(5000)), ENC_OK);
    cr_assert_str_eq(got, "hello");
}

/* Some CI sandboxes boot without IPv6: skip (saying so) when ::1 cannot be
 * bound at all, rather than fail on the machine instead of the code. */
static int have_ipv6_loopback(void)
{
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    int fd = socket(AF_INET6, SOCK_STREAM, 0), ok;

    ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

Test(sock, ipv6_loopback_connect_and_transfer, .fini = teardown, .timeout = 20)
{
    char got[3] = {0};

    if (!have_ipv6_loopback())
        cr_skip_test("no IPv6 loopback (::1) on this machine");
    connect_pair("::1");
    cr_assert_eq(enc_sock_write_all(sfd, "v6", 2, enc_deadline_ms(5000)), ENC_OK);
    cr_assert_eq(enc_sock_read_all(cfd, got, 2, enc_deadline_ms(5000)), ENC_OK);
    cr_assert_str_eq(got, "v6");
}

Test(sock, listen_null_binds_all_ipv4_addresses_with_reuseaddr, .fini = teardown)
{
    struct sockaddr_in sin;
    socklen_t sl = sizeof(sin);
    int reuse = 0;
    socklen_t rl = sizeof(reuse);
    uint16_t port;

    cr_assert_eq(enc_sock_listen(NULL, 0, &lfd, &port), ENC_OK);
    cr_assert_eq(getsockname(lfd, (struct sockaddr *)&sin, &sl), 0);
    cr_assert_eq(sin.sin_family, AF_INET);
    cr_assert_eq(sin.sin_addr.s_addr, htonl(INADDR_ANY));
    cr_assert_eq(ntohs(sin.sin_port), port);
    cr_assert_eq(getsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &reuse, &rl), 0);
    cr_assert_neq(reuse, 0);
    cr_assert(fcntl(lfd, F_GETFD) & FD_CLOEXEC);
}

Test(sock, accept_with_nothing_pending_is_timeout, .fini = teardown)
{
    uint16_t port;

    cr_assert_eq(enc_sock_listen("127.0.0.1", 0, &lfd, &port), ENC_OK);
    cr_assert_eq(enc_sock_accept(lfd, &sfd), ENC_ERR_TIMEOUT);
    cr_assert_eq(sfd, -1);
}

Test(sock, listen_on_unresolvable_host_fails, .fini = teardown)
{
    uint16_t port;

    cr_assert_eq(enc_sock_listen("no-such-host.invalid", 0, &lfd, &port), ENC_ERR_INVAL);
    cr_assert_eq(lfd, -1);
}

Test(sock, connect_to_closed_port_fails_fast, .fini = teardown, .timeout = 20)
{
    uint16_t port;
    uint64_t t0;

    /* A port the kernel just handed out and nobody listens on any more. */
    cr_assert_eq(enc_sock_listen("127.0.0.1", 0, &lfd, &port), ENC_OK);
    enc_sock_close(&lfd);
    t0 = enc_now_ns();
    cr_assert_eq(enc_sock_connect("127.0.0.1", port, enc_deadline_ms(5000), &cfd),
                 ENC_ERR_PEER_RESET);
    cr_assert_eq(cfd, -1);
    cr_assert_lt(enc_now_ns() - t0, 4000000000ull, "refusal does not wait for the deadline");
}

/* A listener whose accept queue is full drops further SYNs, so a connect
 * to it hangs: the deadline must end it. */
Test(sock, connect_timeout_is_bounded_by_deadline, .fini = teardown, .timeout = 20)
{
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof(sin);
    int filler[4] = {-1, -1, -1, -1};
    uint64_t t0;
    int rv = ENC_OK;

    lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert_geq(lfd, 0);
    cr_assert_eq(bind(lfd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    cr_assert_eq(listen(lfd, 0), 0);
    cr_assert_eq(getsockname(lfd, (struct sockaddr *)&sin, &sl), 0);
    /* Fill the queue: connects succeed until it is full, then one times out. */
    for (int i = 0; i < 4 && rv == ENC_OK; i++)
        rv = enc_sock_connect("127.0.0.1", ntohs(sin.sin_port), enc_deadline_ms(200), &filler[i]);
    cr_assert_eq(rv, ENC_ERR_TIMEOUT, "the full queue must make connect hang");
    t0 = enc_now_ns();
    cr_assert_eq(enc_sock_connect("127.0.0.1", ntohs(sin.sin_port), enc_deadline_ms(300), &cfd),
                 ENC_ERR_TIMEOUT);
    cr_assert_geq(enc_now_ns() - t0, 299000000ull);
    cr_assert_lt(enc_now_ns() - t0, 3000000000ull);
    cr_assert_eq(cfd, -1);
    for (int i = 0; i < 4; i++)
        enc_sock_close(&filler[i]);
}

Test(sock, read_all_times_out, .fini = teardown, .timeout = 20)
{
    char b[4];
    uint64_t t0;

    connect_pair("127.0.0.1");
    t0 = enc_now_ns();
    cr_assert_eq(enc_sock_read_all(sfd, b, sizeof(b), enc_deadline_ms(100)), ENC_ERR_TIMEOUT);
    cr_assert_geq(enc_now_ns() - t0, 99000000ull);
    cr_assert_eq(enc_sock_read_some(sfd, b, sizeof(b)), 0, "EAGAIN is 0 bytes");
}

Test(sock, read_after_peer_close_is_peer_closed, .fini = teardown, .timeout = 20)
{
    char b[4];

    connect_pair("127.0.0.1");
    cr_assert_eq(enc_sock_write_all(cfd, "ab", 2, enc_deadline_ms(5000)), ENC_OK);
    enc_sock_close(&cfd);
    cr_assert_eq(enc_sock_read_all(sfd, b, sizeof(b), enc_deadline_ms(5000)),
                 ENC_ERR_PEER_CLOSED);
}

Test(sock, write_to_closed_peer_is_peer_reset_without_sigpipe, .fini = teardown,
     .timeout = 20)
{
    static char chunk[65536];
    int rv = ENC_OK;

    connect_pair("127.0.0.1");
    cr_assert_eq(enc_sock_write_all(cfd, "x", 1, enc_deadline_ms(5000)), ENC_OK);
    enc_sock_close(&sfd); /* unread data: the kernel answers with RST */
    for (int i = 0; i < 1000 && rv == ENC_OK; i++)
        rv = enc_sock_write_all(cfd, chunk, sizeof(chunk), enc_deadline_ms(5000));
    cr_assert_eq(rv, ENC_ERR_PEER_RESET);
}

Test(sock, close_sets_fd_to_minus_one)
{
    int fd = dup(0), none = -1;

    enc_sock_close(&fd);
    cr_assert_eq(fd, -1);
    enc_sock_close(&none);
    cr_assert_eq(none, -1);
}

static void assert_hostport(const char *s, const char *host, uint16_t port)
{
    char h[64] = "unset";
    uint16_t p = 0;

    cr_assert_eq(enc_parse_hostport(s, h, sizeof(h), &p), ENC_OK, "%s", s);
    cr_assert_str_eq(h, host, "%s", s);
    cr_assert_eq(p, port, "%s", s);
}

Test(sock, hostport_parses_names_ipv4_and_ipv6)
{
    assert_hostport("node7:4000", "node7", 4000);
    assert_hostport("127.0.0.1:0", "127.0.0.1", 0);
    assert_hostport("h:65535", "h", 65535);
    assert_hostport("[::1]:8080", "::1", 8080);
    assert_hostport("[fe80::1%eth0]:1", "fe80::1%eth0", 1);
}

Test(sock, hostport_malformed_inputs_rejected)
{
    static const char *bad[] = {
        "", "node7", "node7:", ":80", "node7:65536", "node7:8x", "node7:-1",
        "node7: 80", "node7:+80", "::1:80", "::1", "[::1]80", "[::1]", "[]:80",
        "[::1:80", "a[b:80", "node7:99999999999999999999",
    };
    char h[64];
    uint16_t p;

    for (size_t i = 0; i < ENC_ARRAY_SIZE(bad); i++)
        cr_assert_eq(enc_parse_hostport(bad[i], h, sizeof(h), &p), ENC_ERR_INVAL, "\"%s\"",
                     bad[i]);
    cr_assert_eq(enc_parse_hostport(NULL, h, sizeof(h), &p), ENC_ERR_INVAL);
}

Test(sock, hostport_host_longer_than_buffer_rejected)
{
    char h[5];
    uint16_t p;

    cr_assert_eq(enc_parse_hostport("abcde:1", h, sizeof(h), &p), ENC_ERR_INVAL);
    cr_assert_eq(enc_parse_hostport("abcd:1", h, sizeof(h), &p), ENC_OK);
    cr_assert_str_eq(h, "abcd");
}
