/*
 * fuzz_log.c - ENCORE_LOG level parsing and the log line builder
 * (core/log.c).  The level is parsed once per process and kept in a file
 * static, so this target compiles log.c in (its objects then win over the
 * library's copy at link time) and resets the static for every input.
 * The input is the ENCORE_LOG value, then the tag and a message.
 */
#include "core/log.c"

#include <fcntl.h>

#include "fuzz.h"

/* A log line is one write(2) to stderr: send it to /dev/null meanwhile. */
static void write_quietly(const char *tag, const char *msg)
{
    int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY | O_CLOEXEC);

    if (saved < 0 || null < 0 || dup2(null, STDERR_FILENO) < 0)
        fuzz_fail("cannot redirect stderr");
    enc_log_set_tag(tag);
    enc_log_write(ENC_LOG_ERROR, tag, "%s", msg);
    enc_log_write(ENC_LOG_ERROR, "fuzz", "%m %s %s", tag, msg);
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(null);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_strndup(data, size);
    int lvl;

    log_level = -1;
    setenv("ENCORE_LOG", s, 1);
    lvl = enc_log_level();
    FUZZ_CHECK(lvl >= ENC_LOG_ERROR && lvl <= ENC_LOG_TRACE);
    write_quietly(s, s);
    log_level = ENC_LOG_ERROR; /* quiet again for the next input */
    setenv("ENCORE_LOG", "error", 1);
    free(s);
    return 0;
}

void fuzz_seeds(fuzz_emit_fn emit)
{
    emit("warn", "warn", 4);
    emit("debug-upper", "DEBUG", 5);
    emit("trace", "trace", 5);
    emit("unknown", "verbose", 7);
}
