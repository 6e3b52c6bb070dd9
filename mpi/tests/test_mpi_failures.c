/* test_mpi_failures.c -- a failure on one rank fails the collective call on every rank,
 * with the same status, and no rank hangs (ctest runs it under `timeout`).
 *
 *   mpirun -np N test_mpi_failures DATA_DIR [--s3]
 *
 * The store is DATA_DIR/store (or, with --s3, a new prefix of s3://zarr-test on moto,
 * endpoint $ZARR_TEST_MOTO), opened by every rank with zarr_store_open_url.
 *
 * Store failures: the last rank opens the store with {"read_only": true} while the others
 * open it writable, so only its writes fail (ZARR_ERROR_READ_ONLY) -- in a collective write
 * whose boxes follow the chunks (each rank owns the chunks of its box), in an append, and,
 * with rank 0 read-only, in zarr_array_create_collective and in the metadata of a resize.
 * Argument errors on one rank: overlapping boxes, a box out of bounds, a NULL buffer, a
 * wrong buffer length, a wrong ndim, a NULL start, a box outside an appended block,
 * different metadata, attributes or shapes, different arrays; nothing may be written by
 * them. After every failure the communicator still works: a last collective write and
 * read must give every element exactly. */
#include "mpitest.h"

#include <errno.h>

#include "zarr_mpi.h"

#define SLAB 8 /* rows of a chunk, and of each rank's slab in the aligned writes */
#define COLS 12

static zarr_comm *comm;
static int rank, size;
static char url[1024];
static const char *options, *options_ro;

/* The message of this rank's last failure includes `text` on every rank but `except`. */
static void expect_message_names(const char *text, int except) {
    if (rank != except) MT_STR_CONTAINS(zarr_last_error_message(), text);
}

/* Every element of the 2-D int32 array at `path` read by rank 0 serially equals
 * `expected(row, col)`. */
static void check_values(zarr_store *store, const char *path, uint64_t rows, uint64_t cols,
                         int32_t (*expected)(uint64_t, uint64_t)) {
    zarr_array *array = NULL;
    uint64_t start[2] = {0, 0}, count[2] = {rows, cols}, y, x;
    int32_t *buf;
    if (rank != 0) return;
    buf = (int32_t *)malloc((size_t)(rows * cols) * sizeof *buf);
    MT_CHECK(buf != NULL);
    MT_OK(zarr_array_open(store, path, &array));
    MT_OK(zarr_array_read(array, 2, start, count, buf, (size_t)(rows * cols) * sizeof *buf));
    for (y = 0; y < rows; y++)
        for (x = 0; x < cols; x++)
            if (buf[y * cols + x] != expected(y, x))
                mt_fail(__FILE__, __LINE__, "%s[%llu, %llu] is %d, expected %d", path,
                        (unsigned long long)y, (unsigned long long)x, (int)buf[y * cols + x],
                        (int)expected(y, x));
    zarr_array_free(array);
    free(buf);
}

static int32_t fill_value(uint64_t y, uint64_t x) {
    (void)y;
    (void)x;
    return 0;
}

static int32_t value_at(uint64_t y, uint64_t x) { return (int32_t)(y * 1000 + x + 1); }

/* The slab of this rank, rows [SLAB * rank, SLAB * (rank + 1)), with value_at's values. */
static int32_t *slab_values(void) {
    int32_t *buf = (int32_t *)malloc(SLAB * COLS * sizeof *buf);
    uint64_t y, x;
    MT_CHECK(buf != NULL);
    for (y = 0; y < SLAB; y++)
        for (x = 0; x < COLS; x++)
            buf[y * COLS + x] = value_at((uint64_t)rank * SLAB + y, x);
    return buf;
}

static const char *metadata(uint64_t rows, uint64_t cols, uint64_t chunk_rows,
                            uint64_t chunk_cols) {
    static char text[1024];
    snprintf(text, sizeof text,
             "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [%llu, %llu],"
             " \"data_type\": \"int32\", \"fill_value\": 0,"
             " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [%llu, %llu]}},"
             " \"chunk_key_encoding\": {\"name\": \"default\"},"
             " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
             "              {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}]}",
             (unsigned long long)rows, (unsigned long long)cols, (unsigned long long)chunk_rows,
             (unsigned long long)chunk_cols);
    return text;
}

/* ---- a store that fails on one rank ------------------------------------------------- */

static void read_only_rank(zarr_store *store, zarr_store *store_ro) {
    const int ro = size - 1;
    uint64_t rows = (uint64_t)size * SLAB, shape[2], start[2], count[2] = {SLAB, COLS};
    zarr_array *created = NULL, *array = NULL;
    int32_t *buf = slab_values();
    size_t len = SLAB * COLS * sizeof *buf;
    int r;

    MT_COLLECTIVE_OK(zarr_array_create_collective(comm, store, "/readonly/write",
                                                  metadata(rows, COLS, SLAB, COLS), &created));
    /* The read-only rank works through a handle of its read-only store. */
    if (rank == ro) {
        MT_OK(zarr_array_open(store_ro, "/readonly/write", &array));
        zarr_array_free(created);
    } else {
        array = created;
    }
    start[0] = (uint64_t)rank * SLAB;
    start[1] = 0;
    MT_COLLECTIVE(zarr_array_write_collective(comm, array, 2, start, count, buf, len),
                  ZARR_ERROR_READ_ONLY);
    {
        char expected[32];
        snprintf(expected, sizeof expected, "rank %d", ro);
        expect_message_names(expected, ro);
        if (rank == 0) printf("read-only rank %d: rank 0's message: %s\n", ro, zarr_last_error_message());
    }
    /* Each chunk holds its old or its new values, and the read-only rank's the old ones. */
    if (rank == 0) {
        zarr_array *fresh = NULL;
        uint64_t zero[2] = {0, 0}, all[2] = {rows, COLS}, y, x;
        int32_t *back = (int32_t *)malloc((size_t)rows * COLS * sizeof *back);
        MT_CHECK(back != NULL);
        MT_OK(zarr_array_open(store, "/readonly/write", &fresh));
        MT_OK(zarr_array_read(fresh, 2, zero, all, back, (size_t)rows * COLS * sizeof *back));
        for (r = 0; r < size; r++) {
            int fresh_values = back[(uint64_t)r * SLAB * COLS] != 0;
            MT_CHECK(r != ro || !fresh_values);
            for (y = (uint64_t)r * SLAB; y < (uint64_t)(r + 1) * SLAB; y++)
                for (x = 0; x < COLS; x++)
                    MT_CHECK(back[y * COLS + x] == (fresh_values ? value_at(y, x) : 0));
        }
        free(back);
        zarr_array_free(fresh);
    }

    /* An append whose write fails on the read-only rank: every rank fails, and every
     * rank's handle has the new shape (the resize happened, by rank 0). */
    start[0] = (uint64_t)rank * SLAB;
    MT_COLLECTIVE(zarr_array_append_collective(comm, array, 0, rows, 2, start, count, buf, len),
                  ZARR_ERROR_READ_ONLY);
    MT_OK(zarr_array_shape(array, 2, shape));
    MT_CHECK(shape[0] == 2 * rows && shape[1] == COLS);

    /* The communicator still works: the writable ranks write their slabs again, the
     * read-only one an empty box. */
    count[0] = rank == ro ? 0 : SLAB;
    MT_COLLECTIVE_OK(zarr_array_write_collective(comm, array, 2, start, count, buf,
                                                 rank == ro ? 0 : len));
    zarr_array_free(array);
    free(buf);

    /* Rank 0 read-only: it writes the metadata of a new array, so everyone fails, and
     * no rank gets a handle. */
    {
        zarr_store *mine = rank == 0 ? store_ro : store;
        zarr_array *none = (zarr_array *)&r; /* must become NULL */
        MT_COLLECTIVE(zarr_array_create_collective(comm, mine, "/readonly/create",
                                                   metadata(16, 16, 4, 4), &none),
                      ZARR_ERROR_READ_ONLY);
        MT_CHECK(none == NULL);
        expect_message_names("rank 0", 0);
    }
    /* Rank 0 read-only in a resize: its metadata write fails. */
    {
        zarr_array *mine = NULL;
        uint64_t grown[2] = {rows * 3, COLS};
        MT_OK(zarr_array_open(rank == 0 ? store_ro : store, "/readonly/write", &mine));
        MT_COLLECTIVE(zarr_array_resize_collective(comm, mine, 2, grown), ZARR_ERROR_READ_ONLY);
        zarr_array_free(mine);
    }
    if (rank == 0) printf("store failures: every rank returned the same status\n");
}

/* ---- arguments wrong on one rank ---------------------------------------------------- */

static void wrong_arguments(zarr_store *store) {
    /* 40 x 30, chunks 7 x 9; rank r's box: rows [10r, 10r + 10) of columns [0, 30)
     * -- with size <= 4 the boxes stay inside. */
    const uint64_t rows = 40, cols = 30;
    const int one = size - 1;
    zarr_array *array = NULL, *other = NULL, *none;
    uint64_t start[2] = {(uint64_t)rank * 10, 0}, count[2] = {10, cols}, bad_start[2],
             bad_count[2], shape[2];
    size_t n = 10 * (size_t)cols, i;
    int32_t *buf = (int32_t *)malloc(n * sizeof *buf);
    size_t len = n * sizeof *buf;
    char text[64];
    MT_CHECK(buf != NULL && size <= 4);
    for (i = 0; i < n; i++) buf[i] = value_at(start[0] + i / cols, i % cols);

    MT_COLLECTIVE_OK(zarr_array_create_collective(comm, store, "/arguments/a",
                                                  metadata(rows, cols, 7, 9), &array));
    MT_COLLECTIVE_OK(zarr_array_create_collective(comm, store, "/arguments/b",
                                                  metadata(rows, cols, 7, 9), &other));
    snprintf(text, sizeof text, "rank %d", one);

    /* Overlapping boxes: the last rank's box starts one row early. */
    memcpy(bad_start, start, sizeof start);
    if (rank == one) bad_start[0] -= 1;
    MT_COLLECTIVE(zarr_array_write_collective(comm, array, 2, bad_start, count, buf, len),
                  ZARR_ERROR_INVALID_ARGUMENT);
    if (rank == 0) printf("overlapping boxes: %s\n", zarr_last_error_message());
    check_values(store, "/arguments/a", rows, cols, fill_value);

    /* A box out of bounds on one rank. */
    memcpy(bad_start, start, sizeof start);
    if (rank == one) bad_start[1] = 1; /* columns [1, 31) of 30 */
    MT_COLLECTIVE(zarr_array_write_collective(comm, array, 2, bad_start, count, buf, len),
                  ZARR_ERROR_OUT_OF_BOUNDS);
    expect_message_names(text, one);
    check_values(store, "/arguments/a", rows, cols, fill_value);

    /* A NULL buffer on one rank. */
    MT_COLLECTIVE(zarr_array_write_collective(comm, array, 2, start, count,
                                              rank == one ? NULL : buf, len),
                  ZARR_ERROR_NULL_ARGUMENT);
    expect_message_names(text, one);
    check_values(store, "/arguments/a", rows, cols, fill_value);

    /* A wrong buffer length on one rank. */
    MT_COLLECTIVE(zarr_array_write_collective(comm, array, 2, start, count, buf,
                                              rank == one ? len - 4 : len),
                  ZARR_ERROR_BUFFER_SIZE_MISMATCH);
    expect_message_names(text, one);

    /* A wrong ndim, and a NULL start, on one rank. */
    MT_COLLECTIVE(zarr_array_write_collective(comm, array, rank == one ? 3 : 2, start, count,
                                              buf, len),
                  ZARR_ERROR_INVALID_ARGUMENT);
    MT_COLLECTIVE(zarr_array_write_collective(comm, array, 2, rank == one ? NULL : start, count,
                                              buf, len),
                  ZARR_ERROR_NULL_ARGUMENT);

    /* Different arrays on one rank. */
    MT_COLLECTIVE(zarr_array_write_collective(comm, rank == one ? other : array, 2, start,
                                              count, buf, len),
                  ZARR_ERROR_INVALID_ARGUMENT);
    check_values(store, "/arguments/a", rows, cols, fill_value);
    check_values(store, "/arguments/b", rows, cols, fill_value);

    /* Reads: a box out of bounds, a NULL buffer on one rank. */
    memcpy(bad_count, count, sizeof count);
    if (rank == one) bad_count[0] = rows; /* rows [10 * one, 10 * one + 40) */
    MT_COLLECTIVE(zarr_array_read_collective(comm, array, 2, start, bad_count, buf, len),
                  ZARR_ERROR_OUT_OF_BOUNDS);
    MT_COLLECTIVE(zarr_array_read_collective(comm, array, 2, start, count,
                                             rank == one ? NULL : buf, len),
                  ZARR_ERROR_NULL_ARGUMENT);

    /* Appends: a box outside the appended block on one rank, a dimension outside the
     * array; then shapes and attributes that differ on one rank. */
    {
        uint64_t block_start[2] = {0, 0}, block_count[2] = {2, cols};
        int32_t small[2 * 30] = {0};
        if (rank == one) block_start[0] = 1; /* rows [1, 3) of a block of 2 */
        MT_COLLECTIVE(zarr_array_append_collective(comm, array, 0, 2, 2, block_start,
                                                   block_count, small, sizeof small),
                      ZARR_ERROR_OUT_OF_BOUNDS);
        block_start[0] = 0;
        MT_COLLECTIVE(zarr_array_append_collective(comm, array, 2, 2, 2, block_start,
                                                   block_count, small, sizeof small),
                      ZARR_ERROR_INVALID_ARGUMENT);
        MT_OK(zarr_array_shape(array, 2, shape));
        MT_CHECK(shape[0] == rows && shape[1] == cols);
    }
    shape[0] = rank == one ? rows + 1 : rows + 2;
    shape[1] = cols;
    MT_COLLECTIVE(zarr_array_resize_collective(comm, array, 2, shape),
                  ZARR_ERROR_INVALID_ARGUMENT);
    MT_COLLECTIVE(zarr_array_set_attributes_json_collective(
                      comm, array, rank == one ? "{\"a\": 2}" : "{\"a\": 1}"),
                  ZARR_ERROR_INVALID_ARGUMENT);
    MT_COLLECTIVE(zarr_array_set_attributes_json_collective(comm, array,
                                                            rank == one ? "[1]" : "{\"a\": 1}"),
                  ZARR_ERROR_INVALID_ARGUMENT);
    none = (zarr_array *)&n;
    MT_COLLECTIVE(zarr_array_create_collective(comm, store, "/arguments/c",
                                               rank == one ? metadata(5, 5, 2, 2)
                                                           : metadata(5, 5, 1, 1),
                                               &none),
                  ZARR_ERROR_INVALID_ARGUMENT);
    MT_CHECK(none == NULL);
    MT_COLLECTIVE(zarr_array_create_collective(comm, store, "/arguments/c", metadata(5, 5, 1, 1),
                                               rank == one ? NULL : &none),
                  ZARR_ERROR_NULL_ARGUMENT);
    if (rank == 0) printf("argument errors: every rank returned the same status\n");

    /* After all this, the communicator works: the boxes, written and read back. */
    MT_COLLECTIVE_OK(zarr_array_write_collective(comm, array, 2, start, count, buf, len));
    {
        int32_t *back = (int32_t *)malloc(len);
        MT_CHECK(back != NULL);
        /* Read the next rank's box. */
        bad_start[0] = (uint64_t)((rank + 1) % size) * 10;
        bad_start[1] = 0;
        MT_COLLECTIVE_OK(zarr_array_read_collective(comm, array, 2, bad_start, count, back, len));
        for (i = 0; i < n; i++) MT_CHECK(back[i] == value_at(bad_start[0] + i / cols, i % cols));
        free(back);
    }
    zarr_array_free(array);
    zarr_array_free(other);
    free(buf);
}

int main(int argc, char **argv) {
    int provided, s3;
    zarr_store *store = NULL, *store_ro = NULL;
    const char *data_dir;
    char options_ro_text[1024];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    mt_init();
    rank = mt_rank;
    size = mt_size;
    if (argc < 2) mt_fail(__FILE__, __LINE__, "usage: test_mpi_failures DATA_DIR [--s3]");
    data_dir = argv[1];
    s3 = argc > 2 && strcmp(argv[2], "--s3") == 0;
    MT_OK(zarr_comm_create_mpi(MPI_COMM_WORLD, &comm));
    if (s3) {
        char prefix[256];
        mt_unique_prefix("mpi-failures", prefix, sizeof prefix);
        snprintf(url, sizeof url, "s3://zarr-test/%s-np%d", prefix, size);
        options = mt_s3_options(0);
        options_ro = mt_s3_options(1);
    } else {
        snprintf(url, sizeof url, "%s/store", data_dir);
        if (rank == 0 && mkdir(data_dir, 0777) != 0 && errno != EEXIST)
            mt_fail(__FILE__, __LINE__, "mkdir %s", data_dir);
        options = "{\"create\": true}";
        snprintf(options_ro_text, sizeof options_ro_text, "{\"read_only\": true}");
        options_ro = options_ro_text;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MT_OK(zarr_store_open_url(url, options, &store));
    MT_OK(zarr_store_open_url(url, options_ro, &store_ro));
    if (rank == 0) printf("%d ranks, store %s\n", size, url);

    read_only_rank(store, store_ro);
    wrong_arguments(store);

    zarr_store_free(store);
    zarr_store_free(store_ro);
    zarr_comm_free(comm);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("test_mpi_failures: passed on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
