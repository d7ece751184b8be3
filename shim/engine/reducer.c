/* reducer.c - the default reducer for predefined ops. */
#include "enc.h"

#include "engine/engine.h"

void enc_reducer_apply_kernel(const struct enc_reducer *r, const void *in, void *inout, size_t n)
{
    r->kernel(in, inout, n);
}
