/*
 * spawn.c - starting one rank process: fork, restore the signal mask the
 * launcher blocked for its signalfd, redirect output for --tag-output, bind
 * with hwloc, exec with the rank's environment.
 */
#include "enc.h"
#include "common/proc.h"
#include "topo/topo.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void child(const char *path, char **argv, char **env, const char *bind_to, int rank,
                  int out_w, int err_w, int exec_w)
{
    int e;

    sigset_t none;

    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    if (out_w >= 0 && (dup2(out_w, STDOUT_FILENO) < 0 || dup2(err_w, STDERR_FILENO) < 0))
        _exit(127);
    if (bind_to != NULL && strcmp(bind_to, "none") != 0 && enc_topo_bind(bind_to, rank) != 0)
        fprintf(stderr, "encore-run: warning: rank %d: cannot bind to %s\n", rank, bind_to);
    execve(path, argv, env);
    e = errno;
    fprintf(stderr, "encore-run: cannot run %s: %m\n", path);
    if (write(exec_w, &e, sizeof(e)) < 0)
        _exit(126);
    _exit(127);
}

/* The exec-status pipe is close-on-exec: EOF means the program started,
 * an errno means it never will (no point restarting it). */
static enc_status_t exec_result(int exec_r)
{
    int e = 0;
    ssize_t n;

    do
        n = read(exec_r, &e, sizeof(e));
    while (n < 0 && errno == EINTR);
    close(exec_r);
    return n == (ssize_t)sizeof(e) ? ENC_ERR_INVAL : ENC_OK;
}

static enc_status_t make_pipe(int p[2])
{
    if (pipe2(p, O_CLOEXEC) != 0) {
        ENC_ERROR("run", "pipe: %m");
        return ENC_ERR_SYS;
    }
    return ENC_OK;
}

static void stream_open(struct enc_run_stream *s, int fd, int rank, bool is_err)
{
    s->fd = fd;
    s->rank = rank;
    s->is_err = is_err;
    s->len = 0;
}

enc_status_t enc_run_spawn(const char *path, char **argv, char **env, const char *bind_to,
                           int rank, bool tag_output, struct enc_run_stream *out,
                           struct enc_run_stream *err, pid_t *pid)
{
    int po[2] = {-1, -1}, pe[2] = {-1, -1}, px[2] = {-1, -1};
    enc_status_t rv;

    if ((tag_output && ((rv = make_pipe(po)) != ENC_OK || (rv = make_pipe(pe)) != ENC_OK)) ||
        (rv = make_pipe(px)) != ENC_OK)
        goto fail;
    if ((*pid = fork()) < 0) {
        ENC_ERROR("run", "fork: %m");
        rv = ENC_ERR_SYS;
        goto fail;
    }
    if (*pid == 0)
        child(path, argv, env, bind_to, rank, po[1], pe[1], px[1]);
    close(px[1]);
    px[1] = -1;
    if ((rv = exec_result(px[0])) != ENC_OK) {
        px[0] = -1;
        waitpid(*pid, NULL, 0);
        *pid = 0;
        goto fail;
    }
    px[0] = -1;
    if (tag_output) {
        close(po[1]);
        close(pe[1]);
        fcntl(po[0], F_SETFL, O_NONBLOCK);
        fcntl(pe[0], F_SETFL, O_NONBLOCK);
        stream_open(out, po[0], rank, false);
        stream_open(err, pe[0], rank, true);
    }
    return ENC_OK;
fail:
    for (int i = 0; i < 2; i++) {
        if (po[i] >= 0)
            close(po[i]);
        if (pe[i] >= 0)
            close(pe[i]);
        if (px[i] >= 0)
            close(px[i]);
    }
    return rv;
}

void enc_run_describe_status(int status, char *out, size_t cap)
{
    if (WIFEXITED(status))
        snprintf(out, cap, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(out, cap, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(out, cap, "ended with wait status 0x%x", (unsigned)status);
}
