/* snapmsg.c - checks of the snapshot <-> encore-run messages (snapmsg.h). */
#include "enc.h"
#include "proto/snapmsg.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool enc_snap_hello_valid(const struct enc_snap_hello *h, int size)
{
    return h->magic == ENC_SNAP_MAGIC && h->wire == ENC_SNAP_WIRE && h->rank < (uint32_t)size &&
           h->pid > 1;
}

enc_status_t enc_snap_parse_interval(const char *s, bool *auto_mode, double *seconds)
{
    char *end;

    *auto_mode = false;
    *seconds = 0;
    if (s == NULL || *s == '\0' || strcmp(s, "auto") == 0) {
        *auto_mode = true;
        return ENC_OK;
    }
    if (!isdigit((unsigned char)s[0]) && s[0] != '.')
        return ENC_ERR_INVAL; /* no sign, space, nan or inf */
    *seconds = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(*seconds) || *seconds < 0)
        return ENC_ERR_INVAL;
    return ENC_OK;
}
