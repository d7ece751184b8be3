/* parse.c - strict parsing of user-given numbers, sizes and booleans. */
#include "enc.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Leading decimal digits into *v; the rest of the string is left in *end. */
static enc_status_t digits(const char *s, uint64_t *v, const char **end)
{
    char *e;

    if (!isdigit((unsigned char)s[0]))
        return ENC_ERR_INVAL;
    errno = 0;
    *v = strtoull(s, &e, 10);
    *end = e;
    return errno == 0 ? ENC_OK : ENC_ERR_INVAL;
}

enc_status_t enc_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    const char *end;
    uint64_t v;

    if (digits(s, &v, &end) != ENC_OK || *end != '\0' || v < min || v > max)
        return ENC_ERR_INVAL;
    *out = v;
    return ENC_OK;
}

static int suffix_shift(const char *sfx)
{
    static const char units[] = "KMGTP";
    const char *u;

    if (sfx[0] == '\0')
        return 0;
    if (sfx[1] != '\0' || (u = strchr(units, toupper((unsigned char)sfx[0]))) == NULL)
        return -1;
    return 10 * (int)(u - units + 1);
}

enc_status_t enc_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    const char *end;
    uint64_t v;
    int shift;

    if (digits(s, &v, &end) != ENC_OK || (shift = suffix_shift(end)) < 0 ||
        (shift > 0 && v > (UINT64_MAX >> shift)))
        return ENC_ERR_INVAL;
    v <<= shift;
    if (v < min || v > max)
        return ENC_ERR_INVAL;
    *out = v;
    return ENC_OK;
}

enc_status_t enc_parse_bool(const char *s, int *out)
{
    static const char *const yes[] = {"1", "yes", "true", "on"};
    static const char *const no[] = {"0", "no", "false", "off"};

    for (size_t i = 0; i < ENC_ARRAY_SIZE(yes); i++) {
        if (strcasecmp(s, yes[i]) == 0 || strcasecmp(s, no[i]) == 0) {
            *out = strcasecmp(s, yes[i]) == 0;
            return ENC_OK;
        }
    }
    return ENC_ERR_INVAL;
}

enc_status_t enc_parse_decimal(const char *s, double min, double max, double *out)
{
    char *end;
    double v;

    if (!isdigit((unsigned char)s[0]) && s[0] != '.')
        return ENC_ERR_INVAL; /* no sign, space, nan or inf */
    v = strtod(s, &end);
    if (*end != '\0' || !isfinite(v) || v < min || v > max)
        return ENC_ERR_INVAL;
    *out = v;
    return ENC_OK;
}

enc_status_t enc_parse_positive(const char *s, double max, double *out)
{
    double v;

    if (enc_parse_decimal(s, 0, max, &v) != ENC_OK || v <= 0)
        return ENC_ERR_INVAL;
    *out = v;
    return ENC_OK;
}
