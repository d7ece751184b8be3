/*
 * fullio.h - reads and writes that do all they were asked to: on a file,
 * a pipe or a socket a call may move fewer bytes than asked, or be
 * interrupted by a signal (EINTR) before moving any.
 */
#ifndef ENC_CORE_FULLIO_H
#define ENC_CORE_FULLIO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Writes len bytes of buf to fd at offset off (pwrite), or at its file
 * position when off is negative (write).  Returns the bytes written: len,
 * or fewer when an error stopped it (errno says which). */
size_t enc_write_full(int fd, const void *buf, size_t len, off_t off);
/* Reads len bytes into buf likewise (pread, read).  Returns the bytes
 * read: len, or fewer at the end of the file or an error (errno set;
 * 0 at the end). */
size_t enc_read_full(int fd, void *buf, size_t len, off_t off);

#endif
