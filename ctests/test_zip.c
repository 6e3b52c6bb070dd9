/* Zip stores: zarr_store_open_zip on the zarrita.js v3 and v2 fixtures in tests/data/zip (zipped
 * "from within", "from the parent folder", and with stored entries only), group listing,
 * read-only behaviour and every documented error.
 *
 * Expected values are those of /work/shared/corpus/manifest.json ("arrays" entries whose
 * "path" is "zarrita.js/v3/data.zarr/<array>"), hard-coded below next to each array. */
#define _XOPEN_SOURCE 700

#include "ztest.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ZTEST_ZIP_DIR
#error "ZTEST_ZIP_DIR (the tests/data/zip directory) must be defined by the build"
#endif

#define WITHIN ZTEST_ZIP_DIR "/data.zipped_from_within.zarr.zip"
#define PARENT ZTEST_ZIP_DIR "/data.zipped_from_parent.zarr.zip"
#define UNCOMPRESSED ZTEST_ZIP_DIR "/data.uncompressed.zarr.zip"
#define V2_WITHIN ZTEST_ZIP_DIR "/v2.data.zipped_from_within.zarr.zip"
#define V2_PARENT ZTEST_ZIP_DIR "/v2.data.zipped_from_parent.zarr.zip"

/* Read the whole array at `path` into buf (exactly `len` bytes). */
static void read_all(zarr_store *store, const char *path, size_t ndim, const uint64_t *shape,
                     void *buf, size_t len) {
    zarr_array *a = NULL;
    uint64_t start[3] = {0, 0, 0};
    size_t got = 0, rank = 0;
    ZT_OK(zarr_array_open(store, path, &a));
    ZT_OK(zarr_array_ndim(a, &rank));
    ZT_EQ_U64(rank, ndim);
    ZT_OK(zarr_array_selection_nbytes(a, ndim, start, shape, &got));
    ZT_EQ_U64(got, len);
    ZT_OK(zarr_array_read(a, ndim, start, shape, buf, len));
    zarr_array_free(a);
}

/* The arrays every v3 fixture must decode to its manifest values. */
static void check_fixture_arrays(const char *zip) {
    zarr_store *store = NULL;
    int i;
    ZT_OK(zarr_store_open_zip(zip, &store));
    ZT_CHECK(store != NULL);
    {   /* manifest: zarrita.js/v3/data.zarr/1d.contiguous.gzip.i2 (bytes, gzip) */
        const int16_t expected[4] = {1, 2, 3, 4};
        int16_t got[4];
        uint64_t shape[1] = {4};
        read_all(store, "/1d.contiguous.gzip.i2", 1, shape, got, sizeof got);
        ZT_EQ_MEM(got, expected, sizeof expected);
    }
    {   /* manifest: zarrita.js/v3/data.zarr/1d.contiguous.f4.be (bytes big endian, blosc) */
        const float expected[4] = {-1000.5f, 0.0f, 1000.5f, 0.0f};
        float got[4];
        uint64_t shape[1] = {4};
        read_all(store, "/1d.contiguous.f4.be", 1, shape, got, sizeof got);
        ZT_EQ_MEM(got, expected, sizeof expected);
    }
    {   /* manifest: zarrita.js/v3/data.zarr/1d.contiguous.b1: [true, false, true, false] */
        const uint8_t expected[4] = {1, 0, 1, 0};
        uint8_t got[4];
        uint64_t shape[1] = {4};
        read_all(store, "/1d.contiguous.b1", 1, shape, got, sizeof got);
        ZT_EQ_MEM(got, expected, sizeof expected);
    }
    {   /* manifest: zarrita.js/v3/data.zarr/2d.chunked.ragged.i2 (3x3, chunks 2x2, blosc) */
        const int16_t expected[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        int16_t got[9];
        uint64_t shape[2] = {3, 3};
        read_all(store, "/2d.chunked.ragged.i2", 2, shape, got, sizeof got);
        ZT_EQ_MEM(got, expected, sizeof expected);
    }
    {   /* manifest: zarrita.js/v3/data.zarr/3d.chunked.mixed.i2.F (transpose): 0..26 */
        int16_t expected[27], got[27];
        uint64_t shape[3] = {3, 3, 3};
        for (i = 0; i < 27; i++) expected[i] = (int16_t)i;
        read_all(store, "/3d.chunked.mixed.i2.F", 3, shape, got, sizeof got);
        ZT_EQ_MEM(got, expected, sizeof expected);
    }
    {   /* manifest: zarrita.js/v3/data.zarr/1d.contiguous.compressed.sharded.f8 */
        const double expected[4] = {1.5, 2.5, 3.5, 4.5};
        double got[4];
        uint64_t shape[1] = {4};
        read_all(store, "/1d.contiguous.compressed.sharded.f8", 1, shape, got, sizeof got);
        ZT_EQ_MEM(got, expected, sizeof expected);
    }
    {   /* manifest: zarrita.js/v3/data.zarr/1d.chunked.filled.compressed.sharded.i2 */
        const int16_t expected[4] = {1, 2, 0, 0};
        int16_t got[4];
        uint64_t shape[1] = {4};
        read_all(store, "/1d.chunked.filled.compressed.sharded.i2", 1, shape, got, sizeof got);
        ZT_EQ_MEM(got, expected, sizeof expected);
    }
    {   /* manifest: zarrita.js/v3/data.zarr/3d.chunked.compressed.sharded.i2 (4x4x4): 0..63;
         * then a 2x2x2 region from (1,1,1), which reads inner chunks through byte ranges. */
        int16_t expected[64], got[64], region[8];
        uint64_t shape[3] = {4, 4, 4}, start[3] = {1, 1, 1}, count[3] = {2, 2, 2};
        zarr_array *a = NULL;
        int z, y, x, n = 0;
        for (i = 0; i < 64; i++) expected[i] = (int16_t)i;
        read_all(store, "/3d.chunked.compressed.sharded.i2", 3, shape, got, sizeof got);
        ZT_EQ_MEM(got, expected, sizeof expected);
        ZT_OK(zarr_array_open(store, "/3d.chunked.compressed.sharded.i2", &a));
        ZT_OK(zarr_array_read(a, 3, start, count, region, sizeof region));
        zarr_array_free(a);
        for (z = 1; z < 3; z++)
            for (y = 1; y < 3; y++)
                for (x = 1; x < 3; x++) ZT_CHECK(region[n++] == z * 16 + y * 4 + x);
    }
    {   /* manifest: zarrita.js/v3/data.zarr/consolidated/nested/1d.i2 (raw bytes) */
        const int16_t expected[4] = {10, 20, 30, 40};
        int16_t got[4];
        uint64_t shape[1] = {4};
        read_all(store, "/consolidated/nested/1d.i2", 1, shape, got, sizeof got);
        ZT_EQ_MEM(got, expected, sizeof expected);
    }
    zarr_store_free(store);
}

/* The Zarr v2 fixtures (numcodecs compressors and filters, F order, big-endian), read
 * directly and through their consolidated metadata (.zmetadata inside the archive).
 * Expected values: manifest entries zarrita.js/v2/data.zarr/<array>. */
static void check_v2_fixture(const char *zip, int consolidated) {
    static const char *const one_to_four[] = {
        "/1d.contiguous.zlib.i2", "/1d.contiguous.zstd.i2", "/1d.contiguous.lz4.i2", "/1d.contiguous.blosc.i2",
        "/1d.contiguous.delta.i2", "/1d.contiguous.shuffle.i2", "/1d.chunked.i2", "/2d.chunked.i2",
    };
    zarr_store *store = NULL;
    size_t k;
    int i;
    ZT_OK(zarr_store_open_zip(zip, &store));
    if (consolidated) {
        zarr_store *view = NULL;
        ZT_OK(zarr_store_open_consolidated(store, &view));
        zarr_store_free(store);
        store = view;
    }
    for (k = 0; k < sizeof one_to_four / sizeof one_to_four[0]; k++) {
        const int16_t expected[4] = {1, 2, 3, 4};
        int16_t got[4] = {0};
        uint64_t shape1[1] = {4}, shape2[2] = {2, 2};
        int two_d = strncmp(one_to_four[k], "/2d", 3) == 0;
        read_all(store, one_to_four[k], two_d ? 2 : 1, two_d ? shape2 : shape1, got, sizeof got);
        ZT_EQ_MEM(got, expected, sizeof expected);
    }
    {   /* big-endian float32 */
        const float expected[4] = {-1000.5f, 0.0f, 1000.5f, 0.0f};
        float got[4];
        uint64_t shape[1] = {4};
        read_all(store, "/1d.contiguous.f4.be", 1, shape, got, sizeof got);
        ZT_EQ_MEM(got, expected, sizeof expected);
    }
    {   /* delta then shuffle filters */
        const int16_t expected[4] = {10, 20, 30, 40};
        int16_t got[4];
        uint64_t shape[1] = {4};
        read_all(store, "/1d.contiguous.delta.shuffle.i2", 1, shape, got, sizeof got);
        ZT_EQ_MEM(got, expected, sizeof expected);
    }
    {   /* F order chunks: 0..26 */
        int16_t expected[27], got[27];
        uint64_t shape[3] = {3, 3, 3};
        for (i = 0; i < 27; i++) expected[i] = (int16_t)i;
        read_all(store, "/3d.chunked.mixed.i2.F", 3, shape, got, sizeof got);
        ZT_EQ_MEM(got, expected, sizeof expected);
    }
    {
        zarr_group *g = NULL;
        uint32_t format = 0;
        ZT_OK(zarr_group_open(store, "/", &g));
        ZT_OK(zarr_group_format(g, &format));
        ZT_EQ_U64(format, 2);
        zarr_group_free(g);
    }
    zarr_store_free(store);
}

ZTEST(v2_within_reads_arrays) { check_v2_fixture(V2_WITHIN, 0); }
ZTEST(v2_parent_reads_arrays) { check_v2_fixture(V2_PARENT, 0); }
ZTEST(v2_within_consolidated) { check_v2_fixture(V2_WITHIN, 1); }
ZTEST(v2_parent_consolidated) { check_v2_fixture(V2_PARENT, 1); }

ZTEST(within_reads_arrays) { check_fixture_arrays(WITHIN); }
ZTEST(parent_reads_arrays) { check_fixture_arrays(PARENT); }
ZTEST(uncompressed_reads_arrays) { check_fixture_arrays(UNCOMPRESSED); }

/* Children of /consolidated and of the root, in both layouts. */
static void check_listing(const char *zip) {
    zarr_store *store = NULL;
    zarr_group *g = NULL;
    char *json = NULL, *compact;
    ZT_OK(zarr_store_open_zip(zip, &store));
    ZT_OK(zarr_group_open(store, "/consolidated", &g));
    ZT_OK(zarr_group_children_json(g, &json));
    compact = ztest_json_compact(json);
    zarr_string_free(json);
    if (strcmp(compact,
               "[{\"name\":\"1d.chunked.i2\",\"path\":\"/consolidated/1d.chunked.i2\","
               "\"node_type\":\"array\"},"
               "{\"name\":\"2d.contiguous.i2\",\"path\":\"/consolidated/2d.contiguous.i2\","
               "\"node_type\":\"array\"},"
               "{\"name\":\"nested\",\"path\":\"/consolidated/nested\","
               "\"node_type\":\"group\"}]") != 0) {
        fprintf(stderr, "children: %s\n", compact);
        free(compact);
        ZT_CHECK(0);
    }
    free(compact);
    zarr_group_free(g);
    ZT_OK(zarr_group_open(store, "/", &g));
    ZT_OK(zarr_group_children_json(g, &json));
    compact = ztest_json_compact(json);
    zarr_string_free(json);
    ZT_STR_CONTAINS(compact, "{\"name\":\"my group with spaces\",\"path\":\"/my group with "
                             "spaces\",\"node_type\":\"group\"}");
    ZT_STR_CONTAINS(compact, "{\"name\":\"3d.chunked.i2\",\"path\":\"/3d.chunked.i2\","
                             "\"node_type\":\"array\"}");
    /* The parent folder's name is the root, not a child. */
    ZT_CHECK(strstr(compact, "data.zarr") == NULL);
    free(compact);
    zarr_group_free(g);
    zarr_store_free(store);
}

ZTEST(within_group_listing) { check_listing(WITHIN); }
ZTEST(parent_group_listing) { check_listing(PARENT); }

/* ---- errors ---- */

ZTEST(null_arguments) {
    zarr_store *store = (zarr_store *)1;
    ZT_STATUS(zarr_store_open_zip(NULL, &store), ZARR_ERROR_NULL_ARGUMENT);
    ZT_CHECK(store == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_store_open_zip");
    ZT_STR_CONTAINS(zarr_last_error_message(), "'path'");
    ZT_STATUS(zarr_store_open_zip(WITHIN, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'out'");
}

ZTEST(empty_path) {
    zarr_store *store = (zarr_store *)1;
    ZT_STATUS(zarr_store_open_zip("", &store), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_CHECK(store == NULL);
}

ZTEST(missing_file) {
    zarr_store *store = (zarr_store *)1;
    const char *path = ztest_path(ztest_tmp_dir(), "absent.zip");
    ZT_STATUS(zarr_store_open_zip(path, &store), ZARR_ERROR_NOT_FOUND);
    ZT_CHECK(store == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "absent.zip");
}

ZTEST(directory_is_io_error) {
    zarr_store *store = (zarr_store *)1;
    ZT_STATUS(zarr_store_open_zip(ztest_tmp_dir(), &store), ZARR_ERROR_IO);
    ZT_CHECK(store == NULL);
}

ZTEST(not_a_zip) {
    zarr_store *store = (zarr_store *)1;
    const char *dir = ztest_tmp_dir();
    const char *text = ztest_path(dir, "text.zip");
    const char *empty = ztest_path(dir, "empty.zip");
    ZT_CHECK(ztest_write_file(text, "this is not a zip archive\n", 26) == 0);
    ZT_CHECK(ztest_write_file(empty, "", 0) == 0);
    ZT_STATUS(zarr_store_open_zip(text, &store), ZARR_ERROR_CORRUPT_DATA);
    ZT_CHECK(store == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "not a valid zip archive");
    ZT_STATUS(zarr_store_open_zip(empty, &store), ZARR_ERROR_CORRUPT_DATA);
    ZT_CHECK(store == NULL);
}

ZTEST(truncated_zip) {
    zarr_store *store = (zarr_store *)1;
    const char *cut = ztest_path(ztest_tmp_dir(), "cut.zip");
    size_t len = 0;
    char *bytes = (char *)ztest_read_file(WITHIN, &len);
    ZT_CHECK(bytes != NULL && len > 100);
    /* The end of the central directory is lost. */
    ZT_CHECK(ztest_write_file(cut, bytes, len - 10) == 0);
    free(bytes);
    ZT_STATUS(zarr_store_open_zip(cut, &store), ZARR_ERROR_CORRUPT_DATA);
    ZT_CHECK(store == NULL);
}

ZTEST(writes_are_read_only) {
    zarr_store *store = NULL;
    zarr_array *a = NULL, *created = (zarr_array *)1;
    zarr_group *g = NULL, *gc = (zarr_group *)1;
    const int16_t data[4] = {9, 9, 9, 9};
    uint64_t start[1] = {0}, count[1] = {4};
    const char *meta =
        "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4],\"data_type\":\"int16\","
        "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[4]}},"
        "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":0,"
        "\"codecs\":[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}]}";
    ZT_OK(zarr_store_open_zip(PARENT, &store));
    ZT_OK(zarr_array_open(store, "/1d.contiguous.raw.i2", &a));
    ZT_STATUS(zarr_array_write(a, 1, start, count, data, sizeof data), ZARR_ERROR_READ_ONLY);
    ZT_STR_CONTAINS(zarr_last_error_message(), "read-only");
    ZT_STATUS(zarr_array_set_attributes_json(a, "{\"x\":1}"), ZARR_ERROR_READ_ONLY);
    ZT_STATUS(zarr_array_create(store, "/new_array", meta, &created), ZARR_ERROR_READ_ONLY);
    ZT_CHECK(created == NULL);
    ZT_STATUS(zarr_group_create(store, "/new_group", NULL, &gc), ZARR_ERROR_READ_ONLY);
    ZT_CHECK(gc == NULL);
    ZT_OK(zarr_group_open(store, "/", &g));
    ZT_STATUS(zarr_group_set_attributes_json(g, "{\"x\":1}"), ZARR_ERROR_READ_ONLY);
    zarr_group_free(g);
    {   /* The data is unchanged (manifest: 1d.contiguous.raw.i2 = [1, 2, 3, 4]). */
        const int16_t expected[4] = {1, 2, 3, 4};
        int16_t got[4];
        ZT_OK(zarr_array_read(a, 1, start, count, got, sizeof got));
        ZT_EQ_MEM(got, expected, sizeof expected);
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(absent_node_not_found) {
    zarr_store *store = NULL;
    zarr_array *a = (zarr_array *)1;
    zarr_group *g = (zarr_group *)1;
    ZT_OK(zarr_store_open_zip(WITHIN, &store));
    ZT_STATUS(zarr_array_open(store, "/no_such_array", &a), ZARR_ERROR_NOT_FOUND);
    ZT_CHECK(a == NULL);
    ZT_STATUS(zarr_group_open(store, "/no/such/group", &g), ZARR_ERROR_NOT_FOUND);
    ZT_CHECK(g == NULL);
    /* A directory entry is not a value: "3d.chunked.i2/c/" exists only as a directory. */
    ZT_STATUS(zarr_group_open(store, "/3d.chunked.i2/c", &g), ZARR_ERROR_NOT_FOUND);
    ZT_STATUS(zarr_array_open(store, "/../escape", &a), ZARR_ERROR_INVALID_PATH);
    zarr_store_free(store);
}

/* Handles outlive the store handle that opened them. */
ZTEST(array_outlives_store) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    const int16_t expected[4] = {1, 2, 3, 4};
    int16_t got[4];
    uint64_t start[1] = {0}, count[1] = {4};
    ZT_OK(zarr_store_open_zip(WITHIN, &store));
    ZT_OK(zarr_array_open(store, "/1d.contiguous.gzip.i2", &a));
    zarr_store_free(store);
    ZT_OK(zarr_array_read(a, 1, start, count, got, sizeof got));
    ZT_EQ_MEM(got, expected, sizeof expected);
    zarr_array_free(a);
}

/* ---- concurrent reads of one store and one array ---- */

typedef struct {
    const zarr_array *array;
    int failures;
} reader_arg;

static void *reader(void *p) {
    reader_arg *arg = (reader_arg *)p;
    int round, z, y, x;
    for (round = 0; round < 200; round++) {
        uint64_t start[3], count[3] = {1, 2, 2};
        int16_t got[4];
        start[0] = (uint64_t)(round % 4);
        start[1] = (uint64_t)(round % 3);
        start[2] = (uint64_t)((round / 3) % 3);
        if (zarr_array_read(arg->array, 3, start, count, got, sizeof got) != ZARR_OK) {
            arg->failures++;
            continue;
        }
        z = (int)start[0];
        for (y = 0; y < 2; y++)
            for (x = 0; x < 2; x++)
                if (got[y * 2 + x] != z * 16 + ((int)start[1] + y) * 4 + (int)start[2] + x)
                    arg->failures++;
    }
    return NULL;
}

static void concurrent_reads(const char *zip) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    pthread_t threads[4];
    reader_arg args[4];
    int i;
    ZT_OK(zarr_store_open_zip(zip, &store));
    ZT_OK(zarr_array_open(store, "/3d.chunked.compressed.sharded.i2", &a));
    for (i = 0; i < 4; i++) {
        args[i].array = a;
        args[i].failures = 0;
        ZT_CHECK(pthread_create(&threads[i], NULL, reader, &args[i]) == 0);
    }
    for (i = 0; i < 4; i++) pthread_join(threads[i], NULL);
    for (i = 0; i < 4; i++) ZT_CHECK(args[i].failures == 0);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(concurrent_reads_stored) { concurrent_reads(UNCOMPRESSED); }
ZTEST(concurrent_reads_deflated) { concurrent_reads(WITHIN); }

static const ztest_case ztest_cases[] = {
    ZCASE(within_reads_arrays),
    ZCASE(v2_within_reads_arrays),
    ZCASE(v2_parent_reads_arrays),
    ZCASE(v2_within_consolidated),
    ZCASE(v2_parent_consolidated),
    ZCASE(parent_reads_arrays),
    ZCASE(uncompressed_reads_arrays),
    ZCASE(within_group_listing),
    ZCASE(parent_group_listing),
    ZCASE(null_arguments),
    ZCASE(empty_path),
    ZCASE(missing_file),
    ZCASE(directory_is_io_error),
    ZCASE(not_a_zip),
    ZCASE(truncated_zip),
    ZCASE(writes_are_read_only),
    ZCASE(absent_node_not_found),
    ZCASE(array_outlives_store),
    ZCASE(concurrent_reads_stored),
    ZCASE(concurrent_reads_deflated),
};

ZTEST_MAIN()
