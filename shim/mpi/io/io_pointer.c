/*
 * io_pointer.c - the shared file pointer's one true value, kept in a
 * sidecar file next to the data file ("<name>.encore-shfp.<n>", n counting
 * this process's opens of that name, so every open has its own).
 *
 * The sidecar is an append-only list of records, one per shared-pointer
 * access: (rank, its call number k on this open, view epoch, offset handed
 * out, pointer after).  Each access takes an fcntl lock on it, so ranks
 * serialize without any owner process; the kernel drops the lock of a
 * killed rank.  The current pointer is the last record's "after"; one
 * append of one record is the whole update, so a rank killed at any point
 * either made its access or did not.
 *
 * Exact recovery: a restored rank re-executing its k-th access finds its
 * record (rank, k) and gets the offset it got the first time; the pointer
 * does not move again.  Collective calls that set the pointer (ordered
 * calls, seek_shared, set_view) do not write here: every rank bumps its
 * own epoch and knows the new value; the first access of a later epoch
 * starts from it (io.h, docs/io.md).
 */
#include "enc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "mpi/io/io.h"
#include "mpi/mpi_layer.h"

/* A lock held longer than this is a hung rank, not contention. */
#define LOCK_SECONDS 60

struct record {
    int64_t rank, k, epoch, off, after;
};

/* How many times this process opened each name (the n of the sidecar). */
struct opened {
    char *name;
    int count;
    struct opened *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct opened *opened;

/* The file system path of an MPI-IO file name: without a prefix naming
 * the file system ("ufs:", "nfs:", "lustre:"), which only MPI-IO reads. */
static const char *path_of(const char *name)
{
    const char *p = name;

    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))
        p++;
    return *p == ':' && p - name > 1 ? p + 1 : name;
}

int enc_io_pointer_open(struct enc_io_file *f)
{
    struct opened *o;
    int n;

    pthread_mutex_lock(&lock);
    for (o = opened; o != NULL && strcmp(o->name, f->name) != 0; o = o->next)
        ;
    if (o == NULL && (o = calloc(1, sizeof *o)) != NULL &&
        (o->name = strdup(f->name)) == NULL) {
        free(o);
        o = NULL;
    }
    if (o != NULL && o->count == 0) {
        o->next = opened;
        opened = o;
    }
    n = o != NULL ? o->count++ : -1;
    pthread_mutex_unlock(&lock);
    if (n < 0 || (f->sidecar = malloc(strlen(f->name) + 32)) == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "MPI_File_open: out of memory");
    sprintf(f->sidecar, "%s.encore-shfp.%d", path_of(f->name), n);
    return MPI_SUCCESS;
}

/* Empty at the open (a stale one from an earlier job is truncated); from
 * then on only appended to, and never created again: a rank that finds it
 * gone was restored after the file was closed and cannot repeat its
 * accesses exactly. */
int enc_io_pointer_create(struct enc_io_file *f)
{
    int fd = open(f->sidecar, O_RDWR | O_CREAT | O_TRUNC, 0600);

    if (fd < 0)
        return enc_mpi_raise(MPI_ERR_IO, "MPI_File_open: cannot create the shared pointer "
                             "file %s: %s", f->sidecar, strerror(errno));
    close(fd);
    return MPI_SUCCESS;
}

void enc_io_pointer_close(struct enc_io_file *f, int remove)
{
    if (remove)
        unlink(f->sidecar);
    free(f->sidecar);
    f->sidecar = NULL;
}

static int lock_wait(int fd, short type)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET};
    struct timespec ms = {0, 1000000};

    for (long i = 0; i < LOCK_SECONDS * 1000L; i++) {
        if (fcntl(fd, F_SETLK, &fl) == 0)
            return 0;
        if (errno != EACCES && errno != EAGAIN && errno != EINTR)
            return -1;
        nanosleep(&ms, NULL);
    }
    errno = ETIMEDOUT;
    return -1;
}

void enc_io_pointer_set(struct enc_io_file *f, MPI_Offset value)
{
    f->shared = value;
    f->epoch++;
}

/* Under the lock: this rank's record k if there is one (1), else (0) the
 * last record of epoch in *last (last->epoch = -1 when there is none).
 * Records of other epochs are skipped: a slow rank may still read the
 * pointer of the epoch before a collective call while a fast one is past
 * it, and neither must see the other's. */
static int scan(int fd, int64_t rank, int64_t k, int64_t epoch, struct record *found,
                struct record *last)
{
    struct record r;
    off_t at = 0;

    last->epoch = -1;
    for (; pread(fd, &r, sizeof r, at) == (ssize_t)sizeof r; at += (off_t)sizeof r) {
        if (r.rank == rank && r.k == k) {
            *found = r;
            return 1;
        }
        if (r.epoch == epoch)
            *last = r;
    }
    return 0;
}

int enc_io_pointer_take(const char *fn, struct enc_io_file *f, int rank, MPI_Offset etypes,
                        MPI_Offset *off)
{
    int fd = open(f->sidecar, O_RDWR | O_APPEND);
    struct record mine, last = {0};
    int rv = MPI_SUCCESS;

    if (fd < 0 && errno == ENOENT)
        return enc_mpi_raise(MPI_ERR_IO, "%s: the shared pointer file %s is gone (this rank "
                             "was restored after the file was closed): its offset cannot "
                             "be repeated exactly", fn, f->sidecar);
    if (fd < 0)
        return enc_mpi_raise(MPI_ERR_IO, "%s: cannot open the shared pointer file %s: %s",
                             fn, f->sidecar, strerror(errno));
    if (lock_wait(fd, F_WRLCK) != 0) {
        rv = enc_mpi_raise(MPI_ERR_IO, "%s: cannot lock the shared pointer file %s: %s", fn,
                           f->sidecar, strerror(errno));
        close(fd);
        return rv;
    }
    if (!scan(fd, rank, f->calls, f->epoch, &mine, &last)) {
        /* A first access: from the pointer as the last access left it,
         * or as this epoch's collective call set it. */
        mine.rank = rank;
        mine.k = f->calls;
        mine.epoch = f->epoch;
        mine.off = last.epoch == f->epoch ? last.after : f->shared;
        mine.after = mine.off + etypes;
        if (write(fd, &mine, sizeof mine) != (ssize_t)sizeof mine)
            rv = enc_mpi_raise(MPI_ERR_IO, "%s: cannot write the shared pointer file %s: %s",
                               fn, f->sidecar, strerror(errno));
    }
    close(fd); /* drops the lock */
    if (rv == MPI_SUCCESS) {
        f->calls++;
        *off = mine.off;
    }
    return rv;
}
