/* Sharding (`sharding_indexed`) through the C API: region round trips, inner chunks
 * (zarr_array_inner_chunk_shape, zarr_array_read_inner_chunk), shards that are all fill,
 * and damaged shards. */
#include "ztest.h"

#include <unistd.h>

/* A 2-D int32 array of shape 10 x 12 in 4 x 6 shards of 2 x 3 inner chunks. */
static const char *sharded_metadata(const char *index_location, const char *inner_codecs) {
    static char buffer[2048];
    snprintf(buffer, sizeof buffer,
             "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [10, 12],"
             " \"data_type\": \"int32\","
             " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [4, 6]}},"
             " \"chunk_key_encoding\": {\"name\": \"default\"},"
             " \"fill_value\": -1,"
             " \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {"
             "   \"chunk_shape\": [2, 3], \"codecs\": %s,"
             "   \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"
             "                      {\"name\": \"crc32c\"}],"
             "   \"index_location\": \"%s\"}}]}",
             inner_codecs, index_location);
    return buffer;
}

static const char *plain_inner =
    "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]";
static const char *zstd_inner =
    "[{\"name\": \"bytes\", \"configuration\": {\"endian\": \"big\"}},"
    " {\"name\": \"zstd\", \"configuration\": {\"level\": 1, \"checksum\": true}}]";

/* Create the array in a new directory and write values row * 100 + column. */
static zarr_array *make_sharded(const char *dir, const char *metadata, zarr_store **store_out) {
    zarr_array *array = NULL;
    int32_t values[10 * 12];
    uint64_t start[2] = {0, 0}, count[2] = {10, 12};
    int i;
    for (i = 0; i < 10 * 12; i++) values[i] = (i / 12) * 100 + i % 12;
    if (zarr_store_open_filesystem(dir, store_out) != ZARR_OK) return NULL;
    if (zarr_array_create(*store_out, "/s", metadata, &array) != ZARR_OK) return NULL;
    if (zarr_array_write(array, 2, start, count, values, sizeof values) != ZARR_OK) {
        zarr_array_free(array);
        return NULL;
    }
    return array;
}

ZTEST(round_trip_index_at_start_and_end) {
    const char *locations[2] = {"start", "end"};
    int l;
    for (l = 0; l < 2; l++) {
        const char *dir = ztest_tmp_dir();
        zarr_store *store = NULL;
        zarr_array *array = make_sharded(dir, sharded_metadata(locations[l], zstd_inner), &store);
        int32_t all[10 * 12], block[3 * 5];
        uint64_t start[2] = {0, 0}, count[2] = {10, 12};
        uint64_t bstart[2] = {3, 4}, bcount[2] = {3, 5};
        int i;
        ZT_CHECK(array != NULL);
        ZT_OK(zarr_array_read(array, 2, start, count, all, sizeof all));
        for (i = 0; i < 10 * 12; i++) ZT_EQ_U64(all[i], (i / 12) * 100 + i % 12);
        /* A block that crosses shard boundaries is read from the shards' indexes. */
        ZT_OK(zarr_array_read(array, 2, bstart, bcount, block, sizeof block));
        for (i = 0; i < 15; i++) ZT_EQ_U64(block[i], (3 + i / 5) * 100 + 4 + i % 5);
        /* Shards are the stored chunks: 3 x 2 of them. */
        ZT_CHECK(access(ztest_path(dir, "s/c/2/1"), F_OK) == 0);
        ZT_CHECK(access(ztest_path(dir, "s/c/2/0/0"), F_OK) != 0);
        zarr_array_free(array);
        zarr_store_free(store);
    }
}

ZTEST(inner_chunk_shape) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *array = make_sharded(dir, sharded_metadata("end", plain_inner), &store);
    uint64_t inner[2] = {0, 0}, chunk[2] = {0, 0};
    ZT_CHECK(array != NULL);
    ZT_OK(zarr_array_inner_chunk_shape(array, 2, inner));
    ZT_EQ_U64(inner[0], 2);
    ZT_EQ_U64(inner[1], 3);
    ZT_OK(zarr_array_chunk_shape(array, 2, chunk));
    ZT_EQ_U64(chunk[0], 4);
    ZT_EQ_U64(chunk[1], 6);
    zarr_array_free(array);
    zarr_store_free(store);
}

ZTEST(inner_chunk_shape_of_unsharded_array_is_chunk_shape) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    uint64_t inner[1] = {0};
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/p",
                            "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [10],"
                            " \"data_type\": \"uint8\", \"chunk_grid\": {\"name\": \"regular\","
                            " \"configuration\": {\"chunk_shape\": [4]}},"
                            " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0,"
                            " \"codecs\": [{\"name\": \"bytes\"}]}",
                            &array));
    ZT_OK(zarr_array_inner_chunk_shape(array, 1, inner));
    ZT_EQ_U64(inner[0], 4);
    zarr_array_free(array);
    zarr_store_free(store);
}

ZTEST(inner_chunk_shape_errors) {
    zarr_store *store = NULL;
    zarr_array *array = make_sharded(ztest_tmp_dir(), sharded_metadata("end", plain_inner), &store);
    uint64_t inner[3];
    ZT_CHECK(array != NULL);
    ZT_STATUS(zarr_array_inner_chunk_shape(NULL, 2, inner), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "array");
    ZT_STATUS(zarr_array_inner_chunk_shape(array, 2, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "inner_chunk_shape_out");
    ZT_STATUS(zarr_array_inner_chunk_shape(array, 3, inner), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_inner_chunk_shape");
    zarr_array_free(array);
    zarr_store_free(store);
}

ZTEST(read_inner_chunk_values_and_edge) {
    zarr_store *store = NULL;
    zarr_array *array = make_sharded(ztest_tmp_dir(), sharded_metadata("end", zstd_inner), &store);
    int32_t inner[2 * 3];
    uint64_t middle[2] = {1, 2}, edge[2] = {4, 3};
    int i;
    ZT_CHECK(array != NULL);
    /* Inner chunk (1, 2) covers rows 2..3 and columns 6..8. */
    ZT_OK(zarr_array_read_inner_chunk(array, 2, middle, inner, sizeof inner));
    for (i = 0; i < 6; i++) ZT_EQ_U64(inner[i], (2 + i / 3) * 100 + 6 + i % 3);
    /* Inner chunk (4, 3) covers rows 8..9, columns 9..11: inside the array entirely. */
    ZT_OK(zarr_array_read_inner_chunk(array, 2, edge, inner, sizeof inner));
    for (i = 0; i < 6; i++) ZT_EQ_U64(inner[i], (8 + i / 3) * 100 + 9 + i % 3);
    zarr_array_free(array);
    zarr_store_free(store);
}

ZTEST(read_inner_chunk_never_written_is_fill) {
    zarr_store *store = NULL;
    zarr_array *array = NULL;
    int32_t inner[2 * 3];
    uint64_t at[2] = {0, 0};
    int i;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/s", sharded_metadata("start", plain_inner), &array));
    ZT_OK(zarr_array_read_inner_chunk(array, 2, at, inner, sizeof inner));
    for (i = 0; i < 6; i++) ZT_EQ_U64((uint32_t)inner[i], (uint32_t)-1);
    zarr_array_free(array);
    zarr_store_free(store);
}

ZTEST(read_inner_chunk_errors_leave_buffer_untouched) {
    zarr_store *store = NULL;
    zarr_array *array = make_sharded(ztest_tmp_dir(), sharded_metadata("end", plain_inner), &store);
    unsigned char buf[24], sentinel[24];
    uint64_t ok[2] = {0, 0}, beyond[2] = {5, 0}, three[3] = {0, 0, 0};
    ZT_CHECK(array != NULL);
    memset(buf, 0xAB, sizeof buf);
    memcpy(sentinel, buf, sizeof buf);
    ZT_STATUS(zarr_array_read_inner_chunk(NULL, 2, ok, buf, sizeof buf), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_read_inner_chunk(array, 2, NULL, buf, sizeof buf),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "inner_chunk_indices");
    ZT_STATUS(zarr_array_read_inner_chunk(array, 2, ok, NULL, sizeof buf), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_read_inner_chunk(array, 3, three, buf, sizeof buf),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_read_inner_chunk(array, 2, beyond, buf, sizeof buf),
              ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_array_read_inner_chunk(array, 2, ok, buf, sizeof buf - 1),
              ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_STATUS(zarr_array_read_inner_chunk(array, 2, ok, NULL, SIZE_MAX),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_EQ_MEM(buf, sentinel, sizeof buf);
    zarr_array_free(array);
    zarr_store_free(store);
}

ZTEST(all_fill_shard_is_not_stored) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *array = make_sharded(dir, sharded_metadata("end", plain_inner), &store);
    int32_t fill[4 * 6];
    uint64_t start[2] = {0, 0}, count[2] = {4, 6};
    int i;
    ZT_CHECK(array != NULL);
    ZT_CHECK(access(ztest_path(dir, "s/c/0/0"), F_OK) == 0);
    for (i = 0; i < 24; i++) fill[i] = -1;
    ZT_OK(zarr_array_write(array, 2, start, count, fill, sizeof fill));
    ZT_CHECK(access(ztest_path(dir, "s/c/0/0"), F_OK) != 0);
    zarr_array_free(array);
    zarr_store_free(store);
}

ZTEST(partial_shard_write_keeps_other_inner_chunks) {
    zarr_store *store = NULL;
    zarr_array *array = make_sharded(ztest_tmp_dir(), sharded_metadata("start", zstd_inner), &store);
    int32_t one = 7, check[4 * 6];
    uint64_t at[2] = {1, 1}, single[2] = {1, 1};
    uint64_t start[2] = {0, 0}, count[2] = {4, 6};
    int i;
    ZT_CHECK(array != NULL);
    ZT_OK(zarr_array_write(array, 2, at, single, &one, sizeof one));
    ZT_OK(zarr_array_read(array, 2, start, count, check, sizeof check));
    for (i = 0; i < 24; i++) {
        int32_t expected = (i == 1 * 6 + 1) ? 7 : (i / 6) * 100 + i % 6;
        ZT_EQ_U64(check[i], expected);
    }
    zarr_array_free(array);
    zarr_store_free(store);
}

ZTEST(bad_index_checksum_is_corrupt) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *array = make_sharded(dir, sharded_metadata("end", plain_inner), &store);
    unsigned char *shard;
    size_t len = 0;
    int32_t value = 12345, out = 99;
    uint64_t at[2] = {0, 0}, single[2] = {1, 1};
    ZT_CHECK(array != NULL);
    shard = ztest_read_file(ztest_path(dir, "s/c/0/0"), &len);
    ZT_CHECK(shard != NULL && len > 8);
    shard[len - 1] ^= 0xFF; /* the index's crc32c */
    ZT_CHECK(ztest_write_file(ztest_path(dir, "s/c/0/0"), shard, len) == 0);
    free(shard);
    ZT_STATUS(zarr_array_read(array, 2, at, single, &out, sizeof out), ZARR_ERROR_CORRUPT_DATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "crc32c");
    ZT_EQ_U64(out, 99);
    /* A write that must merge with the damaged shard fails before writing anything. */
    ZT_STATUS(zarr_array_write(array, 2, at, single, &value, sizeof value),
              ZARR_ERROR_CORRUPT_DATA);
    zarr_array_free(array);
    zarr_store_free(store);
}

ZTEST(truncated_shard_is_corrupt) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *array = make_sharded(dir, sharded_metadata("end", plain_inner), &store);
    int32_t all[4 * 6], one = 0;
    uint64_t start[2] = {0, 0}, count[2] = {4, 6}, single[2] = {1, 1};
    ZT_CHECK(array != NULL);
    ZT_CHECK(ztest_write_file(ztest_path(dir, "s/c/0/0"), "short", 5) == 0);
    ZT_STATUS(zarr_array_read(array, 2, start, count, all, sizeof all), ZARR_ERROR_CORRUPT_DATA);
    ZT_STATUS(zarr_array_read(array, 2, start, single, &one, sizeof one), ZARR_ERROR_CORRUPT_DATA);
    zarr_array_free(array);
    zarr_store_free(store);
}

ZTEST(uneven_inner_chunk_shape_is_invalid_metadata) {
    zarr_store *store = NULL;
    zarr_array *array = (zarr_array *)1;
    const char *bad =
        "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [10], \"data_type\": \"uint8\","
        " \"chunk_grid\": {\"name\": \"regular\", \"configuration\": {\"chunk_shape\": [4]}},"
        " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0,"
        " \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {\"chunk_shape\": [3],"
        " \"codecs\": [{\"name\": \"bytes\"}], \"index_codecs\": [{\"name\": \"bytes\","
        " \"configuration\": {\"endian\": \"little\"}}]}}]}";
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(zarr_array_create(store, "/bad", bad, &array), ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "evenly divide");
    ZT_CHECK(array == NULL);
    zarr_store_free(store);
}

static const ztest_case ztest_cases[] = {
    ZCASE(round_trip_index_at_start_and_end),
    ZCASE(inner_chunk_shape),
    ZCASE(inner_chunk_shape_of_unsharded_array_is_chunk_shape),
    ZCASE(inner_chunk_shape_errors),
    ZCASE(read_inner_chunk_values_and_edge),
    ZCASE(read_inner_chunk_never_written_is_fill),
    ZCASE(read_inner_chunk_errors_leave_buffer_untouched),
    ZCASE(all_fill_shard_is_not_stored),
    ZCASE(partial_shard_write_keeps_other_inner_chunks),
    ZCASE(bad_index_checksum_is_corrupt),
    ZCASE(truncated_shard_is_corrupt),
    ZCASE(uneven_inner_chunk_shape_is_invalid_metadata),
};

ZTEST_MAIN()
