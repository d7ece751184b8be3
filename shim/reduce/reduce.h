/*
 * reduce.h - reduction kernels for every predefined datatype x op.
 *
 * Types here are encore's own element kinds; the MPI layer maps MPI
 * datatypes (C and Fortran) onto them.  A kernel computes, element-wise,
 *     inout[i] = in[i] op inout[i]
 * (the MPI_User_function convention), where `in` is the operand from the
 * lower rank when order matters.  MAXLOC/MINLOC keep the lower index on
 * ties, as MPI specifies.  Logical ops yield 0 or 1.
 */
#ifndef ENC_REDUCE_REDUCE_H
#define ENC_REDUCE_REDUCE_H

#include <stddef.h>

enum enc_type {
    ENC_T_I8, ENC_T_U8, ENC_T_I16, ENC_T_U16,
    ENC_T_I32, ENC_T_U32, ENC_T_I64, ENC_T_U64,
    ENC_T_F32, ENC_T_F64, ENC_T_LDOUBLE,
    ENC_T_BOOL,        /* C _Bool, 1 byte */
    ENC_T_FLOGICAL4,   /* Fortran LOGICAL (4 bytes; 0 false, nonzero true) */
    ENC_T_BYTE,        /* MPI_BYTE: bitwise ops only */
    ENC_T_CF32, ENC_T_CF64, ENC_T_CLDOUBLE, /* complex: SUM, PROD only */
    /* pair types: MAXLOC/MINLOC only */
    ENC_T_FLOAT_INT,   /* struct { float v; int i; } */
    ENC_T_DOUBLE_INT,  /* struct { double v; int i; } */
    ENC_T_LONG_INT,    /* struct { long v; int i; } */
    ENC_T_2INT,        /* struct { int v; int i; } (also MPI_2INTEGER) */
    ENC_T_SHORT_INT,   /* struct { short v; int i; } */
    ENC_T_LDOUBLE_INT, /* struct { long double v; int i; } */
    ENC_T_2FLOAT,      /* MPI_2REAL: struct { float v; float i; } */
    ENC_T_2DOUBLE,     /* MPI_2DOUBLE_PRECISION: struct { double v; double i; } */
    ENC_T_COUNT
};

enum enc_op {
    ENC_OP_MAX, ENC_OP_MIN, ENC_OP_SUM, ENC_OP_PROD,
    ENC_OP_LAND, ENC_OP_BAND, ENC_OP_LOR, ENC_OP_BOR,
    ENC_OP_LXOR, ENC_OP_BXOR, ENC_OP_MAXLOC, ENC_OP_MINLOC,
    ENC_OP_REPLACE,
    ENC_OP_COUNT
};

typedef void (*enc_kernel_fn)(const void *in, void *inout, size_t n);

/* The kernel for (type, op), or NULL when MPI does not define the op on
 * that type (the caller reports MPI_ERR_OP). */
enc_kernel_fn enc_kernel_lookup(enum enc_type t, enum enc_op op);
/* Size in bytes of one element (sizeof the C struct for pair types). */
size_t enc_type_size(enum enc_type t);
const char *enc_type_name(enum enc_type t);
const char *enc_op_name(enum enc_op op);

#endif
