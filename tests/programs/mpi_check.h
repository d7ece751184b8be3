/*
 * mpi_check.h - test programs that stop at the first failed MPI call:
 * check() prints "PROGRAM: rank R: WHAT failed: MPI's error string" and
 * aborts the job, so a test sees one clear line and a nonzero exit, never
 * a run that goes on with a wrong value.  Included by one program each
 * (the functions are static); the program sets rank after MPI_Init.
 */
#ifndef ENC_TESTS_MPI_CHECK_H
#define ENC_TESTS_MPI_CHECK_H

#include <mpi.h>

#include <errno.h>
#include <stdio.h>

static int rank; /* this process's world rank, for the message */

static void check(int rv, const char *what)
{
    if (rv != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;

        MPI_Error_string(rv, msg, &len);
        fprintf(stderr, "%s: rank %d: %s failed: %s\n", program_invocation_short_name, rank,
                what, msg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

#endif
