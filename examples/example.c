/* example.c -- write and read a Zarr v3 array on the local file system with libzarr.
 *
 * Usage: example [STORE_DIR]   (default: ./example_data.zarr, replaced if it exists)
 *
 * Creates a group with attributes and, inside it, a 100 x 120 float32 array in 32 x 32
 * chunks compressed with zstd; writes every element (value = row * 1000 + column), reads
 * back a 3 x 4 block and checks it, then prints the array's metadata. zarr-python reads the
 * result with zarr.open_group(STORE_DIR)["measurements/temperature"].
 */
#include <stdio.h>
#include <stdlib.h>

#include "zarr.h"

#define ROWS 100
#define COLS 120

/* Print the failure and leave: every libzarr call returns a status. */
static int check(zarr_status status, const char *what) {
    if (status != ZARR_OK) {
        fprintf(stderr, "%s failed: %s (%d): %s\n", what, zarr_status_str(status), (int)status,
                zarr_last_error_message());
        exit(1);
    }
    return 0;
}

/* Remove a previous run's store so that the create calls succeed. */
static void remove_previous(const char *dir) {
    char command[4200];
    if (snprintf(command, sizeof command, "rm -rf '%s'", dir) < (int)sizeof command) {
        if (system(command) != 0) {
            fprintf(stderr, "could not remove %s\n", dir);
        }
    }
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "./example_data.zarr";
    const char *metadata =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [100, 120],"
        " \"data_type\": \"float32\","
        " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [32, 32]}},"
        " \"chunk_key_encoding\": {\"name\": \"default\", \"configuration\": {\"separator\": \"/\"}},"
        " \"fill_value\": \"NaN\","
        " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
        "              {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": false}}],"
        " \"attributes\": {\"units\": \"degC\"}, \"dimension_names\": [\"y\", \"x\"]}";
    static float values[ROWS * COLS];
    float block[3 * 4];
    uint64_t start[2] = {0, 0}, count[2] = {ROWS, COLS};
    uint64_t block_start[2] = {10, 20}, block_count[2] = {3, 4};
    zarr_store *store = NULL;
    zarr_group *group = NULL;
    zarr_array *array = NULL;
    char *json = NULL;
    int i, j;

    printf("libzarr %s: writing %s\n", zarr_version_string(), dir);
    remove_previous(dir);
    check(zarr_store_open_filesystem(dir, &store), "zarr_store_open_filesystem");
    check(zarr_group_create(store, "/measurements", "{\"site\": \"example\"}", &group),
          "zarr_group_create");
    check(zarr_array_create(store, "/measurements/temperature", metadata, &array),
          "zarr_array_create");

    for (i = 0; i < ROWS; i++)
        for (j = 0; j < COLS; j++) values[i * COLS + j] = (float)(i * 1000 + j);
    check(zarr_array_write(array, 2, start, count, values, sizeof values), "zarr_array_write");

    check(zarr_array_read(array, 2, block_start, block_count, block, sizeof block),
          "zarr_array_read");
    printf("block at (10, 20):\n");
    for (i = 0; i < 3; i++) {
        for (j = 0; j < 4; j++) {
            float expected = (float)((10 + i) * 1000 + 20 + j);
            printf(" %8.1f", block[i * 4 + j]);
            if (block[i * 4 + j] != expected) {
                fprintf(stderr, "\nunexpected value %g, expected %g\n", block[i * 4 + j], expected);
                return 1;
            }
        }
        printf("\n");
    }

    check(zarr_array_metadata_json(array, &json), "zarr_array_metadata_json");
    printf("zarr.json: %s\n", json);
    zarr_string_free(json);

    zarr_array_free(array);
    zarr_group_free(group);
    zarr_store_free(store);
    printf("ok\n");
    return 0;
}
