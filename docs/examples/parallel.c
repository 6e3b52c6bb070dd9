/* parallel.c -- every rank of an MPI job writes its part of one Zarr array, time step
 * after time step (libzarr's collective calls over MPI, zarr_mpi.h).
 *
 * A model holds a 3-D float32 temperature field (z, y, x), decomposed over the ranks in
 * blocks of (y, x) columns. Every time step, all ranks together append one step to the
 * array temperature(time, z, y, x) -- each rank passing only its own block -- and rank 0
 * the step's value to the coordinate time(time). libzarr gathers the pieces of each
 * shard on one rank, which writes it once: no locks, no rank waiting on another's file.
 *
 * Build and run (libzarr installed in PREFIX, PKG_CONFIG_PATH=PREFIX/lib/pkgconfig):
 *
 *   mpicc parallel.c $(pkg-config --cflags --libs zarr-mpi) -o parallel
 *   mpirun -np 4 ./parallel out.zarr           (or an s3:// URL: every rank opens it)
 *
 * and read it from Python: zarr.open_consolidated("out.zarr")["temperature"][...]. */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include <zarr.h>
#include <zarr_mpi.h>

#define NT 6  /* time steps */
#define NZ 8  /* the model's levels */
#define NY 64 /* the horizontal grid */
#define NX 48

/* The array: float32, zstd inside shards of one time step by half the grid; each shard's
 * inner chunks are 4 levels by 16 x 12 columns. A reader fetching a few columns reads
 * inner chunks, a writer writes whole shards: one object per shard and time step.
 * `dimension_names` and the attributes make it a CF-style variable that xarray reads. */
static const char *TEMPERATURE =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [0, 8, 64, 48],"
    " \"data_type\": \"float32\", \"fill_value\": \"NaN\","
    " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [1, 8, 32, 24]}},"
    " \"chunk_key_encoding\": {\"name\": \"default\"},"
    " \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {"
    "   \"chunk_shape\": [1, 4, 16, 12],"
    "   \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
    "              {\"name\": \"zstd\", \"configuration\": {\"level\": 3, \"checksum\": false}}],"
    "   \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
    "                    {\"name\": \"crc32c\"}],"
    "   \"index_location\": \"end\"}}],"
    " \"dimension_names\": [\"time\", \"z\", \"y\", \"x\"],"
    " \"attributes\": {\"units\": \"K\", \"long_name\": \"air temperature\"}}";

static const char *TIME =
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [0], \"data_type\": \"float64\","
    " \"fill_value\": \"NaN\","
    " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [64]}},"
    " \"chunk_key_encoding\": {\"name\": \"default\"},"
    " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}],"
    " \"dimension_names\": [\"time\"],"
    " \"attributes\": {\"units\": \"hours since 2000-01-01\"}}";

/* The model's physics: the field at step t (exact in float32). */
static float temperature(int t, int z, int y, int x) {
    return 250.0f + 10.0f * (float)t + 2.0f * (float)z + 0.5f * (float)y + 0.25f * (float)x;
}

/* The first and the number of the n points that part `i` of `parts` holds. */
static void share(int n, int parts, int i, int *first, int *count) {
    *first = n * i / parts;
    *count = n * (i + 1) / parts - *first;
}

int main(int argc, char **argv) {
    const char *url = argc > 1 ? argv[1] : "parallel.zarr";
    int provided, rank, size, dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
    int y0, ny, x0, nx, t, z, y, x;
    MPI_Comm grid;
    zarr_comm *comm = NULL;
    zarr_store *store = NULL;
    zarr_group *root = NULL;
    zarr_array *field = NULL, *times = NULL;
    zarr_status status, lowest;
    float *block = NULL;
    size_t block_bytes;
    char attributes[128];
    const char *failed = NULL; /* the collective call that failed, on every rank */

    /* libzarr's worker threads never call MPI: the thread that makes the collective
     * calls does, so MPI_THREAD_FUNNELED is all libzarr asks for. */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* The model's decomposition: a 2-D grid of ranks over (y, x). */
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
    MPI_Comm_rank(grid, &rank);
    MPI_Cart_coords(grid, rank, 2, coords);
    share(NY, dims[0], coords[0], &y0, &ny);
    share(NX, dims[1], coords[1], &x0, &nx);
    block_bytes = (size_t)NZ * ny * nx * sizeof(float);
    block = malloc(block_bytes);

    /* Calls that are not collective may fail on some ranks only: agree on the outcome
     * (the lowest status, as every error is negative) before the ranks go on together. */
    /* "create": the directory (or bucket) is made if it does not exist yet. */
    status = zarr_store_open_url(url, "{\"create\": true}", &store);
    if (status != ZARR_OK)
        fprintf(stderr, "rank %d: cannot open %s: %s\n", rank, url, zarr_last_error_message());
    if (block == NULL) status = ZARR_ERROR_OUT_OF_MEMORY;
    MPI_Allreduce(&status, &lowest, 1, MPI_INT32_T, MPI_MIN, grid);
    if (lowest != ZARR_OK) {
        status = lowest; /* the failing ranks said why */
        goto done;
    }

    /* The libzarr communicator: a duplicate of `grid`, so libzarr's messages never mix
     * with the model's. Collective, like every call taking `comm` below. */
    status = zarr_comm_create_mpi(grid, &comm);
    if (status != ZARR_OK) {
        failed = "zarr_comm_create_mpi";
        goto done;
    }

/* A collective call returns the same status on every rank, so every rank takes the same
 * branch: no rank is left waiting in a collective call that the others abandoned. */
#define COLLECTIVE(call)                                                                   \
    do {                                                                                   \
        status = (call);                                                                   \
        if (status != ZARR_OK) {                                                           \
            failed = #call;                                                                \
            goto done;                                                                     \
        }                                                                                  \
    } while (0)

    /* The hierarchy: rank 0 writes each node's metadata, every rank gets a handle. */
    COLLECTIVE(zarr_group_create_collective(comm, store, "/",
                                            "{\"title\": \"libzarr MPI example\"}", &root));
    COLLECTIVE(zarr_array_create_collective(comm, store, "/temperature", TEMPERATURE, &field));
    COLLECTIVE(zarr_array_create_collective(comm, store, "/time", TIME, &times));

    for (t = 0; t < NT; t++) {
        /* This rank's block of step t: every level, its columns. The box is relative to
         * the appended step: start (0, 0, y0, x0), count (1, NZ, ny, nx). */
        uint64_t start[4] = {0, 0, (uint64_t)y0, (uint64_t)x0};
        uint64_t count[4] = {1, NZ, (uint64_t)ny, (uint64_t)nx};
        uint64_t time_start[1] = {0}, time_count[1] = {rank == 0 ? 1 : 0};
        double hours = 6.0 * t;
        for (z = 0; z < NZ; z++)
            for (y = 0; y < ny; y++)
                for (x = 0; x < nx; x++)
                    block[((size_t)z * ny + y) * nx + x] = temperature(t, z, y0 + y, x0 + x);

        /* Grow the time dimension by one step and write every rank's block into it. */
        COLLECTIVE(zarr_array_append_collective(comm, field, 0, 1, 4, start, count, block,
                                                block_bytes));
        if (t == 0) {
            /* What the write did on this rank: shards written, bytes exchanged. */
            char *json = NULL;
            if (zarr_comm_last_write_json(comm, &json) == ZARR_OK)
                printf("rank %d, step 0: %s\n", rank, json);
            zarr_string_free(json);
        }
        /* The coordinate: rank 0 writes the value, the others take part with an empty
         * box (a count of 0, no buffer). */
        COLLECTIVE(zarr_array_append_collective(comm, times, 0, 1, 1, time_start, time_count,
                                                rank == 0 ? &hours : NULL,
                                                rank == 0 ? sizeof hours : 0));
    }

    /* The end of the run: attributes, then the consolidated metadata (one read opens the
     * whole dataset), last, so that it lists every node as it finally is. */
    snprintf(attributes, sizeof attributes,
             "{\"title\": \"libzarr MPI example\", \"time_steps\": %d}", NT);
    COLLECTIVE(zarr_group_set_attributes_json_collective(comm, root, attributes));
    COLLECTIVE(zarr_group_consolidate_collective(comm, root));
    if (rank == 0)
        printf("%d ranks (%d x %d) wrote %d steps of temperature(time, z, y, x) to %s\n", size,
               dims[0], dims[1], NT, url);

done:
    if (failed != NULL && rank == 0)
        /* The same status on every rank; on the ranks that did not fail themselves, the
         * message starts with "rank N: ", N the rank that failed first. */
        fprintf(stderr, "%s failed: %s: %s\n", failed, zarr_status_str(status),
                zarr_last_error_message());
    zarr_array_free(times);
    zarr_array_free(field);
    zarr_group_free(root);
    zarr_store_free(store);
    zarr_comm_free(comm); /* on every rank, before MPI_Finalize */
    free(block);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return status == ZARR_OK ? 0 : 1;
}
