/*
 * threads.c - the threads of this process and the code that started each
 * (threads.h).
 *
 * glibc (2.34 on) keeps every thread descriptor on two lists in ld.so's
 * _rtld_global: _dl_stack_used (stacks it allocated) and _dl_stack_user
 * (the main thread, stacks the program gave).  Each _thread_db_X symbol is
 * {size in bits, count, offset} of field X, the layout libthread_db reads.
 * The lists change while other threads start and end, so every read goes
 * through process_vm_readv on this process: a descriptor unmapped meanwhile
 * fails the read (the walk stops; the thread's origin is then unknown)
 * instead of faulting.
 */
#include "enc.h"
#include "core/threads.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/uio.h>
#include <unistd.h>

#define WALK_MAX 4096 /* descriptors per list, a bound on a list read mid-change */

struct field {
    uint32_t bits, count, offset;
};

static struct {
    int state;                 /* 0 not looked up, 1 usable, -1 not glibc's layout */
    uintptr_t lists[2];        /* _dl_stack_used, _dl_stack_user */
    uint32_t link, next;       /* struct pthread's list member; list_t's next */
    uint32_t tid, start;       /* struct pthread's tid and start_routine */
} db;

int enc_threads_list(int *tids, int cap)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;

    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && n < cap)
            tids[n++] = atoi(e->d_name);
    closedir(d);
    return n;
}

static bool peek(uintptr_t addr, void *buf, size_t len)
{
    struct iovec local = {buf, len}, remote = {(void *)addr, len};

    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len;
}

static const struct field *field(const char *name, uint32_t bits)
{
    const struct field *f = dlsym(RTLD_DEFAULT, name);

    return f != NULL && f->bits == bits && f->count == 1 ? f : NULL;
}

static void lookup(void)
{
    const struct field *tid = field("_thread_db_pthread_tid", 32);
    const struct field *start = field("_thread_db_pthread_start_routine", 8 * sizeof(void *));
    const struct field *link = field("_thread_db_pthread_list", 16 * sizeof(void *));
    const struct field *next = field("_thread_db_list_t_next", 8 * sizeof(void *));
    const struct field *used = field("_thread_db_rtld_global__dl_stack_used",
                                     16 * sizeof(void *));
    const struct field *user = field("_thread_db_rtld_global__dl_stack_user",
                                     16 * sizeof(void *));
    uintptr_t rtld = (uintptr_t)dlsym(RTLD_DEFAULT, "_rtld_global");

    if (!tid || !start || !link || !next || !used || !user || !rtld) {
        __atomic_store_n(&db.state, -1, __ATOMIC_RELEASE);
        return;
    }
    db.lists[0] = rtld + used->offset;
    db.lists[1] = rtld + user->offset;
    db.link = link->offset;
    db.next = next->offset;
    db.tid = tid->offset;
    db.start = start->offset;
    __atomic_store_n(&db.state, 1, __ATOMIC_RELEASE);
}

/* The start routine of tid on the list at head: true when found. */
static bool find_on(uintptr_t head, int tid, void **start)
{
    uintptr_t p;

    if (!peek(head + db.next, &p, sizeof(p)))
        return false;
    for (int i = 0; i < WALK_MAX && p != head && p != 0; i++) {
        uintptr_t pd = p - db.link;
        int32_t t;

        if (!peek(pd + db.tid, &t, sizeof(t)))
            return false;
        if (t == tid)
            return peek(pd + db.start, start, sizeof(*start));
        if (!peek(p + db.next, &p, sizeof(p)))
            return false;
    }
    return false;
}

static void read_comm(int tid, char *comm, size_t cap)
{
    char path[64];
    FILE *f;

    comm[0] = '\0';
    snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
    if ((f = fopen(path, "re")) == NULL)
        return;
    if (fgets(comm, (int)cap, f) != NULL)
        comm[strcspn(comm, "\n")] = '\0';
    fclose(f);
}

enc_status_t enc_thread_origin(int tid, struct enc_thread_origin *o)
{
    Dl_info info;
    bool found = false;

    *o = (struct enc_thread_origin){.tid = tid};
    read_comm(tid, o->comm, sizeof(o->comm));
    if (__atomic_load_n(&db.state, __ATOMIC_ACQUIRE) == 0)
        lookup(); /* the same answer from any thread: a race only repeats it */
    for (int i = 0; __atomic_load_n(&db.state, __ATOMIC_ACQUIRE) > 0 && i < 2 && !found; i++)
        found = find_on(db.lists[i], tid, &o->start);
    if (!found)
        return ENC_ERR_NOT_FOUND;
    if (o->start != NULL && dladdr(o->start, &info) != 0 && info.dli_fname != NULL) {
        o->base = info.dli_fbase;
        snprintf(o->module, sizeof(o->module), "%s", info.dli_fname);
    }
    return ENC_OK;
}

void *enc_thread_module_symbol(const struct enc_thread_origin *o, const char *sym)
{
    void *h, *p = NULL;
    Dl_info info;

    if (o->base == NULL)
        return NULL;
    /* the executable is not found by its path: the global scope starts with it */
    if ((h = dlopen(o->module, RTLD_LAZY | RTLD_NOLOAD)) == NULL &&
        (h = dlopen(NULL, RTLD_LAZY)) == NULL)
        return NULL;
    p = dlsym(h, sym);
    if (p != NULL && (dladdr(p, &info) == 0 || info.dli_fbase != o->base))
        p = NULL; /* found in a library the module depends on */
    dlclose(h);
    return p;
}

bool enc_thread_in_program(const struct enc_thread_origin *o)
{
    Dl_info info;

    /* the program headers lie in the executable's first mapping */
    return o->base != NULL && dladdr((void *)getauxval(AT_PHDR), &info) != 0 &&
           info.dli_fbase == o->base;
}

const char *enc_thread_module_name(const struct enc_thread_origin *o)
{
    const char *slash = strrchr(o->module, '/');

    if (o->module[0] == '\0')
        return "code of no loaded library";
    return slash != NULL ? slash + 1 : o->module;
}
