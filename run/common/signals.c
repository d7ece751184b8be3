/*
 * signals.c - the signals encore-run and encore-agent handle in their poll
 * loops: blocked, and read from a signalfd (spawn.c restores the mask in
 * each child).
 */
#include "enc.h"
#include "common/proc.h"

#include <signal.h>
#include <sys/signalfd.h>

enc_status_t enc_run_signalfd(int *sfd)
{
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    signal(SIGPIPE, SIG_IGN);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0 ||
        (*sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
        ENC_ERROR("signals", "signalfd: %m");
        return ENC_ERR_SYS;
    }
    return ENC_OK;
}
