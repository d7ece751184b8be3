/*
 * mpi_reducer.c - (MPI datatype, MPI op) -> struct enc_reducer for the engine.
 *
 * Predefined op x predefined type: the reduction kernel.  User op: the
 * MPI_User_function, called with the datatype; on a non-contiguous
 * datatype the engine's elements are packed, and they are unpacked into the
 * datatype's layout around each call.
 * Anything else is refused here with a message naming op and type, before
 * any data moves, so every rank fails the same way.
 */
#include "enc.h"

#include <limits.h>
#include <stdlib.h>

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/mpi_layer.h"
#include "reduce/reduce.h"

/* The engine hands us contiguous element data; the user function expects
 * buffers laid out as the datatype says (data at buf + lb). */
static void user_apply(const struct enc_reducer *r, const void *in, void *inout, size_t n)
{
    const struct enc_mpi_reducer *mr = (const struct enc_mpi_reducer *)r;
    MPI_User_function *fn = (MPI_User_function *)r->user_fn;
    MPI_Datatype t = (MPI_Datatype)r->user_dtype;
    const char *a = in;
    char *b = inout;

    /* The user function takes an int count. */
    while (n > 0) {
        int k = n > (size_t)INT_MAX ? INT_MAX : (int)n;
        fn((void *)(a - mr->lb), b - mr->lb, &k, &t);
        a += (size_t)k * r->elem_size;
        b += (size_t)k * r->elem_size;
        n -= (size_t)k;
    }
}

/* Room for k elements of mr's datatype laid out from an origin (data
 * from origin + true_lb); per thread, as collectives run on several. */
static char *layout_room(const struct enc_mpi_reducer *mr, size_t k, int which)
{
    static __thread char *room[2];
    static __thread size_t cap[2];
    size_t need = k * (size_t)mr->extent + (size_t)mr->true_extent +
                  (size_t)(mr->true_lb < 0 ? -mr->true_lb : mr->true_lb) + 64;

    if (need > cap[which]) {
        char *p = realloc(room[which], need);

        if (p == NULL)
            return NULL;
        room[which] = p;
        cap[which] = need;
    }
    return room[which] + (mr->true_lb < 0 ? -mr->true_lb : 0);
}

/* A C user function on a non-contiguous datatype: unpack both operands,
 * call it, pack the result back (in pieces, so the room stays small). */
static void user_apply_packed(const struct enc_reducer *r, const void *in, void *inout, size_t n)
{
    const struct enc_mpi_reducer *mr = (const struct enc_mpi_reducer *)r;
    MPI_User_function *fn = (MPI_User_function *)r->user_fn;
    MPI_Datatype t = (MPI_Datatype)r->user_dtype;
    size_t piece = ENC_MAX((size_t)1, ((size_t)1 << 20) / (size_t)ENC_MAX(mr->extent, 1));
    const char *a = in;
    char *b = inout;

    while (n > 0) {
        int k = (int)ENC_MIN(n, piece);
        char *x = layout_room(mr, (size_t)k, 0), *y = layout_room(mr, (size_t)k, 1);

        if (x == NULL || y == NULL ||
            enc_mpi_unpack("reduction", a, (size_t)k, t, r->elem_size, mr->extent, x) ||
            enc_mpi_unpack("reduction", b, (size_t)k, t, r->elem_size, mr->extent, y))
            enc_engine_abort(1, "a user reduction on a non-contiguous datatype ran out "
                                "of memory");
        fn(x, y, &k, &t);
        if (enc_mpi_pack("reduction", y, (size_t)k, t, r->elem_size, mr->extent, b))
            enc_engine_abort(1, "a user reduction could not pack its result");
        a += (size_t)k * r->elem_size;
        b += (size_t)k * r->elem_size;
        n -= (size_t)k;
    }
}

/* Same for a Fortran user function: len and the Fortran datatype handle
 * (stored in user_dtype) by reference. */
static void user_apply_f(const struct enc_reducer *r, const void *in, void *inout, size_t n)
{
    const struct enc_mpi_reducer *mr = (const struct enc_mpi_reducer *)r;
    void (*fn)(void *, void *, MPI_Fint *, MPI_Fint *) =
        (void (*)(void *, void *, MPI_Fint *, MPI_Fint *))r->user_fn;
    MPI_Fint t = (MPI_Fint)r->user_dtype;
    const char *a = in;
    char *b = inout;

    while (n > 0) {
        MPI_Fint k = n > (size_t)INT_MAX ? INT_MAX : (MPI_Fint)n;
        fn((void *)(a - mr->lb), b - mr->lb, &k, &t);
        a += (size_t)k * r->elem_size;
        b += (size_t)k * r->elem_size;
        n -= (size_t)k;
    }
}

static int reducer_user(const char *fn, MPI_Datatype t, MPI_Op op, int count,
                        struct enc_mpi_reducer *red)
{
    MPI_User_function *ufn;
    int commute;
    uint32_t index;
    enum enc_mpi_op_lang lang;
    struct enc_mpi_layout l;
    enum enc_type et;
    char tname[MPI_MAX_OBJECT_NAME];
    int rv;

    if (enc_mpi_user_op(op, &ufn, &commute, &index, &lang) != ENC_OK)
        return enc_mpi_raise(MPI_ERR_OP, "%s: invalid op (not predefined, not from "
                             "MPI_Op_create)", fn);
    if ((rv = enc_mpi_type_layout(fn, t, count, &l)) != MPI_SUCCESS)
        return rv;
    if (l.size == 0 || (!l.contiguous && lang == ENC_MPI_OP_FORTRAN))
        return enc_mpi_raise(MPI_ERR_TYPE, "%s: reductions on non-contiguous datatype %s "
                             "are not supported in encore mode%s",
                             fn, enc_mpi_type_name(t, tname, sizeof(tname)),
                             l.size == 0 ? "" : " (only with a C user op)");
    red->r = (struct enc_reducer){ .elem_size = l.size, .commutative = commute != 0,
                                   .apply = user_apply, .user_fn = (void *)ufn,
                                   .user_dtype = (uintptr_t)t };
    if (lang == ENC_MPI_OP_FORTRAN) {
        red->r.apply = user_apply_f;
        red->r.user_dtype = (uintptr_t)(uint32_t)PMPI_Type_c2f(t);
    }
    red->lb = l.lb;
    red->packed = !l.contiguous;
    if (red->packed) {
        red->r.apply = user_apply_packed;
        red->lb = 0; /* the data is packed: it starts at the buffer */
        red->extent = l.extent;
        red->true_lb = l.lb;
        if (PMPI_Type_get_true_extent(t, &red->true_lb, &red->true_extent) != MPI_SUCCESS)
            return enc_mpi_raise(MPI_ERR_TYPE, "%s: invalid datatype", fn);
    }
    red->sig_dtype = enc_mpi_type_lookup(t, &et) == ENC_OK ? (uint32_t)et
                                                      : ENC_SIG_DTYPE_DERIVED + (uint32_t)l.size;
    red->sig_op = ENC_SIG_OP_USER + index;
    return MPI_SUCCESS;
}

static int reducer_kernel(const char *fn, MPI_Datatype t, enum enc_op eop,
                          struct enc_mpi_reducer *red)
{
    enum enc_type et;
    enc_kernel_fn k;
    char tname[MPI_MAX_OBJECT_NAME];

    /* MPI_ERR_OP, as Open MPI's for a predefined op on a derived datatype
     * or MPI_DATATYPE_NULL */
    if (enc_mpi_type_lookup(t, &et) != ENC_OK)
        return enc_mpi_raise(MPI_ERR_OP, "%s: predefined op %s on %s is not supported in "
                             "encore mode (use a predefined datatype or a user op)",
                             fn, enc_op_name(eop), enc_mpi_type_name(t, tname, sizeof(tname)));
    if ((k = enc_kernel_lookup(et, eop)) == NULL)
        return enc_mpi_raise(MPI_ERR_OP, "%s: op %s is not defined on datatype %s",
                             fn, enc_op_name(eop), enc_mpi_type_name(t, tname, sizeof(tname)));
    red->r = (struct enc_reducer){ .elem_size = enc_type_size(et), .commutative = 1,
                                   .apply = enc_reducer_apply_kernel, .kernel = k };
    red->lb = 0;
    red->sig_dtype = (uint32_t)et;
    red->sig_op = (uint32_t)eop;
    return MPI_SUCCESS;
}

int enc_mpi_reducer_make(const char *fn, MPI_Datatype t, MPI_Op op, int count,
                         struct enc_mpi_reducer *red)
{
    enum enc_op eop;
    int rv;

    *red = (struct enc_mpi_reducer){0};
    /* Open MPI's order: the op (and a predefined op's datatype), then the
     * datatype, then the count */
    if (enc_mpi_op_lookup(op, &eop) != ENC_OK)
        return reducer_user(fn, t, op, count, red);
    if ((rv = reducer_kernel(fn, t, eop, red)) != MPI_SUCCESS)
        return rv;
    if (count < 0)
        return enc_mpi_raise(MPI_ERR_COUNT, "%s: negative count %d", fn, count);
    return MPI_SUCCESS;
}
