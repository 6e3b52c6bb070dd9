/* test_mpi_comm.c -- zarr_comm_create_mpi and zarr_comm_create_mpi_f: their statuses, the
 * rank and size they give, and the isolation of libzarr's messages.
 *
 *   mpirun -np N test_mpi_comm DATA_DIR      (N >= 2)
 *
 * - before MPI_Init and after MPI_Finalize: ZARR_ERROR_INVALID_ARGUMENT, *out NULL;
 * - out NULL: ZARR_ERROR_NULL_ARGUMENT; MPI_COMM_NULL (C and Fortran handle), an
 *   inter-communicator: ZARR_ERROR_INVALID_ARGUMENT, *out NULL, a message saying why;
 * - zarr_comm_create_mpi_f(MPI_Comm_c2f(MPI_COMM_WORLD)): the rank and size of the world;
 *   over a split communicator (ranks in reverse order): that communicator's;
 * - the caller's communicator may be freed right after the call;
 * - a receive for any source and any tag posted on MPI_COMM_WORLD stays unmatched while
 *   collective calls over a communicator made from MPI_COMM_WORLD run (libzarr talks on
 *   its own duplicate), then matches the application's own message;
 * - zarr_comm_free after MPI_Finalize frees memory only (no MPI call, no crash). */
#include "mpitest.h"

#include <errno.h>

#include "zarr_mpi.h"

static const char *METADATA =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [12, 10], \"data_type\": \"int64\","
    " \"fill_value\": 0, \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [5, 4]}},"
    " \"chunk_key_encoding\": {\"name\": \"default\"},"
    " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]}";

/* Collective calls over `comm`, rank r of n writing rows [12r/n, 12(r+1)/n) of a new array
 * `path` in `store`, and reading the whole array back. */
static void use(zarr_comm *comm, zarr_store *store, const char *path) {
    size_t r, n, i;
    zarr_array *array = NULL;
    uint64_t start[2], count[2], all[2] = {12, 10}, zero[2] = {0, 0};
    int64_t mine[120], back[120];
    MT_OK(zarr_comm_rank(comm, &r));
    MT_OK(zarr_comm_size(comm, &n));
    start[0] = 12 * r / n;
    count[0] = 12 * (r + 1) / n - start[0];
    start[1] = 0;
    count[1] = 10;
    for (i = 0; i < count[0] * 10; i++) mine[i] = (int64_t)(start[0] * 10 + i) * 3;
    MT_OK(zarr_array_create_collective(comm, store, path, METADATA, &array));
    MT_OK(zarr_array_write_collective(comm, array, 2, start, count, mine,
                                      (size_t)count[0] * 10 * sizeof *mine));
    MT_OK(zarr_array_read_collective(comm, array, 2, zero, all, back, sizeof back));
    for (i = 0; i < 120; i++) MT_CHECK(back[i] == (int64_t)i * 3);
    zarr_array_free(array);
}

int main(int argc, char **argv) {
    int provided, rank, size, dummy, mpi_rank, token = -1, flag = 0;
    zarr_comm *comm = (zarr_comm *)&dummy, *late = NULL;
    zarr_store *store = NULL;
    MPI_Comm half, inter, mine;
    MPI_Request request;
    char path[2048];
    size_t r, n;

    /* Before MPI_Init. */
    MT_STATUS(zarr_comm_create_mpi(MPI_COMM_WORLD, &comm), ZARR_ERROR_INVALID_ARGUMENT);
    MT_CHECK(comm == NULL);
    MT_STR_CONTAINS(zarr_last_error_message(), "zarr_comm_create_mpi");
    MT_STR_CONTAINS(zarr_last_error_message(), "not initialized");
    comm = (zarr_comm *)&dummy;
    MT_STATUS(zarr_comm_create_mpi_f(0, &comm), ZARR_ERROR_INVALID_ARGUMENT);
    MT_CHECK(comm == NULL);
    MT_STR_CONTAINS(zarr_last_error_message(), "zarr_comm_create_mpi_f");

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    mt_init();
    rank = mt_rank;
    size = mt_size;
    if (argc < 2 || size < 2) mt_fail(__FILE__, __LINE__, "usage: mpirun -np N (N >= 2) test_mpi_comm DATA_DIR");
    if (rank == 0 && mkdir(argv[1], 0777) != 0 && errno != EEXIST)
        mt_fail(__FILE__, __LINE__, "mkdir %s", argv[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/store", argv[1]);
    MT_OK(zarr_store_open_url(path, "{\"create\": true}", &store));

    /* Arguments. */
    MT_STATUS(zarr_comm_create_mpi(MPI_COMM_WORLD, NULL), ZARR_ERROR_NULL_ARGUMENT);
    MT_STR_CONTAINS(zarr_last_error_message(), "out");
    MT_STATUS(zarr_comm_create_mpi_f(MPI_Comm_c2f(MPI_COMM_WORLD), NULL),
              ZARR_ERROR_NULL_ARGUMENT);
    comm = (zarr_comm *)&dummy;
    MT_STATUS(zarr_comm_create_mpi(MPI_COMM_NULL, &comm), ZARR_ERROR_INVALID_ARGUMENT);
    MT_CHECK(comm == NULL);
    MT_STR_CONTAINS(zarr_last_error_message(), "MPI_COMM_NULL");
    comm = (zarr_comm *)&dummy;
    MT_STATUS(zarr_comm_create_mpi_f(MPI_Comm_c2f(MPI_COMM_NULL), &comm),
              ZARR_ERROR_INVALID_ARGUMENT);
    MT_CHECK(comm == NULL);
    MT_STR_CONTAINS(zarr_last_error_message(), "MPI_COMM_NULL");

    /* The Fortran handle of the world. */
    MT_OK(zarr_comm_create_mpi_f(MPI_Comm_c2f(MPI_COMM_WORLD), &comm));
    MT_CHECK(comm != NULL);
    MT_OK(zarr_comm_rank(comm, &r));
    MT_OK(zarr_comm_size(comm, &n));
    MT_CHECK(r == (size_t)rank && n == (size_t)size);
    use(comm, store, "/fortran_handle");
    zarr_comm_free(comm);

    /* A split communicator, ranks in reverse order; and an inter-communicator between
     * its two halves, which collective calls cannot use. */
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
    MT_OK(zarr_comm_create_mpi(half, &comm));
    MPI_Comm_rank(half, &mpi_rank);
    MT_OK(zarr_comm_rank(comm, &r));
    MT_OK(zarr_comm_size(comm, &n));
    MT_CHECK(r == (size_t)mpi_rank && n == (size_t)(rank % 2 ? size / 2 : (size + 1) / 2));
    use(comm, store, rank % 2 ? "/odd" : "/even");
    zarr_comm_free(comm);
    /* The remote leader: the other half's rank 0, its highest world rank. */
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD,
                         rank % 2 ? (size % 2 ? size - 1 : size - 2)
                                  : (size % 2 ? size - 2 : size - 1),
                         7, &inter);
    comm = (zarr_comm *)&dummy;
    MT_STATUS(zarr_comm_create_mpi(inter, &comm), ZARR_ERROR_INVALID_ARGUMENT);
    MT_CHECK(comm == NULL);
    MT_STR_CONTAINS(zarr_last_error_message(), "inter-communicator");
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);

    /* The caller's communicator freed right after the call. */
    MPI_Comm_dup(MPI_COMM_WORLD, &mine);
    MT_OK(zarr_comm_create_mpi(mine, &comm));
    MPI_Comm_free(&mine);
    use(comm, store, "/freed_caller_comm");
    zarr_comm_free(comm);

    /* Isolation: a wildcard receive on MPI_COMM_WORLD never sees libzarr's messages. */
    MPI_Irecv(&token, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &request);
    MT_OK(zarr_comm_create_mpi(MPI_COMM_WORLD, &comm));
    use(comm, store, "/isolation");
    MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
    MT_CHECK(!flag);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has looked before any sends its message */
    {
        int next = (rank + 1) % size, previous = (rank + size - 1) % size, sent = 1000 + rank;
        MPI_Send(&sent, 1, MPI_INT, next, 3, MPI_COMM_WORLD);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        MT_CHECK(token == 1000 + previous);
    }
    zarr_comm_free(comm);
    zarr_comm_free(NULL);

    /* A communicator freed only after MPI_Finalize. */
    MT_OK(zarr_comm_create_mpi(MPI_COMM_WORLD, &late));
    zarr_store_free(store);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("test_mpi_comm: passed on %d ranks\n", size);
    fflush(stdout);
    MPI_Finalize();
    zarr_comm_free(late);
    comm = (zarr_comm *)&dummy;
    if (zarr_comm_create_mpi(MPI_COMM_WORLD, &comm) != ZARR_ERROR_INVALID_ARGUMENT || comm != NULL ||
        strstr(zarr_last_error_message(), "finalized") == NULL) {
        fprintf(stderr, "rank %d: zarr_comm_create_mpi after MPI_Finalize: %s\n", rank,
                zarr_last_error_message());
        return 1;
    }
    return 0;
}
