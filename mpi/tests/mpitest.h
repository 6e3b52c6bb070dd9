/* mpitest.h -- the checks of libzarr_mpi's tests (mpi/tests), run under mpirun (C99,
 * header-only; the MPI counterpart of ctests/ztest.h).
 *
 * A failed check prints "rank R/P: file:line: " and the failure (for a status: the
 * status, its text and zarr_last_error_message()), then ends the whole job with
 * MPI_Abort, so that a failure on one rank never leaves the others waiting in a
 * collective call (ctest also wraps every mpirun in `timeout`).
 *
 * MT_COLLECTIVE(call, expected) checks a collective libzarr call the way the API promises
 * it: every rank returns the same status, and that status is `expected`. */
#ifndef ZARR_MPITEST_H
#define ZARR_MPITEST_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* getpid, mkdir */
#endif

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "zarr.h"

static int mt_rank = -1, mt_size = 0;

/* Call after MPI_Init: the rank and size that messages carry. */
static inline void mt_init(void) {
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
}

static inline void mt_fail(const char *file, int line, const char *format, ...) {
    va_list args;
    fprintf(stderr, "rank %d/%d: %s:%d: ", mt_rank, mt_size, file, line);
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fprintf(stderr, "\n");
    fflush(stderr);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1); /* not reached */
}

#define MT_CHECK(c)                                                                        \
    do {                                                                                   \
        if (!(c)) mt_fail(__FILE__, __LINE__, "check failed: %s", #c);                     \
    } while (0)

#define MT_STATUS(call, exp)                                                               \
    do {                                                                                   \
        zarr_status s_ = (call);                                                           \
        if (s_ != (exp))                                                                   \
            mt_fail(__FILE__, __LINE__, "%s returned %d (%s), expected %d (%s); last error: %s", \
                    #call, (int)s_, zarr_status_str(s_), (int)(exp), zarr_status_str(exp),  \
                    zarr_last_error_message());                                            \
        if (s_ != ZARR_OK && zarr_last_error_message()[0] == '\0')                         \
            mt_fail(__FILE__, __LINE__, "%s failed without an error message", #call);      \
    } while (0)

#define MT_OK(call) MT_STATUS(call, ZARR_OK)

/* `status`, returned by a collective call on this rank, is the same on every rank of
 * MPI_COMM_WORLD and equals `expected`. */
static inline void mt_collective(const char *file, int line, const char *call, zarr_status status,
                          zarr_status expected) {
    int32_t mine = status, *all = (int32_t *)malloc((size_t)mt_size * sizeof *all);
    char message[4096];
    int r;
    /* The message before any MPI call (none of MPI's calls touch it, but be safe). */
    snprintf(message, sizeof message, "%s", zarr_last_error_message());
    if (all == NULL) mt_fail(file, line, "out of memory");
    MPI_Allgather(&mine, 1, MPI_INT32_T, all, 1, MPI_INT32_T, MPI_COMM_WORLD);
    for (r = 0; r < mt_size; r++) {
        if (all[r] != all[0]) {
            mt_fail(file, line,
                    "%s: the ranks disagree: rank 0 returned %d (%s), rank %d returned %d "
                    "(%s); this rank (%d): %s",
                    call, (int)all[0], zarr_status_str(all[0]), r, (int)all[r],
                    zarr_status_str(all[r]), (int)status, message);
        }
    }
    free(all);
    if (status != expected)
        mt_fail(file, line, "%s returned %d (%s) on every rank, expected %d (%s); last error: %s",
                call, (int)status, zarr_status_str(status), (int)expected,
                zarr_status_str(expected), message);
    if (status != ZARR_OK && message[0] == '\0')
        mt_fail(file, line, "%s failed without an error message", call);
}

#define MT_COLLECTIVE(call, exp) mt_collective(__FILE__, __LINE__, #call, (call), (exp))
#define MT_COLLECTIVE_OK(call) MT_COLLECTIVE(call, ZARR_OK)

#define MT_STR_CONTAINS(h, n)                                                              \
    do {                                                                                   \
        const char *h_ = (h);                                                              \
        if (!h_ || !strstr(h_, (n)))                                                       \
            mt_fail(__FILE__, __LINE__, "'%s' does not contain '%s'", h_ ? h_ : "(null)", (n)); \
    } while (0)

/* The environment's MPI runs every rank of these tests on one machine: rank 0 may prepare
 * files that the others then use after a barrier. */

/* "s3" options for zarr_store_open_url against moto on the loopback interface, whose
 * endpoint is $ZARR_TEST_MOTO (tests/servers; ctest passes it), optionally read-only.
 * Aborts when the variable is not set. */
static inline const char *mt_s3_options(int read_only) {
    static char options[2][1024];
    const char *endpoint = getenv("ZARR_TEST_MOTO");
    if (endpoint == NULL || endpoint[0] == '\0')
        mt_fail(__FILE__, __LINE__, "ZARR_TEST_MOTO is not set (run through ctest: the "
                                    "fixture url_servers starts moto)");
    snprintf(options[read_only != 0], sizeof options[0],
             "{\"endpoint\": \"%s\", \"access_key_id\": \"test\", \"secret_access_key\": "
             "\"test\", \"region\": \"us-east-1\"%s}",
             endpoint, read_only ? ", \"read_only\": true" : "");
    return options[read_only != 0];
}

/* A prefix of the moto bucket no other run used (moto keeps its objects for the whole
 * ctest run), the same on every rank (made by rank 0, broadcast):
 * "<name>-<pid>-<seconds since 1970>". */
static inline void mt_unique_prefix(const char *name, char *prefix, size_t size) {
    char text[256] = {0};
    if (mt_rank == 0)
        snprintf(text, sizeof text, "%s-%ld-%ld", name, (long)getpid(), (long)time(NULL));
    MPI_Bcast(text, (int)sizeof text, MPI_CHAR, 0, MPI_COMM_WORLD);
    snprintf(prefix, size, "%s", text);
}

#endif
