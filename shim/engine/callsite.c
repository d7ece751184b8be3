/*
 * callsite.c - names a call site for logs and divergence reports.
 *
 * The signature keeps the raw return address; only when a line is printed
 * is it symbolised: "kmeans.c:88 main" from DWARF line tables (elfutils
 * libdwfl) when the module has debug info, else "kmeans+0x1a2b main" from
 * the symbol table, else module+offset (stable across ASLR).
 */
#include "enc.h"

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/layer.h"

static pthread_mutex_t dwfl_lock = PTHREAD_MUTEX_INITIALIZER;
static Dwfl *dwfl;

static Dwfl *session(void)
{
    static const Dwfl_Callbacks cb = {
        .find_elf = dwfl_linux_proc_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
    };

    if (dwfl != NULL)
        return dwfl;
    if ((dwfl = dwfl_begin(&cb)) == NULL)
        return NULL;
    if (dwfl_linux_proc_report(dwfl, getpid()) != 0 || dwfl_report_end(dwfl, NULL, NULL) != 0) {
        dwfl_end(dwfl);
        dwfl = NULL;
    }
    return dwfl;
}

/* file:line of the call instruction (the byte before the return address). */
static bool dwarf_line(uintptr_t ret, char *out, size_t cap)
{
    Dwfl *d = session();
    Dwfl_Module *mod = d ? dwfl_addrmodule(d, ret - 1) : NULL;
    Dwfl_Line *line = mod ? dwfl_module_getsrc(mod, ret - 1) : NULL;
    const char *file, *base, *fn;
    int lineno = 0;

    if (line == NULL || (file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL)) == NULL)
        return false;
    base = strrchr(file, '/');
    fn = dwfl_module_addrname(mod, ret - 1);
    snprintf(out, cap, "%s:%d%s%s", base ? base + 1 : file, lineno, fn ? " " : "",
             fn ? fn : "");
    return true;
}

bool enc_callsite_module(const void *site, char *mod, size_t cap, uint64_t *off,
                         const char **sym)
{
    Dl_info info;
    const char *base;

    *off = (uint64_t)(uintptr_t)site;
    snprintf(mod, cap, "?");
    if (sym != NULL)
        *sym = NULL;
    if (site == NULL || dladdr(site, &info) == 0 || info.dli_fname == NULL)
        return false;
    base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    snprintf(mod, cap, "%s", *base ? base : "main");
    *off = (uint64_t)((uintptr_t)site - (uintptr_t)info.dli_fbase);
    if (sym != NULL)
        *sym = info.dli_sname;
    return true;
}

static void module_offset(const void *site, char *out, size_t cap)
{
    char mod[64];
    const char *sym;
    uint64_t off;

    if (!enc_callsite_module(site, mod, sizeof(mod), &off, &sym))
        snprintf(out, cap, "%p", site);
    else if (sym != NULL)
        snprintf(out, cap, "%s+0x%llx %s", mod, (unsigned long long)off, sym);
    else
        snprintf(out, cap, "%s+0x%llx", mod, (unsigned long long)off);
}

/* A loop calls the same sites again and again: remember their names. */
#define NAME_CACHE 64

static struct {
    const void *site;
    char name[160];
} names[NAME_CACHE];

void enc_callsite_format(const void *site, char *out, size_t cap)
{
    size_t h = ((uintptr_t)site >> 2) % NAME_CACHE;

    pthread_mutex_lock(&dwfl_lock);
    if (names[h].site != site || site == NULL) {
        if (site == NULL || !dwarf_line((uintptr_t)site, names[h].name, sizeof(names[h].name)))
            module_offset(site, names[h].name, sizeof(names[h].name));
        names[h].site = site;
    }
    snprintf(out, cap, "%s", names[h].name);
    pthread_mutex_unlock(&dwfl_lock);
}
