/*
 * binding.c - the binding encore-run gives a rank when --bind-to is not
 * given (auto): mpirun's default, so that encore and native Open MPI run
 * a job alike.  A host with more ranks than slots binds nothing (its ranks
 * must be free to move); otherwise one or two ranks in the job bind to a
 * core each, more to a package.  Unbound ranks of a loaded host land on
 * one core together and a collective that needs both waits on the
 * scheduler (bench/README.md, the IMB attribution).
 */
#include "enc.h"

#include <string.h>

#include "launcher/launcher.h"

const char *enc_run_bind_policy(const struct enc_run_opts *o, int ranks_here, int slots_here)
{
    if (o->bind_to != NULL && strcmp(o->bind_to, "auto") != 0)
        return strcmp(o->bind_to, "none") == 0 ? NULL : o->bind_to;
    if (ranks_here > slots_here)
        return NULL;
    return o->np <= 2 ? "core" : "package";
}
