/*
 * error.c - how errors surface to the application.
 *
 * Every error is logged once, here, then the world's error handler as the
 * real MPI knows it (the application sets it with MPI_Comm_set_errhandler,
 * which passes through) decides: MPI_ERRORS_ARE_FATAL (the default) ends
 * the whole job through the engine, so encore-run reports the reason;
 * MPI_ERRORS_RETURN hands the class back; a user handler is invoked on the
 * world and the class returned.
 */
#include "enc.h"

#include <stdarg.h>
#include <stdio.h>

#include <mpi.h>

#include "engine/engine.h"
#include "mpi/mpi_layer.h"

/*
 * encore status            MPI error class                 why
 * ENC_ERR_INVAL            MPI_ERR_ARG
 * ENC_ERR_NOMEM            MPI_ERR_NO_MEM
 * ENC_ERR_UNSUPPORTED      MPI_ERR_UNSUPPORTED_OPERATION
 * ENC_ERR_MISMATCH         MPI_ERR_TRUNCATE                ranks disagree on sizes
 * ENC_ERR_DIVERGED         MPI_ERR_OTHER                   replay divergence
 * ENC_ERR_TIMEOUT, LOST,   MPI_ERR_OTHER                   job-level failures; Open
 *   ABORTED, STATE, peer                                   MPI 4.1 has no standard
 *   failures (-1xx)                                        MPI_ERR_PROC_FAILED
 * ENC_ERR_PROTO, AUTH, SYS MPI_ERR_INTERN                  encore itself failed
 * anything else            MPI_ERR_UNKNOWN
 * MPI-layer checks raise their own classes: MPI_ERR_OP (no kernel for op x
 * type), MPI_ERR_TYPE (reductions on non-contiguous derived types),
 * MPI_ERR_ROOT, MPI_ERR_COUNT, MPI_ERR_BUFFER, MPI_ERR_TRUNCATE (allgather
 * block sizes), MPI_ERR_UNSUPPORTED_OPERATION (refusals).
 */
int enc_mpi_class_of(enc_status_t status)
{
    if (ENC_IS_PEER_FAILURE(status))
        return MPI_ERR_OTHER;
    switch (status) {
    case ENC_OK: return MPI_SUCCESS;
    case ENC_ERR_INVAL: return MPI_ERR_ARG;
    case ENC_ERR_NOMEM: return MPI_ERR_NO_MEM;
    case ENC_ERR_UNSUPPORTED: return MPI_ERR_UNSUPPORTED_OPERATION;
    case ENC_ERR_MISMATCH: return MPI_ERR_TRUNCATE;
    case ENC_ERR_DIVERGED:
    case ENC_ERR_TIMEOUT:
    case ENC_ERR_LOST:
    case ENC_ERR_ABORTED:
    case ENC_ERR_STATE: return MPI_ERR_OTHER;
    case ENC_ERR_PROTO:
    case ENC_ERR_AUTH:
    case ENC_ERR_SYS: return MPI_ERR_INTERN;
    default: return MPI_ERR_UNKNOWN;
    }
}

static ENC_HOT_TLS MPI_Comm errcomm = MPI_COMM_WORLD;

MPI_Comm enc_mpi_errcomm_enter(MPI_Comm c)
{
    MPI_Comm saved = errcomm;

    errcomm = c;
    return saved;
}

void enc_mpi_errcomm_leave(MPI_Comm saved)
{
    errcomm = saved;
}

/* The world's handler is the real singleton world's (same handle value); a
 * derived communicator's is its shell's. */
static int apply_errhandler(int mpi_class, const char *msg)
{
    MPI_Comm c = enc_mpi_comm_get(errcomm) ? errcomm : MPI_COMM_WORLD;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int fatal, ret;

    /* Before MPI_Init / after MPI_Finalize there is no handler to consult
     * (and no job to end): the class is all the caller can get. */
    if (!enc_mpi_world_ready())
        return mpi_class;
    if (enc_real_Comm_get_errhandler(c, &eh) != MPI_SUCCESS)
        eh = MPI_ERRORS_ARE_FATAL;
    fatal = (eh == MPI_ERRORS_ARE_FATAL);
    ret = (eh == MPI_ERRORS_RETURN);
    if (eh != MPI_ERRHANDLER_NULL)
        PMPI_Errhandler_free(&eh);
    if (fatal)
        enc_engine_abort(1, msg);
    if (!ret)
        enc_real_Comm_call_errhandler(c, mpi_class);
    return mpi_class;
}

int enc_mpi_raise(int mpi_class, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ENC_ERROR("mpi", "%s", msg);
    return apply_errhandler(mpi_class, msg);
}

int enc_mpi_refuse(const char *fn, enum enc_mpi_why why)
{
    return enc_mpi_raise(MPI_ERR_UNSUPPORTED_OPERATION,
                         "%s on %s is not supported in encore mode (%s; "
                         "docs/mpi-functions.md lists what encore serves on the world and "
                         "communicators derived from it, and why the rest is refused)",
                         fn, errcomm == MPI_COMM_WORLD ? "MPI_COMM_WORLD"
                                                       : "a communicator derived from it",
                         enc_mpi_why_text[why]);
}

int enc_mpi_refuse_inter(const char *fn)
{
    return enc_mpi_raise(MPI_ERR_COMM, "%s on an intercommunicator is not supported in encore "
                         "mode (encore serves an intercommunicator's collectives, point-to-point, "
                         "dup, free, split, merge and queries)", fn);
}

int enc_mpi_engine_error(const char *fn, enc_status_t status)
{
    char msg[256];

    /* The engine logged the cause where it found it; only the handler is
     * applied here, with a reason for encore-run's final line. */
    snprintf(msg, sizeof(msg), "%s on %s failed: %s", fn,
             errcomm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "a communicator derived from it",
             encore_strerror(status));
    return apply_errhandler(enc_mpi_class_of(status), msg);
}
