/*
 * types.c - sizes and names of encore's element kinds and ops, generated
 * from the lists in elem.h.
 */
#include "enc.h"

#include "reduce/elem.h"
#include "reduce/reduce.h"

#define SIZE_ENTRY(tag, T, name, cls) [ENC_T_##tag] = sizeof(T),
#define NAME_ENTRY(tag, T, name, cls) [ENC_T_##tag] = name,
#define OP_NAME_ENTRY(tag, name) [ENC_OP_##tag] = name,

static const size_t type_sizes[ENC_T_COUNT] = { ENC_ELEM_TYPES(SIZE_ENTRY) };
static const char *const type_names[ENC_T_COUNT] = { ENC_ELEM_TYPES(NAME_ENTRY) };
static const char *const op_names[ENC_OP_COUNT] = { ENC_OPS(OP_NAME_ENTRY) };

size_t enc_type_size(enum enc_type t)
{
    return (unsigned)t < ENC_T_COUNT ? type_sizes[t] : 0;
}

const char *enc_type_name(enum enc_type t)
{
    return (unsigned)t < ENC_T_COUNT ? type_names[t] : "invalid";
}

const char *enc_op_name(enum enc_op op)
{
    return (unsigned)op < ENC_OP_COUNT ? op_names[op] : "invalid";
}
