/*
 * coll_scan.c - MPI_Scan, MPI_Exscan, MPI_Reduce_scatter(_block) on the
 * encore world and derived communicators.
 *
 * Scan and Exscan allgather every rank's input (what = SCAN / EXSCAN, so
 * the log and replay checks name them) and combine the prefix locally in
 * rank order, as MPI requires for non-commutative ops.  Reduce_scatter
 * allreduces the whole vector (what = REDUCE_SCATTER) and keeps this
 * rank's block (the engine's reduce_scatter copies out only that block
 * when the result stays in the host's result buffer).  Every rank so holds
 * the full result a restarted rank needs.  A user op's non-contiguous datatype is packed for the engine and
 * unpacked into recvbuf (buffer.c), as for Allreduce.
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/inter/inter_coll.h"
#include "mpi/mpi_layer.h"

static int prefix(const char *fn, const void *site, const void *sendbuf, void *recvbuf,
                  int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm, int exclusive)
{
    struct enc_mpi_comm *c = enc_mpi_comm_get(comm);
    int n = enc_mpi_comm_size(c), me = enc_mpi_comm_rank(c), rv;
    struct enc_mpi_reducer red;
    struct enc_mpi_buf in;
    size_t bytes, *a = NULL;
    uint8_t *all = NULL, *acc;
    struct enc_callsig sig;
    enc_status_t st;

    if ((rv = enc_mpi_reducer_make(fn, t, op, count, &red)) != MPI_SUCCESS)
        return rv;
    bytes = (size_t)count * red.r.elem_size;
    if ((all = malloc(bytes * (size_t)(n + 1) + 1)) == NULL ||
        (a = malloc(sizeof(size_t) * 2 * (size_t)n)) == NULL) {
        free(all);
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    for (int i = 0; i < n; i++) {
        a[i] = bytes;
        a[n + i] = (size_t)i * bytes;
    }
    sig = enc_mpi_csig(c, ENC_COLL_ALLGATHERV, exclusive ? ENC_COLL_EXSCAN : ENC_COLL_SCAN,
                       (uint64_t)count, red.sig_dtype, red.sig_op, -1, site);
    if ((rv = enc_mpi_red_input(fn, &red, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, t,
                                &in)) != MPI_SUCCESS) {
        free(a);
        free(all);
        return rv;
    }
    st = enc_allgatherv(in.data, bytes, all, a, a + n, &sig);
    enc_mpi_buf_close(fn, &in, NULL, count, t, 0);
    free(a);
    if (st != ENC_OK) {
        free(all);
        return enc_mpi_engine_error(fn, st);
    }
    acc = all + (size_t)n * bytes; /* acc = x0 op x1 op ... in rank order */
    memcpy(acc, all, bytes);
    for (int i = 1; i < me + !exclusive; i++) {
        red.r.apply(&red.r, acc, all + (size_t)i * bytes, (size_t)count);
        memcpy(acc, all + (size_t)i * bytes, bytes);
    }
    if (!exclusive || me > 0)
        rv = enc_mpi_red_output(fn, &red, acc, count, t, recvbuf);
    free(all);
    return rv;
}

int enc_mpi_Scan(const void *site, const void *sendbuf, void *recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return prefix("MPI_Scan", site, sendbuf, recvbuf, count, datatype, op, comm, 0);
}

int enc_mpi_Exscan(const void *site, const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return prefix("MPI_Exscan", site, sendbuf, recvbuf, count, datatype, op, comm, 1);
}

static int reduce_scatter(const char *fn, const void *site, const void *sendbuf, void *recvbuf,
                          const int *counts, int same, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    struct enc_mpi_comm *c = enc_mpi_comm_get(comm);
    int n = enc_mpi_comm_size(c), me = enc_mpi_comm_rank(c), rv;
    size_t total = 0, before = 0, esz, mine;
    struct enc_mpi_reducer red;
    struct enc_mpi_buf in;
    struct enc_callsig sig;
    enc_status_t st;
    uint8_t *part = NULL;

    for (int i = 0; i < n; i++) {
        int k = same ? counts[0] : counts[i];

        if (k < 0)
            return enc_mpi_raise(MPI_ERR_COUNT, "%s: negative count for rank %d", fn, i);
        before += i < me ? (size_t)k : 0;
        total += (size_t)k;
    }
    if (total > INT32_MAX)
        return enc_mpi_raise(MPI_ERR_COUNT, "%s: more than 2^31 elements in all", fn);
    if ((rv = enc_mpi_reducer_make(fn, t, op, (int)total, &red)) != MPI_SUCCESS)
        return rv;
    esz = red.r.elem_size;
    mine = (size_t)(same ? counts[0] : counts[me]);
    /* a packed reducer's part is unpacked from a copy; any other lands in
     * recvbuf */
    if (red.packed && (part = malloc(mine * esz + 1)) == NULL)
        return enc_mpi_raise(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    sig = enc_mpi_csig(c, ENC_COLL_ALLREDUCE, ENC_COLL_REDUCE_SCATTER, total, red.sig_dtype,
                       red.sig_op, -1, site);
    if ((rv = enc_mpi_red_input(fn, &red, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf,
                                (int)total, t, &in)) != MPI_SUCCESS) {
        free(part);
        return rv;
    }
    st = enc_reduce_scatter(in.data, part ? part : (uint8_t *)recvbuf + red.lb, total, before,
                            mine, &red.r, &sig);
    enc_mpi_buf_close(fn, &in, NULL, (int)total, t, 0);
    if (st == ENC_OK && part)
        rv = enc_mpi_red_output(fn, &red, part, (int)mine, t, recvbuf);
    free(part);
    return st == ENC_OK ? rv : enc_mpi_engine_error(fn, st);
}

int enc_mpi_Reduce_scatter(const void *site, const void *sendbuf, void *recvbuf,
                           const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm)
{
    if (enc_mpi_is_intercomm(comm))
        return enc_mpi_inter_reduce_scatter(site, sendbuf, recvbuf, 0, recvcounts, datatype, op,
                                            comm);
    return reduce_scatter("MPI_Reduce_scatter", site, sendbuf, recvbuf, recvcounts, 0, datatype,
                          op, comm);
}

int enc_mpi_Reduce_scatter_block(const void *site, const void *sendbuf, void *recvbuf,
                                 int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    if (enc_mpi_is_intercomm(comm))
        return enc_mpi_inter_reduce_scatter(site, sendbuf, recvbuf, recvcount, NULL, datatype, op,
                                            comm);
    return reduce_scatter("MPI_Reduce_scatter_block", site, sendbuf, recvbuf, &recvcount, 1,
                          datatype, op, comm);
}
