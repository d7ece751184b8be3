/*
 * cma.c - reading a peer rank's memory directly (cross-memory attach,
 * process_vm_readv): one copy from the peer's buffer instead of two
 * through the segment.
 *
 * Whether it is used is the job's decision, the same on every rank of a
 * host (same kernel, same environment): ENCORE_SHM_CMA, a kernel that has
 * the call, and a ptrace policy that lets ranks of one user read each
 * other (Yama's scope 0 or 1; each rank names any process its ptracer, so
 * scope 1 does not need a parent-child relation).  A read that still fails
 * is reported with the way to turn it off, never hidden.
 *
 * Off by default for collectives: on the paravirtualised machines
 * measured, pinning the peer's pages for each read costs more than the
 * staging copy it saves (bench/README.md has the figures).  Large
 * point-to-point messages use it by default (shim/p2p/conn.c): there it
 * replaces a copy through a ring of bounded size and its flow control.
 */
#include "enc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/tunables.h"
#include "shm/shm.h"

#define YAMA_SCOPE "/proc/sys/kernel/yama/ptrace_scope"

static bool yama_allows(void)
{
    FILE *f = fopen(YAMA_SCOPE, "r");
    int scope = 0;

    if (f == NULL)
        return true; /* no Yama: same-user ptrace access is the rule */
    if (fscanf(f, "%d", &scope) != 1)
        scope = 3;
    fclose(f);
    return scope <= 1;
}

bool enc_shm_cma_setup(void) { return enc_tunable_bool(ENC_TUNE_SHM_CMA) && enc_shm_cma_usable(); }

bool enc_shm_cma_usable(void)
{
    uint64_t probe = 1, copy = 0;
    struct iovec l = {&copy, sizeof(copy)}, r = {&probe, sizeof(probe)};

    if (!yama_allows())
        return false;
    if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != (ssize_t)sizeof(copy) || copy != 1)
        return false; /* ENOSYS: a kernel without CONFIG_CROSS_MEMORY_ATTACH */
#ifdef PR_SET_PTRACER
    (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); /* EINVAL without Yama */
#endif
    return true;
}

enc_status_t enc_shm_cma_read_pair(pid_t pid, uint64_t remote_first, void *first,
                                   size_t first_len, uint64_t remote_then, void *then,
                                   size_t then_len)
{
    struct iovec l[2] = {{first, first_len}, {then, then_len}};
    struct iovec r[2] = {{(void *)(uintptr_t)remote_first, first_len},
                         {(void *)(uintptr_t)remote_then, then_len}};
    ssize_t got = process_vm_readv(pid, l, 2, r, 2, 0);
    size_t done = got > 0 ? (size_t)got : 0;
    enc_status_t rv;

    if (done == first_len + then_len)
        return ENC_OK;
    if (got < 0 && errno == ESRCH)
        return ENC_ERR_PEER_RESET;
    /* cut short (a signal, a page it could not read yet): the rest one
     * place at a time, which says why if it fails */
    if (done < first_len) {
        rv = enc_shm_cma_read(pid, remote_first + done, (uint8_t *)first + done,
                              first_len - done);
        if (rv != ENC_OK)
            return rv;
        done = first_len;
    }
    done -= first_len;
    return then_len > done ? enc_shm_cma_read(pid, remote_then + done, (uint8_t *)then + done,
                                              then_len - done)
                           : ENC_OK;
}

enc_status_t enc_shm_cma_read(pid_t pid, uint64_t remote, void *local, size_t bytes)
{
    return enc_shm_cma_read2(pid, remote, local, bytes, NULL, 0);
}

enc_status_t enc_shm_cma_read2(pid_t pid, uint64_t remote, void *first, size_t first_len,
                               void *then, size_t then_len)
{
    struct iovec l[2] = {{first, first_len}, {then, then_len}};
    int at = 0;
    size_t bytes = first_len + then_len;

    while (bytes > 0) {
        struct iovec r = {(void *)(uintptr_t)remote, bytes};
        ssize_t got;

        while (l[at].iov_len == 0) /* bytes > 0: one of the two has some left */
            at++;
        got = process_vm_readv(pid, l + at, (unsigned long)(2 - at), &r, 1, 0);
        if (got > 0) {
            remote += (uint64_t)got;
            bytes -= (size_t)got;
            for (size_t k = (size_t)got; k > 0; at += l[at].iov_len == 0) {
                size_t take = ENC_MIN(k, l[at].iov_len);

                l[at].iov_base = (uint8_t *)l[at].iov_base + take;
                l[at].iov_len -= take;
                k -= take;
            }
            continue;
        }
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && errno == ESRCH)
            return ENC_ERR_PEER_RESET; /* it died after posting: a regroup follows */
        ENC_ERROR("shm", "cross-memory read of %zu bytes from pid %d failed: %s "
                  "(ENCORE_SHM_CMA=0 for collectives, ENCORE_P2P_CMA_MIN=0 for messages "
                  "stage data in the segment instead)",
                  bytes, (int)pid, got < 0 ? strerror(errno) : "no progress");
        return ENC_ERR_SYS;
    }
    return ENC_OK;
}
