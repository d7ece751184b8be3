/*
 * coll_result.c - a collective's full result and the caller's buffer
 * (coll.h): an allgatherv's blocks packed one after the other and spread
 * back, and an alltoall's column taken out of every rank's row.  A leaf:
 * the live run (coll_live.c) and the dispatcher (coll.c) both use it.
 */
#include "enc.h"

#include <stdint.h>
#include <string.h>

#include "engine/coll.h"

void enc_coll_result_pack(const struct enc_coll *co, void *dst)
{
    uint8_t *p = dst;

    for (int i = 0; i < co->n; i++) {
        memcpy(p, (const uint8_t *)co->result + co->displs[i], co->recvbytes[i]);
        p += co->recvbytes[i];
    }
}

/* This rank's own block comes from its input, not from the rows: the
 * result buffer's entry leaves every row's diagonal block out (coll_shm.c,
 * allgatherv_resbuf), and a replaying rank has its input again.  In place
 * (column is sendbuf) the blocks before it were put first, over blocks of
 * the input it no longer reads. */
void enc_coll_column_take(const struct enc_coll *co, const void *rows)
{
    size_t row = (size_t)co->n * co->block, mine = (size_t)co->me * co->block;

    for (int j = 0; j < co->n; j++) {
        const uint8_t *from = (const uint8_t *)rows + (size_t)j * row + mine;

        if (j == co->me && co->sendbuf != NULL)
            from = (const uint8_t *)co->sendbuf + mine;
        memmove((uint8_t *)co->column + (size_t)j * co->block, from, co->block);
    }
}

void enc_coll_result_unpack(struct enc_coll *co, const void *src)
{
    const uint8_t *p = src;

    if (co->column != NULL) { /* the rows are packed already: they are the result */
        enc_coll_column_take(co, src);
        co->result = (void *)src;
        return;
    }
    for (int i = 0; i < co->n; i++) {
        memcpy((uint8_t *)co->recvbuf + co->displs[i], p, co->recvbytes[i]);
        p += co->recvbytes[i];
    }
}
