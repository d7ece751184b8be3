/*
 * buffer.c - any datatype as contiguous bytes for the engine.
 *
 * Contiguous data is used in place; anything else is packed / unpacked
 * with the real MPI on MPI_COMM_SELF (homogeneous: the packed form of n elements is n * size
 * bytes), in chunks so that more than INT_MAX bytes work.
 */
#include "enc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/mpi_layer.h"

/* Elements per PMPI_Pack call: its sizes are ints. */
static size_t chunk_elems(size_t size)
{
    return size == 0 ? 1 : ENC_MAX((size_t)1, (size_t)INT_MAX / size);
}

int enc_mpi_pack(const char *fn, const void *buf, size_t count, MPI_Datatype t,
                 size_t size, MPI_Aint extent, void *out)
{
    const char *src = buf;
    char *dst = out;

    for (size_t done = 0; done < count;) {
        size_t n = ENC_MIN(count - done, chunk_elems(size));
        int pos = 0;

        if (enc_real_Pack(src + (MPI_Aint)done * extent, (int)n, t, dst + done * size,
                          (int)(n * size), &pos, MPI_COMM_SELF) != MPI_SUCCESS ||
            (size_t)pos != n * size)
            return enc_mpi_raise(MPI_ERR_INTERN, "%s: packing the datatype failed", fn);
        done += n;
    }
    return MPI_SUCCESS;
}

int enc_mpi_unpack(const char *fn, const void *in, size_t count, MPI_Datatype t,
                   size_t size, MPI_Aint extent, void *buf)
{
    const char *src = in;
    char *dst = buf;

    for (size_t done = 0; done < count;) {
        size_t n = ENC_MIN(count - done, chunk_elems(size));
        int pos = 0;

        if (enc_real_Unpack(src + done * size, (int)(n * size), &pos,
                            dst + (MPI_Aint)done * extent, (int)n, t,
                            MPI_COMM_SELF) != MPI_SUCCESS)
            return enc_mpi_raise(MPI_ERR_INTERN, "%s: unpacking the datatype failed", fn);
        done += n;
    }
    return MPI_SUCCESS;
}

int enc_mpi_buf_open(const char *fn, void *buf, int count, MPI_Datatype t, int load,
                     struct enc_mpi_buf *b)
{
    struct enc_mpi_layout l;
    int rv;

    *b = (struct enc_mpi_buf){ 0 };
    if ((rv = enc_mpi_type_layout(fn, t, count, &l)) != MPI_SUCCESS)
        return rv;
    b->bytes = l.size * (size_t)count;
    if (l.contiguous) {
        b->data = (char *)buf + l.lb;
        return MPI_SUCCESS;
    }
    if ((b->tmp = malloc(ENC_MAX(b->bytes, (size_t)1))) == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: cannot allocate %zu bytes to pack a "
                             "non-contiguous datatype", fn, b->bytes);
    b->data = b->tmp;
    if (load && (rv = enc_mpi_pack(fn, buf, (size_t)count, t, l.size, l.extent, b->tmp)) != 0) {
        free(b->tmp);
        b->tmp = NULL;
        return rv;
    }
    return MPI_SUCCESS;
}

int enc_mpi_buf_close(const char *fn, struct enc_mpi_buf *b, void *buf, int count,
                      MPI_Datatype t, int store)
{
    struct enc_mpi_layout l;
    int rv = MPI_SUCCESS;

    if (b->tmp == NULL)
        return MPI_SUCCESS;
    if (store && (rv = enc_mpi_type_layout(fn, t, count, &l)) == MPI_SUCCESS)
        rv = enc_mpi_unpack(fn, b->tmp, (size_t)count, t, l.size, l.extent, buf);
    free(b->tmp);
    b->tmp = NULL;
    return rv;
}

int enc_mpi_red_input(const char *fn, const struct enc_mpi_reducer *red, const void *buf,
                      int count, MPI_Datatype t, struct enc_mpi_buf *b)
{
    if (!red->packed) {
        *b = (struct enc_mpi_buf){.data = (char *)buf + red->lb,
                                  .bytes = (size_t)count * red->r.elem_size};
        return MPI_SUCCESS;
    }
    return enc_mpi_buf_open(fn, (void *)buf, count, t, 1, b);
}

int enc_mpi_red_output(const char *fn, const struct enc_mpi_reducer *red, const void *src,
                       int count, MPI_Datatype t, void *buf)
{
    if (!red->packed) {
        memmove((char *)buf + red->lb, src, (size_t)count * red->r.elem_size);
        return MPI_SUCCESS;
    }
    return enc_mpi_unpack(fn, src, (size_t)count, t, red->r.elem_size, red->extent, buf);
}
