/*
 * hostport.c - parsing "host:port" and "[ipv6]:port" addresses.
 *
 * An unbracketed address with several colons is rejected rather than
 * guessed at: "::1:80" could be a host or a host and a port.
 */
#include "enc.h"

#include <stdlib.h>
#include <string.h>

#include "net/sock.h"

static int parse_port(const char *s, uint16_t *port)
{
    char *end;
    unsigned long v;

    if (*s < '0' || *s > '9')
        return ENC_ERR_INVAL;
    v = strtoul(s, &end, 10);
    if (*end != '\0' || v > UINT16_MAX)
        return ENC_ERR_INVAL;
    *port = (uint16_t)v;
    return ENC_OK;
}

/* Splits s into the host part [*h, *h + *hl) and the port text. */
static int split(const char *s, const char **h, size_t *hl, const char **port)
{
    const char *colon;

    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (close == NULL || close[1] != ':')
            return ENC_ERR_INVAL;
        *h = s + 1;
        *hl = (size_t)(close - s - 1);
        *port = close + 2;
        return ENC_OK;
    }
    colon = strchr(s, ':');
    if (colon == NULL || strchr(colon + 1, ':') != NULL)
        return ENC_ERR_INVAL;
    *h = s;
    *hl = (size_t)(colon - s);
    *port = colon + 1;
    return ENC_OK;
}

enc_status_t enc_parse_hostport(const char *s, char *host, size_t hostcap, uint16_t *port)
{
    const char *h, *p;
    size_t hl;
    int rv;

    if (s == NULL || (rv = split(s, &h, &hl, &p)) != 0)
        return ENC_ERR_INVAL;
    if (hl == 0 || hl >= hostcap || memchr(h, '[', hl) || memchr(h, ']', hl))
        return ENC_ERR_INVAL;
    if ((rv = parse_port(p, port)) != 0)
        return rv;
    memcpy(host, h, hl);
    host[hl] = '\0';
    return ENC_OK;
}
