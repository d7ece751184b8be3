/*
 * log.h - levelled, subsystem-tagged logging.
 *
 * The level comes from ENCORE_LOG (error, warn, info, debug, trace; default
 * warn).  Log once, where the error is detected.  Lines go to stderr as
 *     encore[rank 3] engine: message
 * Messages may use %m (glibc) for errno.
 */
#ifndef ENC_CORE_LOG_H
#define ENC_CORE_LOG_H

enum enc_log_level {
    ENC_LOG_ERROR = 0,
    ENC_LOG_WARN,
    ENC_LOG_INFO,
    ENC_LOG_DEBUG,
    ENC_LOG_TRACE,
};

/* Sets the tag shown in brackets ("rank 3", "tracker", "run"); copies it. */
void enc_log_set_tag(const char *tag);
int enc_log_level(void);
void enc_log_write(int level, const char *subsys, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A user's mistake (an option, a variable), as one line on stderr:
 * "<prog>: <what>".  Returns ENC_ERR_INVAL. */
int enc_usage_error(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define ENC_LOG_AT(lvl, sub, ...)                                  \
    do {                                                           \
        if ((lvl) <= enc_log_level())                              \
            enc_log_write((lvl), (sub), __VA_ARGS__);              \
    } while (0)
#define ENC_ERROR(sub, ...) ENC_LOG_AT(ENC_LOG_ERROR, sub, __VA_ARGS__)
#define ENC_WARN(sub, ...) ENC_LOG_AT(ENC_LOG_WARN, sub, __VA_ARGS__)
#define ENC_INFO(sub, ...) ENC_LOG_AT(ENC_LOG_INFO, sub, __VA_ARGS__)
#define ENC_DEBUG(sub, ...) ENC_LOG_AT(ENC_LOG_DEBUG, sub, __VA_ARGS__)
#define ENC_TRACE(sub, ...) ENC_LOG_AT(ENC_LOG_TRACE, sub, __VA_ARGS__)

#endif
