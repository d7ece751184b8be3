/*
 * fork_child.c - what the engine owes a copy of this rank made by fork()
 * at a collective boundary: every descriptor it holds is closed in the
 * copy (else a dead rank's sockets stay open there and its peers never
 * see it die), and the engine's threads are named so that the layer can
 * tell them from the program's.
 */
#include "enc.h"

#include <dirent.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine/layer.h"
#include "engine/state.h"

static void close_slot(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* TCP sockets whose local port is the listener's: connections it accepted,
 * including the ones still in the listener thread's handshake. */
static bool accepted_here(int fd, uint16_t port)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);

    if (port == 0 || getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
        return false;
    if (ss.ss_family == AF_INET)
        return ntohs(((struct sockaddr_in *)&ss)->sin_port) == port;
    if (ss.ss_family == AF_INET6)
        return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port) == port;
    return false;
}

static void close_accepted(uint16_t port)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;

    if (d == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);

        if (e->d_name[0] != '.' && fd != dirfd(d) && accepted_here(fd, port))
            close(fd);
    }
    closedir(d);
}

void enc_engine_fork_child(void)
{
    uint16_t port = enc_eng.lst.port;

    for (int i = 0; enc_eng.link_fd != NULL && i < enc_eng.size; i++) {
        close_slot(&enc_eng.link_fd[i]);
        close_slot(&enc_eng.log_fd[i]);
        close_slot(&enc_eng.serve_fd[i]);
    }
    for (size_t i = 0; i < enc_eng.nfuture; i++)
        close(enc_eng.future[i].fd);
    enc_eng.nfuture = 0;
    enc_listener_forget(&enc_eng.lst);
    close_accepted(port);
    enc_tclient_forget(enc_eng.tc);
    enc_eng.tc = NULL;
    enc_eng.active = false;
}

int enc_engine_thread_ids(int *tids, int cap)
{
    int n = 0, t;

    if (n < cap && (t = __atomic_load_n(&enc_eng.lst.tid, __ATOMIC_ACQUIRE)) > 0)
        tids[n++] = t;
    if (n < cap && (t = enc_tclient_thread_id(enc_eng.tc)) > 0)
        tids[n++] = t;
    return n;
}
