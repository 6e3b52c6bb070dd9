/* consumer_mpi.c -- an MPI program built against an installed libzarr, as its users build
 * one (mpi/tests/install_check.cmake):
 *
 *   mpicc consumer_mpi.c $(pkg-config --cflags --libs zarr-mpi)
 *   or CMake: find_package(zarr CONFIG REQUIRED COMPONENTS mpi), target zarr::mpi
 *
 *   mpirun -np N consumer_mpi STORE_DIR
 *
 * Every rank makes a communicator (from MPI_COMM_WORLD, and from its Fortran handle),
 * opens STORE_DIR with zarr_store_open_url, and writes its uneven slab of a new array with
 * zarr_array_write_collective; every rank reads the whole array back collectively and
 * checks it. Rank 0 prints "libzarr <version> on <N> ranks: ok". */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include <zarr.h>
#include <zarr_mpi.h>

#define N 1000

static void check(zarr_status status, const char *what, int rank) {
    if (status != ZARR_OK) {
        fprintf(stderr, "rank %d: %s: %s: %s\n", rank, what, zarr_status_str(status),
                zarr_last_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv) {
    int rank, size, i;
    zarr_comm *comm = NULL, *comm_f = NULL;
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    uint64_t start[1], count[1], all[1] = {N}, zero[1] = {0};
    int32_t *mine, *back;
    size_t zrank = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2) {
        fprintf(stderr, "usage: mpirun -np N consumer_mpi STORE_DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    check(zarr_comm_create_mpi(MPI_COMM_WORLD, &comm), "zarr_comm_create_mpi", rank);
    check(zarr_comm_create_mpi_f(MPI_Comm_c2f(MPI_COMM_WORLD), &comm_f), "zarr_comm_create_mpi_f",
          rank);
    check(zarr_comm_rank(comm_f, &zrank), "zarr_comm_rank", rank);
    if (zrank != (size_t)rank) check(ZARR_ERROR_INTERNAL, "rank of the Fortran handle", rank);
    zarr_comm_free(comm_f);

    /* Rank r of n: elements [N r^2 / n^2, N (r+1)^2 / n^2), uneven slabs. */
    start[0] = (uint64_t)N * rank * rank / ((uint64_t)size * size);
    count[0] = (uint64_t)N * (rank + 1) * (rank + 1) / ((uint64_t)size * size) - start[0];
    mine = malloc(count[0] * sizeof *mine + 1);
    back = malloc(N * sizeof *back);
    if (mine == NULL || back == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    for (i = 0; i < (int)count[0]; i++) mine[i] = (int32_t)(start[0] + (uint64_t)i) * 7;

    check(zarr_store_open_url(argv[1], "{\"create\": true}", &store), "zarr_store_open_url", rank);
    check(zarr_array_create_collective(
              comm, store, "/consumer",
              "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [1000],"
              " \"data_type\": \"int32\", \"fill_value\": 0,"
              " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [64]}},"
              " \"chunk_key_encoding\": {\"name\": \"default\"},"
              " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
              "              {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}]}",
              &array),
          "zarr_array_create_collective", rank);
    check(zarr_array_write_collective(comm, array, 1, start, count, mine,
                                      count[0] * sizeof *mine),
          "zarr_array_write_collective", rank);
    check(zarr_array_read_collective(comm, array, 1, zero, all, back, N * sizeof *back),
          "zarr_array_read_collective", rank);
    for (i = 0; i < N; i++)
        if (back[i] != i * 7) {
            fprintf(stderr, "rank %d: element %d is %d, expected %d\n", rank, i, (int)back[i],
                    i * 7);
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
    zarr_array_free(array);
    zarr_store_free(store);
    zarr_comm_free(comm);
    free(mine);
    free(back);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("libzarr %s on %d ranks: ok\n", zarr_version_string(), size);
    MPI_Finalize();
    return 0;
}
