/* limits.c - raising the open-file limit (RLIMIT_NOFILE) a job needs. */
#include "enc.h"
#include "core/limits.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

enc_status_t enc_limits_nofile(uint64_t need, char *msg, size_t cap)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
        snprintf(msg, cap, "getrlimit(RLIMIT_NOFILE): %s", strerror(errno));
        return ENC_ERR_SYS;
    }
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
        return ENC_OK;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
        snprintf(msg, cap, "RLIMIT_NOFILE (open files) hard limit %llu is below the %llu this "
                 "job needs; raise it (ulimit -Hn, /etc/security/limits.conf) or use fewer ranks",
                 (unsigned long long)rl.rlim_max, (unsigned long long)need);
        return ENC_ERR_SYS;
    }
    rl.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
        snprintf(msg, cap, "cannot raise RLIMIT_NOFILE (open files) to %llu: %s",
                 (unsigned long long)rl.rlim_max, strerror(errno));
        return ENC_ERR_SYS;
    }
    ENC_DEBUG("limits", "RLIMIT_NOFILE soft limit raised to %llu (need %llu)",
              (unsigned long long)rl.rlim_max, (unsigned long long)need);
    return ENC_OK;
}
