/*
 * dtype.c - predefined MPI datatypes -> enum enc_type, names and layouts.
 *
 * Integer, real and complex types whose width depends on the platform or on
 * how Open MPI was configured (MPI_LONG, MPI_WCHAR, MPI_AINT, Fortran
 * INTEGER / REAL, ...) are mapped by kind and resolved with their actual
 * size, so the table never hard-codes an ABI assumption.
 */
#include "enc.h"

#include <stdio.h>

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/mpi_layer.h"
#include "reduce/reduce.h"

enum kind { K_FIXED, K_SINT, K_UINT, K_FLOAT, K_CPLX };

struct tmap {
    MPI_Datatype h;
    enum kind kind;
    enum enc_type fixed;     /* K_FIXED only */
};

#define SINT(h) { h, K_SINT, 0 }
#define UINT(h) { h, K_UINT, 0 }
#define FLT(h) { h, K_FLOAT, 0 }
#define CPLX(h) { h, K_CPLX, 0 }
#define FIX(h, t) { h, K_FIXED, t }

static const struct tmap tmap[] = {
    /* C */
    SINT(MPI_CHAR), SINT(MPI_SIGNED_CHAR), UINT(MPI_UNSIGNED_CHAR), FIX(MPI_BYTE, ENC_T_BYTE),
    SINT(MPI_SHORT), UINT(MPI_UNSIGNED_SHORT), SINT(MPI_INT), UINT(MPI_UNSIGNED),
    SINT(MPI_LONG), UINT(MPI_UNSIGNED_LONG), SINT(MPI_LONG_LONG_INT), SINT(MPI_LONG_LONG),
    UINT(MPI_UNSIGNED_LONG_LONG), FLT(MPI_FLOAT), FLT(MPI_DOUBLE),
    FIX(MPI_LONG_DOUBLE, ENC_T_LDOUBLE), SINT(MPI_WCHAR), FIX(MPI_C_BOOL, ENC_T_BOOL),
    SINT(MPI_INT8_T), SINT(MPI_INT16_T), SINT(MPI_INT32_T), SINT(MPI_INT64_T),
    UINT(MPI_UINT8_T), UINT(MPI_UINT16_T), UINT(MPI_UINT32_T), UINT(MPI_UINT64_T),
    CPLX(MPI_C_COMPLEX), CPLX(MPI_C_FLOAT_COMPLEX), CPLX(MPI_C_DOUBLE_COMPLEX),
    FIX(MPI_C_LONG_DOUBLE_COMPLEX, ENC_T_CLDOUBLE),
    SINT(MPI_AINT), SINT(MPI_OFFSET), SINT(MPI_COUNT),
    FIX(MPI_FLOAT_INT, ENC_T_FLOAT_INT), FIX(MPI_DOUBLE_INT, ENC_T_DOUBLE_INT),
    FIX(MPI_LONG_INT, ENC_T_LONG_INT), FIX(MPI_2INT, ENC_T_2INT),
    FIX(MPI_SHORT_INT, ENC_T_SHORT_INT), FIX(MPI_LONG_DOUBLE_INT, ENC_T_LDOUBLE_INT),
    /* Fortran */
    SINT(MPI_INTEGER), SINT(MPI_INTEGER1), SINT(MPI_INTEGER2), SINT(MPI_INTEGER4),
    SINT(MPI_INTEGER8), FLT(MPI_REAL), FLT(MPI_REAL4), FLT(MPI_REAL8),
    FLT(MPI_DOUBLE_PRECISION), CPLX(MPI_COMPLEX), CPLX(MPI_DOUBLE_COMPLEX),
    FIX(MPI_LOGICAL, ENC_T_FLOGICAL4), SINT(MPI_CHARACTER),
    FIX(MPI_2INTEGER, ENC_T_2INT), FIX(MPI_2REAL, ENC_T_2FLOAT),
    FIX(MPI_2DOUBLE_PRECISION, ENC_T_2DOUBLE),
};

static enc_status_t by_size(enum kind kind, int size, enum enc_type *out)
{
    static const enum enc_type sint[] = { ENC_T_I8, ENC_T_I16, ENC_T_I32, ENC_T_I64 };
    static const enum enc_type uint[] = { ENC_T_U8, ENC_T_U16, ENC_T_U32, ENC_T_U64 };
    int log2 = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;

    if (kind == K_SINT || kind == K_UINT) {
        if (log2 < 0)
            return ENC_ERR_NOT_FOUND;
        *out = kind == K_SINT ? sint[log2] : uint[log2];
    } else if (kind == K_FLOAT) {
        if (size != 4 && size != 8)
            return ENC_ERR_NOT_FOUND;
        *out = size == 4 ? ENC_T_F32 : ENC_T_F64;
    } else {
        if (size != 8 && size != 16)
            return ENC_ERR_NOT_FOUND;
        *out = size == 8 ? ENC_T_CF32 : ENC_T_CF64;
    }
    return ENC_OK;
}

enc_status_t enc_mpi_type_lookup(MPI_Datatype t, enum enc_type *out)
{
    for (size_t i = 0; i < ENC_ARRAY_SIZE(tmap); i++) {
        const struct tmap *m = &tmap[i];
        int size = 0;

        if (m->h != t)
            continue;
        if (m->kind == K_FIXED) {
            *out = m->fixed;
            return ENC_OK;
        }
        /* Fortran types of a Fortran-less Open MPI have size 0. */
        if (PMPI_Type_size(t, &size) != MPI_SUCCESS || size <= 0)
            return ENC_ERR_NOT_FOUND;
        return by_size(m->kind, size, out);
    }
    return ENC_ERR_NOT_FOUND;
}

const char *enc_mpi_type_name(MPI_Datatype t, char *buf, size_t len)
{
    char name[MPI_MAX_OBJECT_NAME];
    int n = 0;

    if (PMPI_Type_get_name(t, name, &n) != MPI_SUCCESS || n == 0)
        snprintf(name, sizeof(name), "a derived datatype");
    snprintf(buf, len, "%s", name);
    return buf;
}

int enc_mpi_type_layout(const char *fn, MPI_Datatype t, int count, struct enc_mpi_layout *l)
{
    MPI_Count size = 0;
    MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;

    /* Open MPI's order: MPI_DATATYPE_NULL, then the count */
    if (t == MPI_DATATYPE_NULL)
        return enc_mpi_raise(MPI_ERR_TYPE, "%s: MPI_DATATYPE_NULL", fn);
    if (count < 0)
        return enc_mpi_raise(MPI_ERR_COUNT, "%s: negative count %d", fn, count);
    if (PMPI_Type_size_x(t, &size) != MPI_SUCCESS ||
        PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(t, &tlb, &textent) != MPI_SUCCESS)
        return enc_mpi_raise(MPI_ERR_TYPE, "%s: invalid datatype", fn);
    l->size = (size_t)size;
    l->lb = tlb;
    l->extent = extent;
    /* Elements are back to back with no holes: the bytes are the data. */
    l->contiguous = (MPI_Count)textent == size && (count <= 1 || (MPI_Count)extent == size);
    return MPI_SUCCESS;
}
