/* Zarr v2 arrays and groups, the 2022 draft v3 layout, consolidated metadata and
 * hierarchy listing, through the C API. */
#include "ztest.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

static int write_text(const char *path, const char *text) {
    return ztest_write_file(path, text, strlen(text));
}

static int make_dirs(const char *root, const char *relative) {
    char buf[4096];
    size_t n = strlen(relative);
    if (n >= sizeof buf) return -1;
    for (size_t i = 1; i <= n; i++) {
        if (relative[i] == '/' || relative[i] == '\0') {
            memcpy(buf, relative, i);
            buf[i] = '\0';
            mkdir(ztest_path(root, buf), 0755);
        }
    }
    return ztest_is_dir(ztest_path(root, relative)) ? 0 : -1;
}

/* A v2 .zarray document with the given parts. */
static const char *zarray(const char *shape, const char *chunks, const char *dtype, const char *compressor,
                          const char *fill, const char *order, const char *separator) {
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"zarr_format\":2,\"shape\":%s,\"chunks\":%s,\"dtype\":\"%s\",\"compressor\":%s,"
             "\"fill_value\":%s,\"order\":\"%s\",\"filters\":null,\"dimension_separator\":\"%s\"}",
             shape, chunks, dtype, compressor, fill, order, separator);
    return buf;
}

#define V3_INT32_ARRAY                                                                                \
    "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4],\"data_type\":\"int32\","              \
    "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[2]}},"                  \
    "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":0,"                                 \
    "\"codecs\":[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}]}"

/* A v2 array created through C: its .zarray, its chunk keys (edge chunks full size) and
 * the raw little-endian bytes of an uncompressed chunk. */
ZTEST(create_write_read_uncompressed) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", zarray("[5,4]", "[2,3]", "<i4", "null", "0", "C", "."), &a));
    uint32_t format = 0;
    ZT_OK(zarr_array_format(a, &format));
    ZT_EQ_U64(format, 2);
    int32_t values[20];
    for (int i = 0; i < 20; i++) values[i] = i + 1;
    uint64_t start[2] = {0, 0}, count[2] = {5, 4};
    ZT_OK(zarr_array_write(a, 2, start, count, values, sizeof values));
    ZT_CHECK(ztest_is_file(ztest_path(root, ".zgroup")));
    ZT_CHECK(ztest_is_file(ztest_path(root, "a/.zarray")));
    ZT_CHECK(!ztest_exists(ztest_path(root, "a/zarr.json")));
    ZT_CHECK(ztest_is_file(ztest_path(root, "a/2.1")));
    size_t len = 0;
    int32_t *chunk = ztest_read_file(ztest_path(root, "a/0.0"), &len);
    ZT_EQ_U64(len, 2 * 3 * 4);
    const int32_t expected[6] = {1, 2, 3, 5, 6, 7};
    if (chunk) ZT_EQ_MEM(chunk, expected, sizeof expected);
    free(chunk);
    int32_t back[20] = {0};
    ZT_OK(zarr_array_read(a, 2, start, count, back, sizeof back));
    ZT_EQ_MEM(back, values, sizeof values);
    char *json = NULL;
    ZT_OK(zarr_array_metadata_json(a, &json));
    char *compact = ztest_json_compact(json);
    ZT_STR_CONTAINS(compact, "\"zarr_format\":2");
    ZT_STR_CONTAINS(compact, "\"dtype\":\"<i4\"");
    ZT_STR_CONTAINS(compact, "\"chunks\":[2,3]");
    free(compact);
    zarr_string_free(json);
    zarr_array_free(a);
    /* Reopened from disk, the array is the same. */
    ZT_OK(zarr_array_open(store, "/a", &a));
    memset(back, 0, sizeof back);
    ZT_OK(zarr_array_read(a, 2, start, count, back, sizeof back));
    ZT_EQ_MEM(back, values, sizeof values);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* Big-endian dtype, F order and the "/" separator: one chunk, stored column-major with
 * big-endian elements, under a/0/0. */
ZTEST(big_endian_f_order_slash_separator) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", zarray("[2,3]", "[2,3]", ">i2", "null", "0", "F", "/"), &a));
    const int16_t values[6] = {1, 2, 3, 4, 5, 6}; /* [[1,2,3],[4,5,6]] */
    uint64_t start[2] = {0, 0}, count[2] = {2, 3};
    ZT_OK(zarr_array_write(a, 2, start, count, values, sizeof values));
    size_t len = 0;
    unsigned char *chunk = ztest_read_file(ztest_path(root, "a/0/0"), &len);
    /* Column-major: 1, 4, 2, 5, 3, 6, each big-endian. */
    const unsigned char expected[12] = {0, 1, 0, 4, 0, 2, 0, 5, 0, 3, 0, 6};
    ZT_EQ_U64(len, sizeof expected);
    if (chunk && len == sizeof expected) ZT_EQ_MEM(chunk, expected, sizeof expected);
    free(chunk);
    int16_t back[6] = {0};
    ZT_OK(zarr_array_read(a, 2, start, count, back, sizeof back));
    ZT_EQ_MEM(back, values, sizeof values);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* A v2 array written by another program (zarr-python's layout, zlib-free), read by C. */
ZTEST(read_hand_written_array) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_CHECK(make_dirs(root, "x") == 0);
    ZT_CHECK(write_text(ztest_path(root, ".zgroup"), "{\"zarr_format\": 2}") == 0);
    ZT_CHECK(write_text(ztest_path(root, "x/.zarray"),
                        zarray("[3]", "[2]", "<f8", "null", "\"NaN\"", "C", ".")) == 0);
    const double chunk0[2] = {1.5, -2.5};
    ZT_CHECK(ztest_write_file(ztest_path(root, "x/0"), chunk0, sizeof chunk0) == 0);
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_open(store, "/x", &a));
    double back[3] = {0};
    uint64_t start = 0, count = 3;
    ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
    ZT_CHECK(back[0] == 1.5 && back[1] == -2.5);
    ZT_CHECK(isnan(back[2])); /* chunk 1 is missing: the fill value NaN */
    zarr_array_free(a);
    zarr_store_free(store);
}

/* fill_value null reads as zero. */
ZTEST(null_fill_value_reads_zero) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/n", zarray("[4]", "[2]", "<u2", "null", "null", "C", "."), &a));
    uint16_t back[4] = {9, 9, 9, 9};
    uint64_t start = 0, count = 4;
    ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
    const uint16_t zeros[4] = {0};
    ZT_EQ_MEM(back, zeros, sizeof zeros);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* Attributes of a v2 array live in .zattrs; the .zarray is untouched; empty removes it. */
ZTEST(attributes_in_zattrs) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", zarray("[4]", "[2]", "|u1", "null", "0", "C", "."), &a));
    size_t before_len = 0, after_len = 0;
    char *before = ztest_read_file(ztest_path(root, "a/.zarray"), &before_len);
    ZT_OK(zarr_array_set_attributes_json(a, "{\"units\": \"m\"}"));
    char *after = ztest_read_file(ztest_path(root, "a/.zarray"), &after_len);
    ZT_CHECK(before && after && before_len == after_len && memcmp(before, after, before_len) == 0);
    free(before);
    free(after);
    size_t len = 0;
    char *attrs = ztest_read_file(ztest_path(root, "a/.zattrs"), &len);
    ZT_CHECK(attrs != NULL);
    if (attrs) {
        char *text = malloc(len + 1);
        memcpy(text, attrs, len);
        text[len] = '\0';
        ZT_STR_CONTAINS(text, "units");
        free(text);
    }
    free(attrs);
    zarr_array_free(a);
    ZT_OK(zarr_array_open(store, "/a", &a));
    char *json = NULL;
    ZT_OK(zarr_array_attributes_json(a, &json));
    char *compact = ztest_json_compact(json);
    ZT_STR_CONTAINS(compact, "\"units\":\"m\"");
    free(compact);
    zarr_string_free(json);
    ZT_OK(zarr_array_set_attributes_json(a, "{}"));
    ZT_CHECK(!ztest_exists(ztest_path(root, "a/.zattrs")));
    zarr_array_free(a);
    zarr_store_free(store);
}

/* v2 groups: created with their ancestors, listed, opened, attributes in .zattrs. */
ZTEST(groups_children_descendants) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_group *g = NULL, *top = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_group_create_with_format(store, "/g/h", "{\"k\": 1}", 2, &g));
    ZT_CHECK(ztest_is_file(ztest_path(root, ".zgroup")));
    ZT_CHECK(ztest_is_file(ztest_path(root, "g/.zgroup")));
    ZT_CHECK(ztest_is_file(ztest_path(root, "g/h/.zgroup")));
    ZT_CHECK(ztest_is_file(ztest_path(root, "g/h/.zattrs")));
    ZT_CHECK(!ztest_exists(ztest_path(root, "zarr.json")));
    uint32_t format = 0;
    ZT_OK(zarr_group_format(g, &format));
    ZT_EQ_U64(format, 2);
    ZT_OK(zarr_array_create(store, "/g/a", zarray("[4]", "[2]", "<f4", "null", "0", "C", "."), &a));
    zarr_array_free(a);
    ZT_OK(zarr_group_open(store, "/", &top));
    char *json = NULL;
    ZT_OK(zarr_group_children_json(top, &json));
    char *compact = ztest_json_compact(json);
    ZT_STR_CONTAINS(compact, "[{\"name\":\"g\",\"path\":\"/g\",\"node_type\":\"group\"}]");
    free(compact);
    zarr_string_free(json);
    ZT_OK(zarr_group_descendants_json(top, &json));
    compact = ztest_json_compact(json);
    ZT_STR_CONTAINS(compact, "[{\"name\":\"g\",\"path\":\"/g\",\"node_type\":\"group\"},"
                             "{\"name\":\"a\",\"path\":\"/g/a\",\"node_type\":\"array\"},"
                             "{\"name\":\"h\",\"path\":\"/g/h\",\"node_type\":\"group\"}]");
    free(compact);
    zarr_string_free(json);
    zarr_group_free(g);
    ZT_OK(zarr_group_open(store, "/g/h", &g));
    ZT_OK(zarr_group_attributes_json(g, &json));
    compact = ztest_json_compact(json);
    ZT_STR_CONTAINS(compact, "{\"k\":1}");
    free(compact);
    zarr_string_free(json);
    zarr_group_free(g);
    zarr_group_free(top);
    zarr_store_free(store);
}

/* Unsupported and invalid v2 documents; NULL arguments of the v2 functions. */
ZTEST(errors) {
    zarr_store *store = NULL;
    zarr_array *a = (zarr_array *)1;
    zarr_group *g = (zarr_group *)1;
    ZT_OK(zarr_store_open_memory(&store));
    /* An object dtype needs an object codec in filters (or compressor). */
    ZT_STATUS(zarr_array_create(store, "/s", zarray("[4]", "[2]", "|O", "null", "0", "C", "."), &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_CHECK(a == NULL);
    ZT_STATUS(zarr_array_create(store, "/s", zarray("[4]", "[2]", "<f4", "{\"id\":\"nosuch\"}", "0", "C", "."), &a),
              ZARR_ERROR_UNSUPPORTED);
    ZT_STATUS(zarr_array_create(store, "/s", zarray("[4]", "[2]", "<f4", "null", "0", "K", "."), &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STATUS(zarr_array_create(store, "/s", zarray("[4]", "[2,2]", "<f4", "null", "0", "C", "."), &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STATUS(zarr_array_create(store, "/s", zarray("[4]", "[2]", "<i4", "null", "\"x\"", "C", "."), &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_OK(zarr_array_create(store, "/ok", zarray("[4]", "[2]", "<f4", "null", "0", "C", "."), &a));
    zarr_array_free(a);
    ZT_STATUS(zarr_array_create(store, "/ok", zarray("[4]", "[2]", "<f4", "null", "0", "C", "."), &a),
              ZARR_ERROR_ALREADY_EXISTS);
    ZT_STATUS(zarr_group_create_with_format(store, "/ok", NULL, 2, &g), ZARR_ERROR_ALREADY_EXISTS);
    ZT_CHECK(g == NULL);
    ZT_STATUS(zarr_group_create_with_format(store, "/ok/x", NULL, 2, &g), ZARR_ERROR_NODE_TYPE_MISMATCH);
    ZT_STATUS(zarr_group_create_with_format(NULL, "/x", NULL, 2, &g), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_create_with_format(store, NULL, NULL, 2, &g), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_create_with_format(store, "/x", NULL, 2, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_create_with_format(store, "x", NULL, 2, &g), ZARR_ERROR_INVALID_PATH);
    ZT_STATUS(zarr_group_create_with_format(store, "/x", "[1]", 2, &g), ZARR_ERROR_INVALID_ARGUMENT);
    uint32_t format = 0;
    ZT_STATUS(zarr_array_format(NULL, &format), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_format(NULL, &format), ZARR_ERROR_NULL_ARGUMENT);
    ZT_OK(zarr_array_open(store, "/ok", &a));
    ZT_STATUS(zarr_array_format(a, NULL), ZARR_ERROR_NULL_ARGUMENT);
    zarr_array_free(a);
    char *json = (char *)1;
    ZT_STATUS(zarr_group_descendants_json(NULL, &json), ZARR_ERROR_NULL_ARGUMENT);
    ZT_CHECK(json == NULL);
    ZT_OK(zarr_group_open(store, "/", &g));
    ZT_STATUS(zarr_group_descendants_json(g, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_format(g, NULL), ZARR_ERROR_NULL_ARGUMENT);
    zarr_group_free(g);
    zarr_store_free(store);
}

/* Consolidated metadata (v3 inline, or v2 .zmetadata): after consolidating, a node whose
 * own metadata file is deleted still opens through the consolidated view, which proves
 * the view does not read it; the plain store no longer finds it. */
static void check_consolidated(int v2) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL, *view = NULL;
    zarr_group *top = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    if (v2) {
        ZT_OK(zarr_group_create_with_format(store, "/", "{\"title\": \"t\"}", 2, &top));
        ZT_OK(zarr_array_create(store, "/g/a", zarray("[4]", "[2]", "<i4", "null", "0", "C", "."), &a));
    } else {
        ZT_OK(zarr_group_create(store, "/", "{\"title\": \"t\"}", &top));
        ZT_OK(zarr_array_create(store, "/g/a", V3_INT32_ARRAY, &a));
    }
    const int32_t values[4] = {4, 3, 2, 1};
    uint64_t start = 0, count = 4;
    ZT_OK(zarr_array_write(a, 1, &start, &count, values, sizeof values));
    zarr_array_free(a);
    ZT_OK(zarr_group_consolidate(top));
    ZT_CHECK(ztest_is_file(ztest_path(root, v2 ? ".zmetadata" : "zarr.json")));
    ZT_CHECK(remove(ztest_path(root, v2 ? "g/a/.zarray" : "g/a/zarr.json")) == 0);
    ZT_STATUS(zarr_array_open(store, "/g/a", &a), ZARR_ERROR_NOT_FOUND);

    ZT_OK(zarr_store_open_consolidated(store, &view));
    ZT_OK(zarr_array_open(view, "/g/a", &a));
    int32_t back[4] = {0};
    ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back, values, sizeof values);
    zarr_array_free(a);
    zarr_group *g = NULL;
    ZT_OK(zarr_group_open(view, "/g", &g));
    zarr_group_free(g);
    ZT_STATUS(zarr_array_open(view, "/g/none", &a), ZARR_ERROR_NOT_FOUND);
    zarr_store_free(view);
    zarr_group_free(top);
    zarr_store_free(store);
}

ZTEST(consolidated_v3) { check_consolidated(0); }

ZTEST(consolidated_v2) { check_consolidated(1); }

ZTEST(consolidated_errors) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL, *view = (zarr_store *)1;
    zarr_group *g = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_STATUS(zarr_store_open_consolidated(store, &view), ZARR_ERROR_NOT_FOUND);
    ZT_CHECK(view == NULL);
    ZT_OK(zarr_group_create_with_format(store, "/", NULL, 2, &g));
    ZT_STATUS(zarr_store_open_consolidated(store, &view), ZARR_ERROR_NOT_FOUND);
    ZT_CHECK(write_text(ztest_path(root, ".zmetadata"), "{\"zarr_consolidated_format\": 1, \"metadata\": 3}") == 0);
    ZT_STATUS(zarr_store_open_consolidated(store, &view), ZARR_ERROR_INVALID_METADATA);
    ZT_CHECK(write_text(ztest_path(root, ".zmetadata"), "{\"zarr_consolidated_format\": 1, \"metadata\": {\"../.zarray\": {}}}") == 0);
    ZT_CHECK(zarr_store_open_consolidated(store, &view) != ZARR_OK);
    ZT_CHECK(write_text(ztest_path(root, ".zmetadata"), "{\"zarr_consolidated_format\": 1, \"metadata\"") == 0);
    ZT_STATUS(zarr_store_open_consolidated(store, &view), ZARR_ERROR_INVALID_METADATA);
    ZT_STATUS(zarr_store_open_consolidated(NULL, &view), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_store_open_consolidated(store, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_group_consolidate(NULL), ZARR_ERROR_NULL_ARGUMENT);
    zarr_group_free(g);
    zarr_store_free(store);
}

/* The 2022 draft layout (zarr.json entry point, meta/root, data/root) written by hand:
 * arrays, an explicit root group with attributes, an implicit group, listing. */
ZTEST(draft_2022_layout) {
    const char *root = ztest_tmp_dir();
    ZT_CHECK(write_text(ztest_path(root, "zarr.json"),
                        "{\"zarr_format\": \"https://purl.org/zarr/spec/protocol/core/3.0\","
                        " \"metadata_encoding\": \"https://purl.org/zarr/spec/protocol/core/3.0\","
                        " \"metadata_key_suffix\": \".json\", \"extensions\": []}") == 0);
    ZT_CHECK(make_dirs(root, "meta/root/g") == 0);
    ZT_CHECK(make_dirs(root, "data/root/g/b/c0") == 0);
    ZT_CHECK(write_text(ztest_path(root, "meta/root.group.json"),
                        "{\"attributes\": {\"who\": \"draft\"}, \"extensions\": []}") == 0);
    ZT_CHECK(write_text(ztest_path(root, "meta/root/g/b.array.json"),
                        "{\"shape\": [2, 3], \"data_type\": \">i2\","
                        " \"chunk_grid\": {\"type\": \"regular\", \"chunk_shape\": [2, 2], \"separator\": \"/\"},"
                        " \"chunk_memory_layout\": \"C\", \"fill_value\": 7, \"extensions\": [],"
                        " \"attributes\": {\"a\": 1}}") == 0);
    const unsigned char chunk00[8] = {0, 1, 0, 2, 0, 4, 0, 5}; /* [[1,2],[4,5]] big-endian */
    ZT_CHECK(ztest_write_file(ztest_path(root, "data/root/g/b/c0/0"), chunk00, sizeof chunk00) == 0);

    zarr_store *store = NULL;
    zarr_array *a = NULL;
    zarr_group *top = NULL, *g = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_open(store, "/g/b", &a));
    int16_t back[6] = {0};
    uint64_t start[2] = {0, 0}, count[2] = {2, 3};
    ZT_OK(zarr_array_read(a, 2, start, count, back, sizeof back));
    const int16_t expected[6] = {1, 2, 7, 4, 5, 7}; /* chunk (0,1) missing: fill 7 */
    ZT_EQ_MEM(back, expected, sizeof expected);
    uint32_t format = 0;
    ZT_OK(zarr_array_format(a, &format));
    ZT_EQ_U64(format, 3);
    char *json = NULL;
    ZT_OK(zarr_array_attributes_json(a, &json));
    char *compact = ztest_json_compact(json);
    ZT_STR_CONTAINS(compact, "{\"a\":1}");
    free(compact);
    zarr_string_free(json);
    zarr_array_free(a);

    ZT_OK(zarr_group_open(store, "/", &top));
    ZT_OK(zarr_group_attributes_json(top, &json));
    compact = ztest_json_compact(json);
    ZT_STR_CONTAINS(compact, "\"who\":\"draft\"");
    free(compact);
    zarr_string_free(json);
    ZT_OK(zarr_group_descendants_json(top, &json));
    compact = ztest_json_compact(json);
    ZT_STR_CONTAINS(compact, "[{\"name\":\"g\",\"path\":\"/g\",\"node_type\":\"group\"},"
                             "{\"name\":\"b\",\"path\":\"/g/b\",\"node_type\":\"array\"}]");
    free(compact);
    zarr_string_free(json);
    ZT_OK(zarr_group_open(store, "/g", &g)); /* implicit group */
    zarr_group_free(g);
    ZT_STATUS(zarr_group_open(store, "/g/b", &g), ZARR_ERROR_NODE_TYPE_MISMATCH);
    ZT_STATUS(zarr_group_open(store, "/nothing", &g), ZARR_ERROR_NOT_FOUND);
    ZT_STATUS(zarr_group_consolidate(top), ZARR_ERROR_INVALID_ARGUMENT);
    zarr_group_free(top);
    zarr_store_free(store);
}

/* Hierarchy listing of a v3 store, depth first. */
ZTEST(descendants_v3) {
    zarr_store *store = NULL;
    zarr_group *top = NULL, *g = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_group_create(store, "/", NULL, &top));
    ZT_OK(zarr_group_create(store, "/b/c", NULL, &g));
    zarr_group_free(g);
    ZT_OK(zarr_array_create(store, "/a", V3_INT32_ARRAY, &a));
    zarr_array_free(a);
    ZT_OK(zarr_array_create(store, "/b/c/d", V3_INT32_ARRAY, &a));
    zarr_array_free(a);
    char *json = NULL;
    ZT_OK(zarr_group_descendants_json(top, &json));
    char *compact = ztest_json_compact(json);
    ZT_STR_CONTAINS(compact, "[{\"name\":\"a\",\"path\":\"/a\",\"node_type\":\"array\"},"
                             "{\"name\":\"b\",\"path\":\"/b\",\"node_type\":\"group\"},"
                             "{\"name\":\"c\",\"path\":\"/b/c\",\"node_type\":\"group\"},"
                             "{\"name\":\"d\",\"path\":\"/b/c/d\",\"node_type\":\"array\"}]");
    free(compact);
    zarr_string_free(json);
    uint32_t format = 0;
    ZT_OK(zarr_group_format(top, &format));
    ZT_EQ_U64(format, 3);
    zarr_group_free(top);
    zarr_store_free(store);
}

static const ztest_case ztest_cases[] = {
    ZCASE(create_write_read_uncompressed),
    ZCASE(big_endian_f_order_slash_separator),
    ZCASE(read_hand_written_array),
    ZCASE(null_fill_value_reads_zero),
    ZCASE(attributes_in_zattrs),
    ZCASE(groups_children_descendants),
    ZCASE(errors),
    ZCASE(consolidated_v3),
    ZCASE(consolidated_v2),
    ZCASE(consolidated_errors),
    ZCASE(draft_2022_layout),
    ZCASE(descendants_v3),
};

ZTEST_MAIN()
