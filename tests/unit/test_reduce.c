/*
 * test_reduce.c - shim/reduce: which (type, op) pairs exist (the MPI
 * standard's table), and what every kernel computes for n = 0, 1, 5.
 */
#include "enc.h"

#include <complex.h>
#include <criterion/criterion.h>
#include <string.h>

#include "reduce/reduce.h"

/* The C layouts of MPI's pair types, spelled out independently of the
 * library so that sizes and kernels are checked against them. */
struct float_int { float v; int i; };
struct double_int { double v; int i; };
struct long_int { long v; int i; };
struct int_int { int v; int i; };
struct short_int { short v; int i; };
struct ldouble_int { long double v; int i; };
struct float_float { float v; float i; };
struct double_double { double v; double i; };

enum cls { C_INT, C_FLOAT, C_COMPLEX, C_LOGICAL, C_PAIR };

/* X(tag, C type, class) for every element kind. */
#define ALL_TYPES(X)                                                    \
    X(I8, int8_t, C_INT) X(U8, uint8_t, C_INT)                          \
    X(I16, int16_t, C_INT) X(U16, uint16_t, C_INT)                      \
    X(I32, int32_t, C_INT) X(U32, uint32_t, C_INT)                      \
    X(I64, int64_t, C_INT) X(U64, uint64_t, C_INT)                      \
    X(F32, float, C_FLOAT) X(F64, double, C_FLOAT)                      \
    X(LDOUBLE, long double, C_FLOAT)                                    \
    X(BOOL, uint8_t, C_LOGICAL) X(FLOGICAL4, int32_t, C_LOGICAL)        \
    X(BYTE, uint8_t, C_INT) /* as Open MPI */                         \
    X(CF32, float complex, C_COMPLEX) X(CF64, double complex, C_COMPLEX) \
    X(CLDOUBLE, long double complex, C_COMPLEX)                         \
    X(FLOAT_INT, struct float_int, C_PAIR)                              \
    X(DOUBLE_INT, struct double_int, C_PAIR)                            \
    X(LONG_INT, struct long_int, C_PAIR)                                \
    X(2INT, struct int_int, C_PAIR)                                     \
    X(SHORT_INT, struct short_int, C_PAIR)                              \
    X(LDOUBLE_INT, struct ldouble_int, C_PAIR)                          \
    X(2FLOAT, struct float_float, C_PAIR)                               \
    X(2DOUBLE, struct double_double, C_PAIR)

#define CLASS_ENTRY(tag, T, cls) [ENC_T_##tag] = cls,
#define SIZE_ENTRY(tag, T, cls) [ENC_T_##tag] = sizeof(T),
static const enum cls type_class[ENC_T_COUNT] = { ALL_TYPES(CLASS_ENTRY) };
static const size_t type_size[ENC_T_COUNT] = { ALL_TYPES(SIZE_ENTRY) };

#define B(op) (1u << ENC_OP_##op)
/* MPI-4.0 table 6.x: groups of ops x groups of types, plus REPLACE. */
static const unsigned class_ops[] = {
    [C_INT] = B(MAX) | B(MIN) | B(SUM) | B(PROD) | B(LAND) | B(LOR) | B(LXOR) |
              B(BAND) | B(BOR) | B(BXOR) | B(REPLACE),
    [C_FLOAT] = B(MAX) | B(MIN) | B(SUM) | B(PROD) | B(REPLACE),
    [C_COMPLEX] = B(SUM) | B(PROD) | B(REPLACE),
    [C_LOGICAL] = B(LAND) | B(LOR) | B(LXOR) | B(REPLACE),
    [C_PAIR] = B(MAXLOC) | B(MINLOC) | B(REPLACE),
};

static bool valid(enum enc_type t, enum enc_op op)
{
    return (class_ops[type_class[t]] >> op) & 1u;
}

/* ---- typed access to one element of a buffer ---- */

struct val {
    double re, im; /* scalar value in re; complex re + im i; pair v = re, i = im */
};

#define PUT_CASE(tag, T, cls) \
    case ENC_T_##tag: put_##cls(T, buf, i, v); break;
#define put_C_INT(T, buf, i, v) (((T *)(buf))[i] = (T)(v).re)
#define put_C_FLOAT put_C_INT
#define put_C_LOGICAL put_C_INT
#define put_C_COMPLEX(T, buf, i, v) (((T *)(buf))[i] = (v).re + (v).im * I)
#define put_C_PAIR(T, buf, i, v) \
    (((T *)(buf))[i].v = (v).re, ((T *)(buf))[i].i = (v).im)

static void put(enum enc_type t, void *buf, size_t i, struct val v)
{
    switch (t) {
        ALL_TYPES(PUT_CASE)
    default:
        cr_assert_fail("bad type %d", t);
    }
}

#define EQ_CASE(tag, T, cls) \
    case ENC_T_##tag: return eq_##cls(T, a, b, i);
#define eq_C_INT(T, a, b, i) (((const T *)(a))[i] == ((const T *)(b))[i])
#define eq_C_FLOAT eq_C_INT
#define eq_C_LOGICAL eq_C_INT
#define eq_C_COMPLEX eq_C_INT
#define eq_C_PAIR(T, a, b, i) (((const T *)(a))[i].v == ((const T *)(b))[i].v && \
                               ((const T *)(a))[i].i == ((const T *)(b))[i].i)

/* Value equality (long double and pair padding make memcmp unreliable). */
static bool elem_eq(enum enc_type t, const void *a, const void *b, size_t i)
{
    switch (t) {
        ALL_TYPES(EQ_CASE)
    default:
        return false;
    }
}

/* ---- the sweep data: inputs and expected outputs per class and op ---- */

#define N 5
#define S(x) { (x), 0 }

/* Scalar classes share inputs; 2 and 5 and 12 are "true" for logical ops. */
static const struct val sc_in[N] = { S(0), S(2), S(0), S(5), S(12) };
static const struct val sc_io[N] = { S(0), S(3), S(6), S(0), S(10) };
static const struct val sc_want[ENC_OP_COUNT][N] = {
    [ENC_OP_MAX] = { S(0), S(3), S(6), S(5), S(12) },
    [ENC_OP_MIN] = { S(0), S(2), S(0), S(0), S(10) },
    [ENC_OP_SUM] = { S(0), S(5), S(6), S(5), S(22) },
    [ENC_OP_PROD] = { S(0), S(6), S(0), S(0), S(120) },
    [ENC_OP_LAND] = { S(0), S(1), S(0), S(0), S(1) },
    [ENC_OP_LOR] = { S(0), S(1), S(1), S(1), S(1) },
    [ENC_OP_LXOR] = { S(0), S(0), S(1), S(1), S(0) },
    [ENC_OP_BAND] = { S(0), S(2), S(0), S(0), S(8) },
    [ENC_OP_BOR] = { S(0), S(3), S(6), S(5), S(14) },
    [ENC_OP_BXOR] = { S(0), S(1), S(6), S(5), S(6) },
};

static const struct val cx_in[N] = { { 1, 2 }, { 0, 0 }, { -1, 0.5 }, { 3, 0 }, { 0, 2 } };
static const struct val cx_io[N] = { { 3, 4 }, { 5, -1 }, { 2, 2 }, { 0, 0.5 }, { 0, 2 } };
static const struct val cx_want[ENC_OP_COUNT][N] = {
    [ENC_OP_SUM] = { { 4, 6 }, { 5, -1 }, { 1, 2.5 }, { 3, 0.5 }, { 0, 4 } },
    [ENC_OP_PROD] = { { -5, 10 }, { 0, 0 }, { -3, -1 }, { 0, 1.5 }, { -4, 0 } },
};

/* (value, index); elements 0, 2, 3 tie, with the lower index on either side. */
static const struct val pr_in[N] = { { -3, 0 }, { 5, 1 }, { 2, 4 }, { 7, 3 }, { 1, 9 } };
static const struct val pr_io[N] = { { -3, 2 }, { 4, 0 }, { 2, 1 }, { 7, 5 }, { 6, 0 } };
static const struct val pr_want[ENC_OP_COUNT][N] = {
    [ENC_OP_MAXLOC] = { { -3, 0 }, { 5, 1 }, { 2, 1 }, { 7, 3 }, { 6, 0 } },
    [ENC_OP_MINLOC] = { { -3, 0 }, { 4, 0 }, { 2, 1 }, { 7, 3 }, { 1, 9 } },
};

struct data {
    const struct val *in, *io, (*want)[N];
};

static struct data data_of(enum cls c)
{
    if (c == C_COMPLEX)
        return (struct data){ cx_in, cx_io, cx_want };
    if (c == C_PAIR)
        return (struct data){ pr_in, pr_io, pr_want };
    return (struct data){ sc_in, sc_io, sc_want };
}

/* Room for N of the largest element, aligned for any of them. */
typedef union {
    long double complex align;
    unsigned char b[N * 32];
} ebuf;

struct bufs {
    ebuf in, io, want;
};

static void fill(enum enc_type t, enum enc_op op, struct bufs *b)
{
    struct data d = data_of(type_class[t]);

    memset(b, 0, sizeof(*b));
    for (size_t i = 0; i < N; i++) {
        put(t, b->in.b, i, d.in[i]);
        put(t, b->io.b, i, d.io[i]);
        /* REPLACE yields the second operand: inout as it was. */
        put(t, b->want.b, i, op == ENC_OP_REPLACE ? d.io[i] : d.want[op][i]);
    }
}

static void check_n(enum enc_type t, enum enc_op op, const struct bufs *b, size_t n)
{
    ebuf io = b->io;
    size_t sz = enc_type_size(t);

    enc_kernel_lookup(t, op)(b->in.b, io.b, n);
    for (size_t i = 0; i < n; i++)
        cr_expect(elem_eq(t, io.b, b->want.b, i), "%s %s n %zu: element %zu wrong",
                  enc_type_name(t), enc_op_name(op), n, i);
    cr_expect_eq(memcmp(io.b + n * sz, b->io.b + n * sz, (N - n) * sz), 0,
                 "%s %s n %zu: wrote past n", enc_type_name(t), enc_op_name(op), n);
}

Test(reduce, validity_of_every_type_op_pair_matches_mpi_table)
{
    for (int t = 0; t < ENC_T_COUNT; t++)
        for (int op = 0; op < ENC_OP_COUNT; op++)
            cr_expect_eq(enc_kernel_lookup(t, op) != NULL, valid(t, op), "%s %s",
                         enc_type_name(t), enc_op_name(op));
}

Test(reduce, every_valid_pair_on_known_inputs_n_0_1_5)
{
    static struct bufs b;
    int checked = 0;

    for (int t = 0; t < ENC_T_COUNT; t++)
        for (int op = 0; op < ENC_OP_COUNT; op++) {
            if (!valid(t, op) || enc_kernel_lookup(t, op) == NULL)
                continue;
            fill(t, op, &b);
            check_n(t, op, &b, 0);
            check_n(t, op, &b, 1);
            check_n(t, op, &b, N);
            checked++;
        }
    cr_expect_eq(checked, 9 * 11 + 3 * 5 + 3 * 3 + 2 * 4 + 8 * 3); /* BYTE is an INT */
}

Test(reduce, lookup_out_of_range_is_null)
{
    cr_expect_null(enc_kernel_lookup(ENC_T_COUNT, ENC_OP_SUM));
    cr_expect_null(enc_kernel_lookup(ENC_T_I32, ENC_OP_COUNT));
    cr_expect_null(enc_kernel_lookup((enum enc_type)-1, ENC_OP_SUM));
}

/* ---- edge values, one element at a time ---- */

#define ONE(tag, T, op, a, b, want)                                            \
    do {                                                                       \
        T in_ = (a), io_ = (b);                                                \
        enc_kernel_lookup(ENC_T_##tag, ENC_OP_##op)(&in_, &io_, 1);            \
        cr_expect(io_ == (T)(want), #tag " " #a " " #op " " #b " != " #want);  \
    } while (0)

Test(reduce, unsigned_sum_and_prod_wrap_around)
{
    ONE(U8, uint8_t, SUM, 200, 100, 44);
    ONE(U8, uint8_t, PROD, 16, 16, 0);
    ONE(U16, uint16_t, SUM, 65535, 2, 1);
    ONE(U16, uint16_t, PROD, 65535, 65535, 1);
    ONE(U32, uint32_t, SUM, UINT32_MAX, 1, 0);
    ONE(U32, uint32_t, PROD, 0x10000u, 0x10001u, 0x10000u);
    ONE(U64, uint64_t, SUM, UINT64_MAX, 2, 1);
    ONE(U64, uint64_t, PROD, 1ull << 32, 1ull << 32, 0);
}

Test(reduce, signed_sum_and_prod_wrap_without_overflow)
{
    ONE(I8, int8_t, SUM, 127, 1, -128);
    ONE(I8, int8_t, PROD, -128, -1, -128);
    ONE(I16, int16_t, SUM, 32767, 1, -32768);
    ONE(I16, int16_t, PROD, -3, 7, -21);
    ONE(I32, int32_t, PROD, INT32_MAX, 2, -2);
    ONE(I32, int32_t, SUM, INT32_MIN, -1, INT32_MAX);
    ONE(I64, int64_t, SUM, INT64_MAX, 1, INT64_MIN);
    ONE(I64, int64_t, PROD, INT64_MIN, -1, INT64_MIN);
}

Test(reduce, signed_max_min_with_negatives)
{
    ONE(I8, int8_t, MAX, -1, -128, -1);
    ONE(I8, int8_t, MIN, -1, -128, -128);
    ONE(I32, int32_t, MAX, -5, 3, 3);
    ONE(I32, int32_t, MIN, -5, 3, -5);
    ONE(I64, int64_t, MIN, INT64_MIN, INT64_MAX, INT64_MIN);
    ONE(F64, double, MAX, -0.5, -2.0, -0.5);
    ONE(F32, float, PROD, 1.5f, -2.0f, -3.0f);
    ONE(LDOUBLE, long double, SUM, 0.25L, -1.0L, -0.75L);
}

Test(reduce, logical_ops_treat_2_and_minus_1_as_true_and_yield_0_or_1)
{
    ONE(FLOGICAL4, int32_t, LAND, 2, -1, 1);
    ONE(FLOGICAL4, int32_t, LAND, -1, 0, 0);
    ONE(FLOGICAL4, int32_t, LOR, 0, -1, 1);
    ONE(FLOGICAL4, int32_t, LOR, 0, 0, 0);
    ONE(FLOGICAL4, int32_t, LXOR, 2, -1, 0);
    ONE(FLOGICAL4, int32_t, LXOR, 0, 2, 1);
    ONE(I8, int8_t, LAND, -1, 2, 1);
    ONE(I64, int64_t, LOR, INT64_MIN, 0, 1);
    ONE(U16, uint16_t, LXOR, 256, 1, 0);
    ONE(BOOL, uint8_t, LAND, 2, 255, 1);
    ONE(BOOL, uint8_t, LXOR, 2, 255, 0);
    ONE(BOOL, uint8_t, LOR, 0, 2, 1);
}

Test(reduce, bitwise_on_bytes_and_negative_integers)
{
    ONE(BYTE, uint8_t, BAND, 0xF0, 0x3C, 0x30);
    ONE(BYTE, uint8_t, BOR, 0xF0, 0x0F, 0xFF);
    ONE(BYTE, uint8_t, BXOR, 0xFF, 0x0F, 0xF0);
    ONE(I32, int32_t, BAND, -1, 0x1234, 0x1234);
    ONE(I16, int16_t, BXOR, -1, 0, -1);
}

Test(reduce, complex_products_and_sums)
{
    ONE(CF32, float complex, PROD, 1.0f + 2.0f * I, 3.0f + 4.0f * I, -5.0f + 10.0f * I);
    ONE(CF64, double complex, PROD, 0.5 * I, 0.5 * I, -0.25);
    ONE(CLDOUBLE, long double complex, SUM, 1.0L - 1.0L * I, -1.0L + 3.0L * I, 2.0L * I);
}

Test(reduce, maxloc_minloc_tie_keeps_lower_index_on_either_side)
{
    struct int_int in[2] = { { 4, 7 }, { 4, 1 } }, io[2] = { { 4, 2 }, { 4, 5 } };
    struct double_double din = { 1.5, 3.0 }, dio = { 1.5, 2.0 };

    enc_kernel_lookup(ENC_T_2INT, ENC_OP_MAXLOC)(in, io, 2);
    cr_expect(io[0].v == 4 && io[0].i == 2 && io[1].v == 4 && io[1].i == 1);
    enc_kernel_lookup(ENC_T_2DOUBLE, ENC_OP_MINLOC)(&din, &dio, 1);
    cr_expect(dio.v == 1.5 && dio.i == 2.0);
}

Test(reduce, type_sizes_match_the_c_layouts)
{
    for (int t = 0; t < ENC_T_COUNT; t++)
        cr_expect_eq(enc_type_size(t), type_size[t], "%s", enc_type_name(t));
    cr_expect_eq(enc_type_size(ENC_T_BOOL), 1);
    cr_expect_eq(enc_type_size(ENC_T_FLOGICAL4), 4);
    cr_expect_eq(enc_type_size(ENC_T_COUNT), 0);
}

Test(reduce, names_of_types_and_ops)
{
    cr_expect_str_eq(enc_type_name(ENC_T_I32), "int32");
    cr_expect_str_eq(enc_type_name(ENC_T_U64), "uint64");
    cr_expect_str_eq(enc_type_name(ENC_T_FLOAT_INT), "float_int");
    cr_expect_str_eq(enc_type_name(ENC_T_2DOUBLE), "2double");
    cr_expect_str_eq(enc_type_name(ENC_T_COUNT), "invalid");
    cr_expect_str_eq(enc_op_name(ENC_OP_SUM), "sum");
    cr_expect_str_eq(enc_op_name(ENC_OP_MAXLOC), "maxloc");
    cr_expect_str_eq(enc_op_name(ENC_OP_REPLACE), "replace");
    cr_expect_str_eq(enc_op_name(ENC_OP_COUNT), "invalid");
}

Test(reduce, every_type_and_op_has_a_distinct_name)
{
    for (int a = 0; a < ENC_T_COUNT; a++)
        for (int b = a + 1; b < ENC_T_COUNT; b++)
            cr_expect_str_neq(enc_type_name(a), enc_type_name(b));
    for (int a = 0; a < ENC_OP_COUNT; a++)
        for (int b = a + 1; b < ENC_OP_COUNT; b++)
            cr_expect_str_neq(enc_op_name(a), enc_op_name(b));
}
