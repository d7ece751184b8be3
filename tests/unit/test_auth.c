/* test_auth.c - job secret handling and the challenge-response handshake
 * over real TCP connections (proto/auth.h). */
#include "enc.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/frame.h"
#include "proto/auth.h"
#include "net/sock.h"

#define HEX_A "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
#define HEX_B "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"

static struct enc_secret key_a, key_b;
static int lfd = -1, cfd = -1, sfd = -1; /* listener, client end, server end */

/* A TCP connection over loopback on a kernel-chosen port. */
static void tcp_setup(void)
{
    uint16_t port;
    struct pollfd p;

    cr_assert_eq(enc_secret_from_hex(&key_a, HEX_A), ENC_OK);
    cr_assert_eq(enc_secret_from_hex(&key_b, HEX_B), ENC_OK);
    cr_assert_eq(enc_sock_listen("127.0.0.1", 0, &lfd, &port), ENC_OK);
    cr_assert_eq(enc_sock_connect("127.0.0.1", port, enc_deadline_ms(5000), &cfd), ENC_OK);
    p = (struct pollfd){.fd = lfd, .events = POLLIN};
    cr_assert_eq(poll(&p, 1, 5000), 1);
    cr_assert_eq(enc_sock_accept(lfd, &sfd), ENC_OK);
}

static void tcp_teardown(void)
{
    enc_sock_close(&cfd);
    enc_sock_close(&sfd);
    enc_sock_close(&lfd);
}

/* Drives a started server state machine as a poll loop would, for <= 5 s. */
static int server_loop(struct enc_auth_server *a, struct enc_auth_id *peer)
{
    uint64_t deadline = enc_deadline_ms(5000);
    int rv = ENC_INPROGRESS;

    while (rv == ENC_INPROGRESS && enc_ms_left(deadline) > 0) {
        struct pollfd p = {.fd = sfd, .events = POLLIN};
        if (poll(&p, 1, enc_ms_left(deadline)) == 1)
            rv = enc_auth_server_progress(a, sfd, peer);
    }
    return rv;
}

static int server_run(const struct enc_secret *s, struct enc_auth_id *peer)
{
    struct enc_auth_server a;
    int rv;

    if ((rv = enc_auth_server_start(&a, sfd, s)) != 0)
        return rv;
    return server_loop(&a, peer);
}

/* Starts the server and consumes its challenge on the client end, so that
 * closing the client end later sends FIN, not RST (unread data). */
static void server_start_challenged(struct enc_auth_server *a)
{
    struct enc_frame_hdr h;
    uint8_t nonce[ENC_NONCE_LEN];

    cr_assert_eq(enc_auth_server_start(a, sfd, &key_a), ENC_OK);
    cr_assert_eq(enc_frame_recv(cfd, &h, nonce, sizeof(nonce), enc_deadline_ms(5000)), ENC_OK);
    cr_assert_eq(h.type, ENC_MSG_CHALLENGE);
    cr_assert_eq(h.len, ENC_NONCE_LEN);
}

struct client {
    pthread_t thread;
    const struct enc_secret *secret;
    struct enc_auth_id id;
    int rv;
};

static void *client_main(void *arg)
{
    struct client *c = arg;

    c->rv = enc_auth_client(cfd, c->secret, &c->id, enc_deadline_ms(5000));
    return NULL;
}

static void client_start(struct client *c, const struct enc_secret *s)
{
    c->secret = s;
    c->id = (struct enc_auth_id){.role = ENC_ROLE_DATA, .rank = 3, .incarnation = 2,
                                 .epoch = 7};
    cr_assert_eq(pthread_create(&c->thread, NULL, client_main, c), 0);
}

Test(auth, secret_hex_round_trip)
{
    struct enc_secret s;
    char hex[2 * ENC_SECRET_LEN + 1];

    cr_assert_eq(enc_secret_from_hex(&s, HEX_A), ENC_OK);
    cr_assert_eq(s.key[0], 0x00);
    cr_assert_eq(s.key[1], 0x11);
    cr_assert_eq(s.key[31], 0xff);
    enc_secret_to_hex(&s, hex);
    cr_assert_str_eq(hex, HEX_A);
    cr_assert_eq(enc_secret_from_hex(&s, "00112233445566778899AABBCCDDEEFF"
                                         "00112233445566778899AABBCCDDEEFF"), ENC_OK);
    enc_secret_to_hex(&s, hex);
    cr_assert_str_eq(hex, HEX_A);
}

Test(auth, secret_hex_malformed_rejected)
{
    struct enc_secret s;

    cr_assert_eq(enc_secret_from_hex(&s, NULL), ENC_ERR_INVAL);
    cr_assert_eq(enc_secret_from_hex(&s, ""), ENC_ERR_INVAL);
    cr_assert_eq(enc_secret_from_hex(&s, HEX_A "0"), ENC_ERR_INVAL);
    cr_assert_eq(enc_secret_from_hex(&s, HEX_A + 1), ENC_ERR_INVAL);
    cr_assert_eq(enc_secret_from_hex(&s, "g0112233445566778899aabbccddeeff"
                                         "00112233445566778899aabbccddeeff"), ENC_ERR_INVAL);
}

Test(auth, secret_generate_gives_different_keys)
{
    struct enc_secret a, b;

    cr_assert_eq(enc_secret_generate(&a), ENC_OK);
    cr_assert_eq(enc_secret_generate(&b), ENC_OK);
    cr_assert_neq(memcmp(a.key, b.key, ENC_SECRET_LEN), 0);
}

Test(auth, secret_from_env_variable)
{
    struct enc_secret s;
    char hex[2 * ENC_SECRET_LEN + 1];

    setenv("ENCORE_SECRET", HEX_B, 1);
    unsetenv("ENCORE_SECRET_FILE");
    cr_assert_eq(enc_secret_from_env(&s), ENC_OK);
    enc_secret_to_hex(&s, hex);
    cr_assert_str_eq(hex, HEX_B);
}

Test(auth, secret_from_env_file_with_newline)
{
    char path[] = "/tmp/encore-secret-XXXXXX";
    int fd = mkstemp(path);
    struct enc_secret s;
    char hex[2 * ENC_SECRET_LEN + 1];

    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, HEX_A "\n", 65), 65);
    close(fd);
    unsetenv("ENCORE_SECRET");
    setenv("ENCORE_SECRET_FILE", path, 1);
    cr_assert_eq(enc_secret_from_env(&s), ENC_OK);
    unlink(path);
    enc_secret_to_hex(&s, hex);
    cr_assert_str_eq(hex, HEX_A);
}

Test(auth, secret_from_env_missing_or_invalid)
{
    struct enc_secret s;

    unsetenv("ENCORE_SECRET");
    unsetenv("ENCORE_SECRET_FILE");
    cr_assert_eq(enc_secret_from_env(&s), ENC_ERR_INVAL);
    setenv("ENCORE_SECRET", "abcd", 1);
    cr_assert_eq(enc_secret_from_env(&s), ENC_ERR_INVAL);
    unsetenv("ENCORE_SECRET");
    setenv("ENCORE_SECRET_FILE", "/nonexistent/encore-secret", 1);
    cr_assert_eq(enc_secret_from_env(&s), ENC_ERR_INVAL);
}

Test(auth, invalid_secret_is_not_echoed_in_the_log, .init = cr_redirect_stderr)
{
    static const char bad[] = "zz112233445566778899aabbccddeeff00112233445566778899aabbccdd5ecret";
    struct enc_secret s;
    char logbuf[4096] = {0};

    setenv("ENCORE_SECRET", bad, 1);
    cr_assert_eq(enc_secret_from_env(&s), ENC_ERR_INVAL);
    fflush(stderr);
    size_t n = fread(logbuf, 1, sizeof(logbuf) - 1, cr_get_redirected_stderr());
    cr_assert_gt(n, 0, "the failure is logged");
    cr_assert_null(strstr(logbuf, "5ecret"));
}

Test(auth, handshake_succeeds_over_tcp, .init = tcp_setup, .fini = tcp_teardown,
     .timeout = 20)
{
    struct client c;
    struct enc_auth_id peer = {0};

    client_start(&c, &key_a);
    cr_assert_eq(server_run(&key_a, &peer), ENC_OK);
    pthread_join(c.thread, NULL);
    cr_assert_eq(c.rv, ENC_OK);
    cr_assert_eq(peer.role, ENC_ROLE_DATA);
    cr_assert_eq(peer.rank, 3);
    cr_assert_eq(peer.incarnation, 2);
    cr_assert_eq(peer.epoch, 7);
}

Test(auth, handshake_leaves_following_frames_in_the_socket, .init = tcp_setup,
     .fini = tcp_teardown, .timeout = 20)
{
    struct client c;
    struct enc_auth_id peer;
    struct enc_frame_hdr h = {.type = ENC_MSG_HEARTBEAT, .len = 0}, got;

    client_start(&c, &key_a);
    cr_assert_eq(server_run(&key_a, &peer), ENC_OK);
    pthread_join(c.thread, NULL);
    cr_assert_eq(c.rv, ENC_OK);
    cr_assert_eq(enc_frame_send(cfd, &h, NULL, enc_deadline_ms(5000)), ENC_OK);
    cr_assert_eq(enc_frame_recv(sfd, &got, NULL, 0, enc_deadline_ms(5000)), ENC_OK);
    cr_assert_eq(got.type, ENC_MSG_HEARTBEAT);
}

Test(auth, wrong_secret_rejected_by_server, .init = tcp_setup, .fini = tcp_teardown,
     .timeout = 20)
{
    struct client c;
    struct enc_auth_id peer;

    client_start(&c, &key_b);
    cr_assert_eq(server_run(&key_a, &peer), ENC_ERR_AUTH);
    enc_sock_close(&sfd); /* what a real server does with a failed handshake */
    pthread_join(c.thread, NULL);
    cr_assert_eq(c.rv, ENC_ERR_PEER_CLOSED);
}

/* A server that does not know the secret but answers anyway is refused. */
Test(auth, impostor_server_rejected_by_client, .init = tcp_setup, .fini = tcp_teardown,
     .timeout = 20)
{
    struct enc_frame_hdr ch = {.type = ENC_MSG_CHALLENGE, .len = ENC_NONCE_LEN};
    struct enc_frame_hdr ok = {.type = ENC_MSG_AUTH_OK, .len = ENC_MAC_LEN};
    struct enc_frame_hdr h;
    uint8_t nonce[ENC_NONCE_LEN] = {1}, mac[ENC_MAC_LEN] = {2}, auth[256];
    struct client c;

    client_start(&c, &key_a);
    cr_assert_eq(enc_frame_send(sfd, &ch, nonce, enc_deadline_ms(5000)), ENC_OK);
    cr_assert_eq(enc_frame_recv(sfd, &h, auth, sizeof(auth), enc_deadline_ms(5000)), ENC_OK);
    cr_assert_eq(h.type, ENC_MSG_AUTH);
    cr_assert_eq(h.len, 13 + ENC_NONCE_LEN + ENC_MAC_LEN);
    cr_assert_eq(enc_frame_send(sfd, &ok, mac, enc_deadline_ms(5000)), ENC_OK);
    pthread_join(c.thread, NULL);
    cr_assert_eq(c.rv, ENC_ERR_AUTH);
}

Test(auth, client_rejects_non_challenge_first_frame, .init = tcp_setup,
     .fini = tcp_teardown, .timeout = 20)
{
    struct enc_frame_hdr h = {.type = ENC_MSG_AUTH_OK, .len = ENC_MAC_LEN};
    uint8_t mac[ENC_MAC_LEN] = {0};
    struct client c;

    cr_assert_eq(enc_frame_send(sfd, &h, mac, enc_deadline_ms(5000)), ENC_OK);
    client_start(&c, &key_a);
    pthread_join(c.thread, NULL);
    cr_assert_eq(c.rv, ENC_ERR_PROTO);
}

Test(auth, client_times_out_on_silent_server, .init = tcp_setup, .fini = tcp_teardown,
     .timeout = 20)
{
    struct enc_auth_id id = {.role = ENC_ROLE_CONTROL};

    cr_assert_eq(enc_auth_client(cfd, &key_a, &id, enc_deadline_ms(100)), ENC_ERR_TIMEOUT);
}

Test(auth, junk_bytes_rejected_by_server, .init = tcp_setup, .fini = tcp_teardown,
     .timeout = 20)
{
    static const char junk[] = "GET / HTTP/1.1\r\nHost: example.org\r\nAccept: */*\r\n\r\n";
    struct enc_auth_id peer;

    cr_assert_eq(enc_sock_write_all(cfd, junk, sizeof(junk) - 1, enc_deadline_ms(5000)), ENC_OK);
    cr_assert_eq(server_run(&key_a, &peer), ENC_ERR_PROTO);
}

/* Sends an AUTH-typed header announcing len payload bytes. */
static void send_auth_header(uint8_t type, uint64_t len)
{
    struct enc_frame_hdr h = {.type = type, .len = len};
    uint8_t raw[ENC_FRAME_HDR_SIZE];

    enc_frame_encode(&h, raw);
    cr_assert_eq(enc_sock_write_all(cfd, raw, sizeof(raw), enc_deadline_ms(5000)), ENC_OK);
}

Test(auth, oversized_auth_length_rejected, .init = tcp_setup, .fini = tcp_teardown,
     .timeout = 20)
{
    struct enc_auth_id peer;

    send_auth_header(ENC_MSG_AUTH, 1u << 20);
    cr_assert_eq(server_run(&key_a, &peer), ENC_ERR_PROTO);
}

Test(auth, auth_with_wrong_length_rejected, .init = tcp_setup, .fini = tcp_teardown,
     .timeout = 20)
{
    struct enc_auth_id peer;

    send_auth_header(ENC_MSG_AUTH, 76);
    cr_assert_eq(server_run(&key_a, &peer), ENC_ERR_PROTO);
}

Test(auth, other_message_before_auth_rejected, .init = tcp_setup, .fini = tcp_teardown,
     .timeout = 20)
{
    struct enc_auth_id peer;

    send_auth_header(ENC_MSG_REGISTER, 77);
    cr_assert_eq(server_run(&key_a, &peer), ENC_ERR_PROTO);
}

Test(auth, silent_client_never_blocks_the_server, .init = tcp_setup, .fini = tcp_teardown,
     .timeout = 20)
{
    struct enc_auth_server a;
    struct enc_auth_id peer;
    uint64_t t0 = enc_now_ns();

    cr_assert_eq(enc_auth_server_start(&a, sfd, &key_a), ENC_OK);
    cr_assert_eq(enc_auth_server_progress(&a, sfd, &peer), ENC_INPROGRESS);
    cr_assert_eq(enc_auth_server_progress(&a, sfd, &peer), ENC_INPROGRESS);
    cr_assert_lt(enc_now_ns() - t0, 1000000000ull, "progress returned at once");
}

Test(auth, silent_client_closing_fails_the_handshake, .init = tcp_setup,
     .fini = tcp_teardown, .timeout = 20)
{
    struct enc_auth_server a;
    struct enc_auth_id peer;

    server_start_challenged(&a);
    cr_assert_eq(enc_auth_server_progress(&a, sfd, &peer), ENC_INPROGRESS);
    enc_sock_close(&cfd);
    cr_assert_eq(server_loop(&a, &peer), ENC_ERR_PEER_CLOSED);
}

Test(auth, truncated_auth_then_close_fails, .init = tcp_setup, .fini = tcp_teardown,
     .timeout = 20)
{
    struct enc_auth_server a;
    uint8_t half[20] = {0};
    struct enc_auth_id peer;

    server_start_challenged(&a);
    send_auth_header(ENC_MSG_AUTH, 77);
    cr_assert_eq(enc_sock_write_all(cfd, half, sizeof(half), enc_deadline_ms(5000)), ENC_OK);
    enc_sock_close(&cfd);
    cr_assert_eq(server_loop(&a, &peer), ENC_ERR_PEER_CLOSED);
}

Test(auth, failed_handshake_stays_failed, .init = tcp_setup, .fini = tcp_teardown,
     .timeout = 20)
{
    struct enc_auth_server a;
    struct enc_auth_id peer;

    server_start_challenged(&a);
    send_auth_header(ENC_MSG_DATA, 0);
    cr_assert_eq(server_loop(&a, &peer), ENC_ERR_PROTO);
    cr_assert_eq(enc_auth_server_progress(&a, sfd, &peer), ENC_ERR_PROTO);
}
