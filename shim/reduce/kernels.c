/*
 * kernels.c - the reduction kernel of every valid (type, op) pair, generated
 * from elem.h's type list and the per-class op lists below, and the lookup
 * table that leaves every pair MPI does not define NULL.
 *
 * Each kernel computes inout[i] = in[i] op inout[i].
 */
#include "enc.h"

#include "reduce/elem.h"
#include "reduce/reduce.h"

/* Element-wise expressions over a = in[i], b = inout[i] of C type T. */
#define EXPR_MAX(T, a, b) ((a) > (b) ? (a) : (b))
#define EXPR_MIN(T, a, b) ((a) < (b) ? (a) : (b))
#define EXPR_SUM(T, a, b) ((a) + (b))
#define EXPR_PROD(T, a, b) ((a) * (b))
/* Integers wrap: compute in uint64_t (no promotion to a signed int, no
 * signed overflow) and truncate, which GCC and Clang define as modulo. */
#define EXPR_WSUM(T, a, b) ((T)((uint64_t)(a) + (uint64_t)(b)))
#define EXPR_WPROD(T, a, b) ((T)((uint64_t)(a) * (uint64_t)(b)))
#define EXPR_LAND(T, a, b) ((T)((a) && (b)))
#define EXPR_LOR(T, a, b) ((T)((a) || (b)))
#define EXPR_LXOR(T, a, b) ((T)(!(a) != !(b)))
#define EXPR_BAND(T, a, b) ((T)((a) & (b)))
#define EXPR_BOR(T, a, b) ((T)((a) | (b)))
#define EXPR_BXOR(T, a, b) ((T)((a) ^ (b)))
/* MPI: the better value wins; on a tie the lower index wins. */
#define EXPR_MAXLOC(T, a, b) \
    ((a).v > (b).v || ((a).v == (b).v && (a).i < (b).i) ? (a) : (b))
#define EXPR_MINLOC(T, a, b) \
    ((a).v < (b).v || ((a).v == (b).v && (a).i < (b).i) ? (a) : (b))

/* X(tag, T, op, expr) for each op a class of types supports (besides
 * REPLACE), following the MPI standard's table of valid pairs, widened
 * where Open MPI accepts more (MPI_BYTE is an INT: elem.h). */
#define ENC_OPS_INT(X, tag, T)                                          \
    X(tag, T, MAX, MAX) X(tag, T, MIN, MIN)                             \
    X(tag, T, SUM, WSUM) X(tag, T, PROD, WPROD)                         \
    X(tag, T, LAND, LAND) X(tag, T, LOR, LOR) X(tag, T, LXOR, LXOR)     \
    X(tag, T, BAND, BAND) X(tag, T, BOR, BOR) X(tag, T, BXOR, BXOR)
#define ENC_OPS_FLOAT(X, tag, T)                                        \
    X(tag, T, MAX, MAX) X(tag, T, MIN, MIN)                             \
    X(tag, T, SUM, SUM) X(tag, T, PROD, PROD)
#define ENC_OPS_COMPLEX(X, tag, T) X(tag, T, SUM, SUM) X(tag, T, PROD, PROD)
#define ENC_OPS_LOGICAL(X, tag, T) \
    X(tag, T, LAND, LAND) X(tag, T, LOR, LOR) X(tag, T, LXOR, LXOR)
#define ENC_OPS_PAIR(X, tag, T) X(tag, T, MAXLOC, MAXLOC) X(tag, T, MINLOC, MINLOC)

#define KERNEL_DEF(tag, T, op, expr)                                    \
    static void k_##tag##_##op(const void *in_, void *inout_, size_t n) \
    {                                                                   \
        const T *in = in_;                                              \
        T *inout = inout_;                                              \
        for (size_t i = 0; i < n; i++)                                  \
            inout[i] = EXPR_##expr(T, in[i], inout[i]);                 \
    }
#define KERNELS_OF(tag, T, name, cls) ENC_OPS_##cls(KERNEL_DEF, tag, T)

ENC_ELEM_TYPES(KERNELS_OF)

/* REPLACE yields the second operand, inout itself: nothing to do. */
static void k_replace(const void *in, void *inout, size_t n)
{
    (void)in;
    (void)inout;
    (void)n;
}

#define TABLE_ENTRY(tag, T, op, expr) [ENC_T_##tag][ENC_OP_##op] = k_##tag##_##op,
#define TABLE_ROW(tag, T, name, cls)          \
    ENC_OPS_##cls(TABLE_ENTRY, tag, T)        \
    [ENC_T_##tag][ENC_OP_REPLACE] = k_replace,

static const enc_kernel_fn kernel_table[ENC_T_COUNT][ENC_OP_COUNT] = {
    ENC_ELEM_TYPES(TABLE_ROW)
};

enc_kernel_fn enc_kernel_lookup(enum enc_type t, enum enc_op op)
{
    if ((unsigned)t >= ENC_T_COUNT || (unsigned)op >= ENC_OP_COUNT)
        return NULL;
    return kernel_table[t][op];
}
