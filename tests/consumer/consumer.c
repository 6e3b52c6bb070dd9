/* consumer.c -- a program built against an installed libzarr (find_package or pkg-config).
 *
 * Creates an array in a memory store, writes it, reads it back, checks every element and
 * that the header and the library agree on the version, then prints the version. Exits 0
 * on success. ctest builds it against a staging install (label `install`).
 */
#include <stdio.h>
#include <string.h>

#include <zarr.h>

#define ROWS 5
#define COLS 7

static int failed(zarr_status status, const char *what) {
    if (status == ZARR_OK) return 0;
    fprintf(stderr, "%s failed: %s (%d): %s\n", what, zarr_status_str(status), (int)status,
            zarr_last_error_message());
    return 1;
}

int main(void) {
    const char *metadata =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [5, 7],"
        " \"data_type\": \"int32\","
        " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [2, 3]}},"
        " \"chunk_key_encoding\": {\"name\": \"default\", \"configuration\": {\"separator\": \"/\"}},"
        " \"fill_value\": 0,"
        " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
        "              {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}]}";
    int32_t values[ROWS * COLS], back[ROWS * COLS];
    uint64_t start[2] = {0, 0}, count[2] = {ROWS, COLS};
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    int i, status = 1;
    uint32_t expected_number =
        ZARR_VERSION_MAJOR * 10000u + ZARR_VERSION_MINOR * 100u + ZARR_VERSION_PATCH;

    if (strcmp(zarr_version_string(), ZARR_VERSION_STRING) != 0 ||
        zarr_version_number() != expected_number) {
        fprintf(stderr, "header %s but library %s (%u)\n", ZARR_VERSION_STRING,
                zarr_version_string(), (unsigned)zarr_version_number());
        return 1;
    }
    for (i = 0; i < ROWS * COLS; i++) values[i] = i * 3 - 40;
    memset(back, 0, sizeof back);

    if (failed(zarr_store_open_memory(&store), "zarr_store_open_memory") ||
        failed(zarr_array_create(store, "/values", metadata, &array), "zarr_array_create") ||
        failed(zarr_array_write(array, 2, start, count, values, sizeof values),
               "zarr_array_write") ||
        failed(zarr_array_read(array, 2, start, count, back, sizeof back), "zarr_array_read"))
        goto done;
    if (memcmp(values, back, sizeof values) != 0) {
        fprintf(stderr, "read back differs from what was written\n");
        goto done;
    }
    printf("libzarr %s: wrote and read back a %dx%d int32 array\n", zarr_version_string(), ROWS,
           COLS);
    status = 0;
done:
    zarr_array_free(array);
    zarr_store_free(store);
    return status;
}
