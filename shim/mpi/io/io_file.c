/*
 * io_file.c - opening, closing and resizing files on encore communicators
 * (see io.h for the split with the real MPI-IO).
 *
 * Creation and deletion are done once, by rank 0 of the communicator,
 * and never again by a restored rank repeating them (enc_io_agree tells),
 * so a replay cannot truncate, recreate or delete what the survivors wrote
 * since.  MPI_MODE_EXCL is checked by that one creating open only.
 */
#include "enc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "mpi/io/io.h"
#include "mpi/mpi_layer.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct enc_io_file *files;

struct enc_io_file *enc_io_find(MPI_File fh)
{
    struct enc_io_file *f;

    pthread_mutex_lock(&lock);
    for (f = files; f != NULL && f->fh != fh; f = f->next)
        ;
    pthread_mutex_unlock(&lock);
    return f;
}

static void unlink_file(struct enc_io_file *f)
{
    pthread_mutex_lock(&lock);
    for (struct enc_io_file **p = &files; *p != NULL; p = &(*p)->next)
        if (*p == f) {
            *p = f->next;
            break;
        }
    pthread_mutex_unlock(&lock);
    free(f->name);
    free(f->sidecar);
    free(f);
}

/* The real open on MPI_COMM_SELF; errors come back as codes (a file's
 * default error handler is MPI_ERRORS_RETURN). */
static int real_open(const char *name, int amode, MPI_Info info, MPI_File *fh)
{
    return enc_real_File_open(MPI_COMM_SELF, name, amode, info, fh);
}

static void delete_file(const char *name)
{
    int saved = enc_mpi_guard_enter();

    PMPI_File_delete(name, MPI_INFO_NULL);
    enc_mpi_guard_leave(saved);
}

/* The same error on every rank: the first failing rank's class. */
static int first_error(const int64_t *rv, int n)
{
    for (int i = 0; i < n; i++)
        if (rv[i] != MPI_SUCCESS)
            return (int)rv[i];
    return MPI_SUCCESS;
}

int enc_mpi_File_open(const void *site, MPI_Comm comm, const char *filename, int amode,
                      MPI_Info info, MPI_File *fh)
{
    struct enc_mpi_comm *c = enc_mpi_comm_get(comm);
    int n = enc_mpi_comm_size(c), me = enc_mpi_comm_rank(c);
    int64_t *all = malloc(sizeof *all * (size_t)n);
    int plain = amode & ~(MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE);
    struct enc_io_file *f = calloc(1, sizeof *f);
    char *name = filename != NULL ? strdup(filename) : NULL;
    MPI_File real = MPI_FILE_NULL;
    int replayed = 0, rv, err = MPI_SUCCESS;

    if (filename == NULL || fh == NULL) {
        free(all), free(f);
        return enc_mpi_raise(MPI_ERR_ARG, "MPI_File_open: %s is NULL",
                             filename == NULL ? "filename" : "fh");
    }
    if (all == NULL || f == NULL || name == NULL) {
        free(all), free(f), free(name);
        return enc_mpi_raise(MPI_ERR_NO_MEM, "MPI_File_open: out of memory");
    }
    f->name = name;
    if ((rv = enc_io_pointer_open(f)) != MPI_SUCCESS) {
        free(all), free(f), free(name);
        return rv;
    }
    /* Rank 0 creates (and checks EXCL) before anyone else opens. */
    rv = enc_io_agree(site, "MPI_File_open", comm, amode, all, &replayed);
    for (int i = 0; rv == MPI_SUCCESS && i < n; i++)
        if (all[i] != amode) {
            free(all), free(f->sidecar), free(f), free(name);
            return enc_mpi_raise(MPI_ERR_AMODE, "MPI_File_open: ranks passed different "
                                 "access modes (%d here, %lld on rank %d)", amode,
                                 (long long)all[i], i);
        }
    if (rv == MPI_SUCCESS && me == 0)
        err = real_open(name, replayed ? plain : amode & ~MPI_MODE_DELETE_ON_CLOSE, info,
                        &real);
    /* The shared pointer starts empty, once (io_pointer.c). */
    if (rv == MPI_SUCCESS && me == 0 && !replayed && err == MPI_SUCCESS)
        err = enc_io_pointer_create(f);
    if (rv == MPI_SUCCESS)
        rv = enc_io_agree(site, "MPI_File_open", comm, err, all, &replayed);
    if (rv == MPI_SUCCESS && (err = (int)all[0]) == MPI_SUCCESS && me != 0)
        err = real_open(name, plain, info, &real);
    if (rv == MPI_SUCCESS && all[0] == MPI_SUCCESS)
        rv = enc_io_agree(site, "MPI_File_open", comm, err, all, &replayed);
    if (rv == MPI_SUCCESS)
        err = first_error(all, n);
    free(all);
    if (rv != MPI_SUCCESS || err != MPI_SUCCESS) {
        if (real != MPI_FILE_NULL)
            enc_real_File_close(&real);
        enc_io_pointer_close(f, me == 0 && !replayed);
        free(f), free(name);
        return rv != MPI_SUCCESS ? rv : err;
    }
    /* The file's own communicator (as Open MPI's own File_open dups it):
     * the program may free comm before File_close. */
    if ((rv = enc_mpi_Comm_dup(site, comm, &f->comm)) != MPI_SUCCESS) {
        enc_real_File_close(&real);
        free(f->sidecar), free(f), free(name);
        return rv;
    }
    f->fh = real;
    f->amode = amode;
    f->etype_size = 1;
    pthread_mutex_lock(&lock);
    f->next = files;
    files = f;
    pthread_mutex_unlock(&lock);
    *fh = real;
    return MPI_SUCCESS;
}

int enc_mpi_File_close(const void *site, MPI_File *fh)
{
    struct enc_io_file *f = fh != NULL ? enc_io_find(*fh) : NULL;
    int n, replayed = 0, rv, err;
    int64_t *all;

    if (f == NULL)
        return enc_real_File_close(fh);
    n = enc_mpi_comm_size(enc_mpi_comm_get(f->comm));
    if ((all = malloc(sizeof *all * (size_t)n)) == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "MPI_File_close: out of memory");
    /* Everyone's writes are done before the file may be deleted. */
    err = enc_real_File_close(fh);
    rv = enc_io_agree(site, "MPI_File_close", f->comm, err, all, &replayed);
    if (rv == MPI_SUCCESS && (f->amode & MPI_MODE_DELETE_ON_CLOSE) && !replayed &&
        enc_mpi_comm_rank(enc_mpi_comm_get(f->comm)) == 0)
        delete_file(f->name);
    /* Everyone's shared-pointer accesses are done (a restored rank still
     * repeating them has not reached this close yet). */
    enc_io_pointer_close(f, rv == MPI_SUCCESS && !replayed &&
                                enc_mpi_comm_rank(enc_mpi_comm_get(f->comm)) == 0);
    if (rv == MPI_SUCCESS && (f->amode & MPI_MODE_DELETE_ON_CLOSE))
        rv = enc_mpi_Barrier(site, f->comm);
    free(all);
    if (rv == MPI_SUCCESS)
        rv = enc_mpi_Comm_free(site, &f->comm);
    unlink_file(f);
    *fh = MPI_FILE_NULL;
    return rv != MPI_SUCCESS ? rv : err;
}

/* set_size and preallocate: the same size from every rank, applied once
 * by rank 0 (never by a replay), visible to all when the call returns. */
static int resize(const void *site, const char *fn, MPI_File fh, MPI_Offset size,
                  int (*real)(MPI_File, MPI_Offset))
{
    struct enc_io_file *f = enc_io_find(fh);
    int n, replayed = 0, rv, err = MPI_SUCCESS;
    int64_t *all;

    if (f == NULL)
        return real(fh, size);
    n = enc_mpi_comm_size(enc_mpi_comm_get(f->comm));
    if ((all = malloc(sizeof *all * (size_t)n)) == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    rv = enc_io_agree(site, fn, f->comm, size, all, &replayed);
    for (int i = 0; rv == MPI_SUCCESS && i < n; i++)
        if (all[i] != size) {
            free(all);
            return enc_mpi_raise(MPI_ERR_ARG, "%s: ranks passed different sizes (%lld here, "
                                 "%lld on rank %d)", fn, (long long)size,
                                 (long long)all[i], i);
        }
    if (rv == MPI_SUCCESS && !replayed && enc_mpi_comm_rank(enc_mpi_comm_get(f->comm)) == 0)
        err = real(fh, size);
    if (rv == MPI_SUCCESS)
        rv = enc_io_agree(site, fn, f->comm, err, all, &replayed);
    if (rv == MPI_SUCCESS)
        err = first_error(all, n);
    free(all);
    return rv != MPI_SUCCESS ? rv : err;
}

int enc_mpi_File_set_size(const void *site, MPI_File fh, MPI_Offset size)
{
    return resize(site, "MPI_File_set_size", fh, size, enc_real_File_set_size);
}

int enc_mpi_File_preallocate(const void *site, MPI_File fh, MPI_Offset size)
{
    return resize(site, "MPI_File_preallocate", fh, size, enc_real_File_preallocate);
}

/* MPI_DISPLACEMENT_CURRENT is the shared pointer's byte offset; the real
 * handle's own shared pointer never moves (io_pointer.c keeps ours). */
static int current_displacement(struct enc_io_file *f, MPI_Offset *disp)
{
    MPI_Offset at;
    int rv = enc_io_pointer_take("MPI_File_set_view", f,
                                 enc_mpi_comm_rank(enc_mpi_comm_get(f->comm)), 0, &at);
    int saved;

    if (rv != MPI_SUCCESS)
        return rv;
    saved = enc_mpi_guard_enter();
    rv = PMPI_File_get_byte_offset(f->fh, at, disp);
    enc_mpi_guard_leave(saved);
    return rv;
}

int enc_mpi_File_set_view(const void *site, MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                          MPI_Datatype filetype, const char *datarep, MPI_Info info)
{
    struct enc_io_file *f = enc_io_find(fh);
    int rv = MPI_SUCCESS, size;

    (void)site;
    if (f != NULL && disp == MPI_DISPLACEMENT_CURRENT)
        rv = current_displacement(f, &disp);
    if (rv == MPI_SUCCESS)
        rv = enc_real_File_set_view(fh, disp, etype, filetype, datarep, info);
    /* A new view resets the shared pointer (MPI 4.0 14.3). */
    if (f != NULL && rv == MPI_SUCCESS && PMPI_Type_size(etype, &size) == MPI_SUCCESS) {
        enc_io_pointer_set(f, 0);
        f->etype_size = size > 0 ? size : 1;
    }
    return rv;
}

int enc_mpi_File_set_atomicity(const void *site, MPI_File fh, int flag)
{
    struct enc_io_file *f = enc_io_find(fh);
    int rv = enc_real_File_set_atomicity(fh, flag);

    /* Collective: no rank writes in the new mode before all are in it. */
    if (f != NULL && rv == MPI_SUCCESS)
        rv = enc_mpi_Barrier(site, f->comm);
    return rv;
}

int enc_mpi_File_get_group(const void *site, MPI_File fh, MPI_Group *group)
{
    struct enc_io_file *f = enc_io_find(fh);

    return f != NULL ? enc_mpi_Comm_group(site, f->comm, group)
                     : enc_real_File_get_group(fh, group);
}

int enc_mpi_File_get_amode(const void *site, MPI_File fh, int *amode)
{
    struct enc_io_file *f = enc_io_find(fh);

    (void)site;
    if (f == NULL)
        return enc_real_File_get_amode(fh, amode);
    *amode = f->amode;
    return MPI_SUCCESS;
}
