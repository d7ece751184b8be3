/*
 * tag_output.c - --tag-output: each line a rank writes appears whole, prefixed
 * "[1,rank]<stdout>: " (or <stderr>), as mpirun does, so lines of
 * different ranks never interleave mid-line.
 */
#include "enc.h"
#include "common/proc.h"

#include <string.h>
#include <unistd.h>

static void emit(const struct enc_run_stream *s, const char *p, size_t n, int add_nl)
{
    char pre[48];
    int fd = s->is_err ? STDERR_FILENO : STDOUT_FILENO;
    int pl = snprintf(pre, sizeof(pre), "[1,%d]<%s>: ", s->rank, s->is_err ? "stderr" : "stdout");
    char line[sizeof(pre) + sizeof(s->buf) + 1];
    size_t len = (size_t)pl;

    memcpy(line, pre, len);
    memcpy(line + len, p, n);
    len += n;
    if (add_nl)
        line[len++] = '\n';
    for (size_t off = 0; off < len;) { /* one write per line when possible */
        ssize_t w = write(fd, line + off, len - off);
        if (w <= 0)
            return;
        off += (size_t)w;
    }
}

/* Emits every complete line in the buffer; a full buffer without a newline
 * is emitted as a line of its own. */
static void drain(struct enc_run_stream *s)
{
    size_t start = 0;

    for (size_t i = 0; i < s->len; i++) {
        if (s->buf[i] == '\n') {
            emit(s, s->buf + start, i + 1 - start, 0);
            start = i + 1;
        }
    }
    if (start == 0 && s->len == sizeof(s->buf)) {
        emit(s, s->buf, s->len, 1);
        start = s->len;
    }
    memmove(s->buf, s->buf + start, s->len - start);
    s->len -= start;
}

enc_status_t enc_run_stream_pump(struct enc_run_stream *s)
{
    ssize_t n;

    if (s->fd < 0)
        return ENC_OK;
    while ((n = read(s->fd, s->buf + s->len, sizeof(s->buf) - s->len)) > 0) {
        s->len += (size_t)n;
        drain(s);
    }
    if (n < 0)
        return ENC_INPROGRESS; /* EAGAIN (or EINTR): more later */
    if (s->len > 0)
        emit(s, s->buf, s->len, 1);
    s->len = 0;
    close(s->fd);
    s->fd = -1;
    return ENC_OK;
}
