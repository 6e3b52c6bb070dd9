/* resize_c.c -- resize, append to and erase chunks of arrays with libzarr, for zarr-python
 * to check (check_resize.py).
 *
 * Usage: resize_c DATA_DIR
 *
 * Creates int32 arrays of shape [10, 7] with a [4, 4] chunk grid (for the sharded one,
 * [4, 4] shards of [2, 2] inner chunks), in the stores DATA_DIR/v3 and DATA_DIR/v2:
 *   v3 /plain_fill0    bytes only, fill 0
 *   v3 /plain_fillm1   bytes only, fill -1
 *   v3 /sharded        sharding_indexed (inner bytes + gzip, index bytes + crc32c), fill -1
 *   v2 /zlib           "<i4", zlib, dimension separator ".", fill -1
 *   v2 /blosc_f        "<i4", blosc lz4, order F, dimension separator "/", fill 0
 * and on each runs the same steps:
 *   1. write f(i, j) = 100 i + j + 1 everywhere;
 *   2. zarr_array_resize to [6, 3] (the chunks of row 2 and of column 1 are deleted);
 *   3. zarr_array_resize to [9, 4] (rows 6..8 and column 3 read as fill again, although
 *      chunks (0, 0) and (1, 0) held data there before the shrink);
 *   4. zarr_array_append of 4 rows along dimension 0, g(i, j) = 10000 + 100 i + j for the
 *      new rows i = 9..12, giving shape [13, 4];
 *   5. zarr_array_erase_chunk of chunk (1, 0) (rows 4..7 read as fill).
 * Expected afterwards (check_resize.py computes the same): shape [13, 4]; g(i, j) for
 * i >= 9; fill for 4 <= i < 8; f(i, j) for i < 6 and j < 3; fill elsewhere; no chunk key
 * with column index 1, no key for the erased chunk (1, 0).
 */
#include <stdint.h>
#include <stdio.h>

#include "zarr.h"

#define CHECK(call)                                                                         \
    do {                                                                                    \
        zarr_status check_status_ = (call);                                                 \
        if (check_status_ != ZARR_OK) {                                                     \
            fprintf(stderr, "%s:%d: FAIL %s: %s: %s: %s\n", __FILE__, __LINE__, path, #call, \
                    zarr_status_str(check_status_), zarr_last_error_message());             \
            goto fail;                                                                      \
        }                                                                                   \
    } while (0)

static int32_t f(uint64_t i, uint64_t j) { return (int32_t)(100 * i + j + 1); }
static int32_t g(uint64_t i, uint64_t j) { return (int32_t)(10000 + 100 * i + j); }

static const char *INNER = "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
                           " {\"name\": \"gzip\", \"configuration\": {\"level\": 5}}]";

/* Run the steps on a new array at `node` of `store` (named `label` in messages) created
 * from `metadata`; 0 on success. */
static int resize_steps(zarr_store *store, const char *label, const char *node,
                        const char *metadata) {
    const uint64_t full[2] = {10, 7}, shrunk[2] = {6, 3}, grown[2] = {9, 4},
                   appended[2] = {4, 4}, final_shape[2] = {13, 4}, erased[2] = {1, 0},
                   origin[2] = {0, 0};
    int32_t values[10 * 7], rows[4 * 4];
    uint64_t shape[2] = {0, 0}, i, j;
    zarr_array *array = NULL;
    char path[512];

    snprintf(path, sizeof path, "%s%s", label, node);

    CHECK(zarr_array_create(store, node, metadata, &array));
    for (i = 0; i < full[0]; i++)
        for (j = 0; j < full[1]; j++) values[i * full[1] + j] = f(i, j);
    CHECK(zarr_array_write(array, 2, origin, full, values, sizeof values));
    CHECK(zarr_array_resize(array, 2, shrunk));
    CHECK(zarr_array_resize(array, 2, grown));
    for (i = 0; i < appended[0]; i++)
        for (j = 0; j < appended[1]; j++) rows[i * appended[1] + j] = g(grown[0] + i, j);
    CHECK(zarr_array_append(array, 2, appended, 0, rows, sizeof rows));
    CHECK(zarr_array_erase_chunk(array, 2, erased));
    zarr_array_free(array);
    array = NULL;

    /* The new shape is in the stored metadata. */
    CHECK(zarr_array_open(store, node, &array));
    CHECK(zarr_array_shape(array, 2, shape));
    if (shape[0] != final_shape[0] || shape[1] != final_shape[1]) {
        fprintf(stderr, "%s:%d: FAIL %s: reopened with shape [%llu, %llu], expected [13, 4]\n",
                __FILE__, __LINE__, path, (unsigned long long)shape[0],
                (unsigned long long)shape[1]);
        goto fail;
    }
    zarr_array_free(array);
    printf("ok   %s: resized to [6, 3], [9, 4], appended 4 rows, erased chunk (1, 0)\n", path);
    return 0;
fail:
    zarr_array_free(array);
    return 1;
}

/* Open the filesystem store DATA_DIR/name; 0 on success. */
static int open_store(const char *data_dir, const char *name, zarr_store **store) {
    char path[4096];
    zarr_status status;
    snprintf(path, sizeof path, "%s/%s", data_dir, name);
    if ((status = zarr_store_open_filesystem(path, store)) != ZARR_OK) {
        fprintf(stderr, "%s:%d: FAIL cannot open %s: %s: %s\n", __FILE__, __LINE__, path,
                zarr_status_str(status), zarr_last_error_message());
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    static const char *v3_template =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [10, 7], \"data_type\": \"int32\","
        " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [4, 4]}},"
        " \"chunk_key_encoding\": {\"name\": \"default\", \"configuration\": {\"separator\": \"/\"}},"
        " \"fill_value\": %s, \"codecs\": %s}";
    static const char *v2_template =
        "{\"zarr_format\": 2, \"shape\": [10, 7], \"chunks\": [4, 4], \"dtype\": \"<i4\","
        " \"fill_value\": %s, \"compressor\": %s, \"filters\": null, \"order\": \"%s\","
        " \"dimension_separator\": \"%s\"}";
    char metadata[4096], codecs[2048];
    zarr_store *v3 = NULL, *v2 = NULL;
    int failures = 0, total = 0;

    if (argc != 2) {
        fprintf(stderr, "usage: %s DATA_DIR\n", argv[0]);
        return 2;
    }
    if (open_store(argv[1], "v3", &v3) != 0 || open_store(argv[1], "v2", &v2) != 0) {
        zarr_store_free(v3);
        return 1;
    }

    snprintf(metadata, sizeof metadata, v3_template, "0",
             "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]");
    failures += resize_steps(v3, "v3", "/plain_fill0", metadata), total++;
    snprintf(metadata, sizeof metadata, v3_template, "-1",
             "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]");
    failures += resize_steps(v3, "v3", "/plain_fillm1", metadata), total++;
    snprintf(codecs, sizeof codecs,
             "[{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [2, 2],"
             " \"codecs\": %s, \"index_codecs\": [{\"name\": \"bytes\", \"configuration\":"
             " {\"endian\": \"little\"}}, {\"name\": \"crc32c\"}], \"index_location\": \"end\"}}]",
             INNER);
    snprintf(metadata, sizeof metadata, v3_template, "-1", codecs);
    failures += resize_steps(v3, "v3", "/sharded", metadata), total++;
    snprintf(metadata, sizeof metadata, v2_template, "-1", "{\"id\": \"zlib\", \"level\": 5}",
             "C", ".");
    failures += resize_steps(v2, "v2", "/zlib", metadata), total++;
    snprintf(metadata, sizeof metadata, v2_template, "0",
             "{\"id\": \"blosc\", \"cname\": \"lz4\", \"clevel\": 5, \"shuffle\": 1, \"blocksize\": 0}",
             "F", "/");
    failures += resize_steps(v2, "v2", "/blosc_f", metadata), total++;

    zarr_store_free(v3);
    zarr_store_free(v2);
    printf("%d passed, %d failed\n", total - failures, failures);
    return failures ? 1 : 0;
}
