/*
 * tcp_lead.c - who reads the peers' TCP connections, as the transport
 * keeps it (tcp_lead.h): the leader's eventfd, the generation of the
 * connections (a leader's poll set is stale when it moved), and the
 * progress thread's part: whether it polls the connections itself, and
 * taking the reads back from a leader idle for ENC_P2P_TCP_HOLD_NS.  The
 * leader's wait itself is tcp_wait.c's (where the scheme is told).
 */
#include "enc.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include "core/clock.h"
#include "p2p/p2p_int.h"
#include "p2p/tcp_lead.h"

#define ENC_P2P_TCP_HOLD_MS 1
#define ENC_P2P_TCP_HOLD_NS 2000000u

enc_status_t enc_p2p_tcp_open(void)
{
    if ((enc_p2p.wait_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
        ENC_ERROR("p2p", "eventfd: %m");
        return ENC_ERR_SYS;
    }
    return ENC_OK;
}

void enc_p2p_tcp_fork_child(void)
{
    if (enc_p2p.wait_fd >= 0)
        close(enc_p2p.wait_fd);
    enc_p2p.wait_fd = -1;
    enc_p2p.tcp_led = enc_p2p.tcp_leading = enc_p2p.tcp_polling = false;
    enc_p2p.tcp_followers = 0;
    enc_p2p.tcp_fds_gen++;
}

void enc_p2p_tcp_fds_changed(void)
{
    enc_p2p.tcp_fds_gen++;
    if (enc_p2p.tcp_led)
        enc_p2p_wake_waiters(); /* a leader asleep in poll polls anew */
}

bool enc_p2p_tcp_progress_reads(int *timeout)
{
    if (!enc_p2p.tcp_led)
        return true;
    *timeout = ENC_P2P_TCP_HOLD_MS;
    return false;
}

void enc_p2p_tcp_progress_woke(void)
{
    if (enc_p2p.tcp_led && !enc_p2p.tcp_leading &&
        enc_now_ns() - enc_p2p.tcp_left_ns > ENC_P2P_TCP_HOLD_NS)
        enc_p2p.tcp_led = false; /* its poll set has them from now on */
}
