/*
 * elem.h - the element kinds of reduce.h as one X-macro list, private to
 * shim/reduce: kernels.c generates its kernels and table from it, types.c
 * its sizes and names, so a type is added in one place.
 */
#ifndef ENC_REDUCE_ELEM_H
#define ENC_REDUCE_ELEM_H

#include <stdint.h>

/* The C layouts MPI gives its pair types. */
struct enc_float_int { float v; int i; };
struct enc_double_int { double v; int i; };
struct enc_long_int { long v; int i; };
struct enc_2int { int v; int i; };
struct enc_short_int { short v; int i; };
struct enc_ldouble_int { long double v; int i; };
struct enc_2float { float v; float i; };
struct enc_2double { double v; double i; };

/*
 * X(tag, C type, name, op class).  The op class names the list of ops MPI
 * defines on the type (ENC_OPS_* in kernels.c); REPLACE is valid on all.
 * BOOL is read as a byte so that a stray value such as 2 is "true", not a
 * _Bool trap representation.  BYTE takes every integer op, as an unsigned
 * 8-bit integer: Open MPI 4.1 accepts them all on MPI_BYTE, although the
 * standard lists only the bitwise ones.
 */
#define ENC_ELEM_TYPES(X)                                               \
    X(I8, int8_t, "int8", INT)                                          \
    X(U8, uint8_t, "uint8", INT)                                        \
    X(I16, int16_t, "int16", INT)                                       \
    X(U16, uint16_t, "uint16", INT)                                     \
    X(I32, int32_t, "int32", INT)                                       \
    X(U32, uint32_t, "uint32", INT)                                     \
    X(I64, int64_t, "int64", INT)                                       \
    X(U64, uint64_t, "uint64", INT)                                     \
    X(F32, float, "float", FLOAT)                                       \
    X(F64, double, "double", FLOAT)                                     \
    X(LDOUBLE, long double, "long_double", FLOAT)                       \
    X(BOOL, uint8_t, "bool", LOGICAL)                                   \
    X(FLOGICAL4, int32_t, "logical4", LOGICAL)                          \
    X(BYTE, uint8_t, "byte", INT)                                       \
    X(CF32, float _Complex, "complex_float", COMPLEX)                   \
    X(CF64, double _Complex, "complex_double", COMPLEX)                 \
    X(CLDOUBLE, long double _Complex, "complex_long_double", COMPLEX)   \
    X(FLOAT_INT, struct enc_float_int, "float_int", PAIR)               \
    X(DOUBLE_INT, struct enc_double_int, "double_int", PAIR)            \
    X(LONG_INT, struct enc_long_int, "long_int", PAIR)                  \
    X(2INT, struct enc_2int, "2int", PAIR)                              \
    X(SHORT_INT, struct enc_short_int, "short_int", PAIR)               \
    X(LDOUBLE_INT, struct enc_ldouble_int, "long_double_int", PAIR)     \
    X(2FLOAT, struct enc_2float, "2float", PAIR)                        \
    X(2DOUBLE, struct enc_2double, "2double", PAIR)

/* X(tag, name) for every op, in enum enc_op order. */
#define ENC_OPS(X)                                                      \
    X(MAX, "max") X(MIN, "min") X(SUM, "sum") X(PROD, "prod")           \
    X(LAND, "land") X(BAND, "band") X(LOR, "lor") X(BOR, "bor")         \
    X(LXOR, "lxor") X(BXOR, "bxor") X(MAXLOC, "maxloc")                 \
    X(MINLOC, "minloc") X(REPLACE, "replace")

#endif
