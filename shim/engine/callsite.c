/*
 * callsite.c - names a call site for logs and divergence reports.
 *
 * The signature stores the raw return address; only when a line is printed
 * is it turned into "module+offset" (stable across ASLR), with the nearest
 * exported symbol when the dynamic linker knows one.
 */
#include "enc.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "engine/state.h"

void enc_callsite_format(const void *site, char *out, size_t cap)
{
    Dl_info info;
    const char *base;

    if (site == NULL || dladdr(site, &info) == 0 || info.dli_fname == NULL) {
        snprintf(out, cap, "%p", site);
        return;
    }
    base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    if (*base == '\0')
        base = "main";
    uintptr_t off = (uintptr_t)site - (uintptr_t)info.dli_fbase;

    if (info.dli_sname != NULL)
        snprintf(out, cap, "%s+0x%zx %s", base, (size_t)off, info.dli_sname);
    else
        snprintf(out, cap, "%s+0x%zx", base, (size_t)off);
}
