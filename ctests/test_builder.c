/* zarr_array_builder: arrays from typed settings (v3, sharded, v2 with dimension names),
 * the documents written, and every setter's errors. */
#include "ztest.h"

#include <math.h>

/* A builder for `type` with the given 2-d shape. */
static zarr_array_builder *builder2(zarr_data_type type, uint64_t rows, uint64_t cols) {
    zarr_array_builder *b = NULL;
    uint64_t shape[2];
    shape[0] = rows;
    shape[1] = cols;
    if (zarr_array_builder_new(type, 2, shape, &b) != ZARR_OK) return NULL;
    return b;
}

ZTEST(v3_with_every_setting) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array_builder *b = builder2(ZARR_DATA_TYPE_FLOAT32, 6, 8);
    zarr_array *a = NULL, *again = NULL;
    uint64_t chunks[2] = {3, 4}, got[2] = {0, 0}, start[2] = {0, 0}, count[2] = {6, 8};
    float fill = -9.5f, values[48], back[48], f = 0;
    char *text = NULL, *doc, *compact;
    size_t n = 0;
    double d = 0;
    int i;
    ZT_CHECK(b != NULL);
    ZT_OK(zarr_store_open_filesystem(dir, &store));
    ZT_OK(zarr_array_builder_set_chunk_shape(b, 2, chunks));
    ZT_OK(zarr_array_builder_set_fill_value(b, &fill, sizeof fill));
    ZT_OK(zarr_array_builder_add_codec(b, "transpose", "{\"order\": [1, 0]}"));
    ZT_OK(zarr_array_builder_add_zstd(b, 3));
    ZT_OK(zarr_array_builder_add_codec(b, "crc32c", NULL));
    ZT_OK(zarr_array_builder_set_dimension_name(b, 0, "lat"));
    ZT_OK(zarr_array_builder_set_dimension_name(b, 1, "lon"));
    ZT_OK(zarr_array_builder_set_dimension_name(b, 1, NULL));
    ZT_OK(zarr_array_builder_set_attributes_json(b, "{\"history\": \"made in C\"}"));
    ZT_OK(zarr_array_builder_set_attribute_string(b, "units", "K"));
    ZT_OK(zarr_array_builder_set_attribute_double(b, "scale", 0.5));
    ZT_OK(zarr_array_builder_set_attribute_int64(b, "version", 7));
    ZT_OK(zarr_array_builder_set_format(b, 3));
    ZT_OK(zarr_array_builder_create(b, store, "/grp/t", &a));
    /* The builder may create more arrays. */
    ZT_OK(zarr_array_builder_create(b, store, "/grp/t2", &again));
    zarr_array_free(again);
    zarr_array_builder_free(b);
    doc = (char *)ztest_read_file(ztest_path(dir, "grp/t/zarr.json"), NULL);
    compact = ztest_json_compact(doc);
    ZT_STR_CONTAINS(compact, "\"fill_value\":-9.5");
    ZT_STR_CONTAINS(compact, "\"dimension_names\":[\"lat\",null]");
    ZT_STR_CONTAINS(compact, "{\"name\":\"transpose\",\"configuration\":{\"order\":[1,0]}},"
                             "{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}},"
                             "{\"name\":\"zstd\",\"configuration\":{\"level\":3,\"checksum\":false}},"
                             "{\"name\":\"crc32c\"}");
    ZT_STR_CONTAINS(compact, "\"chunk_shape\":[3,4]");
    ZT_STR_CONTAINS(compact, "\"history\":\"made in C\"");
    free(compact);
    free(doc);
    ZT_CHECK(ztest_is_file(ztest_path(dir, "grp/zarr.json")));
    /* Read back through the accessors. */
    ZT_OK(zarr_array_open(store, "/grp/t", &again));
    ZT_OK(zarr_array_chunk_shape(again, 2, got));
    ZT_CHECK(got[0] == 3 && got[1] == 4);
    ZT_OK(zarr_array_fill_value(again, &f, sizeof f));
    ZT_CHECK(f == -9.5f);
    ZT_OK(zarr_array_dimension_name(again, 0, &text));
    ZT_CHECK(text && strcmp(text, "lat") == 0);
    zarr_string_free(text);
    ZT_OK(zarr_array_attribute_double(again, "scale", &d));
    ZT_CHECK(d == 0.5);
    ZT_OK(zarr_array_attribute_count(again, &n));
    ZT_EQ_U64(n, 4);
    for (i = 0; i < 48; i++) values[i] = (float)i;
    ZT_OK(zarr_array_write(a, 2, start, count, values, sizeof values));
    ZT_OK(zarr_array_read(again, 2, start, count, back, sizeof back));
    ZT_EQ_MEM(back, values, sizeof back);
    zarr_array_free(a);
    zarr_array_free(again);
    zarr_store_free(store);
}

ZTEST(defaults) {
    zarr_store *store = NULL;
    zarr_array_builder *b = NULL;
    zarr_array *a = NULL;
    uint64_t shape[3] = {2000, 3000, 5}, chunks[3] = {0, 0, 0}, scalar_shape[1] = {0};
    int64_t fill = 1;
    char *name = NULL;
    size_t n = 0;
    uint32_t format = 0;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_builder_new(ZARR_DATA_TYPE_INT64, 3, shape, &b));
    ZT_OK(zarr_array_builder_create(b, store, "/big", &a));
    ZT_OK(zarr_array_chunk_shape(a, 3, chunks));
    /* Halved along the longest extent until a chunk holds at most 4 MiB. */
    ZT_CHECK(chunks[0] * chunks[1] * chunks[2] * 8 <= 4u << 20);
    ZT_CHECK(chunks[2] == 5);
    ZT_OK(zarr_array_fill_value(a, &fill, sizeof fill));
    ZT_EQ_U64(fill, 0);
    ZT_OK(zarr_array_codec_count(a, &n));
    ZT_EQ_U64(n, 1);
    ZT_OK(zarr_array_codec_name(a, 0, &name));
    ZT_CHECK(strcmp(name, "bytes") == 0);
    zarr_string_free(name);
    ZT_OK(zarr_array_format(a, &format));
    ZT_EQ_U64(format, 3);
    zarr_array_free(a);
    zarr_array_builder_free(b);
    /* A 0-d array and an array with an empty dimension. */
    ZT_OK(zarr_array_builder_new(ZARR_DATA_TYPE_UINT8, 0, NULL, &b));
    ZT_OK(zarr_array_builder_create(b, store, "/scalar", &a));
    zarr_array_free(a);
    zarr_array_builder_free(b);
    ZT_OK(zarr_array_builder_new(ZARR_DATA_TYPE_UINT8, 1, scalar_shape, &b));
    ZT_OK(zarr_array_builder_create(b, store, "/empty", &a));
    zarr_array_free(a);
    zarr_array_builder_free(b);
    zarr_array_builder_free(NULL);
    zarr_store_free(store);
}

ZTEST(sharded) {
    zarr_store *store = NULL;
    zarr_array_builder *b = builder2(ZARR_DATA_TYPE_UINT16, 16, 16);
    zarr_array *a = NULL;
    uint64_t chunks[2] = {4, 4}, shards[2] = {8, 8}, got[2] = {0, 0};
    uint64_t start[2] = {0, 0}, count[2] = {16, 16};
    uint16_t values[256], back[256];
    char *name = NULL;
    int i;
    ZT_CHECK(b != NULL);
    ZT_OK(zarr_store_open_memory(&store));
    /* Either order: shards first here. */
    ZT_OK(zarr_array_builder_set_shard_shape(b, 2, shards));
    ZT_OK(zarr_array_builder_set_chunk_shape(b, 2, chunks));
    ZT_OK(zarr_array_builder_add_gzip(b, 4));
    ZT_OK(zarr_array_builder_create(b, store, "/s", &a));
    ZT_OK(zarr_array_chunk_shape(a, 2, got));
    ZT_CHECK(got[0] == 8 && got[1] == 8);
    ZT_OK(zarr_array_inner_chunk_shape(a, 2, got));
    ZT_CHECK(got[0] == 4 && got[1] == 4);
    ZT_OK(zarr_array_codec_name(a, 0, &name));
    ZT_CHECK(strcmp(name, "sharding_indexed") == 0);
    zarr_string_free(name);
    for (i = 0; i < 256; i++) values[i] = (uint16_t)(i * 3);
    ZT_OK(zarr_array_write(a, 2, start, count, values, sizeof values));
    ZT_OK(zarr_array_read(a, 2, start, count, back, sizeof back));
    ZT_EQ_MEM(back, values, sizeof back);
    zarr_array_free(a);
    /* A shard shape that is not a multiple of the chunk shape: refused by create. */
    shards[1] = 6;
    ZT_OK(zarr_array_builder_set_shard_shape(b, 2, shards));
    a = (zarr_array *)1;
    ZT_STATUS(zarr_array_builder_create(b, store, "/bad", &a), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_CHECK(a == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "multiple");
    zarr_array_builder_free(b);
    zarr_store_free(store);
}

ZTEST(v2_with_dimension_names) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_group *g = NULL;
    zarr_array_builder *b = builder2(ZARR_DATA_TYPE_FLOAT64, 5, 4);
    zarr_array *a = NULL;
    uint64_t chunks[2] = {2, 2}, start[2] = {0, 0}, count[2] = {5, 4};
    double fill = NAN, values[20], back[20];
    char *doc, *compact, *name = NULL;
    uint32_t format = 0;
    int i;
    ZT_CHECK(b != NULL);
    ZT_OK(zarr_store_open_filesystem(dir, &store));
    ZT_OK(zarr_group_create_with_format(store, "/", NULL, 2, &g));
    ZT_OK(zarr_array_builder_set_format(b, 2));
    ZT_OK(zarr_array_builder_set_chunk_shape(b, 2, chunks));
    ZT_OK(zarr_array_builder_set_fill_value(b, &fill, sizeof fill));
    ZT_OK(zarr_array_builder_add_codec(b, "numcodecs.shuffle", "{\"elementsize\": 8}"));
    ZT_OK(zarr_array_builder_add_codec(b, "blosc", "{\"cname\": \"zstd\", \"clevel\": 2, \"shuffle\": \"noshuffle\"}"));
    ZT_OK(zarr_array_builder_set_dimension_name(b, 0, "y"));
    ZT_OK(zarr_array_builder_set_dimension_name(b, 1, "x"));
    ZT_OK(zarr_array_builder_set_attribute_string(b, "units", "m"));
    ZT_OK(zarr_array_builder_create(b, store, "/h", &a));
    doc = (char *)ztest_read_file(ztest_path(dir, "h/.zarray"), NULL);
    compact = ztest_json_compact(doc);
    ZT_STR_CONTAINS(compact, "\"dtype\":\"<f8\"");
    ZT_STR_CONTAINS(compact, "\"fill_value\":\"NaN\"");
    ZT_STR_CONTAINS(compact, "\"compressor\":{\"cname\":\"zstd\",\"clevel\":2,\"shuffle\":0");
    ZT_STR_CONTAINS(compact, "\"filters\":[{\"elementsize\":8,\"id\":\"shuffle\"}]");
    ZT_STR_CONTAINS(compact, "\"dimension_separator\":\".\"");
    free(compact);
    free(doc);
    doc = (char *)ztest_read_file(ztest_path(dir, "h/.zattrs"), NULL);
    compact = ztest_json_compact(doc);
    ZT_STR_CONTAINS(compact, "\"_ARRAY_DIMENSIONS\":[\"y\",\"x\"]");
    ZT_STR_CONTAINS(compact, "\"units\":\"m\"");
    free(compact);
    free(doc);
    ZT_OK(zarr_array_format(a, &format));
    ZT_EQ_U64(format, 2);
    ZT_OK(zarr_array_dimension_name(a, 1, &name));
    ZT_CHECK(name && strcmp(name, "x") == 0);
    zarr_string_free(name);
    for (i = 0; i < 20; i++) values[i] = i / 4.0;
    ZT_OK(zarr_array_write(a, 2, start, count, values, sizeof values));
    ZT_CHECK(ztest_is_file(ztest_path(dir, "h/2.1")));
    ZT_OK(zarr_array_read(a, 2, start, count, back, sizeof back));
    ZT_EQ_MEM(back, values, sizeof back);
    zarr_array_free(a);
    /* Only one dimension named: v2 cannot store that. */
    ZT_OK(zarr_array_builder_set_dimension_name(b, 1, NULL));
    ZT_STATUS(zarr_array_builder_create(b, store, "/partial", &a), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "_ARRAY_DIMENSIONS");
    zarr_array_builder_free(b);
    /* A codec v2 has no place for (only the reversed transpose is order "F"). */
    b = builder2(ZARR_DATA_TYPE_UINT8, 4, 4);
    ZT_OK(zarr_array_builder_set_format(b, 2));
    ZT_OK(zarr_array_builder_add_codec(b, "transpose", "{\"order\": [1, 0]}"));
    ZT_OK(zarr_array_builder_create(b, store, "/f", &a));
    zarr_array_free(a);
    doc = (char *)ztest_read_file(ztest_path(dir, "f/.zarray"), NULL);
    ZT_STR_CONTAINS(doc, "\"order\": \"F\"");
    free(doc);
    zarr_array_builder_free(b);
    b = builder2(ZARR_DATA_TYPE_UINT8, 4, 4);
    ZT_OK(zarr_array_builder_set_format(b, 2));
    ZT_OK(zarr_array_builder_add_codec(b, "transpose", "{\"order\": [0, 1]}"));
    ZT_STATUS(zarr_array_builder_create(b, store, "/t", &a), ZARR_ERROR_INVALID_ARGUMENT);
    zarr_array_builder_free(b);
    zarr_group_free(g);
    zarr_store_free(store);
}

ZTEST(setter_errors) {
    zarr_store *store = NULL;
    zarr_array_builder *b = NULL;
    zarr_array *a = NULL;
    uint64_t shape[2] = {4, 4}, bad_rank[1] = {4}, zero[2] = {0, 4}, huge[2] = {UINT64_MAX, UINT64_MAX};
    uint64_t chunks[2] = {2, 2};
    uint8_t two = 2, one = 1;
    int32_t i32 = 0;
    ZT_OK(zarr_store_open_memory(&store));
    /* new */
    b = (zarr_array_builder *)1;
    ZT_STATUS(zarr_array_builder_new(ZARR_DATA_TYPE_RAW, 2, shape, &b), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_CHECK(b == NULL);
    ZT_STATUS(zarr_array_builder_new(0, 2, shape, &b), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_new(99, 2, shape, &b), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_new(ZARR_DATA_TYPE_UINT8, 2, huge, &b), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_array_builder_new(ZARR_DATA_TYPE_UINT8, 2, NULL, &b), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_builder_new(ZARR_DATA_TYPE_UINT8, 2, shape, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_builder_new(ZARR_DATA_TYPE_UINT8, SIZE_MAX, shape, &b),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_OK(zarr_array_builder_new(ZARR_DATA_TYPE_BOOL, 2, shape, &b));
    /* chunk shape */
    ZT_STATUS(zarr_array_builder_set_chunk_shape(b, 1, bad_rank), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_chunk_shape(b, 2, zero), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_chunk_shape(b, 2, huge), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_array_builder_set_chunk_shape(b, 2, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_chunk_shape(NULL, 2, chunks), ZARR_ERROR_NULL_ARGUMENT);
    /* shard shape */
    ZT_STATUS(zarr_array_builder_set_shard_shape(b, 1, bad_rank), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_shard_shape(b, 2, zero), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_shard_shape(b, 2, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_shard_shape(NULL, 2, chunks), ZARR_ERROR_NULL_ARGUMENT);
    /* fill value */
    ZT_STATUS(zarr_array_builder_set_fill_value(b, &two, 1), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_fill_value(b, &i32, sizeof i32), ZARR_ERROR_BUFFER_SIZE_MISMATCH);
    ZT_STATUS(zarr_array_builder_set_fill_value(b, NULL, 0), ZARR_ERROR_BUFFER_SIZE_MISMATCH);
    ZT_STATUS(zarr_array_builder_set_fill_value(b, NULL, 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_fill_value(NULL, &one, 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_OK(zarr_array_builder_set_fill_value(b, &one, 1));
    /* codecs */
    ZT_STATUS(zarr_array_builder_add_codec(b, "no_such_codec", NULL), ZARR_ERROR_UNSUPPORTED);
    ZT_STATUS(zarr_array_builder_add_codec(b, "gzip", "{\"level\": 42}"), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_add_codec(b, "gzip", "[1]"), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_add_codec(b, "gzip", "{oops"), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_add_codec(b, "", NULL), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_add_codec(b, "transpose", "{\"order\": [0]}"),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_add_codec(b, NULL, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_builder_add_codec(NULL, "gzip", NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_OK(zarr_array_builder_add_codec(b, "bytes", NULL));
    ZT_STATUS(zarr_array_builder_add_codec(b, "bytes", NULL), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_add_gzip(b, 10), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_add_gzip(b, -1), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_add_gzip(NULL, 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_builder_add_zstd(b, 23), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_add_zstd(NULL, 1), ZARR_ERROR_NULL_ARGUMENT);
    /* dimension names */
    ZT_STATUS(zarr_array_builder_set_dimension_name(b, 2, "z"), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_array_builder_set_dimension_name(b, 0, "\xff"), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_dimension_name(NULL, 0, "y"), ZARR_ERROR_NULL_ARGUMENT);
    /* attributes */
    ZT_STATUS(zarr_array_builder_set_attributes_json(b, "[]"), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_attributes_json(b, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_attributes_json(NULL, "{}"), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_attribute_string(b, NULL, "v"), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_attribute_string(b, "k", NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_attribute_string(b, "k", "\xc3"), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_attribute_string(NULL, "k", "v"), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_attribute_double(b, NULL, 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_attribute_double(NULL, "k", 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_attribute_int64(b, NULL, 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_attribute_int64(NULL, "k", 1), ZARR_ERROR_NULL_ARGUMENT);
    /* format */
    ZT_STATUS(zarr_array_builder_set_format(b, 1), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_format(b, 4), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_builder_set_format(NULL, 3), ZARR_ERROR_NULL_ARGUMENT);
    ZT_OK(zarr_array_builder_set_shard_shape(b, 2, shape));
    ZT_STATUS(zarr_array_builder_set_format(b, 2), ZARR_ERROR_INVALID_ARGUMENT);
    /* create */
    ZT_OK(zarr_array_builder_set_chunk_shape(b, 2, chunks));
    ZT_OK(zarr_array_builder_create(b, store, "/ok", &a));
    zarr_array_free(a);
    a = (zarr_array *)1;
    ZT_STATUS(zarr_array_builder_create(b, store, "/ok", &a), ZARR_ERROR_ALREADY_EXISTS);
    ZT_CHECK(a == NULL);
    ZT_STATUS(zarr_array_builder_create(b, store, "/ok/inside", &a), ZARR_ERROR_NODE_TYPE_MISMATCH);
    ZT_STATUS(zarr_array_builder_create(b, store, "no-slash", &a), ZARR_ERROR_INVALID_PATH);
    ZT_STATUS(zarr_array_builder_create(NULL, store, "/x", &a), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_builder_create(b, NULL, "/x", &a), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_builder_create(b, store, NULL, &a), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_builder_create(b, store, "/x", NULL), ZARR_ERROR_NULL_ARGUMENT);
    zarr_array_builder_free(b);
    zarr_store_free(store);
}

/* Codecs checked against the chunk shape when added, and again by create. */
ZTEST(codecs_checked_against_later_chunk_shapes) {
    zarr_store *store = NULL;
    zarr_array_builder *b = builder2(ZARR_DATA_TYPE_UINT8, 4, 4);
    zarr_array *a = NULL;
    uint64_t chunks[2] = {2, 2};
    ZT_CHECK(b != NULL);
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_builder_add_codec(b, "numcodecs.zlib", "{\"level\": 1}"));
    ZT_OK(zarr_array_builder_set_chunk_shape(b, 2, chunks));
    ZT_OK(zarr_array_builder_create(b, store, "/z", &a));
    zarr_array_free(a);
    zarr_array_builder_free(b);
    zarr_store_free(store);
}

static const ztest_case ztest_cases[] = {
    ZCASE(v3_with_every_setting),
    ZCASE(defaults),
    ZCASE(sharded),
    ZCASE(v2_with_dimension_names),
    ZCASE(setter_errors),
    ZCASE(codecs_checked_against_later_chunk_shapes),
};

ZTEST_MAIN()
