/*
 * lifecycle.c - MPI_Init, MPI_Finalize and MPI_Abort in encore mode.
 *
 * The real Open MPI runs as an isolated singleton (no daemon, a world of
 * one) so that datatypes, MPI_COMM_SELF, MPI_Wtime and the rest keep
 * working natively; the encore world is the engine's.
 */
#include "enc.h"

#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "core/limits.h"
#include "core/tmpdir.h"
#include "engine/engine.h"
#include "mpi/coll/icoll.h"
#include "mpi/mpi_layer.h"
#include "p2p/p2p.h"
#include "recovery/recovery.h"

/* The real MPI runs with MPI_THREAD_MULTIPLE whatever the application
 * asked: the progress threads of nonblocking collectives (icoll.c) call it
 * too.  The application gets what it asked for, up to
 * ENCORE_THREAD_LEVEL and the real MPI's level: under MPI_THREAD_MULTIPLE
 * its threads take turns in the engine (icoll.c, turn_queue.c). */
static const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                             MPI_THREAD_MULTIPLE};
static const char *const level_names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                          "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};

static int thread_level = MPI_THREAD_SINGLE;
/* A restored rank's MPI_Finalize skipped the real one (see below). */
static bool finalized_without_real;

static void prepare_singleton(void)
{
    enc_recovery_before_mpi_init();
    setenv("OMPI_MCA_ess_singleton_isolated", "1", 1);
    enc_rank_tmpdir_prepare(); /* Open MPI's session files in a private directory */
}

/* Before anything starts: every ENCORE_* variable well-formed (one line
 * naming the first bad one, as encore-run prints it) and enough open
 * files for a link to every peer. */
static void preflight(const char *fn)
{
    char msg[512];

    if (enc_tunables_check(ENC_TCLASS_ALL, msg, sizeof(msg)) != ENC_OK ||
        enc_limits_nofile(enc_tunable_uint(ENC_TUNE_SIZE) + 64, msg, sizeof(msg)) != ENC_OK) {
        fprintf(stderr, "encore: %s: %s\n", fn, msg);
        exit(1);
    }
    if (enc_tunable_uint(ENC_TUNE_RANK) == 0 && enc_tunable_uint(ENC_TUNE_INCARNATION) == 0)
        enc_tunables_warn_unknown("encore", stderr);
}

/* The process cannot be part of the job without the engine: one line, exit. */
static void join(const char *fn)
{
    enc_status_t rv;

    /* recovery registers as the layer above the engine before it joins */
    enc_recovery_set_fork_guard(&enc_mpi_icoll_fork_guard);
    enc_mpi_icoll_init();
    enc_p2p_listen();
    if ((rv = enc_recovery_register()) != ENC_OK || (rv = enc_engine_init()) != ENC_OK) {
        fprintf(stderr, "encore: %s: cannot join the encore job (tracker %s): %s\n", fn,
                enc_tunable_str(ENC_TUNE_TRACKER), encore_strerror(rv));
        enc_rank_tmpdir_remove();
        exit(1);
    }
    enc_mpi_world_set_ready(1);
}

int enc_mpi_Init(const void *site, int *argc, char ***argv)
{
    int rv;

    int real;

    preflight("MPI_Init");
    prepare_singleton();
    if ((rv = enc_real_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &real)) != MPI_SUCCESS)
        return rv;
    join("MPI_Init");
    return MPI_SUCCESS;
}

static const char *level_name(int level)
{
    for (size_t i = 0; i < ENC_ARRAY_SIZE(levels); i++)
        if (levels[i] == level)
            return level_names[i];
    return "no thread level";
}

/* The level the application gets; one line at start (rank 0, first run)
 * when that is less than it asked for, or it asked for no level at all. */
static int grant_level(int required, int real)
{
    int allowed = levels[enc_tunable_enum(ENC_TUNE_THREAD_LEVEL)];
    int served = ENC_MIN(allowed, real);
    int level = ENC_MIN(ENC_MAX(required, MPI_THREAD_SINGLE), served);
    bool known = required >= MPI_THREAD_SINGLE && required <= MPI_THREAD_MULTIPLE;

    if ((!known || required > served) && enc_tunable_uint(ENC_TUNE_RANK) == 0 &&
        enc_tunable_uint(ENC_TUNE_INCARNATION) == 0)
        fprintf(stderr, "encore: MPI_Init_thread: the program asks for %s (%d); it gets %s, "
                "the most %s\n", level_name(required), required, level_name(level),
                served < allowed ? "the real MPI provides" : "ENCORE_THREAD_LEVEL allows");
    return level;
}

int enc_mpi_Init_thread(const void *site, int *argc, char ***argv, int required, int *provided)
{
    int real = MPI_THREAD_SINGLE;
    int rv;

    preflight("MPI_Init_thread");
    prepare_singleton();
    if ((rv = enc_real_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &real)) != MPI_SUCCESS)
        return rv;
    thread_level = grant_level(required, real);
    enc_p2p_set_thread_multiple(thread_level == MPI_THREAD_MULTIPLE);
    if (provided != NULL)
        *provided = thread_level;
    join("MPI_Init_thread");
    return MPI_SUCCESS;
}

int enc_mpi_Query_thread(const void *site, int *provided)
{
    if (!enc_mpi_world_ready())
        return enc_real_Query_thread(provided);
    *provided = thread_level;
    return MPI_SUCCESS;
}

int enc_mpi_Initialized(const void *site, int *flag)
{
    return enc_real_Initialized(flag);
}

int enc_mpi_Finalized(const void *site, int *flag)
{
    /* Not finalized until the real MPI is, whatever the engine did. */
    if (finalized_without_real && flag != NULL) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    return enc_real_Finalized(flag);
}

int enc_mpi_Finalize(const void *site)
{
    enc_status_t rv = ENC_OK;
    int real;

    if (enc_mpi_world_ready()) {
        enc_mpi_icoll_fini(); /* every one has run: MPI_Finalize is serial */
        (void)enc_p2p_flush(); /* every message written before the final barrier */
        rv = enc_engine_finalize();
        enc_p2p_finalize();
        enc_mpi_world_set_ready(0);
    }
    /* Finish the real MPI in any case, so the process exits cleanly; not in
     * a rank restored from a snapshot, where its progress thread is gone. */
    finalized_without_real = enc_recovery_restored();
    real = finalized_without_real ? MPI_SUCCESS : enc_real_Finalize();
    enc_rank_tmpdir_remove();
    if (real != MPI_SUCCESS && rv == ENC_OK)
        return MPI_ERR_OTHER;
    return rv == ENC_OK ? MPI_SUCCESS : enc_mpi_class_of(rv);
}

/*
 * Every abort ends the whole encore job, whatever the communicator: the
 * standard allows it, and a rank that vanished alone would only be
 * restarted by retry-one.
 */
int enc_mpi_Abort(const void *site, MPI_Comm comm, int errorcode)
{
    char reason[128];

    if (!enc_mpi_world_ready())
        return enc_real_Abort(comm, errorcode);
    snprintf(reason, sizeof(reason), "MPI_Abort(%s, %d) called",
             comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD"
             : comm == MPI_COMM_SELF ? "MPI_COMM_SELF" : "comm", errorcode);
    enc_engine_abort(errorcode, reason);
}
