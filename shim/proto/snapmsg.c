/* snapmsg.c - checks of the snapshot <-> encore-run messages (snapmsg.h). */
#include "enc.h"
#include "proto/snapmsg.h"

#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

bool enc_snap_hello_valid(const struct enc_snap_hello *h, int size)
{
    return h->magic == ENC_SNAP_MAGIC && h->wire == ENC_SNAP_WIRE && h->rank < (uint32_t)size &&
           h->pid > 1 && h->ncomms <= ENC_SNAP_COMMS_MAX;
}

unsigned enc_snap_sockaddr(const char *name, struct sockaddr_un *sa)
{
    size_t n = strlen(name);

    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    if (n == 0 || n >= sizeof(sa->sun_path))
        return 0;
    memcpy(sa->sun_path, name, n);
    if (name[0] == '@')
        sa->sun_path[0] = '\0'; /* abstract: the length, not a NUL, ends it */
    return (unsigned)(offsetof(struct sockaddr_un, sun_path) + n + (name[0] != '@'));
}
