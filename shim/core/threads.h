/*
 * threads.h - the threads of this process and the code that started each.
 *
 * A thread's start routine is read as a debugger reads it: glibc describes
 * its thread descriptor (struct pthread) and the lists that hold every
 * descriptor for libthread_db, through exported _thread_db_* fields.  The
 * module (executable or shared library) the routine lies in tells whose
 * thread it is: OpenBLAS's pool, an OpenMP runtime's, Python's threading,
 * the program's own.  Without those fields (another C library) or for a
 * thread glibc did not start, the origin is unknown.
 */
#ifndef ENC_CORE_THREADS_H
#define ENC_CORE_THREADS_H

#include <stdbool.h>

#include "core/status.h"

/* Thread ids of this process (/proc/self/task): their number, at most cap;
 * -1 when the list cannot be read. */
int enc_threads_list(int *tids, int cap);

struct enc_thread_origin {
    int tid;
    char comm[16];        /* /proc/self/task/TID/comm ("" when gone) */
    void *start;          /* its start routine; NULL for the main thread */
    void *base;           /* load address of the module the routine lies in */
    char module[256];     /* that module's path as loaded; "" unknown */
};

/* The origin of thread tid.  ENC_ERR_NOT_FOUND: glibc does not describe
 * it (o->comm is still filled); o->module is "" when no module holds the
 * routine. */
enc_status_t enc_thread_origin(int tid, struct enc_thread_origin *o);
/* The address of sym when the module of o defines it itself (not through
 * a library it depends on), else NULL. */
void *enc_thread_module_symbol(const struct enc_thread_origin *o, const char *sym);
/* The routine of o lies in the program's executable. */
bool enc_thread_in_program(const struct enc_thread_origin *o);
/* The last component of o's module path (a phrase when unknown). */
const char *enc_thread_module_name(const struct enc_thread_origin *o);

#endif
