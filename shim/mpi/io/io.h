/*
 * io.h - MPI-IO on encore communicators (io_file.c, io_shared.c,
 * io_pointer.c).
 *
 * Each rank opens the file with the real MPI-IO on MPI_COMM_SELF; every
 * function that merely reads or writes through its own handle (explicit
 * offsets, individual pointers, views, their collective and nonblocking
 * forms) reaches the real MPI untouched.  libencore owns only what needs
 * the group: open/close/set_size consistency, the group and access mode,
 * and the shared file pointer, kept in a locked sidecar file with one
 * record per access so a replay after a failure gets the same offsets
 * (docs/io.md).
 */
#ifndef ENC_MPI_IO_H
#define ENC_MPI_IO_H

#include <stdint.h>

#include <mpi.h>

/* One file opened on an encore communicator. */
struct enc_io_file {
    MPI_File fh;            /* this rank's real handle, on MPI_COMM_SELF */
    MPI_Comm comm;          /* a dup of the encore communicator it was opened on */
    int amode;              /* as the application asked */
    char *name;             /* for MPI_MODE_DELETE_ON_CLOSE */
    MPI_Offset shared;      /* shared pointer as the last collective set it (etypes) */
    int64_t epoch;          /* collective calls that set it, on this open */
    int64_t calls;          /* this rank's accesses to the sidecar (io_pointer.c) */
    char *sidecar;          /* the file holding the pointer's true value */
    MPI_Offset etype_size;  /* bytes of the view's etype */
    MPI_Status ordered;     /* result of a split ordered begin */
    int ordered_rv;
    int ordered_open;       /* a split ordered operation is pending */
    struct enc_io_file *next;
};

/* io_file.c: the entry of fh, NULL when the real MPI opened it alone. */
struct enc_io_file *enc_io_find(MPI_File fh);

/* io_file.c: one allgather of (this incarnation's id, mine) over comm.
 * all[i] gets rank i's value; *replayed is 1 when the result came from the
 * log written before this rank was restored (the id in this rank's slot is
 * an earlier incarnation's), so side effects the first run already made on
 * the file (create, truncate, delete) must not be made again. */
int enc_io_agree(const void *site, const char *fn, MPI_Comm comm, int64_t mine, int64_t *all,
                 int *replayed);

/* io_pointer.c: the sidecar of this open of f->name (counted per name). */
int enc_io_pointer_open(struct enc_io_file *f);
int enc_io_pointer_create(struct enc_io_file *f); /* rank 0, first open only */
void enc_io_pointer_close(struct enc_io_file *f, int remove);

/* io_pointer.c: atomically take the shared pointer's current value into
 * *off and advance it by etypes (0 only reads it).  A restored rank's
 * repeated access gets the value its first run got. */
int enc_io_pointer_take(const char *fn, struct enc_io_file *f, int rank, MPI_Offset etypes,
                        MPI_Offset *off);

/* io_pointer.c: a collective call (ordered, seek_shared, set_view) set the
 * pointer to value on every rank: a new epoch starting there. */
void enc_io_pointer_set(struct enc_io_file *f, MPI_Offset value);

#endif
