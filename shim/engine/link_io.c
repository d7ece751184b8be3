/*
 * link_io.c - a data link's frames shared by the collectives that take
 * turns on it (see link_io.h).
 */
#include "enc.h"

#include <stdlib.h>

#include "engine/link_io.h"
#include "net/sock.h"

static struct {
    struct enc_link_io *io;
    int n;
} links;

enc_status_t enc_link_io_alloc(int size)
{
    free(links.io);
    if ((links.io = calloc((size_t)size, sizeof(*links.io))) == NULL)
        return ENC_ERR_NOMEM;
    links.n = size;
    return ENC_OK;
}

struct enc_link_io *enc_link_io_of(int peer)
{
    return &links.io[peer];
}

static void free_chain(struct enc_held_frame *f)
{
    while (f) {
        struct enc_held_frame *next = f->next;

        free(f);
        f = next;
    }
}

void enc_link_io_reset_all(void)
{
    for (int i = 0; i < links.n; i++) {
        struct enc_link_io *io = &links.io[i];

        free_chain(io->held);
        free(io->filling);
        *io = (struct enc_link_io){0};
    }
}

void enc_link_io_forget(const void *x)
{
    for (int i = 0; i < links.n; i++) {
        if (links.io[i].reader == x)
            links.io[i].reader = NULL;
        if (links.io[i].writer == x)
            links.io[i].writer = NULL;
    }
}

struct enc_held_frame *enc_link_io_take(struct enc_link_io *io, uint64_t seq)
{
    struct enc_held_frame **pp = &io->held, *prev = NULL;

    for (; *pp; prev = *pp, pp = &(*pp)->next) {
        struct enc_held_frame *f = *pp;

        if (f->h.seq != seq)
            continue;
        *pp = f->next;
        if (io->held_tail == f)
            io->held_tail = prev;
        f->next = NULL;
        return f;
    }
    return NULL;
}

enc_status_t enc_link_io_hold(struct enc_link_io *io, const struct enc_frame_hdr *h)
{
    struct enc_held_frame *f = malloc(sizeof(*f) + (size_t)h->len);

    if (f == NULL) {
        ENC_ERROR("xfer", "cannot hold a frame of %llu bytes for another collective",
                  (unsigned long long)h->len);
        return ENC_ERR_NOMEM;
    }
    *f = (struct enc_held_frame){.h = *h};
    io->filling = f;
    return ENC_OK;
}

enc_status_t enc_link_io_fill(struct enc_link_io *io, int fd)
{
    struct enc_held_frame *f = io->filling;

    while (f->got < f->h.len) {
        ssize_t r = enc_sock_read_some(fd, f->data + f->got, (size_t)f->h.len - f->got);

        if (r <= 0)
            return r == 0 ? ENC_INPROGRESS : (enc_status_t)r;
        f->got += (size_t)r;
    }
    if (io->held_tail)
        io->held_tail->next = f;
    else
        io->held = f;
    io->held_tail = f;
    io->filling = NULL;
    return ENC_OK;
}
