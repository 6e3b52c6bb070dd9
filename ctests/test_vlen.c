/* Variable-length elements (`string`, `bytes`; v2 `|O`): zarr_array_read_vlen and
 * zarr_array_write_vlen, Arrow-style offsets, the size query, the exact bytes stored, and
 * every documented error, including chunks that lie about their contents; the same inside
 * `sharding_indexed` shards (as zarr-python 3 writes with `shards=`). */
#include "ztest.h"

#define STRINGS_V3                                                                         \
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [3, 4],"                    \
    " \"data_type\": \"string\", \"chunk_grid\": {\"name\": \"regular\","                  \
    " \"configuration\": {\"chunk_shape\": [2, 2]}},"                                      \
    " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": \"\","               \
    " \"codecs\": [{\"name\": \"vlen-utf8\"}, {\"name\": \"zstd\","                         \
    " \"configuration\": {\"level\": 3, \"checksum\": false}}]}"

#define BYTES_V3                                                                           \
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [5],"                       \
    " \"data_type\": \"bytes\", \"chunk_grid\": {\"name\": \"regular\","                   \
    " \"configuration\": {\"chunk_shape\": [5]}},"                                         \
    " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": \"\","               \
    " \"codecs\": [{\"name\": \"vlen-bytes\"}]}"

/* zarr-python 2 / xarray: an object array of str, fill value 0 (read as ""). */
#define STRINGS_V2                                                                         \
    "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": \"|O\","              \
    " \"compressor\": null, \"fill_value\": 0, \"order\": \"C\","                           \
    " \"filters\": [{\"id\": \"vlen-utf8\"}]}"

/* zarr-python 3's v2 string array: fill value null (read as ""). */
#define STRINGS_V2_NULL_FILL                                                               \
    "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": \"|O\","              \
    " \"compressor\": null, \"fill_value\": null, \"order\": \"C\","                        \
    " \"filters\": [{\"id\": \"vlen-utf8\"}]}"

#define JSON2_V2                                                                           \
    "{\"zarr_format\": 2, \"shape\": [2, 2], \"chunks\": [2, 2], \"dtype\": \"|O\","        \
    " \"compressor\": null, \"fill_value\": null, \"order\": \"C\","                        \
    " \"filters\": [{\"id\": \"json2\", \"encoding\": \"utf-8\"}]}"

/* zarr-python 3's layout for `shards=(4, 4), chunks=(2, 2)`: index with crc32c at the end. */
#define STRINGS_SHARDED                                                                    \
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [7, 5],"                    \
    " \"data_type\": \"string\", \"chunk_grid\": {\"name\": \"regular\","                  \
    " \"configuration\": {\"chunk_shape\": [4, 4]}},"                                      \
    " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": \"\","               \
    " \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {"                  \
    " \"chunk_shape\": [2, 2], \"codecs\": [{\"name\": \"vlen-utf8\"},"                    \
    " {\"name\": \"zstd\", \"configuration\": {\"level\": 0, \"checksum\": false}}],"        \
    " \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}},"\
    " {\"name\": \"crc32c\"}], \"index_location\": \"end\"}}]}"

/* Bytes in shards of two inner chunks, the index (no checksum) at the start. */
#define BYTES_SHARDED                                                                      \
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [5],"                       \
    " \"data_type\": \"bytes\", \"chunk_grid\": {\"name\": \"regular\","                   \
    " \"configuration\": {\"chunk_shape\": [4]}},"                                         \
    " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": \"\","               \
    " \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {"                  \
    " \"chunk_shape\": [2], \"codecs\": [{\"name\": \"vlen-bytes\"}],"                     \
    " \"index_codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}],"\
    " \"index_location\": \"start\"}}]}"

/* Shards inside shards: not supported for variable-length elements. */
#define STRINGS_NESTED                                                                     \
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4],"                       \
    " \"data_type\": \"string\", \"chunk_grid\": {\"name\": \"regular\","                  \
    " \"configuration\": {\"chunk_shape\": [4]}},"                                         \
    " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": \"\","               \
    " \"codecs\": [{\"name\": \"sharding_indexed\", \"configuration\": {"                  \
    " \"chunk_shape\": [2], \"codecs\": [{\"name\": \"sharding_indexed\","                 \
    " \"configuration\": {\"chunk_shape\": [1], \"codecs\": [{\"name\": \"vlen-utf8\"}],"     \
    " \"index_codecs\": [{\"name\": \"bytes\"}]}}],"                                       \
    " \"index_codecs\": [{\"name\": \"bytes\"}]}}]}"

#define INTS_V3                                                                            \
    "{\"zarr_format\": 3, \"node_type\": \"array\", \"shape\": [4],"                       \
    " \"data_type\": \"int32\", \"chunk_grid\": {\"name\": \"regular\","                   \
    " \"configuration\": {\"chunk_shape\": [2]}},"                                         \
    " \"chunk_key_encoding\": {\"name\": \"default\"}, \"fill_value\": 0,"                  \
    " \"codecs\": [{\"name\": \"bytes\", \"configuration\": {\"endian\": \"little\"}}]}"

static zarr_array *make(zarr_store **store, const char *meta) {
    zarr_array *array = NULL;
    *store = NULL;
    if (zarr_store_open_memory(store) != ZARR_OK) return NULL;
    if (zarr_array_create(*store, "/s", meta, &array) != ZARR_OK) return NULL;
    return array;
}

/* Element `i` of a read, as a NUL-terminated copy (in a static buffer). */
static const char *element(const uint64_t *offsets, const char *data, size_t i) {
    static char out[256];
    size_t n = (size_t)(offsets[i + 1] - offsets[i]);
    if (n >= sizeof out) n = sizeof out - 1;
    memcpy(out, data + offsets[i], n);
    out[n] = '\0';
    return out;
}

/* Offsets and data for the NUL-terminated `items`. */
static size_t arrow(const char *const *items, size_t n, uint64_t *offsets, char *data) {
    size_t i, at = 0;
    offsets[0] = 0;
    for (i = 0; i < n; i++) {
        size_t len = strlen(items[i]);
        memcpy(data + at, items[i], len);
        at += len;
        offsets[i + 1] = at;
    }
    return at;
}

ZTEST(strings_round_trip_with_the_size_query) {
    zarr_store *store = NULL;
    zarr_array *a = make(&store, STRINGS_V3);
    static const char *const items[] = {"alpha", "", "\xc3\xa9t\xc3\xa9", "\xf0\x9f\x98\x80",
                                        "x", "a longer string than the others"};
    uint64_t start[2] = {1, 1}, count[2] = {2, 3}, offsets[13];
    uint64_t all_start[2] = {0, 0}, all_count[2] = {3, 4};
    char data[128], back[128];
    size_t used, size = 0, i;
    zarr_data_type type = 0;
    size_t element_size = 99, chunk_nbytes = 99;
    ZT_CHECK(a != NULL);
    ZT_OK(zarr_array_data_type(a, &type));
    ZT_EQ_U64(type, ZARR_DATA_TYPE_STRING);
    ZT_OK(zarr_array_element_size(a, &element_size));
    ZT_EQ_U64(element_size, 0);
    ZT_OK(zarr_array_chunk_nbytes(a, &chunk_nbytes));
    ZT_EQ_U64(chunk_nbytes, 0);
    used = arrow(items, 6, offsets, data);
    ZT_OK(zarr_array_write_vlen(a, 2, start, count, offsets, 7, data, used));
    /* Size query: data NULL (whatever the capacity says), the offsets filled. */
    memset(offsets, 0xff, sizeof offsets);
    ZT_OK(zarr_array_read_vlen(a, 2, all_start, all_count, offsets, 13, NULL, 1000, &size));
    ZT_EQ_U64(size, used);
    ZT_EQ_U64(offsets[0], 0);
    ZT_EQ_U64(offsets[12], used);
    ZT_OK(zarr_array_read_vlen(a, 2, all_start, all_count, offsets, 13, back, size, &size));
    ZT_EQ_U64(size, used);
    {
        /* Row 0 and the cells outside the write are the fill value "". */
        static const char *const expected[12] = {
            "", "", "", "", "", "alpha", "", "\xc3\xa9t\xc3\xa9",
            "", "\xf0\x9f\x98\x80", "x", "a longer string than the others"};
        for (i = 0; i < 12; i++)
            if (strcmp(element(offsets, back, i), expected[i]) != 0)
                ZT_FAIL_("element %zu is '%s', not '%s'", i, element(offsets, back, i),
                         expected[i]);
    }
    /* A sub-region, and a bigger offsets array than needed. */
    {
        uint64_t s[2] = {2, 2}, c[2] = {1, 2}, o[8];
        char d[64];
        ZT_OK(zarr_array_read_vlen(a, 2, s, c, o, 8, d, sizeof d, &size));
        ZT_EQ_U64(size, 32);
        ZT_CHECK(strcmp(element(o, d, 0), "x") == 0);
        ZT_CHECK(strcmp(element(o, d, 1), "a longer string than the others") == 0);
    }
    /* Offsets need not start at 0 when writing: element i is data[o[i] .. o[i+1]). */
    {
        uint64_t s[2] = {0, 3}, c[2] = {1, 1}, o[2] = {3, 6}, ro[2];
        char d[8];
        ZT_OK(zarr_array_write_vlen(a, 2, s, c, o, 2, "xxxabc", 6));
        ZT_OK(zarr_array_read_vlen(a, 2, s, c, ro, 2, d, sizeof d, &size));
        ZT_EQ_U64(size, 3);
        ZT_EQ_MEM(d, "abc", 3);
    }
    /* An empty selection reads one offset, 0, and no data. */
    {
        uint64_t s[2] = {3, 0}, c[2] = {0, 4}, o[1] = {7};
        ZT_OK(zarr_array_read_vlen(a, 2, s, c, o, 1, NULL, 0, &size));
        ZT_EQ_U64(size, 0);
        ZT_EQ_U64(o[0], 0);
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(stored_bytes_are_the_vlen_format) {
    /* u32le count, then per element u32le length and the bytes, C order. */
    zarr_store *store = NULL;
    zarr_array *a = make(&store, BYTES_V3);
    uint64_t start[1] = {1}, count[1] = {2}, offsets[3] = {0, 3, 4};
    const unsigned char data[4] = {0x00, 0xff, 0x41, 0x80};
    static const unsigned char expected[] = {
        5, 0, 0, 0,                      /* five elements */
        0, 0, 0, 0,                      /* "" (the fill value) */
        3, 0, 0, 0, 0x00, 0xff, 0x41,    /* raw bytes, NUL and non-UTF-8 included */
        1, 0, 0, 0, 0x80, 0, 0, 0, 0,    /* then "" twice */
        0, 0, 0, 0};
    unsigned char stored[64];
    uint64_t all_start[1] = {0}, all_count[1] = {5}, back_offsets[6];
    unsigned char back[8];
    size_t size = 0;
    zarr_data_type type = 0;
    ZT_CHECK(a != NULL);
    ZT_OK(zarr_array_data_type(a, &type));
    ZT_EQ_U64(type, ZARR_DATA_TYPE_BYTES);
    ZT_OK(zarr_array_write_vlen(a, 1, start, count, offsets, 3, data, sizeof data));
    ZT_OK(zarr_store_get(store, "s/c/0", stored, sizeof stored, &size));
    ZT_EQ_U64(size, sizeof expected);
    ZT_EQ_MEM(stored, expected, sizeof expected);
    ZT_OK(zarr_array_read_vlen(a, 1, all_start, all_count, back_offsets, 6, back, sizeof back,
                               &size));
    ZT_EQ_U64(size, 4);
    ZT_EQ_MEM(back, data, 4);
    ZT_EQ_U64(back_offsets[1], 0);
    ZT_EQ_U64(back_offsets[2], 3);
    ZT_EQ_U64(back_offsets[3], 4);
    /* Writing the fill value everywhere erases the chunk. */
    {
        uint64_t empty[6] = {0, 0, 0, 0, 0, 0};
        ZT_OK(zarr_array_write_vlen(a, 1, all_start, all_count, empty, 6, NULL, 0));
        ZT_STATUS(zarr_store_get(store, "s/c/0", NULL, 0, &size), ZARR_ERROR_NOT_FOUND);
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(v2_object_arrays) {
    zarr_store *store = NULL;
    zarr_array *a = make(&store, STRINGS_V2), *again = NULL;
    static const char *const items[] = {"one", "two", "three"};
    uint64_t start[1] = {1}, count[1] = {3}, offsets[5];
    uint64_t all_start[1] = {0}, all_count[1] = {4};
    char data[32], back[32], *meta = NULL;
    size_t used, size = 0;
    zarr_data_type type = 0;
    ZT_CHECK(a != NULL);
    used = arrow(items, 3, offsets, data);
    ZT_OK(zarr_array_write_vlen(a, 1, start, count, offsets, 4, data, used));
    zarr_array_free(a);
    ZT_OK(zarr_array_open(store, "/s", &again));
    ZT_OK(zarr_array_data_type(again, &type));
    ZT_EQ_U64(type, ZARR_DATA_TYPE_STRING);
    ZT_OK(zarr_array_metadata_json(again, &meta));
    ZT_STR_CONTAINS(meta, "\"|O\"");
    /* The old-style fill value 0 is stored as "" (zarr-python 3 would read "0"). */
    ZT_STR_CONTAINS(meta, "\"fill_value\":\"\"");
    ZT_STR_CONTAINS(meta, "vlen-utf8");
    zarr_string_free(meta);
    ZT_OK(zarr_array_read_vlen(again, 1, all_start, all_count, offsets, 5, back, sizeof back,
                               &size));
    ZT_EQ_U64(size, used);
    ZT_CHECK(strcmp(element(offsets, back, 0), "") == 0); /* fill_value 0 reads as "" */
    ZT_CHECK(strcmp(element(offsets, back, 3), "three") == 0);
    zarr_array_free(again);
    zarr_store_free(store);
}

/* A v2 string array with fill_value null keeps it (zarr-python writes it so, and xarray
 * would take "" for the variable's _FillValue); unwritten elements read as "". */
ZTEST(v2_null_fill_value_kept) {
    zarr_store *store = NULL;
    zarr_array *a = make(&store, STRINGS_V2_NULL_FILL);
    uint64_t start[1] = {0}, count[1] = {4}, offsets[5];
    char back[8], stored[512];
    size_t size = 0;
    ZT_CHECK(a != NULL);
    ZT_OK(zarr_store_get(store, "s/.zarray", stored, sizeof stored - 1, &size));
    stored[size] = '\0';
    ZT_STR_CONTAINS(stored, "\"fill_value\": null");
    ZT_OK(zarr_array_read_vlen(a, 1, start, count, offsets, 5, back, sizeof back, &size));
    ZT_EQ_U64(size, 0);
    ZT_EQ_U64(offsets[4], 0);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(json2_is_read_only) {
    zarr_store *store = NULL;
    zarr_array *a = make(&store, JSON2_V2);
    const char *chunk = "[[\"a\",\"bc\"],[\"\",\"d\"],\"|O\",[2,2]]";
    uint64_t start[2] = {0, 0}, count[2] = {2, 2}, offsets[5];
    char back[16];
    size_t size = 0;
    ZT_CHECK(a != NULL);
    ZT_OK(zarr_store_set(store, "s/0.0", chunk, strlen(chunk)));
    ZT_OK(zarr_array_read_vlen(a, 2, start, count, offsets, 5, back, sizeof back, &size));
    ZT_EQ_U64(size, 4);
    ZT_CHECK(strcmp(element(offsets, back, 1), "bc") == 0);
    ZT_CHECK(strcmp(element(offsets, back, 3), "d") == 0);
    ZT_STATUS(zarr_array_write_vlen(a, 2, start, count, offsets, 5, back, size),
              ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "json2");
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(null_arguments) {
    zarr_store *store = NULL;
    zarr_array *a = make(&store, BYTES_V3);
    uint64_t start[1] = {0}, count[1] = {1}, offsets[2] = {0, 1};
    char data[4] = "x";
    size_t size = 0;
    ZT_CHECK(a != NULL);
    ZT_STATUS(zarr_array_read_vlen(NULL, 1, start, count, offsets, 2, data, 4, &size),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_read_vlen(a, 1, NULL, count, offsets, 2, data, 4, &size),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_read_vlen(a, 1, start, NULL, offsets, 2, data, 4, &size),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_read_vlen(a, 1, start, count, NULL, 2, data, 4, &size),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "offsets");
    ZT_STATUS(zarr_array_read_vlen(a, 1, start, count, offsets, 2, data, 4, NULL),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_write_vlen(NULL, 1, start, count, offsets, 2, data, 1),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_write_vlen(a, 1, NULL, count, offsets, 2, data, 1),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_write_vlen(a, 1, start, NULL, offsets, 2, data, 1),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_write_vlen(a, 1, start, count, NULL, 2, data, 1),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_write_vlen(a, 1, start, count, offsets, 2, NULL, 1),
              ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "data");
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(argument_errors_change_nothing) {
    zarr_store *store = NULL;
    zarr_array *a = make(&store, STRINGS_V3);
    uint64_t start[2] = {0, 0}, count[2] = {1, 2}, offsets[3] = {0, 1, 2};
    uint64_t outside[2] = {2, 3}, big[2] = {2, 2}, read_offsets[3] = {7, 7, 7};
    char data[4] = "ab", bad_utf8[2] = {'a', (char)0xff};
    size_t size = 0;
    ZT_CHECK(a != NULL);
    ZT_STATUS(zarr_array_write_vlen(a, 1, start, count, offsets, 3, data, 2),
              ZARR_ERROR_INVALID_ARGUMENT); /* wrong ndim */
    ZT_STATUS(zarr_array_write_vlen(a, 2, start, count, offsets, 2, data, 2),
              ZARR_ERROR_INVALID_ARGUMENT); /* offsets_len not n + 1 */
    ZT_STR_CONTAINS(zarr_last_error_message(), "offsets");
    {
        uint64_t decreasing[3] = {0, 2, 1}, past[3] = {0, 1, 3};
        ZT_STATUS(zarr_array_write_vlen(a, 2, start, count, decreasing, 3, data, 2),
                  ZARR_ERROR_INVALID_ARGUMENT);
        ZT_STATUS(zarr_array_write_vlen(a, 2, start, count, past, 3, data, 2),
                  ZARR_ERROR_INVALID_ARGUMENT);
    }
    ZT_STATUS(zarr_array_write_vlen(a, 2, start, count, offsets, 3, bad_utf8, 2),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "UTF-8");
    ZT_STATUS(zarr_array_write_vlen(a, 2, outside, big, offsets, 3, data, 2),
              ZARR_ERROR_OUT_OF_BOUNDS);
    /* Nothing was written. */
    ZT_STATUS(zarr_store_get(store, "s/c/0/0", NULL, 0, &size), ZARR_ERROR_NOT_FOUND);
    /* Reads: wrong ndim, out of bounds, too few offsets; the outputs stay as they were. */
    ZT_STATUS(zarr_array_read_vlen(a, 3, start, count, read_offsets, 3, data, 4, &size),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_read_vlen(a, 2, outside, big, read_offsets, 3, data, 4, &size),
              ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_array_read_vlen(a, 2, start, count, read_offsets, 2, data, 4, &size),
              ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_EQ_U64(read_offsets[0], 7);
    ZT_EQ_U64(read_offsets[1], 7);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(data_buffer_too_small_reports_the_size) {
    zarr_store *store = NULL;
    zarr_array *a = make(&store, BYTES_V3);
    uint64_t start[1] = {0}, count[1] = {2}, offsets[3] = {0, 4, 9};
    char back[8] = "unset..";
    size_t size = 0;
    ZT_CHECK(a != NULL);
    ZT_OK(zarr_array_write_vlen(a, 1, start, count, offsets, 3, "abcdefghi", 9));
    ZT_STATUS(zarr_array_read_vlen(a, 1, start, count, offsets, 3, back, sizeof back, &size),
              ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_EQ_U64(size, 9);
    ZT_EQ_MEM(back, "unset..", 8);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(fixed_and_variable_functions_do_not_mix) {
    zarr_store *store = NULL, *other = NULL;
    zarr_array *strings = make(&store, STRINGS_V3), *ints = make(&other, INTS_V3);
    uint64_t start[2] = {0, 0}, count[2] = {1, 1}, chunk[2] = {0, 0}, offsets[2];
    char buf[64];
    size_t size = 0;
    int64_t strides[2] = {8, 8};
    ZT_CHECK(strings != NULL && ints != NULL);
    ZT_STATUS(zarr_array_read(strings, 2, start, count, buf, sizeof buf), ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_read_vlen");
    ZT_STATUS(zarr_array_write(strings, 2, start, count, buf, 8), ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_write_vlen");
    ZT_STATUS(zarr_array_read_strided(strings, 2, start, count, strides, buf, sizeof buf),
              ZARR_ERROR_UNSUPPORTED);
    ZT_STATUS(zarr_array_read_chunk(strings, 2, chunk, buf, sizeof buf), ZARR_ERROR_UNSUPPORTED);
    ZT_STATUS(zarr_array_write_chunk(strings, 2, chunk, buf, 0), ZARR_ERROR_UNSUPPORTED);
    ZT_STATUS(zarr_array_selection_nbytes(strings, 2, start, count, &size),
              ZARR_ERROR_UNSUPPORTED);
    ZT_STATUS(zarr_array_fill_value(strings, buf, sizeof buf), ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_metadata_json");
    ZT_STATUS(zarr_array_read_vlen(ints, 1, start, count, offsets, 2, buf, sizeof buf, &size),
              ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_read");
    ZT_STATUS(zarr_array_write_vlen(ints, 1, start, count, offsets, 2, buf, 0),
              ZARR_ERROR_UNSUPPORTED);
    zarr_array_free(strings);
    zarr_array_free(ints);
    zarr_store_free(store);
    zarr_store_free(other);
}

/* Stored chunks that lie: each read is CORRUPT_DATA and leaves the outputs alone. */
ZTEST(lying_chunks_are_corrupt_data) {
    static const struct {
        const char *what;
        unsigned char bytes[32];
        size_t len;
    } cases[] = {
        {"count above the chunk's size", {9, 0, 0, 0}, 4},
        {"count below the chunk's size", {1, 0, 0, 0, 0, 0, 0, 0}, 8},
        {"length past the end", {5, 0, 0, 0, 200, 0, 0, 0, 'a'}, 9},
        {"truncated header", {5, 0}, 2},
        {"bytes after the last element", {5}, 25}, /* five empty elements, then a 0 */
    };
    zarr_store *store = NULL;
    zarr_array *a = make(&store, BYTES_V3);
    uint64_t start[1] = {0}, count[1] = {5}, offsets[6] = {1, 2, 3, 4, 5, 6};
    char back[64];
    size_t size = 12345, i;
    ZT_CHECK(a != NULL);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ZT_OK(zarr_store_set(store, "s/c/0", cases[i].bytes, cases[i].len));
        if (zarr_array_read_vlen(a, 1, start, count, offsets, 6, back, sizeof back, &size) !=
            ZARR_ERROR_CORRUPT_DATA)
            ZT_FAIL_("%s: not CORRUPT_DATA (%s)", cases[i].what, zarr_last_error_message());
        ZT_STR_CONTAINS(zarr_last_error_message(), "s/c/0");
        ZT_EQ_U64(offsets[0], 1);
        ZT_EQ_U64(size, 12345);
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(invalid_utf8_in_a_stored_chunk_is_corrupt_data) {
    zarr_store *store = NULL;
    zarr_array *a = make(&store, STRINGS_V2);
    /* Two elements: "ok" and the invalid sequence C3 28. */
    const unsigned char chunk[] = {2, 0, 0, 0, 2, 0, 0, 0, 'o', 'k', 2, 0, 0, 0, 0xc3, 0x28};
    uint64_t start[1] = {0}, count[1] = {2}, offsets[3];
    char back[8];
    size_t size = 0;
    ZT_CHECK(a != NULL);
    ZT_OK(zarr_store_set(store, "s/0", chunk, sizeof chunk));
    ZT_STATUS(zarr_array_read_vlen(a, 1, start, count, offsets, 3, back, sizeof back, &size),
              ZARR_ERROR_CORRUPT_DATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "UTF-8");
    /* A partial write must merge with the chunk: it refuses too, and leaves it alone. */
    {
        uint64_t one[1] = {1}, o[2] = {0, 1};
        unsigned char stored[32];
        ZT_STATUS(zarr_array_write_vlen(a, 1, start, one, o, 2, "z", 1),
                  ZARR_ERROR_CORRUPT_DATA);
        ZT_OK(zarr_store_get(store, "s/0", stored, sizeof stored, &size));
        ZT_EQ_U64(size, sizeof chunk);
        ZT_EQ_MEM(stored, chunk, sizeof chunk);
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

/* ---- a read-only view of a memory store, through callbacks ---------------------------- */

static zarr_status view_get(void *user_data, const char *key, zarr_sink *value) {
    const zarr_store *store = user_data;
    size_t size = 0;
    zarr_status s = zarr_store_get(store, key, NULL, 0, &size);
    char *buf;
    if (s != ZARR_OK) return s;
    buf = malloc(size ? size : 1);
    if (!buf) return ZARR_ERROR_OUT_OF_MEMORY;
    s = zarr_store_get(store, key, buf, size, &size);
    if (s == ZARR_OK) s = zarr_sink_write(value, buf, size);
    free(buf);
    return s;
}

/* Opening and writing an array never lists: an empty listing is enough here. */
static zarr_status view_list(void *user_data, const char *prefix, zarr_sink *keys) {
    (void)user_data;
    (void)prefix;
    (void)keys;
    return ZARR_OK;
}

ZTEST(read_only_store) {
    zarr_store *store = NULL, *view = NULL;
    zarr_array *a = make(&store, BYTES_V3), *ro = NULL;
    zarr_store_callbacks cb = {0};
    uint64_t start[1] = {0}, count[1] = {1}, offsets[2] = {0, 2};
    char back[4];
    size_t size = 0;
    ZT_CHECK(a != NULL);
    ZT_OK(zarr_array_write_vlen(a, 1, start, count, offsets, 2, "hi", 2));
    cb.version = ZARR_STORE_CALLBACKS_VERSION;
    cb.user_data = store;
    cb.get = view_get;
    cb.list = view_list;
    ZT_OK(zarr_store_open_callbacks(&cb, &view));
    ZT_OK(zarr_array_open(view, "/s", &ro));
    ZT_OK(zarr_array_read_vlen(ro, 1, start, count, offsets, 2, back, sizeof back, &size));
    ZT_EQ_MEM(back, "hi", 2);
    ZT_STATUS(zarr_array_write_vlen(ro, 1, start, count, offsets, 2, "yo", 2),
              ZARR_ERROR_READ_ONLY);
    zarr_array_free(ro);
    zarr_store_free(view);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* ---- inside sharding_indexed --------------------------------------------------------- */

/* Read the whole [7, 5] array and compare with `expected` (35 strings, row-major). */
static int sharded_matches(const zarr_array *a, const char *const *expected) {
    uint64_t start[2] = {0, 0}, count[2] = {7, 5}, offsets[36];
    char back[1024];
    size_t size = 0, i;
    if (zarr_array_read_vlen(a, 2, start, count, offsets, 36, back, sizeof back, &size) !=
        ZARR_OK) {
        fprintf(stderr, "read: %s\n", zarr_last_error_message());
        return 0;
    }
    for (i = 0; i < 35; i++)
        if (strcmp(element(offsets, back, i), expected[i]) != 0) {
            fprintf(stderr, "element %zu is '%s', not '%s'\n", i, element(offsets, back, i),
                    expected[i]);
            return 0;
        }
    return 1;
}

ZTEST(sharded_strings_round_trip) {
    zarr_store *store = NULL;
    zarr_array *a = make(&store, STRINGS_SHARDED), *again = NULL;
    /* Rows 1..6, columns 0..4: shards (0, 1) and (1, 1) (columns 4..8) are never written,
     * and the inner chunk of rows 2..4, columns 0..2 gets only "" (not stored). */
    static const char *const items[20] = {
        "a", "\xc3\xa9t\xc3\xa9", "", "b",               /* row 1 */
        "", "", "\xe6\x97\xa5\xe6\x9c\xac", "c",       /* row 2 */
        "", "", "d", "",                             /* row 3 */
        "\xf0\x9f\x98\x80 grin", "e", "f", "g",          /* row 4 */
        "h", "", "i", "a longer string than the others"}; /* row 5 */
    const char *expected[35];
    uint64_t start[2] = {1, 0}, count[2] = {5, 4}, offsets[21], inner[2] = {0, 0};
    char data[256];
    size_t used, size = 0, i;
    ZT_CHECK(a != NULL);
    ZT_OK(zarr_array_inner_chunk_shape(a, 2, inner));
    ZT_EQ_U64(inner[0], 2);
    ZT_EQ_U64(inner[1], 2);
    used = arrow(items, 20, offsets, data);
    ZT_OK(zarr_array_write_vlen(a, 2, start, count, offsets, 21, data, used));
    for (i = 0; i < 35; i++) expected[i] = "";
    for (i = 0; i < 20; i++) expected[(1 + i / 4) * 5 + i % 4] = items[i];
    ZT_CHECK(sharded_matches(a, expected));
    ZT_OK(zarr_store_get(store, "s/c/0/0", NULL, 0, &size));
    ZT_OK(zarr_store_get(store, "s/c/1/0", NULL, 0, &size));
    ZT_STATUS(zarr_store_get(store, "s/c/0/1", NULL, 0, &size), ZARR_ERROR_NOT_FOUND);
    ZT_STATUS(zarr_store_get(store, "s/c/1/1", NULL, 0, &size), ZARR_ERROR_NOT_FOUND);
    /* A sub-region across the four shards. */
    {
        uint64_t s[2] = {3, 2}, c[2] = {2, 3}, o[7];
        char d[64];
        ZT_OK(zarr_array_read_vlen(a, 2, s, c, o, 7, d, sizeof d, &size));
        ZT_CHECK(strcmp(element(o, d, 0), "d") == 0);
        ZT_CHECK(strcmp(element(o, d, 2), "") == 0);
        ZT_CHECK(strcmp(element(o, d, 3), "f") == 0);
        ZT_CHECK(strcmp(element(o, d, 4), "g") == 0);
    }
    /* A partial rewrite across the shard edge and into the never-written shard (0, 1). */
    {
        static const char *const more[4] = {"X", "Y\xc3\xa9", "", "Z"};
        uint64_t s[2] = {3, 3}, c[2] = {2, 2}, o[5];
        char d[16];
        size_t n = arrow(more, 4, o, d);
        ZT_OK(zarr_array_write_vlen(a, 2, s, c, o, 5, d, n));
        expected[3 * 5 + 3] = "X";
        expected[3 * 5 + 4] = "Y\xc3\xa9";
        expected[4 * 5 + 3] = "";
        expected[4 * 5 + 4] = "Z";
    }
    ZT_OK(zarr_store_get(store, "s/c/0/1", NULL, 0, &size));
    ZT_OK(zarr_array_open(store, "/s", &again));
    ZT_CHECK(sharded_matches(again, expected));
    /* "" over all of shard (1, 0) erases it. */
    {
        uint64_t s[2] = {4, 0}, c[2] = {3, 4}, o[13] = {0};
        ZT_OK(zarr_array_write_vlen(a, 2, s, c, o, 13, "", 0));
        ZT_STATUS(zarr_store_get(store, "s/c/1/0", NULL, 0, &size), ZARR_ERROR_NOT_FOUND);
        for (i = 20; i < 35; i++)
            if (i % 5 < 4) expected[i] = "";
        ZT_CHECK(sharded_matches(a, expected));
    }
    zarr_array_free(again);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(sharded_bytes_store_the_shard_format) {
    /* The index first: (offset, nbytes) u64le per inner chunk, then each inner chunk in
     * the vlen-bytes format; an inner chunk or shard of fill values only is not stored. */
    zarr_store *store = NULL;
    zarr_array *a = make(&store, BYTES_SHARDED);
    uint64_t start[1] = {1}, count[1] = {3}, offsets[4] = {0, 3, 4, 4};
    const unsigned char data[4] = {0x00, 0xff, 0x41, 0x80};
    static const unsigned char expected[] = {
        32, 0, 0, 0, 0, 0, 0, 0, 15, 0, 0, 0, 0, 0, 0, 0, /* inner chunk 0: 15 bytes at 32 */
        47, 0, 0, 0, 0, 0, 0, 0, 13, 0, 0, 0, 0, 0, 0, 0, /* inner chunk 1: 13 bytes at 47 */
        2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0x00, 0xff, 0x41, /* "" and 00 ff 41 */
        2, 0, 0, 0, 1, 0, 0, 0, 0x80, 0, 0, 0, 0};            /* 80 and "" */
    unsigned char stored[128], back[8];
    uint64_t all_start[1] = {0}, all_count[1] = {5}, back_offsets[6];
    size_t size = 0;
    ZT_CHECK(a != NULL);
    ZT_OK(zarr_array_write_vlen(a, 1, start, count, offsets, 4, data, sizeof data));
    ZT_OK(zarr_store_get(store, "s/c/0", stored, sizeof stored, &size));
    ZT_EQ_U64(size, sizeof expected);
    ZT_EQ_MEM(stored, expected, sizeof expected);
    ZT_STATUS(zarr_store_get(store, "s/c/1", NULL, 0, &size), ZARR_ERROR_NOT_FOUND);
    ZT_OK(zarr_array_read_vlen(a, 1, all_start, all_count, back_offsets, 6, back, sizeof back,
                               &size));
    ZT_EQ_U64(size, 4);
    ZT_EQ_MEM(back, data, 4);
    ZT_EQ_U64(back_offsets[1], 0);
    ZT_EQ_U64(back_offsets[2], 3);
    ZT_EQ_U64(back_offsets[3], 4);
    ZT_EQ_U64(back_offsets[5], 4);
    /* Element 0 written: only inner chunk 0 is re-encoded, inner chunk 1 is kept. */
    {
        uint64_t one[1] = {1}, o[2] = {0, 1};
        ZT_OK(zarr_array_write_vlen(a, 1, all_start, one, o, 2, "\x07", 1));
        ZT_OK(zarr_store_get(store, "s/c/0", stored, sizeof stored, &size));
        ZT_EQ_U64(size, sizeof expected + 1);
        ZT_EQ_MEM(stored + 32 + 16, expected + 32 + 15, 13);
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

/* Shards that lie: CORRUPT_DATA naming the shard, the outputs and the shard left alone. */
ZTEST(corrupt_shards_are_corrupt_data) {
    zarr_store *store = NULL, *other = NULL;
    zarr_array *a = make(&store, STRINGS_SHARDED), *b = make(&other, BYTES_SHARDED);
    zarr_array *nested = NULL;
    static const char *const items[4] = {"ab", "cd", "ef", "gh"};
    uint64_t start[2] = {0, 0}, count[2] = {2, 2}, offsets[5], one[2] = {1, 1};
    unsigned char shard[256], bad[256];
    char data[16], back[16];
    size_t used, size = 0, n = 0;
    ZT_CHECK(a != NULL && b != NULL);
    used = arrow(items, 4, offsets, data);
    ZT_OK(zarr_array_write_vlen(a, 2, start, count, offsets, 5, data, used));
    ZT_OK(zarr_store_get(store, "s/c/0/0", shard, sizeof shard, &n));
    ZT_CHECK(n > 68);
    /* A flipped bit in the index fails its crc32c. */
    memcpy(bad, shard, n);
    bad[n - 68 + 2] ^= 1;
    ZT_OK(zarr_store_set(store, "s/c/0/0", bad, n));
    offsets[0] = 99;
    size = 12345;
    ZT_STATUS(zarr_array_read_vlen(a, 2, start, one, offsets, 2, back, sizeof back, &size),
              ZARR_ERROR_CORRUPT_DATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "s/c/0/0");
    ZT_EQ_U64(offsets[0], 99);
    ZT_EQ_U64(size, 12345);
    /* A partial write must merge with the shard: it refuses too, and leaves it alone. */
    {
        uint64_t o[2] = {0, 1};
        unsigned char now[256];
        ZT_STATUS(zarr_array_write_vlen(a, 2, start, one, o, 2, "z", 1),
                  ZARR_ERROR_CORRUPT_DATA);
        ZT_OK(zarr_store_get(store, "s/c/0/0", now, sizeof now, &size));
        ZT_EQ_U64(size, n);
        ZT_EQ_MEM(now, bad, n);
    }
    /* Shorter than its index. */
    ZT_OK(zarr_store_set(store, "s/c/0/0", shard, 10));
    ZT_STATUS(zarr_array_read_vlen(a, 2, start, one, offsets, 2, back, sizeof back, &size),
              ZARR_ERROR_CORRUPT_DATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "s/c/0/0");
    /* An index (without a checksum) pointing past the shard's end. */
    {
        uint64_t s1[1] = {0}, c1[1] = {2}, o[3] = {0, 1, 2};
        ZT_OK(zarr_array_write_vlen(b, 1, s1, c1, o, 3, "xy", 2));
        ZT_OK(zarr_store_get(other, "s/c/0", shard, sizeof shard, &n));
        shard[0] = 0xe8; /* offset 1000 */
        shard[1] = 0x03;
        ZT_OK(zarr_store_set(other, "s/c/0", shard, n));
        ZT_STATUS(zarr_array_read_vlen(b, 1, s1, c1, o, 3, back, sizeof back, &size),
                  ZARR_ERROR_CORRUPT_DATA);
        ZT_STR_CONTAINS(zarr_last_error_message(), "s/c/0");
        ZT_STR_CONTAINS(zarr_last_error_message(), "outside");
    }
    /* Shards of shards of strings: refused, saying so. */
    ZT_STATUS(zarr_array_create(store, "/nested", STRINGS_NESTED, &nested),
              ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "nested sharding_indexed");
    ZT_CHECK(nested == NULL);
    zarr_array_free(a);
    zarr_array_free(b);
    zarr_store_free(store);
    zarr_store_free(other);
}

static const ztest_case ztest_cases[] = {
    ZCASE(strings_round_trip_with_the_size_query),
    ZCASE(stored_bytes_are_the_vlen_format),
    ZCASE(v2_object_arrays),
    ZCASE(json2_is_read_only),
    ZCASE(null_arguments),
    ZCASE(v2_null_fill_value_kept),
    ZCASE(argument_errors_change_nothing),
    ZCASE(data_buffer_too_small_reports_the_size),
    ZCASE(fixed_and_variable_functions_do_not_mix),
    ZCASE(lying_chunks_are_corrupt_data),
    ZCASE(invalid_utf8_in_a_stored_chunk_is_corrupt_data),
    ZCASE(read_only_store),
    ZCASE(sharded_strings_round_trip),
    ZCASE(sharded_bytes_store_the_shard_format),
    ZCASE(corrupt_shards_are_corrupt_data),
};

ZTEST_MAIN()
