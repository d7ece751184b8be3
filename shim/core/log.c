/* log.c - levelled logging to stderr, one write(2) per line. */
#include "enc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static int log_level = -1;
static char log_tag[32] = "encore";

static int parse_level(const char *s)
{
    static const char *names[] = {"error", "warn", "info", "debug", "trace"};

    if (s == NULL || *s == '\0')
        return ENC_LOG_WARN;
    for (size_t i = 0; i < ENC_ARRAY_SIZE(names); i++)
        if (strcasecmp(s, names[i]) == 0)
            return (int)i;
    return ENC_LOG_WARN;
}

int enc_log_level(void)
{
    if (log_level < 0)
        log_level = parse_level(getenv("ENCORE_LOG"));
    return log_level;
}

void enc_log_set_tag(const char *tag)
{
    snprintf(log_tag, sizeof(log_tag), "%s", tag);
}

void enc_log_write(int level, const char *subsys, const char *fmt, ...)
{
    static const char *prefix[] = {"error: ", "warning: ", "", "", ""};
    char line[1024];
    int saved = errno;
    int n = snprintf(line, sizeof(line), "encore[%s] %s: %s", log_tag, subsys,
                     prefix[level]);
    va_list ap;

    va_start(ap, fmt);
    errno = saved; /* keep %m meaningful */
    if (n >= 0 && (size_t)n < sizeof(line))
        n += vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof(line) - 1)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
    errno = saved;
}
