/*
 * p2p_types.c - the layout of the common predefined datatypes, asked of
 * the real MPI once (p2p_mpi.h: enc_mpi_p2p_layout).
 *
 * Every send packs its buffer and every receive unpacks into its own, and
 * each asked the real MPI for the type's size, extent and true extent
 * (three calls) and, to hold a derived type, its envelope: about a tenth
 * of an 8-byte message's instructions.  A predefined type's handle is
 * never freed nor reused, so its layout is kept from its first use.
 */
#include "enc.h"

#include <mpi.h>

#include "mpi/p2p/p2p_mpi.h"

/* The predefined types messages use most (C; Fortran's may have size 0
 * in an Open MPI built without Fortran, so they take the general path). */
#define COMMON                                                                                 \
    X(MPI_BYTE) X(MPI_CHAR) X(MPI_SIGNED_CHAR) X(MPI_UNSIGNED_CHAR) X(MPI_SHORT)               \
    X(MPI_UNSIGNED_SHORT) X(MPI_INT) X(MPI_UNSIGNED) X(MPI_LONG) X(MPI_UNSIGNED_LONG)          \
    X(MPI_LONG_LONG) X(MPI_UNSIGNED_LONG_LONG) X(MPI_FLOAT) X(MPI_DOUBLE) X(MPI_PACKED)         \
    X(MPI_INT8_T) X(MPI_INT16_T) X(MPI_INT32_T) X(MPI_INT64_T) X(MPI_UINT8_T)                  \
    X(MPI_UINT16_T) X(MPI_UINT32_T) X(MPI_UINT64_T) X(MPI_C_BOOL)

#define X(t) t,
static const MPI_Datatype common[] = {COMMON};
#undef X

/* An element's layout (count 2: contiguous means back to back), 0 in
 * ready until it is known; the writes race harmlessly (the same values). */
static struct enc_mpi_layout known[sizeof(common) / sizeof(common[0])];
static int ready[sizeof(common) / sizeof(common[0])];

static int common_index(MPI_Datatype t)
{
    for (int i = 0; i < (int)(sizeof(common) / sizeof(common[0])); i++)
        if (common[i] == t)
            return i;
    return -1;
}

bool enc_mpi_p2p_type_predefined(MPI_Datatype t) { return common_index(t) >= 0; }

int enc_mpi_p2p_layout(const char *fn, MPI_Datatype t, int count, struct enc_mpi_layout *l)
{
    int i = count >= 0 ? common_index(t) : -1;
    int rv;

    if (i >= 0 && __atomic_load_n(&ready[i], __ATOMIC_ACQUIRE)) {
        *l = known[i];
        return MPI_SUCCESS;
    }
    if (i < 0 || (rv = enc_mpi_type_layout(fn, t, 2, &known[i])) != MPI_SUCCESS ||
        !known[i].contiguous)
        return enc_mpi_type_layout(fn, t, count, l); /* its errors, its answer */
    __atomic_store_n(&ready[i], 1, __ATOMIC_RELEASE);
    *l = known[i];
    return MPI_SUCCESS;
}
