/*
 * io_shared.c - the shared file pointer of files opened on encore
 * communicators.
 *
 * The pointer's value lives in a sidecar file (io_pointer.c): the
 * noncollective calls (write_shared, read_shared and their nonblocking
 * forms) take and advance it there under a lock, each access recorded
 * under (rank, call number) so a restored rank repeating it gets the same
 * offset.  Collective calls read it there too (a recorded access that
 * advances by 0), then set it through one logged enc_io_agree: every rank
 * computes the same new value and starts a new epoch with it, which the
 * next access in the sidecar picks up (docs/io.md).
 */
#include "enc.h"

#include <stdlib.h>

#include <mpi.h>

#include "mpi/io/io.h"
#include "mpi/mpi_layer.h"

static int my_rank(struct enc_io_file *f)
{
    return enc_mpi_comm_rank(enc_mpi_comm_get(f->comm));
}

typedef int (*io_at_fn)(MPI_File, MPI_Offset, void *, int, MPI_Datatype, MPI_Status *);

static int write_at(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype t,
                    MPI_Status *st)
{
    int saved = enc_mpi_guard_enter();
    int rv = PMPI_File_write_at(fh, off, buf, count, t, st);

    enc_mpi_guard_leave(saved);
    return rv;
}

static int read_at(MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype t,
                   MPI_Status *st)
{
    int saved = enc_mpi_guard_enter();
    int rv = PMPI_File_read_at(fh, off, buf, count, t, st);

    enc_mpi_guard_leave(saved);
    return rv;
}

/* Ranks take consecutive pieces in rank order from the shared pointer:
 * one allgather of every rank's size in etypes gives each its offset. */
static int ordered(const void *site, const char *fn, struct enc_io_file *f, void *buf,
                   int count, MPI_Datatype t, MPI_Status *st, io_at_fn io)
{
    struct enc_mpi_comm *c = enc_mpi_comm_get(f->comm);
    int n = enc_mpi_comm_size(c), me = enc_mpi_comm_rank(c), size, replayed, rv;
    int64_t *all = malloc(sizeof *all * (size_t)n);
    MPI_Offset mine, base, total = 0;

    if (all == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    if (count < 0 || PMPI_Type_size(t, &size) != MPI_SUCCESS) {
        free(all);
        return enc_mpi_raise(MPI_ERR_ARG, "%s: bad count %d or datatype", fn, count);
    }
    if (((int64_t)count * size) % f->etype_size != 0) {
        free(all);
        return enc_mpi_raise(MPI_ERR_ARG, "%s: %lld bytes are not a whole number of etypes "
                             "(%lld bytes each)", fn, (long long)count * size,
                             (long long)f->etype_size);
    }
    rv = enc_io_pointer_take(fn, f, me, 0, &base);
    mine = base;
    if (rv == MPI_SUCCESS)
        rv = enc_io_agree(site, fn, f->comm, (int64_t)count * size / f->etype_size, all,
                          &replayed);
    for (int i = 0; rv == MPI_SUCCESS && i < n; i++) {
        if (i < me)
            mine += all[i];
        total += all[i];
    }
    free(all);
    if (rv != MPI_SUCCESS)
        return rv;
    enc_io_pointer_set(f, base + total);
    return io(f->fh, mine, buf, count, t, st);
}

int enc_mpi_File_write_ordered(const void *site, MPI_File fh, const void *buf, int count,
                               MPI_Datatype datatype, MPI_Status *status)
{
    struct enc_io_file *f = enc_io_find(fh);

    return f == NULL ? enc_real_File_write_ordered(fh, buf, count, datatype, status)
                     : ordered(site, "MPI_File_write_ordered", f, (void *)buf, count,
                               datatype, status, write_at);
}

int enc_mpi_File_read_ordered(const void *site, MPI_File fh, void *buf, int count,
                              MPI_Datatype datatype, MPI_Status *status)
{
    struct enc_io_file *f = enc_io_find(fh);

    return f == NULL ? enc_real_File_read_ordered(fh, buf, count, datatype, status)
                     : ordered(site, "MPI_File_read_ordered", f, buf, count, datatype,
                               status, read_at);
}

/* Split ordered calls: the whole operation runs in begin, end hands its
 * status back (the standard allows the transfer anywhere in between). */
static int ordered_begin(const void *site, const char *fn, struct enc_io_file *f, void *buf,
                         int count, MPI_Datatype t, io_at_fn io)
{
    if (f->ordered_open)
        return enc_mpi_raise(MPI_ERR_OTHER, "%s: a split collective is already pending on "
                             "this file", fn);
    f->ordered_rv = ordered(site, fn, f, buf, count, t, &f->ordered, io);
    f->ordered_open = 1;
    return f->ordered_rv;
}

static int ordered_end(const char *fn, struct enc_io_file *f, MPI_Status *status)
{
    if (!f->ordered_open)
        return enc_mpi_raise(MPI_ERR_OTHER, "%s: no split ordered call is pending on this "
                             "file", fn);
    f->ordered_open = 0;
    if (status != MPI_STATUS_IGNORE)
        *status = f->ordered;
    return f->ordered_rv;
}

int enc_mpi_File_write_ordered_begin(const void *site, MPI_File fh, const void *buf, int count,
                                     MPI_Datatype datatype)
{
    struct enc_io_file *f = enc_io_find(fh);

    return f == NULL ? enc_real_File_write_ordered_begin(fh, buf, count, datatype)
                     : ordered_begin(site, "MPI_File_write_ordered_begin", f, (void *)buf,
                                     count, datatype, write_at);
}

int enc_mpi_File_write_ordered_end(const void *site, MPI_File fh, const void *buf,
                                   MPI_Status *status)
{
    struct enc_io_file *f = enc_io_find(fh);

    (void)site;
    return f == NULL ? enc_real_File_write_ordered_end(fh, buf, status)
                     : ordered_end("MPI_File_write_ordered_end", f, status);
}

int enc_mpi_File_read_ordered_begin(const void *site, MPI_File fh, void *buf, int count,
                                    MPI_Datatype datatype)
{
    struct enc_io_file *f = enc_io_find(fh);

    return f == NULL ? enc_real_File_read_ordered_begin(fh, buf, count, datatype)
                     : ordered_begin(site, "MPI_File_read_ordered_begin", f, buf, count,
                                     datatype, read_at);
}

int enc_mpi_File_read_ordered_end(const void *site, MPI_File fh, void *buf, MPI_Status *status)
{
    struct enc_io_file *f = enc_io_find(fh);

    (void)site;
    return f == NULL ? enc_real_File_read_ordered_end(fh, buf, status)
                     : ordered_end("MPI_File_read_ordered_end", f, status);
}

/* End of file in etypes of the current view, through this rank's own
 * individual pointer (restored afterwards). */
static int end_in_etypes(MPI_File fh, MPI_Offset *end)
{
    int saved = enc_mpi_guard_enter();
    MPI_Offset here;
    int rv = PMPI_File_get_position(fh, &here);

    if (rv == MPI_SUCCESS)
        rv = PMPI_File_seek(fh, 0, MPI_SEEK_END);
    if (rv == MPI_SUCCESS)
        rv = PMPI_File_get_position(fh, end);
    if (rv == MPI_SUCCESS)
        rv = PMPI_File_seek(fh, here, MPI_SEEK_SET);
    enc_mpi_guard_leave(saved);
    return rv;
}

int enc_mpi_File_seek_shared(const void *site, MPI_File fh, MPI_Offset offset, int whence)
{
    struct enc_io_file *f = enc_io_find(fh);
    MPI_Offset base = 0, end;
    int n, replayed, rv;
    int64_t *all;

    if (f == NULL)
        return enc_real_File_seek_shared(fh, offset, whence);
    if (whence == MPI_SEEK_CUR &&
        (rv = enc_io_pointer_take("MPI_File_seek_shared", f, my_rank(f), 0, &base)) !=
            MPI_SUCCESS)
        return rv;
    else if (whence == MPI_SEEK_CUR)
        ;
    else if (whence == MPI_SEEK_END && (rv = end_in_etypes(fh, &end)) != MPI_SUCCESS)
        return rv;
    else if (whence == MPI_SEEK_END)
        base = end;
    else if (whence != MPI_SEEK_SET)
        return enc_mpi_raise(MPI_ERR_ARG, "MPI_File_seek_shared: whence %d is not "
                             "MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END", whence);
    n = enc_mpi_comm_size(enc_mpi_comm_get(f->comm));
    if ((all = malloc(sizeof *all * (size_t)n)) == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "MPI_File_seek_shared: out of memory");
    /* Rank 0's position wins (all must pass the same; its end of file
     * is the one the log keeps for a replay). */
    rv = enc_io_agree(site, "MPI_File_seek_shared", f->comm, base + offset, all, &replayed);
    if (rv == MPI_SUCCESS && all[0] < 0)
        rv = enc_mpi_raise(MPI_ERR_ARG, "MPI_File_seek_shared: position %lld is negative",
                           (long long)all[0]);
    if (rv == MPI_SUCCESS)
        enc_io_pointer_set(f, all[0]);
    free(all);
    return rv;
}

int enc_mpi_File_get_position_shared(const void *site, MPI_File fh, MPI_Offset *offset)
{
    struct enc_io_file *f = enc_io_find(fh);

    (void)site;
    if (f == NULL)
        return enc_real_File_get_position_shared(fh, offset);
    return enc_io_pointer_take("MPI_File_get_position_shared", f, my_rank(f), 0, offset);
}

/* The size of count elements of t in etypes of the view, or an error. */
static int etypes_of(const char *fn, struct enc_io_file *f, int count, MPI_Datatype t,
                     MPI_Offset *etypes)
{
    int size;

    if (count < 0 || PMPI_Type_size(t, &size) != MPI_SUCCESS)
        return enc_mpi_raise(MPI_ERR_ARG, "%s: bad count %d or datatype", fn, count);
    if (((int64_t)count * size) % f->etype_size != 0)
        return enc_mpi_raise(MPI_ERR_ARG, "%s: %lld bytes are not a whole number of etypes "
                             "(%lld bytes each)", fn, (long long)count * size,
                             (long long)f->etype_size);
    *etypes = (MPI_Offset)count * size / f->etype_size;
    return MPI_SUCCESS;
}

/* The noncollective calls: take the offset, then the real explicit-offset
 * transfer through this rank's own handle. */
static int take(const char *fn, struct enc_io_file *f, int count, MPI_Datatype t,
                MPI_Offset *off)
{
    MPI_Offset etypes = 0;
    int rv = etypes_of(fn, f, count, t, &etypes);

    return rv != MPI_SUCCESS ? rv : enc_io_pointer_take(fn, f, my_rank(f), etypes, off);
}

int enc_mpi_File_write_shared(const void *site, MPI_File fh, const void *buf, int count,
                              MPI_Datatype datatype, MPI_Status *status)
{
    struct enc_io_file *f = enc_io_find(fh);
    MPI_Offset off;
    int rv;

    (void)site;
    if (f == NULL)
        return enc_real_File_write_shared(fh, buf, count, datatype, status);
    rv = take("MPI_File_write_shared", f, count, datatype, &off);
    return rv != MPI_SUCCESS ? rv : write_at(fh, off, (void *)buf, count, datatype, status);
}

int enc_mpi_File_read_shared(const void *site, MPI_File fh, void *buf, int count,
                             MPI_Datatype datatype, MPI_Status *status)
{
    struct enc_io_file *f = enc_io_find(fh);
    MPI_Offset off;
    int rv;

    (void)site;
    if (f == NULL)
        return enc_real_File_read_shared(fh, buf, count, datatype, status);
    rv = take("MPI_File_read_shared", f, count, datatype, &off);
    return rv != MPI_SUCCESS ? rv : read_at(fh, off, buf, count, datatype, status);
}

/* The nonblocking noncollective calls: the offset is taken at once (the
 * pointer moves when the call starts, as the standard says), then the real
 * explicit-offset nonblocking transfer runs on this rank's own handle. */
static int istart_shared(const char *fn, struct enc_io_file *f, MPI_File fh, void *buf,
                         int count, MPI_Datatype datatype, bool write, MPI_Request *request)
{
    MPI_Offset off;
    int rv, saved;

    if ((rv = take(fn, f, count, datatype, &off)) != MPI_SUCCESS)
        return rv;
    saved = enc_mpi_guard_enter();
    rv = write ? PMPI_File_iwrite_at(fh, off, buf, count, datatype, request)
               : PMPI_File_iread_at(fh, off, buf, count, datatype, request);
    enc_mpi_guard_leave(saved);
    return rv;
}

int enc_mpi_File_iwrite_shared(const void *site, MPI_File fh, const void *buf, int count,
                               MPI_Datatype datatype, MPI_Request *request)
{
    struct enc_io_file *f = enc_io_find(fh);

    (void)site;
    if (f == NULL)
        return enc_real_File_iwrite_shared(fh, buf, count, datatype, request);
    return istart_shared("MPI_File_iwrite_shared", f, fh, (void *)buf, count, datatype, true,
                         request);
}

int enc_mpi_File_iread_shared(const void *site, MPI_File fh, void *buf, int count,
                              MPI_Datatype datatype, MPI_Request *request)
{
    struct enc_io_file *f = enc_io_find(fh);

    (void)site;
    if (f == NULL)
        return enc_real_File_iread_shared(fh, buf, count, datatype, request);
    return istart_shared("MPI_File_iread_shared", f, fh, buf, count, datatype, false, request);
}
