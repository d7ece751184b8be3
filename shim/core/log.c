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

/* ENCORE_LOG's words are in level order (tunables.def).  A malformed
 * value is reported through this log, so the level is warn meanwhile. */
int enc_log_level(void)
{
    if (log_level < 0) {
        log_level = ENC_LOG_WARN;
        log_level = enc_tunable_enum(ENC_TUNE_LOG);
    }
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

int enc_usage_error(const char *prog, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return ENC_ERR_INVAL;
}
