/* inter.c - the record of an intercommunicator's two groups (inter.h). */
#include "enc.h"

#include <stdlib.h>

#include "mpi/inter/inter.h"

struct enc_mpi_inter *enc_mpi_inter_new(int lsize, int rsize, int lfirst)
{
    struct enc_mpi_inter *in = malloc(sizeof(*in));

    if (in != NULL)
        *in = (struct enc_mpi_inter){lsize, rsize, lfirst ? 0 : rsize, lfirst ? lsize : 0};
    return in;
}

struct enc_mpi_inter *enc_mpi_inter_copy(const struct enc_mpi_inter *in)
{
    return enc_mpi_inter_new(in->lsize, in->rsize, in->loff == 0);
}

void enc_mpi_inter_free(struct enc_mpi_inter *in)
{
    free(in);
}
