/* vec.c - growable arrays (core/vec.h). */
#include "enc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec.h"

enc_status_t enc_vec_reserve(void *items, size_t *cap, size_t need, size_t elem_size)
{
    size_t n = *cap ? *cap : ENC_VEC_MIN;
    void *p;

    if (need <= *cap)
        return ENC_OK;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return ENC_ERR_NOMEM;
        n *= 2;
    }
    if (elem_size != 0 && n > SIZE_MAX / elem_size)
        return ENC_ERR_NOMEM;
    /* the caller's pointer is read and written as bytes: it is a T *, not
     * a void * */
    memcpy(&p, items, sizeof(p));
    if ((p = realloc(p, n * elem_size)) == NULL)
        return ENC_ERR_NOMEM;
    memset((char *)p + *cap * elem_size, 0, (n - *cap) * elem_size);
    memcpy(items, &p, sizeof(p));
    *cap = n;
    return ENC_OK;
}
