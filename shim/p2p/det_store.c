/* det_store.c - a rank's determinants in its host's job directory (det_store.h). */
#include "enc.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/vec.h"
#include "p2p/det_store.h"

static struct {
    int fd;
    uint64_t clock;          /* calls made so far */
    struct enc_det *old;     /* earlier incarnations' records, by clock - 1 */
    size_t nold, capold;
} ds = {.fd = -1};

static void path_of(int rank, char *out, size_t cap)
{
    const char *dir = getenv("ENCORE_RANK_TMPDIR");
    char buf[4096];

    snprintf(buf, sizeof(buf), "%s", dir != NULL ? dir : "/tmp/encore-rank");
    snprintf(out, cap, "%s/p2p-determinants.%d", dirname(buf), rank);
}

/* Reads the records already there into ds.old, indexed by clock. */
static void load(void)
{
    uint8_t rec[ENC_DET_WIRE];
    struct enc_det d;

    while (read(ds.fd, rec, sizeof(rec)) == (ssize_t)sizeof(rec)) {
        if (enc_det_decode(&d, rec, sizeof(rec)) != ENC_OK || d.clock == 0 ||
            d.clock > (1u << 30))
            break;
        if (d.clock > ds.nold) {
            if (ENC_VEC_RESERVE(ds.old, ds.capold, d.clock) != ENC_OK)
                break;
            memset(ds.old + ds.nold, 0, (d.clock - ds.nold) * sizeof(*ds.old));
            ds.nold = d.clock;
        }
        ds.old[d.clock - 1] = d;
    }
}

enc_status_t enc_det_store_open(int rank, uint32_t incarnation)
{
    char path[4200];
    int flags = O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | (incarnation == 0 ? O_TRUNC : 0);

    path_of(rank, path, sizeof(path));
    if (ds.fd >= 0)
        close(ds.fd); /* a restored snapshot image: its clock stays, records are read again */
    if ((ds.fd = open(path, flags, 0600)) < 0) {
        ENC_WARN("p2p", "cannot open %s (%m): MPI_ANY_SOURCE outcomes are not recorded, a "
                 "restart of this rank replays them live", path);
        return ENC_ERR_SYS;
    }
    if (incarnation > 0)
        load();
    return ENC_OK;
}

uint64_t enc_det_store_tick(void) { return ++ds.clock; }
uint64_t enc_det_store_clock(void) { return ds.clock; }

bool enc_det_store_find(uint64_t clock, struct enc_det *d)
{
    if (clock == 0 || clock > ds.nold || ds.old[clock - 1].kind == 0)
        return false;
    *d = ds.old[clock - 1];
    return true;
}

void enc_det_store_record(const struct enc_det *d)
{
    uint8_t rec[ENC_DET_WIRE];
    struct enc_det old;

    if (ds.fd < 0 || enc_det_store_find(d->clock, &old))
        return;
    enc_det_encode(d, rec);
    if (write(ds.fd, rec, sizeof(rec)) != (ssize_t)sizeof(rec))
        ENC_WARN("p2p", "cannot record an MPI_ANY_SOURCE outcome: %m");
}
