/*
 * preload.c - finding the program, the libencore.so to preload into it
 * ($ENCORE_LIB, else next to encore-run in a build tree (.libs/), else the
 * installed ../lib, else the configured libdir), encore's Python
 * start-up directory (python/ in a build tree, else pkglibdir/python) and
 * whether a library the ranks are to preload is installed.
 */
#include "enc.h"
#include "launcher/launcher.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef ENC_LIBDIR
#define ENC_LIBDIR "/usr/local/lib"
#endif
#ifndef ENC_PKGLIBDIR
#define ENC_PKGLIBDIR "/usr/local/lib/encore"
#endif

static bool readable(const char *p) { return access(p, R_OK) == 0; }

const char *enc_run_find_libencore(char *buf, size_t cap)
{
    char exe[PATH_MAX];
    ssize_t n;

    if (enc_tunable_isset(ENC_TUNE_LIB)) {
        snprintf(buf, cap, "%s", enc_tunable_str(ENC_TUNE_LIB));
        return buf;
    }
    if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0) {
        exe[n] = '\0';
        char *dir = dirname(exe);

        snprintf(buf, cap, "%s/.libs/libencore.so", dir);
        if (readable(buf))
            return buf;
        snprintf(buf, cap, "%s/../lib/libencore.so", dir);
        if (readable(buf))
            return buf;
    }
    snprintf(buf, cap, "%s/libencore.so", ENC_LIBDIR);
    return readable(buf) ? buf : NULL;
}

/* Loaded and unloaded as a rank's loader would load it: found or not by
 * the same search (LD_LIBRARY_PATH, the cache, the default directories). */
enc_status_t enc_run_find_library(const char *name, char *msg, size_t cap)
{
    void *h = dlopen(name, RTLD_LAZY | RTLD_LOCAL);

    if (h == NULL) {
        snprintf(msg, cap, "%s", dlerror());
        return ENC_ERR_NOT_FOUND;
    }
    dlclose(h);
    return ENC_OK;
}

const char *enc_run_find_python_dir(char *buf, size_t cap)
{
    char exe[PATH_MAX], probe[PATH_MAX + 32];
    ssize_t n;

    if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0) {
        exe[n] = '\0';
        char *dir = dirname(exe);
        static const char *rel[] = {"python", "../lib/encore/python"};

        for (size_t i = 0; i < ENC_ARRAY_SIZE(rel); i++) {
            snprintf(probe, sizeof(probe), "%s/%s/sitecustomize.py", dir, rel[i]);
            if (readable(probe)) {
                snprintf(buf, cap, "%s/%s", dir, rel[i]);
                return buf;
            }
        }
    }
    snprintf(buf, cap, "%s/python", ENC_PKGLIBDIR);
    snprintf(probe, sizeof(probe), "%s/sitecustomize.py", buf);
    return readable(probe) ? buf : NULL;
}

enc_status_t enc_run_resolve_program(const char *prog, char *buf, size_t cap)
{
    const char *path = getenv("PATH");

    if (strchr(prog, '/') != NULL) {
        snprintf(buf, cap, "%s", prog);
        return access(buf, X_OK) == 0 ? ENC_OK : ENC_ERR_NOT_FOUND;
    }
    for (const char *p = path ? path : "/usr/bin:/bin"; *p != '\0';) {
        size_t len = strcspn(p, ":");

        snprintf(buf, cap, "%.*s/%s", (int)len, len ? p : ".", prog);
        if (access(buf, X_OK) == 0)
            return ENC_OK;
        p += len + (p[len] == ':');
    }
    return ENC_ERR_NOT_FOUND;
}
