/* test_mpi_ops.c -- the operations of libzarr_mpi's zarr_comm_ops table, one by one.
 *
 *   mpirun -np N test_mpi_ops      (N >= 2)
 *
 * Includes zarr_mpi.c itself to call its static functions: every operation with uneven
 * data from every rank; empty buffers given as a Rust empty slice gives them (the dangling
 * pointer 1, which is Open MPI's MPI_IN_PLACE); counts and displacements beyond INT_MAX
 * (on every rank, and on one rank only: every rank must fail, none may hang); a failing
 * MPI call (ZARR_ERROR_COMMUNICATION with MPI_Error_string's text), directly and through a
 * collective libzarr call. */
#include "mpitest.h"

#include "../zarr_mpi.c"

/* A dangling, non-NULL pointer, as Rust passes for an empty slice. */
#define DANGLING ((void *)1)

static int rank, size;

static zarr_mpi_state *state_of(MPI_Comm comm) {
    zarr_mpi_state *state = (zarr_mpi_state *)calloc(1, sizeof *state);
    MT_CHECK(state != NULL);
    state->comm = comm;
    if (comm != MPI_COMM_NULL) {
        MPI_Comm_dup(comm, &state->comm);
        MPI_Comm_set_errhandler(state->comm, MPI_ERRORS_RETURN);
    }
    state->size = size;
    state->counts = (int *)calloc(4 * (size_t)size, sizeof(int));
    MT_CHECK(state->counts != NULL);
    return state;
}

static void broadcasts(zarr_mpi_state *s) {
    int root;
    for (root = 0; root < size; root++) {
        unsigned char buf[5];
        int i;
        for (i = 0; i < 5; i++) buf[i] = rank == root ? (unsigned char)(root * 10 + i) : 0xFF;
        MT_OK(zarr_mpi_broadcast(s, buf, sizeof buf, (size_t)root));
        for (i = 0; i < 5; i++) MT_CHECK(buf[i] == root * 10 + i);
    }
    MT_OK(zarr_mpi_broadcast(s, DANGLING, 0, 0));
    MT_OK(zarr_mpi_broadcast(s, NULL, 0, 1));
    MT_STATUS(zarr_mpi_broadcast(s, DANGLING, 0, (size_t)size), ZARR_ERROR_COMMUNICATION);
    MT_STR_CONTAINS(zarr_last_error_message(), "root");
    MT_STATUS(zarr_mpi_broadcast(s, DANGLING, (size_t)INT_MAX + 1, 0), ZARR_ERROR_COMMUNICATION);
    MT_STR_CONTAINS(zarr_last_error_message(), "INT_MAX");
}

static void all_gathers(zarr_mpi_state *s) {
    unsigned char send[3], *recv = (unsigned char *)malloc(3 * (size_t)size);
    int r, i;
    MT_CHECK(recv != NULL);
    for (i = 0; i < 3; i++) send[i] = (unsigned char)(rank * 3 + i);
    MT_OK(zarr_mpi_all_gather(s, send, 3, recv));
    for (r = 0; r < size; r++)
        for (i = 0; i < 3; i++) MT_CHECK(recv[r * 3 + i] == r * 3 + i);
    MT_OK(zarr_mpi_all_gather(s, DANGLING, 0, DANGLING));
    MT_STATUS(zarr_mpi_all_gather(s, send, (size_t)INT_MAX + 1, recv), ZARR_ERROR_COMMUNICATION);
    free(recv);
}

/* Rank r sends r bytes (rank 0 nothing, through the dangling pointer); they land in
 * reverse rank order. */
static void all_gather_vs(zarr_mpi_state *s) {
    size_t *lens = (size_t *)malloc((size_t)size * sizeof *lens);
    size_t *displs = (size_t *)malloc((size_t)size * sizeof *displs);
    size_t total = 0, at;
    unsigned char send[64], *recv;
    int r, i;
    MT_CHECK(lens != NULL && displs != NULL && size < 64);
    for (r = 0; r < size; r++) {
        lens[r] = (size_t)r;
        total += lens[r];
    }
    for (r = 0, at = total; r < size; r++) {
        at -= lens[r];
        displs[r] = at;
    }
    recv = (unsigned char *)malloc(total + 1);
    MT_CHECK(recv != NULL);
    for (i = 0; i < rank; i++) send[i] = (unsigned char)(rank * 16 + i);
    MT_OK(zarr_mpi_all_gather_v(s, rank == 0 ? DANGLING : (void *)send, (size_t)rank, recv,
                                lens, displs));
    for (r = 0; r < size; r++)
        for (i = 0; i < r; i++) MT_CHECK(recv[displs[r] + (size_t)i] == r * 16 + i);
    /* Too large, on every rank alike (the operation's contract): no MPI call is made. */
    lens[size - 1] = (size_t)INT_MAX + 1;
    MT_STATUS(zarr_mpi_all_gather_v(s, send, (size_t)rank, recv, lens, displs),
              ZARR_ERROR_COMMUNICATION);
    MT_STR_CONTAINS(zarr_last_error_message(), "INT_MAX");
    lens[size - 1] = (size_t)(size - 1);
    displs[0] = (size_t)INT_MAX + 7;
    MT_STATUS(zarr_mpi_all_gather_v(s, send, (size_t)rank, recv, lens, displs),
              ZARR_ERROR_COMMUNICATION);
    MT_STR_CONTAINS(zarr_last_error_message(), "displacement");
    free(recv);
    free(lens);
    free(displs);
}

/* Rank `from` sends (from + to) % 3 bytes to rank `to`, none at all from rank 0. */
static size_t bytes_between(int from, int to) { return from == 0 ? 0 : (size_t)((from + to) % 3); }

static void all_to_all_vs(zarr_mpi_state *s) {
    size_t *arrays = (size_t *)calloc(4 * (size_t)size, sizeof *arrays);
    size_t *send_lens = arrays, *send_displs = arrays + size, *recv_lens = arrays + 2 * size,
           *recv_displs = arrays + 3 * size, sent = 0, received = 0;
    unsigned char send[256], recv[256];
    int r;
    size_t k;
    MT_CHECK(arrays != NULL && size <= 32);
    for (r = 0; r < size; r++) {
        send_lens[r] = bytes_between(rank, r);
        send_displs[r] = sent;
        for (k = 0; k < send_lens[r]; k++) send[sent + k] = (unsigned char)(rank * 32 + r * 4 + (int)k);
        sent += send_lens[r];
        recv_lens[r] = bytes_between(r, rank);
        recv_displs[r] = received;
        received += recv_lens[r];
    }
    memset(recv, 0xFF, sizeof recv);
    MT_OK(zarr_mpi_all_to_all_v(s, sent ? (void *)send : DANGLING, send_lens, send_displs,
                                received ? (void *)recv : DANGLING, recv_lens, recv_displs));
    for (r = 0; r < size; r++)
        for (k = 0; k < recv_lens[r]; k++)
            MT_CHECK(recv[recv_displs[r] + k] == r * 32 + rank * 4 + (int)k);
    /* Nothing at all, every pointer dangling. */
    memset(arrays, 0, 4 * (size_t)size * sizeof *arrays);
    MT_OK(zarr_mpi_all_to_all_v(s, DANGLING, send_lens, send_displs, DANGLING, recv_lens,
                                recv_displs));
    /* A send displacement beyond INT_MAX on the last rank only: every rank fails. */
    if (rank == size - 1) send_displs[0] = (size_t)INT_MAX + 1;
    MT_STATUS(zarr_mpi_all_to_all_v(s, DANGLING, send_lens, send_displs, DANGLING, recv_lens,
                                    recv_displs),
              ZARR_ERROR_COMMUNICATION);
    MT_STR_CONTAINS(zarr_last_error_message(),
                    rank == size - 1 ? "a send displacement" : "another rank");
    free(arrays);
}

static void all_reduces(zarr_mpi_state *s) {
    int64_t values[3];
    int64_t big = (int64_t)1 << 40;
    values[0] = values[1] = values[2] = big * rank - rank;
    MT_OK(zarr_mpi_all_reduce_i64(s, values, 1, ZARR_REDUCE_MIN));
    MT_CHECK(values[0] == 0);
    MT_OK(zarr_mpi_all_reduce_i64(s, values + 1, 1, ZARR_REDUCE_MAX));
    MT_CHECK(values[1] == big * (size - 1) - (size - 1));
    MT_OK(zarr_mpi_all_reduce_i64(s, values + 2, 1, ZARR_REDUCE_SUM));
    MT_CHECK(values[2] == (big - 1) * ((int64_t)size * (size - 1) / 2));
    MT_OK(zarr_mpi_all_reduce_i64(s, (int64_t *)8, 0, ZARR_REDUCE_SUM));
    MT_STATUS(zarr_mpi_all_reduce_i64(s, values, 1, 0), ZARR_ERROR_COMMUNICATION);
    MT_STR_CONTAINS(zarr_last_error_message(), "unknown reduction");
    MT_STATUS(zarr_mpi_all_reduce_i64(s, values, (size_t)INT_MAX + 1, ZARR_REDUCE_MIN),
              ZARR_ERROR_COMMUNICATION);
}

/* An MPI call that fails (a communicator that is no longer valid; the errors return
 * through MPI_COMM_WORLD's error handler, set to MPI_ERRORS_RETURN here), directly and
 * inside a collective libzarr call, which fails on every rank. */
static void mpi_failures(void) {
    zarr_mpi_state *broken = state_of(MPI_COMM_NULL);
    zarr_comm_ops ops;
    zarr_comm *comm = NULL;
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MT_STATUS(zarr_mpi_barrier(broken), ZARR_ERROR_COMMUNICATION);
    MT_STR_CONTAINS(zarr_last_error_message(), "MPI_Barrier failed: ");
    if (rank == 0) printf("a failing MPI_Barrier: %s\n", zarr_last_error_message());

    memset(&ops, 0, sizeof ops);
    ops.version = ZARR_COMM_OPS_VERSION;
    ops.user_data = broken;
    ops.barrier = zarr_mpi_barrier;
    ops.broadcast = zarr_mpi_broadcast;
    ops.all_gather = zarr_mpi_all_gather;
    ops.all_gather_v = zarr_mpi_all_gather_v;
    ops.all_to_all_v = zarr_mpi_all_to_all_v;
    ops.all_reduce_i64 = zarr_mpi_all_reduce_i64;
    ops.free_user_data = zarr_mpi_free;
    MT_OK(zarr_comm_create(&ops, (size_t)rank, (size_t)size, &comm));
    MT_OK(zarr_store_open_memory(&store));
    MT_COLLECTIVE(zarr_array_create_collective(
                      comm, store, "/a",
                      "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4],"
                      " \"data_type\": \"uint8\", \"fill_value\": 0, \"chunk_grid\": {\"name\":"
                      " \"regular\", \"configuration\": {\"chunk_shape\": [2]}},"
                      " \"chunk_key_encoding\": {\"name\": \"default\"}, \"codecs\": [{\"name\":"
                      " \"bytes\"}]}",
                      &array),
                  ZARR_ERROR_COMMUNICATION);
    MT_CHECK(array == NULL);
    MT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_create_collective");
    MT_STR_CONTAINS(zarr_last_error_message(), "failed: ");
    if (rank == 0) printf("a collective call over it: %s\n", zarr_last_error_message());
    zarr_comm_free(comm); /* frees `broken`: no MPI_Comm_free of MPI_COMM_NULL */
    zarr_store_free(store);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
    int provided;
    zarr_mpi_state *s;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    mt_init();
    rank = mt_rank;
    size = mt_size;
    if (size < 2) mt_fail(__FILE__, __LINE__, "run with mpirun -np N, N >= 2");
    s = state_of(MPI_COMM_WORLD);

    MT_OK(zarr_mpi_barrier(s));
    broadcasts(s);
    all_gathers(s);
    all_gather_vs(s);
    all_to_all_vs(s);
    all_reduces(s);
    /* The operations still work after their failures. */
    MT_OK(zarr_mpi_barrier(s));
    all_to_all_vs(s);
    zarr_mpi_free(s);
    zarr_mpi_free(NULL);
    mpi_failures();

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("test_mpi_ops: passed on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
