/* zarr_mpi.c -- libzarr_mpi: a zarr_comm_ops table over an MPI communicator (C99, built
 * with the MPI compiler). See zarr_mpi.h for the contract.
 *
 * Each operation of the table is one blocking MPI collective on a private duplicate of the
 * caller's communicator, whose error handler is MPI_ERRORS_RETURN: an MPI failure becomes
 * ZARR_ERROR_COMMUNICATION with MPI_Error_string's text (zarr_comm_callback_set_error),
 * never an abort. Only the two zarr_comm_create_mpi* functions are exported; everything
 * else here is static. */

#include "zarr_mpi.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the table's user_data points to. `counts` is scratch room for the int counts and
 * displacements of the v-collectives (4 * size ints): the table's functions are called
 * one at a time per communicator (zarr_comm_ops's contract), so one buffer serves all. */
typedef struct {
    MPI_Comm comm;
    int size;
    int *counts;
} zarr_mpi_state;

/* Open MPI defines MPI_IN_PLACE as (void *)1, which is also the address a Rust empty
 * slice has (a dangling, aligned, non-NULL pointer; zarr_comm_ops allows any pointer with
 * length 0). Handed to MPI, it would turn a send of nothing into an in-place collective
 * with entirely different semantics. Such a pointer is never real data: replace it, and
 * NULL, by the address of a real (unused) byte. */
static char zarr_mpi_nothing[1];

static const void *zarr_mpi_send_buffer(const void *buf) {
    return (buf == NULL || buf == MPI_IN_PLACE) ? (const void *)zarr_mpi_nothing : buf;
}

static void *zarr_mpi_recv_buffer(void *buf) {
    return (buf == NULL || buf == MPI_IN_PLACE) ? (void *)zarr_mpi_nothing : buf;
}

/* Explain a failure with zarr_comm_callback_set_error and return its status. */
static zarr_status zarr_mpi_explain(zarr_status status, const char *message) {
    zarr_comm_callback_set_error(message);
    return status;
}

/* An MPI function returned `code`: ZARR_ERROR_COMMUNICATION, explained with MPI's text. */
static zarr_status zarr_mpi_error(const char *function, int code) {
    char text[MPI_MAX_ERROR_STRING + 1];
    char message[MPI_MAX_ERROR_STRING + 128];
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS || length <= 0) {
        snprintf(text, sizeof text, "MPI error code %d", code);
    } else {
        text[length < MPI_MAX_ERROR_STRING ? length : MPI_MAX_ERROR_STRING] = '\0';
    }
    snprintf(message, sizeof message, "%s failed: %s", function, text);
    return zarr_mpi_explain(ZARR_ERROR_COMMUNICATION, message);
}

/* A count or displacement that MPI's int cannot hold. */
static zarr_status zarr_mpi_too_large(const char *operation, const char *what, size_t value) {
    char message[256];
    snprintf(message, sizeof message,
             "%s: %s of %zu bytes exceeds what an MPI count or displacement (int) holds "
             "(INT_MAX = %d)",
             operation, what, value, INT_MAX);
    return zarr_mpi_explain(ZARR_ERROR_COMMUNICATION, message);
}

/* Copy `n` size_t values to ints; 0 and the index of the first that does not fit
 * otherwise (1-based). */
static size_t zarr_mpi_to_int(const size_t *values, int *out, int n) {
    int i;
    for (i = 0; i < n; i++) {
        if (values[i] > (size_t)INT_MAX) return (size_t)i + 1;
        out[i] = (int)values[i];
    }
    return 0;
}

static zarr_status zarr_mpi_barrier(void *user_data) {
    zarr_mpi_state *state = (zarr_mpi_state *)user_data;
    int rc = MPI_Barrier(state->comm);
    return rc == MPI_SUCCESS ? ZARR_OK : zarr_mpi_error("MPI_Barrier", rc);
}

/* `len` and `root` are the same on every rank, so every rank takes the same branch. */
static zarr_status zarr_mpi_broadcast(void *user_data, void *buf, size_t len, size_t root) {
    zarr_mpi_state *state = (zarr_mpi_state *)user_data;
    int rc;
    if (len > (size_t)INT_MAX) return zarr_mpi_too_large("broadcast", "a message", len);
    if (root >= (size_t)state->size) {
        char message[160];
        snprintf(message, sizeof message,
                 "broadcast: root %zu is not a rank of the communicator (%d ranks)", root,
                 state->size);
        return zarr_mpi_explain(ZARR_ERROR_COMMUNICATION, message);
    }
    rc = MPI_Bcast(zarr_mpi_recv_buffer(buf), (int)len, MPI_BYTE, (int)root, state->comm);
    return rc == MPI_SUCCESS ? ZARR_OK : zarr_mpi_error("MPI_Bcast", rc);
}

/* `len` is the same on every rank. */
static zarr_status zarr_mpi_all_gather(void *user_data, const void *send, size_t len,
                                       void *recv) {
    zarr_mpi_state *state = (zarr_mpi_state *)user_data;
    int rc;
    if (len > (size_t)INT_MAX) return zarr_mpi_too_large("all_gather", "a message", len);
    rc = MPI_Allgather(zarr_mpi_send_buffer(send), (int)len, MPI_BYTE,
                       zarr_mpi_recv_buffer(recv), (int)len, MPI_BYTE, state->comm);
    return rc == MPI_SUCCESS ? ZARR_OK : zarr_mpi_error("MPI_Allgather", rc);
}

/* `recv_lens` and `recv_displs` are the same on every rank (and `send_len` is this rank's
 * `recv_lens` entry), so the checks fail on every rank or on none. */
static zarr_status zarr_mpi_all_gather_v(void *user_data, const void *send, size_t send_len,
                                         void *recv, const size_t *recv_lens,
                                         const size_t *recv_displs) {
    zarr_mpi_state *state = (zarr_mpi_state *)user_data;
    int *counts = state->counts, *displs = state->counts + state->size;
    size_t bad;
    int rc;
    if ((bad = zarr_mpi_to_int(recv_lens, counts, state->size)) != 0)
        return zarr_mpi_too_large("all_gather_v", "the message of a rank",
                                  recv_lens[bad - 1]);
    if ((bad = zarr_mpi_to_int(recv_displs, displs, state->size)) != 0)
        return zarr_mpi_too_large("all_gather_v", "a displacement", recv_displs[bad - 1]);
    if (send_len > (size_t)INT_MAX)
        return zarr_mpi_too_large("all_gather_v", "a message", send_len);
    rc = MPI_Allgatherv(zarr_mpi_send_buffer(send), (int)send_len, MPI_BYTE,
                        zarr_mpi_recv_buffer(recv), counts, displs, MPI_BYTE, state->comm);
    return rc == MPI_SUCCESS ? ZARR_OK : zarr_mpi_error("MPI_Allgatherv", rc);
}

/* The counts and displacements differ from rank to rank: the ranks first agree, with one
 * MPI_Allreduce, that all of them fit in an int, so that a rank whose values do not fit
 * does not leave the others waiting in MPI_Alltoallv. */
static zarr_status zarr_mpi_all_to_all_v(void *user_data, const void *send,
                                         const size_t *send_lens, const size_t *send_displs,
                                         void *recv, const size_t *recv_lens,
                                         const size_t *recv_displs) {
    zarr_mpi_state *state = (zarr_mpi_state *)user_data;
    int n = state->size;
    int *scounts = state->counts, *sdispls = scounts + n, *rcounts = sdispls + n,
        *rdispls = rcounts + n;
    const size_t *arrays[4] = {send_lens, send_displs, recv_lens, recv_displs};
    int *ints[4] = {scounts, sdispls, rcounts, rdispls};
    static const char *const names[4] = {"a message sent", "a send displacement",
                                         "a message received", "a receive displacement"};
    zarr_status local = ZARR_OK;
    int fits = 1, all_fit = 0, rc, k;
    for (k = 0; k < 4 && fits; k++) {
        size_t bad = zarr_mpi_to_int(arrays[k], ints[k], n);
        if (bad != 0) {
            fits = 0;
            local = zarr_mpi_too_large("all_to_all_v", names[k], arrays[k][bad - 1]);
        }
    }
    rc = MPI_Allreduce(&fits, &all_fit, 1, MPI_INT, MPI_MIN, state->comm);
    if (rc != MPI_SUCCESS) return zarr_mpi_error("MPI_Allreduce", rc);
    if (!fits) return local;
    if (!all_fit)
        return zarr_mpi_explain(ZARR_ERROR_COMMUNICATION,
                                "all_to_all_v: another rank's counts or displacements "
                                "exceed what MPI's int holds (INT_MAX)");
    rc = MPI_Alltoallv(zarr_mpi_send_buffer(send), scounts, sdispls, MPI_BYTE,
                       zarr_mpi_recv_buffer(recv), rcounts, rdispls, MPI_BYTE, state->comm);
    return rc == MPI_SUCCESS ? ZARR_OK : zarr_mpi_error("MPI_Alltoallv", rc);
}

/* `count` and `op` are the same on every rank. */
static zarr_status zarr_mpi_all_reduce_i64(void *user_data, int64_t *values, size_t count,
                                           zarr_reduce_op op) {
    zarr_mpi_state *state = (zarr_mpi_state *)user_data;
    MPI_Op mpi_op;
    int rc;
    switch (op) {
    case ZARR_REDUCE_MIN: mpi_op = MPI_MIN; break;
    case ZARR_REDUCE_MAX: mpi_op = MPI_MAX; break;
    case ZARR_REDUCE_SUM: mpi_op = MPI_SUM; break;
    default: {
        char message[96];
        snprintf(message, sizeof message, "all_reduce_i64: unknown reduction %d",
                 (int)op);
        return zarr_mpi_explain(ZARR_ERROR_COMMUNICATION, message);
    }
    }
    if (count > (size_t)INT_MAX) return zarr_mpi_too_large("all_reduce_i64", "a count", count);
    rc = MPI_Allreduce(MPI_IN_PLACE, zarr_mpi_recv_buffer(values), (int)count, MPI_INT64_T,
                       mpi_op, state->comm);
    return rc == MPI_SUCCESS ? ZARR_OK : zarr_mpi_error("MPI_Allreduce", rc);
}

/* zarr_comm_free: free the duplicate (unless MPI is gone already) and the state. */
static void zarr_mpi_free(void *user_data) {
    zarr_mpi_state *state = (zarr_mpi_state *)user_data;
    int finalized = 0;
    if (state == NULL) return;
    if (state->comm != MPI_COMM_NULL && MPI_Finalized(&finalized) == MPI_SUCCESS &&
        !finalized)
        MPI_Comm_free(&state->comm);
    free(state->counts);
    free(state);
}

/* Record "<function>: <text>" as the calling thread's error message (with no libzarr call
 * after it to carry it) and return `status`. */
static zarr_status zarr_mpi_fail(const char *function, zarr_status status, const char *text) {
    char message[MPI_MAX_ERROR_STRING + 256];
    snprintf(message, sizeof message, "%s: %s", function, text);
    zarr_comm_callback_set_error(message);
    /* The text stays the last error message; clear the pending explanation, which a
     * communicator's failing operation would otherwise pick up later. */
    zarr_comm_callback_set_error(NULL);
    return status;
}

/* MPI must be usable: initialised and not finalised. 0 when it is. */
static zarr_status zarr_mpi_check_initialized(const char *function) {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    if (!initialized)
        return zarr_mpi_fail(function, ZARR_ERROR_INVALID_ARGUMENT,
                             "MPI is not initialized (call MPI_Init or MPI_Init_thread "
                             "first)");
    MPI_Finalized(&finalized);
    if (finalized)
        return zarr_mpi_fail(function, ZARR_ERROR_INVALID_ARGUMENT,
                             "MPI is already finalized (create and free communicators "
                             "between MPI_Init and MPI_Finalize)");
    return ZARR_OK;
}

/* The common part of zarr_comm_create_mpi and zarr_comm_create_mpi_f, after the checks of
 * `out` and of MPI's state. */
static zarr_status zarr_mpi_create(const char *function, MPI_Comm comm, zarr_comm **out) {
    zarr_comm_ops ops;
    zarr_mpi_state *state = NULL;
    zarr_comm *handle = NULL;
    MPI_Comm dup = MPI_COMM_NULL;
    zarr_status status = ZARR_OK, agreed = ZARR_OK;
    char text[MPI_MAX_ERROR_STRING + 128];
    int inter = 0, rank = 0, size = 0, rc;

    if (comm == MPI_COMM_NULL)
        return zarr_mpi_fail(function, ZARR_ERROR_INVALID_ARGUMENT,
                             "comm is MPI_COMM_NULL (this process is not in the "
                             "communicator)");
    rc = MPI_Comm_test_inter(comm, &inter);
    if (rc != MPI_SUCCESS) {
        zarr_mpi_error("MPI_Comm_test_inter", rc);
        return zarr_mpi_fail(function, ZARR_ERROR_INVALID_ARGUMENT, zarr_last_error_message());
    }
    if (inter)
        return zarr_mpi_fail(function, ZARR_ERROR_INVALID_ARGUMENT,
                             "comm is an inter-communicator: collective calls need an "
                             "intra-communicator (MPI_Intercomm_merge makes one)");

    /* Collective from here on: every rank reaches the agreement below. */
    rc = MPI_Comm_dup(comm, &dup);
    if (rc != MPI_SUCCESS) {
        zarr_mpi_error("MPI_Comm_dup", rc);
        return zarr_mpi_fail(function, ZARR_ERROR_COMMUNICATION, zarr_last_error_message());
    }
    rc = MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(dup, &rank);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_size(dup, &size);
    if (rc != MPI_SUCCESS) {
        zarr_mpi_error("setting up the duplicate communicator", rc);
        snprintf(text, sizeof text, "%s", zarr_last_error_message());
        status = ZARR_ERROR_COMMUNICATION;
    }
    if (status == ZARR_OK) {
        state = (zarr_mpi_state *)calloc(1, sizeof *state);
        if (state != NULL) state->counts = (int *)calloc(4 * (size_t)size, sizeof(int));
        if (state == NULL || state->counts == NULL) {
            snprintf(text, sizeof text, "cannot allocate the state of a communicator of %d "
                                        "ranks", size);
            status = ZARR_ERROR_OUT_OF_MEMORY;
        }
    }
    if (status == ZARR_OK) {
        state->comm = dup;
        state->size = size;
        memset(&ops, 0, sizeof ops);
        ops.version = ZARR_COMM_OPS_VERSION;
        ops.user_data = state;
        ops.barrier = zarr_mpi_barrier;
        ops.broadcast = zarr_mpi_broadcast;
        ops.all_gather = zarr_mpi_all_gather;
        ops.all_gather_v = zarr_mpi_all_gather_v;
        ops.all_to_all_v = zarr_mpi_all_to_all_v;
        ops.all_reduce_i64 = zarr_mpi_all_reduce_i64;
        ops.free_user_data = zarr_mpi_free;
        status = zarr_comm_create(&ops, (size_t)rank, (size_t)size, &handle);
        if (status != ZARR_OK) snprintf(text, sizeof text, "%s", zarr_last_error_message());
    }

    /* Every rank returns the same status: the lowest (every status is <= 0). */
    rc = MPI_Allreduce(&status, &agreed, 1, MPI_INT32_T, MPI_MIN, dup);
    if (rc != MPI_SUCCESS) {
        zarr_mpi_error("MPI_Allreduce", rc);
        snprintf(text, sizeof text, "%s", zarr_last_error_message());
        agreed = ZARR_ERROR_COMMUNICATION;
    } else if (agreed != ZARR_OK && status == ZARR_OK) {
        snprintf(text, sizeof text, "another rank failed with %s (its message names it)",
                 zarr_status_str(agreed));
    }
    if (agreed == ZARR_OK) {
        *out = handle;
        return ZARR_OK;
    }
    if (handle != NULL) {
        zarr_comm_free(handle); /* frees the state and the duplicate */
    } else {
        if (state != NULL) {
            free(state->counts);
            free(state);
        }
        MPI_Comm_free(&dup);
    }
    return zarr_mpi_fail(function, agreed, text);
}

zarr_status zarr_comm_create_mpi(MPI_Comm comm, zarr_comm **out) {
    static const char function[] = "zarr_comm_create_mpi";
    zarr_status status;
    if (out == NULL)
        return zarr_mpi_fail(function, ZARR_ERROR_NULL_ARGUMENT, "out is NULL");
    *out = NULL;
    status = zarr_mpi_check_initialized(function);
    if (status != ZARR_OK) return status;
    return zarr_mpi_create(function, comm, out);
}

zarr_status zarr_comm_create_mpi_f(MPI_Fint comm, zarr_comm **out) {
    static const char function[] = "zarr_comm_create_mpi_f";
    zarr_status status;
    if (out == NULL)
        return zarr_mpi_fail(function, ZARR_ERROR_NULL_ARGUMENT, "out is NULL");
    *out = NULL;
    /* MPI_Comm_f2c, like every MPI function but a few, needs MPI initialised. */
    status = zarr_mpi_check_initialized(function);
    if (status != ZARR_OK) return status;
    return zarr_mpi_create(function, MPI_Comm_f2c(comm), out);
}
