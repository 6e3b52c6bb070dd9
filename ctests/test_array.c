/* Arrays: create/open, inspection, region and chunk I/O, fill values, chunk keys,
 * metadata and attributes, every documented error, and concurrent use of one handle. */
#define _XOPEN_SOURCE 700

#include "ztest.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporary directories and paths: ztest_tmp_dir() and ztest_path() from ztest.h. */

/* ---- metadata documents ---- */

#define LE "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}]"
#define KEY_DEFAULT "{\"name\":\"default\",\"configuration\":{\"separator\":\"/\"}}"

/* A v3 array document; `extra` is appended inside the object (",\"attributes\":{...}"). */
static const char *meta_full(const char *shape, const char *chunks, const char *dtype,
                             const char *fill, const char *codecs, const char *key_encoding,
                             const char *extra) {
    static char buffers[4][8192];
    static int next;
    char *out = buffers[next++ % 4];
    snprintf(out, 8192,
             "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":%s,\"data_type\":\"%s\","
             "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":%s}},"
             "\"chunk_key_encoding\":%s,\"fill_value\":%s,\"codecs\":%s%s}",
             shape, dtype, chunks, key_encoding, fill, codecs, extra);
    return out;
}

static const char *meta(const char *shape, const char *chunks, const char *dtype,
                        const char *fill) {
    return meta_full(shape, chunks, dtype, fill, LE, KEY_DEFAULT, "");
}

static uint32_t f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* ---- create / open / free ---- */

ZTEST(create_open_free) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL, *b = NULL;
    char *ja = NULL, *jb = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/grp/arr", meta("[10,20]", "[5,5]", "int16", "0"), &a));
    ZT_CHECK(a != NULL);
    ZT_CHECK(ztest_is_file(ztest_path(root, "grp/arr/zarr.json")));
    ZT_CHECK(ztest_is_file(ztest_path(root, "grp/zarr.json")));
    ZT_CHECK(ztest_is_file(ztest_path(root, "zarr.json")));
    ZT_OK(zarr_array_open(store, "/grp/arr", &b));
    ZT_CHECK(b != NULL && b != a);
    ZT_OK(zarr_array_metadata_json(a, &ja));
    ZT_OK(zarr_array_metadata_json(b, &jb));
    ZT_CHECK(strcmp(ja, jb) == 0);
    zarr_string_free(ja);
    zarr_string_free(jb);
    zarr_array_free(a);
    zarr_array_free(b);
    zarr_store_free(store);
}

/* An array at the root: zarr.json and chunks directly in the store directory. */
ZTEST(create_root_array) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    const uint8_t data[4] = {1, 2, 3, 4};
    uint64_t start = 0, count = 4;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/", meta("[4]", "[2]", "uint8", "0"), &a));
    ZT_OK(zarr_array_write(a, 1, &start, &count, data, sizeof data));
    ZT_CHECK(ztest_is_file(ztest_path(root, "zarr.json")));
    ZT_CHECK(ztest_is_file(ztest_path(root, "c/0")));
    ZT_CHECK(ztest_is_file(ztest_path(root, "c/1")));
    zarr_array_free(a);
    a = NULL;
    ZT_OK(zarr_array_open(store, "/", &a));
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(create_null_arguments) {
    zarr_store *store = NULL;
    zarr_array *a = (zarr_array *)1;
    const char *m = meta("[4]", "[2]", "uint8", "0");
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(zarr_array_create(NULL, "/a", m, &a), ZARR_ERROR_NULL_ARGUMENT);
    ZT_CHECK(a == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_create");
    ZT_STR_CONTAINS(zarr_last_error_message(), "'store'");
    a = (zarr_array *)1;
    ZT_STATUS(zarr_array_create(store, NULL, m, &a), ZARR_ERROR_NULL_ARGUMENT);
    ZT_CHECK(a == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'path'");
    a = (zarr_array *)1;
    ZT_STATUS(zarr_array_create(store, "/a", NULL, &a), ZARR_ERROR_NULL_ARGUMENT);
    ZT_CHECK(a == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'metadata_json'");
    ZT_STATUS(zarr_array_create(store, "/a", m, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'out'");
    /* None of the failed calls created the node. */
    a = (zarr_array *)1;
    ZT_STATUS(zarr_array_open(store, "/a", &a), ZARR_ERROR_NOT_FOUND);
    ZT_CHECK(a == NULL);
    zarr_store_free(store);
}

ZTEST(open_null_arguments) {
    zarr_store *store = NULL;
    zarr_array *a = (zarr_array *)1;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(zarr_array_open(NULL, "/a", &a), ZARR_ERROR_NULL_ARGUMENT);
    ZT_CHECK(a == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'store'");
    a = (zarr_array *)1;
    ZT_STATUS(zarr_array_open(store, NULL, &a), ZARR_ERROR_NULL_ARGUMENT);
    ZT_CHECK(a == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'path'");
    ZT_STATUS(zarr_array_open(store, "/a", NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'out'");
    zarr_store_free(store);
}

ZTEST(create_already_exists) {
    zarr_store *store = NULL;
    zarr_array *a = NULL, *b = (zarr_array *)1;
    zarr_group *g = NULL;
    const char *m = meta("[4]", "[2]", "uint8", "0");
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", m, &a));
    ZT_STATUS(zarr_array_create(store, "/a", m, &b), ZARR_ERROR_ALREADY_EXISTS);
    ZT_CHECK(b == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "/a");
    /* A group is a node too. */
    ZT_OK(zarr_group_create(store, "/g", NULL, &g));
    b = (zarr_array *)1;
    ZT_STATUS(zarr_array_create(store, "/g", m, &b), ZARR_ERROR_ALREADY_EXISTS);
    ZT_CHECK(b == NULL);
    /* The group is still a group. */
    zarr_group_free(g);
    g = NULL;
    ZT_OK(zarr_group_open(store, "/g", &g));
    zarr_group_free(g);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(create_below_array_is_type_mismatch) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL, *b = (zarr_array *)1;
    const char *m = meta("[4]", "[2]", "uint8", "0");
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", m, &a));
    ZT_STATUS(zarr_array_create(store, "/a/b", m, &b), ZARR_ERROR_NODE_TYPE_MISMATCH);
    ZT_CHECK(b == NULL);
    b = (zarr_array *)1;
    ZT_STATUS(zarr_array_create(store, "/a/b/c", m, &b), ZARR_ERROR_NODE_TYPE_MISMATCH);
    ZT_CHECK(b == NULL);
    ZT_CHECK(!ztest_exists(ztest_path(root, "a/b")));
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(open_group_is_type_mismatch) {
    zarr_store *store = NULL;
    zarr_group *g = NULL;
    zarr_array *a = (zarr_array *)1;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_group_create(store, "/g", NULL, &g));
    ZT_STATUS(zarr_array_open(store, "/g", &a), ZARR_ERROR_NODE_TYPE_MISMATCH);
    ZT_CHECK(a == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_open");
    ZT_STR_CONTAINS(zarr_last_error_message(), "group");
    zarr_group_free(g);
    zarr_store_free(store);
}

ZTEST(open_missing_is_not_found) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = (zarr_array *)1;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_STATUS(zarr_array_open(store, "/nothing/here", &a), ZARR_ERROR_NOT_FOUND);
    ZT_CHECK(a == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "/nothing/here");
    a = (zarr_array *)1;
    ZT_STATUS(zarr_array_open(store, "/", &a), ZARR_ERROR_NOT_FOUND);
    ZT_CHECK(a == NULL);
    /* Opening created nothing. */
    ZT_EQ_U64(ztest_count_entries(root), 0);
    zarr_store_free(store);
}

/* An array at the root makes every other path impossible. */
ZTEST(create_below_root_array_is_type_mismatch) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL, *b = (zarr_array *)1;
    zarr_group *g = (zarr_group *)1;
    const char *m = meta("[4]", "[2]", "uint8", "0");
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/", m, &a));
    ZT_STATUS(zarr_array_create(store, "/x/y", m, &b), ZARR_ERROR_NODE_TYPE_MISMATCH);
    ZT_CHECK(b == NULL);
    ZT_STATUS(zarr_group_create(store, "/x", NULL, &g), ZARR_ERROR_NODE_TYPE_MISMATCH);
    ZT_CHECK(g == NULL);
    ZT_CHECK(!ztest_exists(ztest_path(root, "x")));
    zarr_array_free(a);
    zarr_store_free(store);
}

/* Node names beyond ASCII are fine; a name the file system cannot hold is an I/O error. */
ZTEST(node_names_unicode_and_too_long) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL, *b = NULL;
    char long_path[400];
    const uint8_t v[4] = {1, 2, 3, 4};
    uint8_t back[4] = {0};
    uint64_t start = 0, count = 4;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/donn\xc3\xa9" "es/\xce\xb1 \xce\xb2", meta("[4]", "[2]", "uint8", "0"), &a));
    ZT_OK(zarr_array_write(a, 1, &start, &count, v, sizeof v));
    ZT_CHECK(ztest_is_file(ztest_path(root, "donn\xc3\xa9" "es/\xce\xb1 \xce\xb2/c/1")));
    ZT_OK(zarr_array_open(store, "/donn\xc3\xa9" "es/\xce\xb1 \xce\xb2", &b));
    ZT_OK(zarr_array_read(b, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back, v, sizeof v);
    zarr_array_free(a);
    zarr_array_free(b);
    a = (zarr_array *)1;
    long_path[0] = '/';
    memset(long_path + 1, 'n', 300);
    long_path[301] = '\0';
    ZT_STATUS(zarr_array_create(store, long_path, meta("[4]", "[2]", "uint8", "0"), &a), ZARR_ERROR_IO);
    ZT_CHECK(a == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_create");
    zarr_store_free(store);
}

/* storage_transformers: an empty list is fine, an unknown transformer is not. */
ZTEST(create_storage_transformers) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta_full("[4]", "[2]", "uint8", "0", LE, KEY_DEFAULT,
                                                  ",\"storage_transformers\":[]"),
                            &a));
    zarr_array_free(a);
    a = (zarr_array *)1;
    ZT_STATUS(zarr_array_create(store, "/b", meta_full("[4]", "[2]", "uint8", "0", LE, KEY_DEFAULT,
                                                      ",\"storage_transformers\":[{\"name\":\"shuffle_keys\"}]"),
                                &a),
              ZARR_ERROR_UNSUPPORTED);
    ZT_CHECK(a == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "shuffle_keys");
    zarr_store_free(store);
}

static const char *const hostile_paths[] = {
    "/../x", "a", "/a//b", "/__x", "/a/..", "", "//", "/.", "/..", "/a/./b", "/../../etc",
    "../x", "/a/__zarr", "/zarr.json", "/a\\b", "/a\nb",
};
#define N_HOSTILE (sizeof hostile_paths / sizeof hostile_paths[0])

/* Malformed paths are refused and nothing is written anywhere, inside or outside the store. */
ZTEST(create_hostile_paths_invalid) {
    const char *outer = ztest_tmp_dir();
    const char *root = ztest_path(outer, "inner/store");
    zarr_store *store = NULL;
    size_t i;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    for (i = 0; i < N_HOSTILE; i++) {
        zarr_array *a = (zarr_array *)1;
        zarr_status s = zarr_array_create(store, hostile_paths[i], meta("[4]", "[2]", "uint8", "0"), &a);
        if (s != ZARR_ERROR_INVALID_PATH) {
            fprintf(stderr, "path '%s': status %d (%s): %s\n", hostile_paths[i], (int)s,
                    zarr_status_str(s), zarr_last_error_message());
        }
        ZT_STATUS(s, ZARR_ERROR_INVALID_PATH);
        ZT_CHECK(a == NULL);
    }
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_create");
    /* outer holds only the (never created) inner directory: nothing at all. */
    ZT_EQ_U64(ztest_count_entries(outer), 0);
    ZT_CHECK(!ztest_exists(ztest_path(outer, "x")));
    zarr_store_free(store);
}

ZTEST(open_hostile_paths_invalid) {
    const char *outer = ztest_tmp_dir();
    const char *root = ztest_path(outer, "store");
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    size_t i;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    /* A real array at /a so that paths like "/a/.." have something to escape to. */
    ZT_OK(zarr_array_create(store, "/a", meta("[4]", "[2]", "uint8", "0"), &a));
    zarr_array_free(a);
    for (i = 0; i < N_HOSTILE; i++) {
        a = (zarr_array *)1;
        ZT_STATUS(zarr_array_open(store, hostile_paths[i], &a), ZARR_ERROR_INVALID_PATH);
        ZT_CHECK(a == NULL);
    }
    ZT_EQ_U64(ztest_count_entries(outer), 1);
    zarr_store_free(store);
}

/* ---- inspection ---- */

ZTEST(getters_2d) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    size_t ndim = 0, esize = 0, cbytes = 0;
    uint64_t shape[2] = {0, 0}, chunks[2] = {0, 0};
    zarr_data_type dt = 0;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5,7]", "[2,3]", "int32", "-1"), &a));
    ZT_OK(zarr_array_ndim(a, &ndim));
    ZT_EQ_U64(ndim, 2);
    ZT_OK(zarr_array_shape(a, 2, shape));
    ZT_EQ_U64(shape[0], 5);
    ZT_EQ_U64(shape[1], 7);
    ZT_OK(zarr_array_chunk_shape(a, 2, chunks));
    ZT_EQ_U64(chunks[0], 2);
    ZT_EQ_U64(chunks[1], 3);
    ZT_OK(zarr_array_data_type(a, &dt));
    ZT_EQ_U64(dt, ZARR_DATA_TYPE_INT32);
    ZT_OK(zarr_array_element_size(a, &esize));
    ZT_EQ_U64(esize, 4);
    ZT_OK(zarr_array_chunk_nbytes(a, &cbytes));
    ZT_EQ_U64(cbytes, 2 * 3 * 4);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(getters_0d) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    size_t ndim = 99, cbytes = 0, nbytes = 0;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/s", meta("[]", "[]", "float64", "0.0"), &a));
    ZT_OK(zarr_array_ndim(a, &ndim));
    ZT_EQ_U64(ndim, 0);
    ZT_OK(zarr_array_shape(a, 0, NULL));
    ZT_OK(zarr_array_chunk_shape(a, 0, NULL));
    ZT_OK(zarr_array_chunk_nbytes(a, &cbytes));
    ZT_EQ_U64(cbytes, 8);
    ZT_OK(zarr_array_selection_nbytes(a, 0, NULL, NULL, &nbytes));
    ZT_EQ_U64(nbytes, 8);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(getters_every_data_type) {
    static const struct {
        const char *name;
        const char *fill;
        zarr_data_type code;
        size_t size;
    } types[] = {
        {"bool", "false", ZARR_DATA_TYPE_BOOL, 1},
        {"int8", "0", ZARR_DATA_TYPE_INT8, 1},
        {"int16", "0", ZARR_DATA_TYPE_INT16, 2},
        {"int32", "0", ZARR_DATA_TYPE_INT32, 4},
        {"int64", "0", ZARR_DATA_TYPE_INT64, 8},
        {"uint8", "0", ZARR_DATA_TYPE_UINT8, 1},
        {"uint16", "0", ZARR_DATA_TYPE_UINT16, 2},
        {"uint32", "0", ZARR_DATA_TYPE_UINT32, 4},
        {"uint64", "0", ZARR_DATA_TYPE_UINT64, 8},
        {"float16", "0.0", ZARR_DATA_TYPE_FLOAT16, 2},
        {"float32", "0.0", ZARR_DATA_TYPE_FLOAT32, 4},
        {"float64", "0.0", ZARR_DATA_TYPE_FLOAT64, 8},
        {"complex64", "[0.0,0.0]", ZARR_DATA_TYPE_COMPLEX64, 8},
        {"complex128", "[0.0,0.0]", ZARR_DATA_TYPE_COMPLEX128, 16},
        {"r8", "[0]", ZARR_DATA_TYPE_RAW, 1},
        {"r16", "[0,0]", ZARR_DATA_TYPE_RAW, 2},
        {"r24", "[0,0,0]", ZARR_DATA_TYPE_RAW, 3},
        {"r64", "[0,0,0,0,0,0,0,0]", ZARR_DATA_TYPE_RAW, 8},
    };
    zarr_store *store = NULL;
    size_t i;
    ZT_OK(zarr_store_open_memory(&store));
    for (i = 0; i < sizeof types / sizeof types[0]; i++) {
        char path[64];
        zarr_array *a = NULL;
        zarr_data_type dt = -1;
        size_t esize = 0, cbytes = 0;
        const char *codecs = types[i].size > 1 && types[i].code != ZARR_DATA_TYPE_RAW
                                 ? LE
                                 : "[{\"name\":\"bytes\"}]";
        snprintf(path, sizeof path, "/t_%s", types[i].name);
        ZT_OK(zarr_array_create(store, path,
                                meta_full("[3,4]", "[2,2]", types[i].name, types[i].fill, codecs,
                                          KEY_DEFAULT, ""),
                                &a));
        ZT_OK(zarr_array_data_type(a, &dt));
        ZT_EQ_U64(dt, types[i].code);
        ZT_OK(zarr_array_element_size(a, &esize));
        ZT_EQ_U64(esize, types[i].size);
        ZT_OK(zarr_array_chunk_nbytes(a, &cbytes));
        ZT_EQ_U64(cbytes, 4 * types[i].size);
        zarr_array_free(a);
    }
    zarr_store_free(store);
}

ZTEST(getters_null_arguments) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    size_t n = 0;
    uint64_t shape[1];
    zarr_data_type dt;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[4]", "[2]", "uint8", "0"), &a));
    ZT_STATUS(zarr_array_ndim(NULL, &n), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_ndim");
    ZT_STATUS(zarr_array_ndim(a, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'ndim_out'");
    ZT_STATUS(zarr_array_shape(NULL, 1, shape), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_shape(a, 1, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'shape_out'");
    ZT_STATUS(zarr_array_chunk_shape(NULL, 1, shape), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_shape(a, 1, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'chunk_shape_out'");
    ZT_STATUS(zarr_array_data_type(NULL, &dt), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_data_type(a, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'data_type_out'");
    ZT_STATUS(zarr_array_element_size(NULL, &n), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_element_size(a, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'size_out'");
    ZT_STATUS(zarr_array_chunk_nbytes(NULL, &n), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_nbytes(a, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'nbytes_out'");
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(shape_wrong_ndim) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint64_t out[3] = {77, 77, 77};
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5,7]", "[2,3]", "uint8", "0"), &a));
    ZT_STATUS(zarr_array_shape(a, 1, out), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_shape");
    ZT_STATUS(zarr_array_shape(a, 3, out), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_shape(a, 0, NULL), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_shape(a, 1, out), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_chunk_shape(a, 3, out), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_shape(a, (size_t)-1, out), ZARR_ERROR_INVALID_ARGUMENT);
    /* Nothing was written on failure. */
    ZT_EQ_U64(out[0], 77);
    ZT_EQ_U64(out[1], 77);
    ZT_EQ_U64(out[2], 77);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(selection_nbytes_values) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    size_t n = 0;
    uint64_t start[2] = {1, 2}, count[2] = {3, 4};
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5,7]", "[2,3]", "int32", "0"), &a));
    ZT_OK(zarr_array_selection_nbytes(a, 2, start, count, &n));
    ZT_EQ_U64(n, 3 * 4 * 4);
    start[0] = 0;
    start[1] = 0;
    count[0] = 5;
    count[1] = 7;
    ZT_OK(zarr_array_selection_nbytes(a, 2, start, count, &n));
    ZT_EQ_U64(n, 5 * 7 * 4);
    count[0] = 0;
    ZT_OK(zarr_array_selection_nbytes(a, 2, start, count, &n));
    ZT_EQ_U64(n, 0);
    /* An empty selection may start at the extent. */
    start[0] = 5;
    ZT_OK(zarr_array_selection_nbytes(a, 2, start, count, &n));
    ZT_EQ_U64(n, 0);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(selection_nbytes_errors) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    size_t n = 12345;
    uint64_t start[2] = {0, 0}, count[2] = {5, 7};
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5,7]", "[2,3]", "int32", "0"), &a));
    ZT_STATUS(zarr_array_selection_nbytes(NULL, 2, start, count, &n), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_selection_nbytes(a, 2, NULL, count, &n), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'start'");
    ZT_STATUS(zarr_array_selection_nbytes(a, 2, start, NULL, &n), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'count'");
    ZT_STATUS(zarr_array_selection_nbytes(a, 2, start, count, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'nbytes_out'");
    ZT_STATUS(zarr_array_selection_nbytes(a, 1, start, count, &n), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_selection_nbytes(a, 3, start, count, &n), ZARR_ERROR_INVALID_ARGUMENT);
    count[0] = 6;
    ZT_STATUS(zarr_array_selection_nbytes(a, 2, start, count, &n), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_selection_nbytes");
    count[0] = 1;
    start[0] = 5;
    ZT_STATUS(zarr_array_selection_nbytes(a, 2, start, count, &n), ZARR_ERROR_OUT_OF_BOUNDS);
    start[0] = 6;
    count[0] = 0;
    ZT_STATUS(zarr_array_selection_nbytes(a, 2, start, count, &n), ZARR_ERROR_OUT_OF_BOUNDS);
    start[0] = UINT64_MAX;
    count[0] = 2;
    ZT_STATUS(zarr_array_selection_nbytes(a, 2, start, count, &n), ZARR_ERROR_OUT_OF_BOUNDS);
    start[0] = 1;
    count[0] = UINT64_MAX;
    ZT_STATUS(zarr_array_selection_nbytes(a, 2, start, count, &n), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_EQ_U64(n, 12345);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* A selection inside the array whose byte size does not fit in size_t. */
ZTEST(selection_nbytes_too_large_for_memory) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    size_t n = 7;
    uint64_t start[2] = {0, 0}, count[2] = {(uint64_t)1 << 32, (uint64_t)1 << 31};
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[4294967296,2147483648]", "[1,1]", "int64", "0"), &a));
    ZT_STATUS(zarr_array_selection_nbytes(a, 2, start, count, &n), ZARR_ERROR_OUT_OF_MEMORY);
    ZT_EQ_U64(n, 7);
    /* A small corner of the same array is fine, read and written. */
    {
        int64_t v = -5, back = 0;
        uint64_t s2[2] = {((uint64_t)1 << 32) - 1, ((uint64_t)1 << 31) - 1}, c2[2] = {1, 1};
        ZT_OK(zarr_array_selection_nbytes(a, 2, s2, c2, &n));
        ZT_EQ_U64(n, 8);
        ZT_OK(zarr_array_write(a, 2, s2, c2, &v, sizeof v));
        ZT_OK(zarr_array_read(a, 2, s2, c2, &back, sizeof back));
        ZT_CHECK(back == -5);
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

/* ---- region I/O ---- */

ZTEST(region_round_trip_with_edge_chunks) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL, *b = NULL;
    int32_t data[35], back[35];
    uint64_t start[2] = {0, 0}, count[2] = {5, 7};
    int i;
    for (i = 0; i < 35; i++) {
        data[i] = i * 1000 - 17;
    }
    memset(back, 0, sizeof back);
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5,7]", "[2,3]", "int32", "-1"), &a));
    ZT_OK(zarr_array_write(a, 2, start, count, data, sizeof data));
    ZT_OK(zarr_array_read(a, 2, start, count, back, sizeof back));
    ZT_EQ_MEM(back, data, sizeof data);
    /* 3 x 3 chunks, edge ones included. */
    ZT_CHECK(ztest_is_file(ztest_path(root, "a/c/0/0")));
    ZT_CHECK(ztest_is_file(ztest_path(root, "a/c/2/2")));
    ZT_CHECK(!ztest_exists(ztest_path(root, "a/c/3")));
    ZT_CHECK(!ztest_exists(ztest_path(root, "a/c/0/3")));
    /* Edge chunks are stored at the full chunk size. */
    {
        size_t len = 0;
        char *raw = ztest_read_file(ztest_path(root, "a/c/2/2"), &len);
        ZT_CHECK(raw != NULL);
        ZT_EQ_U64(len, 2 * 3 * 4);
        free(raw);
    }
    /* A second handle sees the same data. */
    memset(back, 0, sizeof back);
    ZT_OK(zarr_array_open(store, "/a", &b));
    ZT_OK(zarr_array_read(b, 2, start, count, back, sizeof back));
    ZT_EQ_MEM(back, data, sizeof data);
    zarr_array_free(a);
    zarr_array_free(b);
    zarr_store_free(store);
}

ZTEST(region_sub_region_reads) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    int32_t data[35], sub[6], one = 0;
    uint64_t start[2] = {0, 0}, count[2] = {5, 7};
    const int32_t expected[6] = {17, 18, 19, 24, 25, 26};
    int i;
    for (i = 0; i < 35; i++) {
        data[i] = i;
    }
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5,7]", "[2,3]", "int32", "-1"), &a));
    ZT_OK(zarr_array_write(a, 2, start, count, data, sizeof data));
    start[0] = 2;
    start[1] = 3;
    count[0] = 2;
    count[1] = 3;
    ZT_OK(zarr_array_read(a, 2, start, count, sub, sizeof sub));
    ZT_EQ_MEM(sub, expected, sizeof expected);
    /* The last element alone, in an edge chunk. */
    start[0] = 4;
    start[1] = 6;
    count[0] = 1;
    count[1] = 1;
    ZT_OK(zarr_array_read(a, 2, start, count, &one, sizeof one));
    ZT_EQ_U64(one, 34);
    /* One column across all row chunks. */
    {
        int32_t col[5];
        start[0] = 0;
        start[1] = 4;
        count[0] = 5;
        count[1] = 1;
        ZT_OK(zarr_array_read(a, 2, start, count, col, sizeof col));
        for (i = 0; i < 5; i++) {
            ZT_EQ_U64(col[i], i * 7 + 4);
        }
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

/* A write covering parts of several chunks merges with what is there. */
ZTEST(region_partial_write_merges) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    int32_t all[35], back[35], patch[12];
    uint64_t start[2] = {0, 0}, count[2] = {5, 7};
    int i, r, c;
    for (i = 0; i < 35; i++) {
        all[i] = 100 + i;
    }
    for (i = 0; i < 12; i++) {
        patch[i] = -1000 - i;
    }
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5,7]", "[2,3]", "int32", "0"), &a));
    ZT_OK(zarr_array_write(a, 2, start, count, all, sizeof all));
    start[0] = 1;
    start[1] = 2;
    count[0] = 3;
    count[1] = 4;
    ZT_OK(zarr_array_write(a, 2, start, count, patch, sizeof patch));
    start[0] = 0;
    start[1] = 0;
    count[0] = 5;
    count[1] = 7;
    ZT_OK(zarr_array_read(a, 2, start, count, back, sizeof back));
    for (r = 0; r < 5; r++) {
        for (c = 0; c < 7; c++) {
            int32_t want = (r >= 1 && r < 4 && c >= 2 && c < 6) ? patch[(r - 1) * 4 + (c - 2)]
                                                                : all[r * 7 + c];
            if (back[r * 7 + c] != want) {
                fprintf(stderr, "element (%d,%d) is %d, expected %d\n", r, c, (int)back[r * 7 + c],
                        (int)want);
            }
            ZT_CHECK(back[r * 7 + c] == want);
        }
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

/* A partial write into chunks never written: the rest of those chunks is fill. */
ZTEST(region_partial_write_over_fill) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    int16_t back[16];
    const int16_t patch[2] = {5, 6};
    uint64_t start[2] = {1, 1}, count[2] = {1, 2};
    int i;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[4,4]", "[2,2]", "int16", "-3"), &a));
    ZT_OK(zarr_array_write(a, 2, start, count, patch, sizeof patch));
    start[0] = start[1] = 0;
    count[0] = count[1] = 4;
    ZT_OK(zarr_array_read(a, 2, start, count, back, sizeof back));
    for (i = 0; i < 16; i++) {
        int16_t want = i == 5 ? 5 : i == 6 ? 6 : -3;
        ZT_CHECK(back[i] == want);
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(region_zero_dimensional) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    double v = 2.5, back = 0.0;
    size_t len = 0;
    char *raw;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/s", meta("[]", "[]", "float64", "0.0"), &a));
    ZT_OK(zarr_array_read(a, 0, NULL, NULL, &back, sizeof back));
    ZT_CHECK(back == 0.0);
    ZT_CHECK(!ztest_exists(ztest_path(root, "s/c")));
    ZT_OK(zarr_array_write(a, 0, NULL, NULL, &v, sizeof v));
    ZT_CHECK(ztest_is_file(ztest_path(root, "s/c")));
    raw = ztest_read_file(ztest_path(root, "s/c"), &len);
    ZT_CHECK(raw != NULL);
    ZT_EQ_U64(len, 8);
    free(raw);
    ZT_OK(zarr_array_read(a, 0, NULL, NULL, &back, sizeof back));
    ZT_CHECK(back == 2.5);
    back = 0.0;
    ZT_OK(zarr_array_read_chunk(a, 0, NULL, &back, sizeof back));
    ZT_CHECK(back == 2.5);
    /* Writing the fill value erases the chunk. */
    v = 0.0;
    ZT_OK(zarr_array_write(a, 0, NULL, NULL, &v, sizeof v));
    ZT_CHECK(!ztest_exists(ztest_path(root, "s/c")));
    /* Wrong sizes are still refused. */
    ZT_STATUS(zarr_array_write(a, 0, NULL, NULL, &v, 4), ZARR_ERROR_BUFFER_SIZE_MISMATCH);
    ZT_STATUS(zarr_array_read(a, 0, NULL, NULL, &back, 7), ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_STATUS(zarr_array_read(a, 1, NULL, NULL, &back, 8), ZARR_ERROR_INVALID_ARGUMENT);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(region_zero_length_dimension) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint64_t start[2] = {0, 0}, count[2] = {0, 3}, idx[2] = {0, 0};
    size_t n = 99;
    uint8_t sentinel[4] = {7, 7, 7, 7};
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/e", meta("[0,3]", "[2,2]", "uint8", "0"), &a));
    ZT_OK(zarr_array_selection_nbytes(a, 2, start, count, &n));
    ZT_EQ_U64(n, 0);
    ZT_OK(zarr_array_write(a, 2, start, count, NULL, 0));
    ZT_OK(zarr_array_read(a, 2, start, count, NULL, 0));
    ZT_OK(zarr_array_read(a, 2, start, count, sentinel, sizeof sentinel));
    ZT_EQ_U64(sentinel[0], 7);
    /* Anything non-empty along the empty dimension is out of bounds. */
    count[0] = 1;
    ZT_STATUS(zarr_array_read(a, 2, start, count, sentinel, sizeof sentinel), ZARR_ERROR_OUT_OF_BOUNDS);
    /* The grid has no chunk at all. */
    ZT_STATUS(zarr_array_read_chunk(a, 2, idx, sentinel, sizeof sentinel), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_array_write_chunk(a, 2, idx, sentinel, sizeof sentinel), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_EQ_U64(ztest_count_entries(ztest_path(root, "e")), 1); /* only zarr.json */
    zarr_array_free(a);
    zarr_store_free(store);
}

/* Selections with a zero count in a non-empty array read and write nothing. */
ZTEST(region_empty_selection) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint64_t start[2] = {1, 1}, count[2] = {2, 0};
    uint8_t buf[4] = {9, 9, 9, 9};
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", meta("[4,4]", "[2,2]", "uint8", "3"), &a));
    ZT_OK(zarr_array_read(a, 2, start, count, buf, sizeof buf));
    ZT_EQ_U64(buf[0], 9);
    ZT_OK(zarr_array_write(a, 2, start, count, NULL, 0));
    ZT_CHECK(!ztest_exists(ztest_path(root, "a/c")));
    zarr_array_free(a);
    zarr_store_free(store);
}

/* ---- chunk I/O ---- */

ZTEST(chunk_round_trip_past_the_edge) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    const int16_t chunk[4] = {10, 11, 12, 13};
    int16_t back[4] = {0}, one = 0;
    uint64_t idx = 1, start = 4, count = 1;
    size_t len = 0;
    char *raw;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5]", "[4]", "int16", "0"), &a));
    ZT_OK(zarr_array_write_chunk(a, 1, &idx, chunk, sizeof chunk));
    raw = ztest_read_file(ztest_path(root, "a/c/1"), &len);
    ZT_CHECK(raw != NULL);
    ZT_EQ_U64(len, 8);
    free(raw);
    /* The element inside the array. */
    ZT_OK(zarr_array_read(a, 1, &start, &count, &one, sizeof one));
    ZT_EQ_U64(one, 10);
    /* The whole chunk including the part past the edge, stored as given. */
    ZT_OK(zarr_array_read_chunk(a, 1, &idx, back, sizeof back));
    ZT_EQ_MEM(back, chunk, sizeof chunk);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* Region writes store edge chunks at full size, padded with the fill value. */
ZTEST(edge_chunk_padding_is_fill) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    const int16_t data[5] = {1, 2, 3, 4, 5};
    int16_t chunk[4] = {0, 0, 0, 0};
    const int16_t expected[4] = {5, 9, 9, 9};
    uint64_t start = 0, count = 5, idx = 1;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5]", "[4]", "int16", "9"), &a));
    ZT_OK(zarr_array_write(a, 1, &start, &count, data, sizeof data));
    ZT_OK(zarr_array_read_chunk(a, 1, &idx, chunk, sizeof chunk));
    ZT_EQ_MEM(chunk, expected, sizeof expected);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(chunk_write_2d_then_region_read) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint32_t chunk[6], all[35];
    uint64_t idx[2] = {1, 2}, start[2] = {0, 0}, count[2] = {5, 7};
    int i, r, c;
    for (i = 0; i < 6; i++) {
        chunk[i] = 0xA0000000u + (uint32_t)i;
    }
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5,7]", "[2,3]", "uint32", "4"), &a));
    ZT_OK(zarr_array_write_chunk(a, 2, idx, chunk, sizeof chunk));
    ZT_OK(zarr_array_read(a, 2, start, count, all, sizeof all));
    for (r = 0; r < 5; r++) {
        for (c = 0; c < 7; c++) {
            uint32_t want = 4;
            if (r >= 2 && r < 4 && c >= 6) {
                /* chunk (1,2) covers rows 2..3, columns 6..8 (7, 8 past the edge) */
                want = chunk[(r - 2) * 3 + (c - 6)];
            }
            ZT_EQ_U64(all[r * 7 + c], want);
        }
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(chunk_read_missing_is_fill) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    int64_t back[6];
    uint64_t idx[2] = {2, 1};
    int i;
    memset(back, 0, sizeof back);
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5,7]", "[2,3]", "int64", "-9000000000"), &a));
    ZT_OK(zarr_array_read_chunk(a, 2, idx, back, sizeof back));
    for (i = 0; i < 6; i++) {
        ZT_CHECK(back[i] == -9000000000LL);
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

/* A buffer larger than the chunk: only chunk_nbytes bytes are written. */
ZTEST(chunk_read_larger_buffer) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint8_t buf[10];
    const uint8_t chunk[4] = {1, 2, 3, 4};
    uint64_t idx = 0;
    int i;
    memset(buf, 0xEE, sizeof buf);
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[8]", "[4]", "uint8", "0"), &a));
    ZT_OK(zarr_array_write_chunk(a, 1, &idx, chunk, sizeof chunk));
    ZT_OK(zarr_array_read_chunk(a, 1, &idx, buf, sizeof buf));
    ZT_EQ_MEM(buf, chunk, 4);
    for (i = 4; i < 10; i++) {
        ZT_EQ_U64(buf[i], 0xEE);
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(chunk_errors) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint32_t buf[6], sentinel[6];
    uint64_t idx[2] = {0, 0}, bad[2] = {3, 0}, bad2[2] = {0, 3}, huge[2] = {UINT64_MAX, 0};
    memset(buf, 0x5A, sizeof buf);
    memcpy(sentinel, buf, sizeof buf);
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5,7]", "[2,3]", "uint32", "0"), &a));
    /* read_chunk */
    ZT_STATUS(zarr_array_read_chunk(NULL, 2, idx, buf, sizeof buf), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_read_chunk(a, 2, NULL, buf, sizeof buf), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'chunk_indices'");
    ZT_STATUS(zarr_array_read_chunk(a, 2, idx, NULL, sizeof buf), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'buf'");
    ZT_STATUS(zarr_array_read_chunk(a, 1, idx, buf, sizeof buf), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_read_chunk(a, 3, idx, buf, sizeof buf), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_read_chunk(a, 2, bad, buf, sizeof buf), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_read_chunk");
    ZT_STATUS(zarr_array_read_chunk(a, 2, bad2, buf, sizeof buf), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_array_read_chunk(a, 2, huge, buf, sizeof buf), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_array_read_chunk(a, 2, idx, buf, sizeof buf - 1), ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_STATUS(zarr_array_read_chunk(a, 2, idx, buf, 0), ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_EQ_MEM(buf, sentinel, sizeof buf);
    /* write_chunk */
    ZT_STATUS(zarr_array_write_chunk(NULL, 2, idx, buf, sizeof buf), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_write_chunk(a, 2, NULL, buf, sizeof buf), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_write_chunk(a, 2, idx, NULL, sizeof buf), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_write_chunk(a, 1, idx, buf, sizeof buf), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_write_chunk(a, 2, bad, buf, sizeof buf), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_array_write_chunk(a, 2, huge, buf, sizeof buf), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STATUS(zarr_array_write_chunk(a, 2, idx, buf, sizeof buf - 4), ZARR_ERROR_BUFFER_SIZE_MISMATCH);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_write_chunk");
    {
        uint32_t bigger[7] = {0};
        ZT_STATUS(zarr_array_write_chunk(a, 2, idx, bigger, sizeof bigger),
                  ZARR_ERROR_BUFFER_SIZE_MISMATCH);
    }
    /* Nothing was stored by any failed call. */
    ZT_CHECK(!ztest_exists(ztest_path(root, "a/c")));
    zarr_array_free(a);
    zarr_store_free(store);
}

/* ---- fill values ---- */

ZTEST(missing_chunks_read_as_fill) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    int16_t back[20];
    const int16_t some[2] = {1, 2};
    uint64_t start = 3, count = 2;
    int i;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[20]", "[4]", "int16", "-7"), &a));
    ZT_OK(zarr_array_write(a, 1, &start, &count, some, sizeof some));
    start = 0;
    count = 20;
    ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
    for (i = 0; i < 20; i++) {
        int16_t want = i == 3 ? 1 : i == 4 ? 2 : -7;
        ZT_CHECK(back[i] == want);
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

/* NaN fill values are compared bit for bit: the spec's "NaN" and hex payloads. */
ZTEST(missing_chunks_nan_fill_bitwise) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint64_t start = 0, count = 6;
    int i;
    ZT_OK(zarr_store_open_memory(&store));
    {
        uint32_t back[6];
        ZT_OK(zarr_array_create(store, "/f32", meta("[6]", "[4]", "float32", "\"NaN\""), &a));
        ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
        for (i = 0; i < 6; i++) {
            ZT_EQ_U64(back[i], 0x7fc00000u);
        }
        zarr_array_free(a);
    }
    {
        uint32_t back[6];
        ZT_OK(zarr_array_create(store, "/f32p", meta("[6]", "[4]", "float32", "\"0x7fc00001\""), &a));
        ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
        for (i = 0; i < 6; i++) {
            ZT_EQ_U64(back[i], 0x7fc00001u);
        }
        zarr_array_free(a);
    }
    {
        uint64_t back[6];
        ZT_OK(zarr_array_create(store, "/f64", meta("[6]", "[4]", "float64", "\"NaN\""), &a));
        ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
        for (i = 0; i < 6; i++) {
            ZT_EQ_U64(back[i], UINT64_C(0x7ff8000000000000));
        }
        zarr_array_free(a);
    }
    {
        uint16_t back[6];
        ZT_OK(zarr_array_create(store, "/f16", meta("[6]", "[4]", "float16", "\"NaN\""), &a));
        ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
        for (i = 0; i < 6; i++) {
            ZT_EQ_U64(back[i], 0x7e00u);
        }
        zarr_array_free(a);
    }
    {
        uint32_t back[6];
        ZT_OK(zarr_array_create(store, "/ninf", meta("[6]", "[4]", "float32", "\"-Infinity\""), &a));
        ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
        for (i = 0; i < 6; i++) {
            ZT_EQ_U64(back[i], 0xff800000u);
        }
        zarr_array_free(a);
    }
    {
        /* complex: each part on its own */
        float back[12];
        ZT_OK(zarr_array_create(store, "/c64",
                                meta("[6]", "[4]", "complex64", "[1.5,\"NaN\"]"), &a));
        ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
        for (i = 0; i < 6; i++) {
            ZT_CHECK(back[2 * i] == 1.5f);
            ZT_EQ_U64(f32_bits(back[2 * i + 1]), 0x7fc00000u);
        }
        zarr_array_free(a);
    }
    zarr_store_free(store);
}

ZTEST(fill_value_in_metadata_json) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    char *json = NULL, *compact;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[6]", "[4]", "float32", "\"0x7fc00001\""), &a));
    ZT_OK(zarr_array_metadata_json(a, &json));
    compact = ztest_json_compact(json);
    ZT_STR_CONTAINS(compact, "\"fill_value\":\"0x7fc00001\"");
    free(compact);
    zarr_string_free(json);
    zarr_array_free(a);
    ZT_OK(zarr_array_create(store, "/b", meta("[6]", "[4]", "uint64", "18446744073709551615"), &a));
    ZT_OK(zarr_array_metadata_json(a, &json));
    compact = ztest_json_compact(json);
    ZT_STR_CONTAINS(compact, "\"fill_value\":18446744073709551615");
    free(compact);
    zarr_string_free(json);
    {
        uint64_t back[2] = {0, 0}, start = 4, count = 2;
        ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
        ZT_EQ_U64(back[0], UINT64_MAX);
        ZT_EQ_U64(back[1], UINT64_MAX);
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

/* A chunk equal to the fill value everywhere is not stored, and erased if it was. */
ZTEST(fill_chunks_not_stored_and_erased) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint8_t fives[8], mixed[8];
    uint64_t start = 0, count = 8, idx = 1;
    const char *c0 = ztest_path(root, "a/c/0");
    const char *c1 = ztest_path(root, "a/c/1");
    memset(fives, 5, sizeof fives);
    memcpy(mixed, fives, sizeof mixed);
    mixed[6] = 6;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", meta("[8]", "[4]", "uint8", "5"), &a));
    ZT_OK(zarr_array_write(a, 1, &start, &count, fives, sizeof fives));
    ZT_CHECK(!ztest_exists(c0));
    ZT_CHECK(!ztest_exists(c1));
    ZT_OK(zarr_array_write(a, 1, &start, &count, mixed, sizeof mixed));
    ZT_CHECK(!ztest_exists(c0));
    ZT_CHECK(ztest_is_file(c1));
    /* Overwriting the one odd element with the fill value erases the chunk. */
    start = 6;
    count = 1;
    ZT_OK(zarr_array_write(a, 1, &start, &count, fives, 1));
    ZT_CHECK(!ztest_exists(c1));
    /* The same through write_chunk. */
    ZT_OK(zarr_array_write_chunk(a, 1, &idx, mixed + 4, 4));
    ZT_CHECK(ztest_is_file(c1));
    ZT_OK(zarr_array_write_chunk(a, 1, &idx, fives, 4));
    ZT_CHECK(!ztest_exists(c1));
    zarr_array_free(a);
    zarr_store_free(store);
}

/* With a NaN fill, canonical NaNs are fill, other NaN payloads and -0.0 are data. */
ZTEST(fill_comparison_is_bitwise) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL, *z = NULL;
    uint32_t nans[4] = {0x7fc00000u, 0x7fc00000u, 0x7fc00000u, 0x7fc00000u};
    uint32_t back[4];
    uint64_t start = 0, count = 4;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", meta("[4]", "[4]", "float32", "\"NaN\""), &a));
    ZT_OK(zarr_array_write(a, 1, &start, &count, nans, sizeof nans));
    ZT_CHECK(!ztest_exists(ztest_path(root, "a/c/0")));
    nans[2] = 0x7fc00001u;
    ZT_OK(zarr_array_write(a, 1, &start, &count, nans, sizeof nans));
    ZT_CHECK(ztest_is_file(ztest_path(root, "a/c/0")));
    ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back, nans, sizeof nans);
    /* -0.0 is not the fill value 0.0: it must survive. */
    {
        float negz[4] = {0.0f, -0.0f, 0.0f, 0.0f}, fb[4] = {1, 1, 1, 1};
        ZT_OK(zarr_array_create(store, "/z", meta("[4]", "[4]", "float32", "0.0"), &z));
        ZT_OK(zarr_array_write(z, 1, &start, &count, negz, sizeof negz));
        ZT_OK(zarr_array_read(z, 1, &start, &count, fb, sizeof fb));
        ZT_EQ_U64(f32_bits(fb[1]), 0x80000000u);
        ZT_EQ_U64(f32_bits(fb[0]), 0);
    }
    zarr_array_free(a);
    zarr_array_free(z);
    zarr_store_free(store);
}

/* ---- chunk key encodings, checked on disk ---- */

static void check_chunk_file(const char *key_encoding, const char *expected_file,
                             const char *unexpected_file) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL, *b = NULL;
    const uint8_t chunk[4] = {1, 2, 3, 4};
    uint8_t back[4] = {0};
    uint64_t idx[2] = {1, 2};
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/arr",
                            meta_full("[4,6]", "[2,2]", "uint8", "0", "[{\"name\":\"bytes\"}]",
                                      key_encoding, ""),
                            &a));
    ZT_OK(zarr_array_write_chunk(a, 2, idx, chunk, sizeof chunk));
    if (!ztest_is_file(ztest_path(root, expected_file))) {
        fprintf(stderr, "expected chunk file '%s' for encoding %s\n", expected_file, key_encoding);
    }
    ZT_CHECK(ztest_is_file(ztest_path(root, expected_file)));
    if (unexpected_file != NULL) {
        ZT_CHECK(!ztest_exists(ztest_path(root, unexpected_file)));
    }
    /* Another handle finds the chunk under the same key. */
    ZT_OK(zarr_array_open(store, "/arr", &b));
    ZT_OK(zarr_array_read_chunk(b, 2, idx, back, sizeof back));
    ZT_EQ_MEM(back, chunk, sizeof chunk);
    zarr_array_free(a);
    zarr_array_free(b);
    zarr_store_free(store);
}

ZTEST(key_encoding_default_slash) {
    check_chunk_file(KEY_DEFAULT, "arr/c/1/2", "arr/c.1.2");
}

ZTEST(key_encoding_default_without_configuration) {
    check_chunk_file("{\"name\":\"default\"}", "arr/c/1/2", "arr/c.1.2");
}

ZTEST(key_encoding_default_dot) {
    check_chunk_file("{\"name\":\"default\",\"configuration\":{\"separator\":\".\"}}", "arr/c.1.2",
                     "arr/c");
}

ZTEST(key_encoding_v2_dot) {
    check_chunk_file("{\"name\":\"v2\",\"configuration\":{\"separator\":\".\"}}", "arr/1.2", "arr/c");
}

ZTEST(key_encoding_v2_default_separator) {
    check_chunk_file("{\"name\":\"v2\"}", "arr/1.2", "arr/1/2");
}

ZTEST(key_encoding_v2_slash) {
    check_chunk_file("{\"name\":\"v2\",\"configuration\":{\"separator\":\"/\"}}", "arr/1/2",
                     "arr/1.2");
}

ZTEST(key_encoding_zero_dimensional) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL, *b = NULL;
    const uint8_t v = 42;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/d", meta_full("[]", "[]", "uint8", "0", "[{\"name\":\"bytes\"}]",
                                                  KEY_DEFAULT, ""),
                            &a));
    ZT_OK(zarr_array_create(store, "/v", meta_full("[]", "[]", "uint8", "0", "[{\"name\":\"bytes\"}]",
                                                  "{\"name\":\"v2\"}", ""),
                            &b));
    ZT_OK(zarr_array_write(a, 0, NULL, NULL, &v, 1));
    ZT_OK(zarr_array_write(b, 0, NULL, NULL, &v, 1));
    ZT_CHECK(ztest_is_file(ztest_path(root, "d/c")));
    ZT_CHECK(ztest_is_file(ztest_path(root, "v/0")));
    zarr_array_free(a);
    zarr_array_free(b);
    zarr_store_free(store);
}

ZTEST(key_encoding_bad_separator) {
    zarr_store *store = NULL;
    zarr_array *a = (zarr_array *)1;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(zarr_array_create(store, "/a",
                                meta_full("[4]", "[2]", "uint8", "0", "[{\"name\":\"bytes\"}]",
                                          "{\"name\":\"default\",\"configuration\":{\"separator\":\"-\"}}",
                                          ""),
                                &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_CHECK(a == NULL);
    ZT_STATUS(zarr_array_create(store, "/a",
                                meta_full("[4]", "[2]", "uint8", "0", "[{\"name\":\"bytes\"}]",
                                          "{\"name\":\"fancy\"}", ""),
                                &a),
              ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "fancy");
    zarr_store_free(store);
}

/* ---- metadata and attributes ---- */

ZTEST(metadata_json_round_trip) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL, *b = NULL;
    char *ja = NULL, *jb = NULL, *disk, *c1, *c2;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a",
                            meta_full("[10,20]", "[5,4]", "int16", "-2", LE,
                                      "{\"name\":\"default\",\"configuration\":{\"separator\":\".\"}}",
                                      ",\"dimension_names\":[\"y\",null],\"attributes\":{\"u\":\"m\"}"),
                            &a));
    ZT_OK(zarr_array_metadata_json(a, &ja));
    c1 = ztest_json_compact(ja);
    ZT_STR_CONTAINS(c1, "\"zarr_format\":3");
    ZT_STR_CONTAINS(c1, "\"node_type\":\"array\"");
    ZT_STR_CONTAINS(c1, "\"shape\":[10,20]");
    ZT_STR_CONTAINS(c1, "\"data_type\":\"int16\"");
    ZT_STR_CONTAINS(c1, "\"chunk_shape\":[5,4]");
    ZT_STR_CONTAINS(c1, "\"separator\":\".\"");
    ZT_STR_CONTAINS(c1, "\"fill_value\":-2");
    ZT_STR_CONTAINS(c1, "\"endian\":\"little\"");
    ZT_STR_CONTAINS(c1, "\"dimension_names\":[\"y\",null]");
    ZT_STR_CONTAINS(c1, "\"attributes\":{\"u\":\"m\"}");
    /* The document on disk says the same. */
    disk = ztest_read_file(ztest_path(root, "a/zarr.json"), NULL);
    ZT_CHECK(disk != NULL);
    c2 = ztest_json_compact(disk);
    ZT_CHECK(strcmp(c1, c2) == 0);
    free(c2);
    free(disk);
    /* Feeding the document back creates an identical array. */
    ZT_OK(zarr_array_create(store, "/b", ja, &b));
    ZT_OK(zarr_array_metadata_json(b, &jb));
    c2 = ztest_json_compact(jb);
    ZT_CHECK(strcmp(c1, c2) == 0);
    free(c1);
    free(c2);
    zarr_string_free(ja);
    zarr_string_free(jb);
    zarr_array_free(a);
    zarr_array_free(b);
    zarr_store_free(store);
}

/* Short-hand codec names and the old "endian" alias are stored in canonical form. */
ZTEST(metadata_json_canonical_codecs) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    char *json = NULL, *c;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta_full("[4]", "[2]", "uint8", "0", "[\"bytes\"]", KEY_DEFAULT, ""), &a));
    ZT_OK(zarr_array_metadata_json(a, &json));
    c = ztest_json_compact(json);
    ZT_STR_CONTAINS(c, "\"codecs\":[{\"name\":\"bytes\"");
    free(c);
    zarr_string_free(json);
    zarr_array_free(a);
    ZT_OK(zarr_array_create(store, "/b",
                            meta_full("[4]", "[2]", "int32", "0",
                                      "[{\"name\":\"endian\",\"configuration\":{\"endian\":\"big\"}}]",
                                      KEY_DEFAULT, ""),
                            &a));
    ZT_OK(zarr_array_metadata_json(a, &json));
    c = ztest_json_compact(json);
    ZT_STR_CONTAINS(c, "\"codecs\":[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"big\"}}]");
    free(c);
    zarr_string_free(json);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(metadata_json_null_arguments) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    char *json = (char *)1;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[4]", "[2]", "uint8", "0"), &a));
    ZT_STATUS(zarr_array_metadata_json(NULL, &json), ZARR_ERROR_NULL_ARGUMENT);
    ZT_CHECK(json == NULL);
    ZT_STATUS(zarr_array_metadata_json(a, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'json_out'");
    json = (char *)1;
    ZT_STATUS(zarr_array_attributes_json(NULL, &json), ZARR_ERROR_NULL_ARGUMENT);
    ZT_CHECK(json == NULL);
    ZT_STATUS(zarr_array_attributes_json(a, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_set_attributes_json(NULL, "{}"), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_set_attributes_json(a, NULL), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'attributes_json'");
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(attributes_default_empty) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    char *json = NULL;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[4]", "[2]", "uint8", "0"), &a));
    ZT_OK(zarr_array_attributes_json(a, &json));
    ZT_CHECK(strcmp(json, "{}") == 0);
    zarr_string_free(json);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(attributes_round_trip) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL, *b = NULL;
    char *json = NULL, *c, *disk;
    const char *attrs = "{\"zeta\": 1, \"alpha\": [1, 2.5, {\"n\": null}], \"s\": \"x\\\"y\", \"t\": true}";
    const char *compact_attrs = "{\"zeta\":1,\"alpha\":[1,2.5,{\"n\":null}],\"s\":\"x\\\"y\",\"t\":true}";
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", meta_full("[4]", "[2]", "uint8", "0", LE, KEY_DEFAULT,
                                                  ",\"attributes\":{\"first\":1}"),
                            &a));
    ZT_OK(zarr_array_attributes_json(a, &json));
    ZT_CHECK(strcmp(json, "{\"first\":1}") == 0);
    zarr_string_free(json);
    ZT_OK(zarr_array_set_attributes_json(a, attrs));
    ZT_OK(zarr_array_attributes_json(a, &json));
    c = ztest_json_compact(json);
    /* Same content, same key order. */
    ZT_CHECK(strcmp(c, compact_attrs) == 0);
    free(c);
    zarr_string_free(json);
    /* Stored on disk, seen by a fresh handle. */
    disk = ztest_read_file(ztest_path(root, "a/zarr.json"), NULL);
    ZT_CHECK(disk != NULL);
    c = ztest_json_compact(disk);
    ZT_STR_CONTAINS(c, compact_attrs);
    ZT_CHECK(strstr(c, "\"first\"") == NULL);
    free(c);
    free(disk);
    ZT_OK(zarr_array_open(store, "/a", &b));
    ZT_OK(zarr_array_attributes_json(b, &json));
    c = ztest_json_compact(json);
    ZT_CHECK(strcmp(c, compact_attrs) == 0);
    free(c);
    zarr_string_free(json);
    zarr_array_free(a);
    zarr_array_free(b);
    zarr_store_free(store);
}

/* Replacing the attributes keeps every other part of the document. */
ZTEST(set_attributes_keeps_other_metadata) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    char *json = NULL, *c;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a",
                            meta_full("[4,6]", "[2,3]", "float32", "\"NaN\"", LE, KEY_DEFAULT,
                                      ",\"dimension_names\":[\"t\",\"x\"],"
                                      "\"ext\":{\"must_understand\":false,\"k\":[1]}"),
                            &a));
    ZT_OK(zarr_array_set_attributes_json(a, "{\"new\":2}"));
    zarr_array_free(a);
    a = NULL;
    ZT_OK(zarr_array_open(store, "/a", &a));
    ZT_OK(zarr_array_metadata_json(a, &json));
    c = ztest_json_compact(json);
    ZT_STR_CONTAINS(c, "\"shape\":[4,6]");
    ZT_STR_CONTAINS(c, "\"fill_value\":\"NaN\"");
    ZT_STR_CONTAINS(c, "\"dimension_names\":[\"t\",\"x\"]");
    ZT_STR_CONTAINS(c, "\"ext\":{\"must_understand\":false,\"k\":[1]}");
    ZT_STR_CONTAINS(c, "\"attributes\":{\"new\":2}");
    free(c);
    zarr_string_free(json);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(set_attributes_invalid_json) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    char *json = NULL, *before, *after;
    static const char *const bad[] = {"{", "", "[1,2]", "3", "\"s\"", "null", "{\"a\":}", "{'a':1}",
                                      "{\"a\":1} trailing"};
    size_t i;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", meta_full("[4]", "[2]", "uint8", "0", LE, KEY_DEFAULT,
                                                  ",\"attributes\":{\"keep\":true}"),
                            &a));
    before = ztest_read_file(ztest_path(root, "a/zarr.json"), NULL);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        zarr_status s = zarr_array_set_attributes_json(a, bad[i]);
        if (s != ZARR_ERROR_INVALID_ARGUMENT) {
            fprintf(stderr, "attributes '%s' gave %d\n", bad[i], (int)s);
        }
        ZT_STATUS(s, ZARR_ERROR_INVALID_ARGUMENT);
    }
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_set_attributes_json");
    ZT_OK(zarr_array_attributes_json(a, &json));
    ZT_CHECK(strcmp(json, "{\"keep\":true}") == 0);
    zarr_string_free(json);
    after = ztest_read_file(ztest_path(root, "a/zarr.json"), NULL);
    ZT_CHECK(before != NULL && after != NULL && strcmp(before, after) == 0);
    free(before);
    free(after);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* ---- region errors ---- */

ZTEST(read_null_arguments) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint8_t buf[35];
    uint64_t start[2] = {0, 0}, count[2] = {5, 7};
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5,7]", "[2,3]", "uint8", "0"), &a));
    ZT_STATUS(zarr_array_read(NULL, 2, start, count, buf, sizeof buf), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'array'");
    ZT_STATUS(zarr_array_read(a, 2, NULL, count, buf, sizeof buf), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'start'");
    ZT_STATUS(zarr_array_read(a, 2, start, NULL, buf, sizeof buf), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'count'");
    ZT_STATUS(zarr_array_read(a, 2, start, count, NULL, sizeof buf), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'buf'");
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_read");
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(write_null_arguments) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint8_t buf[35];
    uint64_t start[2] = {0, 0}, count[2] = {5, 7};
    memset(buf, 1, sizeof buf);
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5,7]", "[2,3]", "uint8", "0"), &a));
    ZT_STATUS(zarr_array_write(NULL, 2, start, count, buf, sizeof buf), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_write(a, 2, NULL, count, buf, sizeof buf), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'start'");
    ZT_STATUS(zarr_array_write(a, 2, start, NULL, buf, sizeof buf), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'count'");
    ZT_STATUS(zarr_array_write(a, 2, start, count, NULL, sizeof buf), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'buf'");
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_write");
    ZT_CHECK(!ztest_exists(ztest_path(root, "a/c")));
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(read_write_wrong_ndim) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint8_t buf[35];
    uint64_t start[3] = {0, 0, 0}, count[3] = {5, 7, 1};
    memset(buf, 3, sizeof buf);
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5,7]", "[2,3]", "uint8", "0"), &a));
    ZT_STATUS(zarr_array_read(a, 1, start, count, buf, sizeof buf), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "ndim");
    ZT_STATUS(zarr_array_read(a, 3, start, count, buf, sizeof buf), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_read(a, 0, NULL, NULL, buf, sizeof buf), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_read(a, (size_t)-1, start, count, buf, sizeof buf), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_write(a, 1, start, count, buf, sizeof buf), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_write(a, 3, start, count, buf, sizeof buf), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_EQ_U64(buf[0], 3);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(read_out_of_bounds) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint8_t buf[64], sentinel[64];
    uint64_t start[2], count[2];
    static const uint64_t cases[][4] = {
        /* start0, start1, count0, count1 */
        {5, 0, 1, 1},                 /* start past the end */
        {0, 0, 6, 7},                 /* count past the end */
        {4, 6, 1, 2},                 /* start + count past the end */
        {UINT64_MAX, 0, 2, 1},        /* start + count overflows */
        {1, 0, UINT64_MAX, 1},        /* huge count */
        {UINT64_MAX, UINT64_MAX, 1, 1},
        {6, 0, 0, 1},                 /* empty, but starting past the extent */
    };
    size_t i;
    memset(buf, 0xAB, sizeof buf);
    memcpy(sentinel, buf, sizeof buf);
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5,7]", "[2,3]", "uint8", "0"), &a));
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        start[0] = cases[i][0];
        start[1] = cases[i][1];
        count[0] = cases[i][2];
        count[1] = cases[i][3];
        ZT_STATUS(zarr_array_read(a, 2, start, count, buf, sizeof buf), ZARR_ERROR_OUT_OF_BOUNDS);
        ZT_STATUS(zarr_array_write(a, 2, start, count, buf, sizeof buf), ZARR_ERROR_OUT_OF_BOUNDS);
    }
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_write");
    ZT_EQ_MEM(buf, sentinel, sizeof buf);
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(read_buffer_too_small_leaves_buffer) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    int32_t data[35], buf[35], sentinel[35];
    uint64_t start[2] = {0, 0}, count[2] = {5, 7};
    int i;
    for (i = 0; i < 35; i++) {
        data[i] = i + 1;
    }
    memset(buf, 0xCD, sizeof buf);
    memcpy(sentinel, buf, sizeof buf);
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5,7]", "[2,3]", "int32", "0"), &a));
    ZT_OK(zarr_array_write(a, 2, start, count, data, sizeof data));
    ZT_STATUS(zarr_array_read(a, 2, start, count, buf, sizeof buf - 1), ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_read");
    ZT_STR_CONTAINS(zarr_last_error_message(), "140"); /* bytes needed */
    ZT_EQ_MEM(buf, sentinel, sizeof buf);
    ZT_STATUS(zarr_array_read(a, 2, start, count, buf, 0), ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_STATUS(zarr_array_read(a, 2, start, count, NULL, 0), ZARR_ERROR_BUFFER_TOO_SMALL);
    ZT_EQ_MEM(buf, sentinel, sizeof buf);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* A larger buffer than needed: the selection goes to the front, the rest is untouched. */
ZTEST(read_larger_buffer_tail_untouched) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint8_t data[6] = {1, 2, 3, 4, 5, 6}, buf[16];
    uint64_t start = 0, count = 6;
    int i;
    memset(buf, 0xEE, sizeof buf);
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[6]", "[4]", "uint8", "0"), &a));
    ZT_OK(zarr_array_write(a, 1, &start, &count, data, sizeof data));
    ZT_OK(zarr_array_read(a, 1, &start, &count, buf, sizeof buf));
    ZT_EQ_MEM(buf, data, sizeof data);
    for (i = 6; i < 16; i++) {
        ZT_EQ_U64(buf[i], 0xEE);
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(write_buffer_size_mismatch) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    int32_t buf[36];
    uint64_t start[2] = {0, 0}, count[2] = {5, 7};
    int i;
    for (i = 0; i < 36; i++) {
        buf[i] = i + 1;
    }
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5,7]", "[2,3]", "int32", "0"), &a));
    ZT_STATUS(zarr_array_write(a, 2, start, count, buf, 35 * 4 - 1), ZARR_ERROR_BUFFER_SIZE_MISMATCH);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_write");
    ZT_STATUS(zarr_array_write(a, 2, start, count, buf, 36 * 4), ZARR_ERROR_BUFFER_SIZE_MISMATCH);
    ZT_STATUS(zarr_array_write(a, 2, start, count, buf, 0), ZARR_ERROR_BUFFER_SIZE_MISMATCH);
    ZT_STATUS(zarr_array_write(a, 2, start, count, NULL, 0), ZARR_ERROR_BUFFER_SIZE_MISMATCH);
    ZT_CHECK(!ztest_exists(ztest_path(root, "a/c")));
    zarr_array_free(a);
    zarr_store_free(store);
}

/* A length no buffer can have is refused before the pointer is looked at. */
ZTEST(absurd_buffer_length_with_null_buffer) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint64_t start[2] = {0, 0}, count[2] = {5, 7}, idx[2] = {0, 0};
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5,7]", "[2,3]", "uint8", "0"), &a));
    ZT_STATUS(zarr_array_read(a, 2, start, count, NULL, SIZE_MAX), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "buf");
    ZT_STATUS(zarr_array_read(a, 2, start, count, NULL, SIZE_MAX / 2 + 1), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_write(a, 2, start, count, NULL, SIZE_MAX), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_read_chunk(a, 2, idx, NULL, SIZE_MAX), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_write_chunk(a, 2, idx, NULL, SIZE_MAX), ZARR_ERROR_INVALID_ARGUMENT);
    /* A plausible length with a NULL buffer is a NULL argument. */
    ZT_STATUS(zarr_array_read(a, 2, start, count, NULL, 35), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_array_write(a, 2, start, count, NULL, 35), ZARR_ERROR_NULL_ARGUMENT);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* ---- invalid and unsupported metadata ---- */

ZTEST(create_malformed_json) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    static const char *const bad[] = {"", "{", "not json", "[]", "3", "null", "\"array\"",
                                      "{\"zarr_format\":3,}", "{\"zarr_format\":3 \"node_type\":\"array\"}"};
    size_t i;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        zarr_array *a = (zarr_array *)1;
        zarr_status s = zarr_array_create(store, "/g/a", bad[i], &a);
        if (s != ZARR_ERROR_INVALID_METADATA) {
            fprintf(stderr, "document '%s' gave %d: %s\n", bad[i], (int)s, zarr_last_error_message());
        }
        ZT_STATUS(s, ZARR_ERROR_INVALID_METADATA);
        ZT_CHECK(a == NULL);
    }
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_create");
    /* Nothing was written: not even the parent group. */
    ZT_EQ_U64(ztest_count_entries(root) <= 0, 1);
    zarr_store_free(store);
}

ZTEST(create_missing_fields) {
    static const char *const fields[] = {"zarr_format", "node_type", "shape", "data_type",
                                         "chunk_grid", "chunk_key_encoding", "fill_value", "codecs"};
    static const char *const values[] = {"3", "\"array\"", "[4]", "\"uint8\"",
                                         "{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[2]}}",
                                         KEY_DEFAULT, "0", "[{\"name\":\"bytes\"}]"};
    zarr_store *store = NULL;
    size_t skip, i;
    ZT_OK(zarr_store_open_memory(&store));
    /* Every field but `codecs` is required; without `codecs` (the form of pre-final v3
     * drafts, still in GDAL's files) the chunks are uncompressed little-endian. */
    for (skip = 0; skip < 8; skip++) {
        char doc[2048];
        size_t len = 0;
        zarr_array *a = (zarr_array *)1;
        zarr_status s;
        len += (size_t)snprintf(doc + len, sizeof doc - len, "{");
        for (i = 0; i < 8; i++) {
            if (i == skip) {
                continue;
            }
            len += (size_t)snprintf(doc + len, sizeof doc - len, "%s\"%s\":%s",
                                    len > 1 ? "," : "", fields[i], values[i]);
        }
        snprintf(doc + len, sizeof doc - len, "}");
        s = zarr_array_create(store, "/a", doc, &a);
        if (skip == 7) {
            char *json = NULL;
            ZT_STATUS(s, ZARR_OK);
            ZT_OK(zarr_array_metadata_json(a, &json));
            ZT_STR_CONTAINS(json, "\"codecs\"");
            ZT_STR_CONTAINS(json, "\"bytes\"");
            zarr_string_free(json);
            zarr_array_free(a);
            continue;
        }
        if (s != ZARR_ERROR_INVALID_METADATA) {
            fprintf(stderr, "without %s: %d: %s\n", fields[skip], (int)s, zarr_last_error_message());
        }
        ZT_STATUS(s, ZARR_ERROR_INVALID_METADATA);
        ZT_STR_CONTAINS(zarr_last_error_message(), fields[skip]);
        ZT_CHECK(a == NULL);
    }
    zarr_store_free(store);
}

ZTEST(create_bad_fill_values) {
    static const struct {
        const char *dtype;
        const char *fill;
    } bad[] = {
        {"int8", "128"},
        {"int8", "-129"},
        {"uint8", "-1"},
        {"uint8", "256"},
        {"int32", "1.5"},
        {"int32", "\"one\""},
        {"int64", "9223372036854775808"},
        {"uint64", "18446744073709551616"},
        {"bool", "1"},
        {"bool", "\"true\""},
        {"float32", "\"nan\""},
        {"float32", "null"},
        {"float32", "\"0x123456789\""},
        {"float64", "[1.0]"},
        {"complex64", "1.0"},
        {"complex64", "[1.0]"},
        {"complex128", "[1.0,2.0,3.0]"},
        {"r16", "[1,2,3]"},
        {"r16", "[256,0]"},
        {"r16", "0"},
        {"uint16", "null"},
    };
    zarr_store *store = NULL;
    size_t i;
    ZT_OK(zarr_store_open_memory(&store));
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        zarr_array *a = (zarr_array *)1;
        zarr_status s = zarr_array_create(
            store, "/a",
            meta_full("[4]", "[2]", bad[i].dtype, bad[i].fill,
                      strcmp(bad[i].dtype, "r16") == 0 ? "[{\"name\":\"bytes\"}]" : LE, KEY_DEFAULT, ""),
            &a);
        if (s != ZARR_ERROR_INVALID_METADATA) {
            fprintf(stderr, "%s fill %s: %d: %s\n", bad[i].dtype, bad[i].fill, (int)s,
                    zarr_last_error_message());
        }
        ZT_STATUS(s, ZARR_ERROR_INVALID_METADATA);
        ZT_CHECK(a == NULL);
    }
    ZT_STR_CONTAINS(zarr_last_error_message(), "fill_value");
    zarr_store_free(store);
}

ZTEST(create_bad_shapes_and_grids) {
    static const struct {
        const char *shape;
        const char *chunks;
    } bad[] = {
        {"[-1]", "[2]"},
        {"[4]", "[0]"},
        {"[4]", "[2,2]"},
        {"[4,4]", "[2]"},
        {"[1.5]", "[1]"},
        {"\"4\"", "[2]"},
        {"[4]", "[-2]"},
        {"[4]", "null"},
        {"{}", "[2]"},
    };
    zarr_store *store = NULL;
    size_t i;
    ZT_OK(zarr_store_open_memory(&store));
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        zarr_array *a = (zarr_array *)1;
        zarr_status s = zarr_array_create(store, "/a", meta(bad[i].shape, bad[i].chunks, "uint8", "0"), &a);
        if (s != ZARR_ERROR_INVALID_METADATA) {
            fprintf(stderr, "shape %s chunks %s: %d: %s\n", bad[i].shape, bad[i].chunks, (int)s,
                    zarr_last_error_message());
        }
        ZT_STATUS(s, ZARR_ERROR_INVALID_METADATA);
        ZT_CHECK(a == NULL);
    }
    zarr_store_free(store);
}

ZTEST(create_bad_documents) {
    zarr_store *store = NULL;
    zarr_array *a = (zarr_array *)1;
    ZT_OK(zarr_store_open_memory(&store));
    /* A group document is not an array document. */
    ZT_STATUS(zarr_array_create(store, "/a", "{\"zarr_format\":3,\"node_type\":\"group\"}", &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_CHECK(a == NULL);
    /* Codec chains. */
    ZT_STATUS(zarr_array_create(store, "/a", meta_full("[4]", "[2]", "int16", "0", "[]", KEY_DEFAULT, ""), &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STATUS(zarr_array_create(store, "/a", meta_full("[4]", "[2]", "int16", "0",
                                                      "[{\"name\":\"bytes\"}]", KEY_DEFAULT, ""),
                                &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "endian");
    ZT_STATUS(zarr_array_create(store, "/a",
                                meta_full("[4]", "[2]", "int16", "0",
                                          "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"middle\"}}]",
                                          KEY_DEFAULT, ""),
                                &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STATUS(zarr_array_create(store, "/a", meta_full("[4]", "[2]", "uint8", "0",
                                                      "[{\"name\":\"bytes\"},{\"name\":\"bytes\"}]",
                                                      KEY_DEFAULT, ""),
                                &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STATUS(zarr_array_create(store, "/a", meta_full("[4]", "[2]", "uint8", "0", "{}", KEY_DEFAULT, ""), &a),
              ZARR_ERROR_INVALID_METADATA);
    /* attributes must be an object, dimension_names must match the rank. */
    ZT_STATUS(zarr_array_create(store, "/a", meta_full("[4]", "[2]", "uint8", "0", LE, KEY_DEFAULT,
                                                      ",\"attributes\":[1]"),
                                &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STATUS(zarr_array_create(store, "/a", meta_full("[4]", "[2]", "uint8", "0", LE, KEY_DEFAULT,
                                                      ",\"dimension_names\":[\"x\",\"y\"]"),
                                &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STATUS(zarr_array_create(store, "/a", meta("[4]", "[2]", "r7", "[0]"), &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_CHECK(a == NULL);
    zarr_store_free(store);
}

ZTEST(create_unknown_codec_unsupported) {
    zarr_store *store = NULL;
    zarr_array *a = (zarr_array *)1;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(zarr_array_create(store, "/a",
                                meta_full("[4]", "[2]", "uint8", "0",
                                          "[{\"name\":\"bytes\"},{\"name\":\"lzw_turbo\",\"configuration\":{}}]",
                                          KEY_DEFAULT, ""),
                                &a),
              ZARR_ERROR_UNSUPPORTED);
    ZT_CHECK(a == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "lzw_turbo");
    /* An unknown array->array codec in front. */
    ZT_STATUS(zarr_array_create(store, "/a",
                                meta_full("[4]", "[2]", "uint8", "0",
                                          "[{\"name\":\"my_filter\"},{\"name\":\"bytes\"}]", KEY_DEFAULT, ""),
                                &a),
              ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "my_filter");
    zarr_store_free(store);
}

ZTEST(create_unknown_data_type_and_grid_unsupported) {
    zarr_store *store = NULL;
    zarr_array *a = (zarr_array *)1;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(zarr_array_create(store, "/a", meta("[4]", "[2]", "int128", "0"), &a), ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "int128");
    ZT_STATUS(zarr_array_create(store, "/a",
                                "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4],\"data_type\":\"uint8\","
                                "\"chunk_grid\":{\"name\":\"hexagonal\",\"configuration\":{}},"
                                "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":0,"
                                "\"codecs\":[{\"name\":\"bytes\"}]}",
                                &a),
              ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "hexagonal");
    /* A known grid without its required configuration is malformed, not unsupported. */
    ZT_STATUS(zarr_array_create(store, "/a",
                                "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[4],\"data_type\":\"uint8\","
                                "\"chunk_grid\":{\"name\":\"rectilinear\",\"configuration\":{}},"
                                "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":0,"
                                "\"codecs\":[{\"name\":\"bytes\"}]}",
                                &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "rectilinear");
    ZT_CHECK(a == NULL);
    zarr_store_free(store);
}

/* Unknown top-level fields fail unless they say "must_understand": false. */
ZTEST(create_unknown_field_must_understand) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = (zarr_array *)1;
    char *json = NULL, *c;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_STATUS(zarr_array_create(store, "/a", meta_full("[4]", "[2]", "uint8", "0", LE, KEY_DEFAULT,
                                                      ",\"my_extension\":{\"x\":1}"),
                                &a),
              ZARR_ERROR_UNSUPPORTED);
    ZT_CHECK(a == NULL);
    ZT_STR_CONTAINS(zarr_last_error_message(), "my_extension");
    ZT_STATUS(zarr_array_create(store, "/a", meta_full("[4]", "[2]", "uint8", "0", LE, KEY_DEFAULT,
                                                      ",\"my_extension\":{\"must_understand\":true}"),
                                &a),
              ZARR_ERROR_UNSUPPORTED);
    ZT_STATUS(zarr_array_create(store, "/a", meta_full("[4]", "[2]", "uint8", "0", LE, KEY_DEFAULT,
                                                      ",\"flag\":true"),
                                &a),
              ZARR_ERROR_UNSUPPORTED);
    ZT_CHECK(!ztest_exists(ztest_path(root, "a/zarr.json")));
    /* must_understand: false is accepted and kept. */
    ZT_OK(zarr_array_create(store, "/a", meta_full("[4]", "[2]", "uint8", "0", LE, KEY_DEFAULT,
                                                  ",\"my_extension\":{\"must_understand\":false,\"x\":1}"),
                            &a));
    ZT_OK(zarr_array_metadata_json(a, &json));
    c = ztest_json_compact(json);
    ZT_STR_CONTAINS(c, "\"my_extension\":{\"must_understand\":false,\"x\":1}");
    free(c);
    zarr_string_free(json);
    zarr_array_free(a);
    a = NULL;
    ZT_OK(zarr_array_open(store, "/a", &a));
    zarr_array_free(a);
    zarr_store_free(store);
}

/* Formats other than 2 and 3 are refused; a document without zarr_format is invalid. */
ZTEST(create_zarr_format_4_unsupported) {
    zarr_store *store = NULL;
    zarr_array *a = (zarr_array *)1;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(zarr_array_create(store, "/a", "{\"shape\":[4],\"chunks\":[2],\"dtype\":\"<i4\"}", &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_CHECK(a == NULL);
    ZT_STATUS(zarr_array_create(store, "/a",
                                "{\"zarr_format\":4,\"node_type\":\"array\",\"shape\":[4],\"data_type\":\"uint8\","
                                "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[2]}},"
                                "\"chunk_key_encoding\":{\"name\":\"default\"},\"fill_value\":0,"
                                "\"codecs\":[{\"name\":\"bytes\"}]}",
                                &a),
              ZARR_ERROR_UNSUPPORTED);
    zarr_store_free(store);
}

/* A shape with 2^64 elements or more cannot be described by the C API. */
ZTEST(create_shape_over_2_64_elements) {
    zarr_store *store = NULL;
    zarr_array *a = (zarr_array *)1;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_STATUS(zarr_array_create(store, "/a", meta("[9223372036854775808,4]", "[1,1]", "uint8", "0"), &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_CHECK(a == NULL);
    ZT_STATUS(zarr_array_create(store, "/a", meta("[4294967296,4294967296]", "[1,1]", "uint8", "0"), &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STATUS(zarr_array_create(store, "/a",
                                meta("[18446744073709551615,18446744073709551615]", "[1,1]", "uint8", "0"), &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "2^64");
    /* Just below the limit is a valid (sparse) array. */
    ZT_OK(zarr_array_create(store, "/a", meta("[4294967296,4294967295]", "[1024,1024]", "uint8", "0"), &a));
    {
        uint64_t shape[2] = {0, 0};
        ZT_OK(zarr_array_shape(a, 2, shape));
        ZT_EQ_U64(shape[0], UINT64_C(4294967296));
        ZT_EQ_U64(shape[1], UINT64_C(4294967295));
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

/* ---- concurrency ---- */

#define TN 64
#define TC 8

struct reader_task {
    zarr_array *array;
    const int32_t *expected;
    int seed;
    int errors;
    zarr_status status;
};

static void *reader_thread(void *arg) {
    struct reader_task *t = (struct reader_task *)arg;
    int32_t *buf = (int32_t *)malloc(TN * TN * sizeof(int32_t));
    unsigned rng = (unsigned)t->seed * 2654435761u + 1u;
    int round;
    for (round = 0; round < 60 && buf != NULL; round++) {
        uint64_t start[2], count[2];
        uint64_t r, c;
        zarr_status s;
        rng = rng * 1103515245u + 12345u;
        start[0] = (rng >> 8) % TN;
        rng = rng * 1103515245u + 12345u;
        start[1] = (rng >> 8) % TN;
        rng = rng * 1103515245u + 12345u;
        count[0] = 1 + (rng >> 8) % (TN - start[0]);
        rng = rng * 1103515245u + 12345u;
        count[1] = 1 + (rng >> 8) % (TN - start[1]);
        if (round % 10 == 0) {
            start[0] = start[1] = 0;
            count[0] = count[1] = TN;
        }
        s = zarr_array_read(t->array, 2, start, count, buf, TN * TN * sizeof(int32_t));
        if (s != ZARR_OK) {
            t->status = s;
            t->errors++;
            continue;
        }
        for (r = 0; r < count[0]; r++) {
            for (c = 0; c < count[1]; c++) {
                if (buf[r * count[1] + c] != t->expected[(start[0] + r) * TN + start[1] + c]) {
                    t->errors++;
                }
            }
        }
    }
    free(buf);
    return NULL;
}

ZTEST(threads_concurrent_reads_of_one_handle) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    static int32_t data[TN * TN];
    uint64_t start[2] = {0, 0}, count[2] = {TN, TN};
    pthread_t threads[4];
    struct reader_task tasks[4];
    int i;
    for (i = 0; i < TN * TN; i++) {
        data[i] = i * 7 - 1000;
    }
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", meta("[64,64]", "[8,8]", "int32", "0"), &a));
    ZT_OK(zarr_array_write(a, 2, start, count, data, sizeof data));
    for (i = 0; i < 4; i++) {
        tasks[i].array = a;
        tasks[i].expected = data;
        tasks[i].seed = i + 1;
        tasks[i].errors = 0;
        tasks[i].status = ZARR_OK;
        ZT_CHECK(pthread_create(&threads[i], NULL, reader_thread, &tasks[i]) == 0);
    }
    for (i = 0; i < 4; i++) {
        ZT_CHECK(pthread_join(threads[i], NULL) == 0);
    }
    for (i = 0; i < 4; i++) {
        if (tasks[i].errors != 0) {
            fprintf(stderr, "reader %d: %d errors, last status %d\n", i, tasks[i].errors,
                    (int)tasks[i].status);
        }
        ZT_EQ_U64(tasks[i].errors, 0);
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

struct writer_task {
    zarr_array *array;
    int id;
    int errors;
    zarr_status status;
    char message[256];
};

static int32_t writer_value(uint64_t r, uint64_t c) {
    return (int32_t)(r * 1000 + c + 1);
}

/* Thread `id` owns chunk rows id, id+4: it writes them by region (in pieces covering parts
 * of its own chunks only) and by whole chunks, several times over. */
static void *writer_thread(void *arg) {
    struct writer_task *t = (struct writer_task *)arg;
    int32_t block[TC * TN];
    int32_t chunk[TC * TC];
    int pass;
    uint64_t band, r, c;
    for (pass = 0; pass < 3; pass++) {
        for (band = (uint64_t)t->id; band < TN / TC; band += 4) {
            uint64_t row0 = band * TC;
            if (pass % 2 == 0) {
                /* Two region writes: top half rows then bottom half rows of the band. */
                uint64_t half;
                for (half = 0; half < 2; half++) {
                    uint64_t start[2] = {row0 + half * (TC / 2), 0}, count[2] = {TC / 2, TN};
                    zarr_status s;
                    for (r = 0; r < TC / 2; r++) {
                        for (c = 0; c < TN; c++) {
                            block[r * TN + c] = writer_value(start[0] + r, c) + (pass == 0 ? 5 : 0);
                        }
                    }
                    s = zarr_array_write(t->array, 2, start, count, block,
                                         (TC / 2) * TN * sizeof(int32_t));
                    if (s != ZARR_OK) {
                        t->errors++;
                        t->status = s;
                        snprintf(t->message, sizeof t->message, "%s", zarr_last_error_message());
                    }
                }
            } else {
                uint64_t cc;
                for (cc = 0; cc < TN / TC; cc++) {
                    uint64_t idx[2] = {band, cc};
                    zarr_status s;
                    for (r = 0; r < TC; r++) {
                        for (c = 0; c < TC; c++) {
                            chunk[r * TC + c] = writer_value(row0 + r, cc * TC + c);
                        }
                    }
                    s = zarr_array_write_chunk(t->array, 2, idx, chunk, sizeof chunk);
                    if (s != ZARR_OK) {
                        t->errors++;
                        t->status = s;
                        snprintf(t->message, sizeof t->message, "%s", zarr_last_error_message());
                    }
                }
            }
        }
    }
    return NULL;
}

static void disjoint_writes(const char *metadata) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL, *b = NULL;
    static int32_t back[TN * TN];
    uint64_t start[2] = {0, 0}, count[2] = {TN, TN};
    pthread_t threads[4];
    struct writer_task tasks[4];
    uint64_t r, c;
    int i, mismatches = 0;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", metadata, &a));
    for (i = 0; i < 4; i++) {
        memset(&tasks[i], 0, sizeof tasks[i]);
        tasks[i].array = a;
        tasks[i].id = i;
        ZT_CHECK(pthread_create(&threads[i], NULL, writer_thread, &tasks[i]) == 0);
    }
    for (i = 0; i < 4; i++) {
        ZT_CHECK(pthread_join(threads[i], NULL) == 0);
    }
    for (i = 0; i < 4; i++) {
        if (tasks[i].errors != 0) {
            fprintf(stderr, "writer %d: %d errors, status %d: %s\n", i, tasks[i].errors,
                    (int)tasks[i].status, tasks[i].message);
        }
        ZT_EQ_U64(tasks[i].errors, 0);
    }
    /* Read back through a fresh handle: the last pass (region writes) wins everywhere. */
    ZT_OK(zarr_array_open(store, "/a", &b));
    ZT_OK(zarr_array_read(b, 2, start, count, back, sizeof back));
    for (r = 0; r < TN; r++) {
        for (c = 0; c < TN; c++) {
            if (back[r * TN + c] != writer_value(r, c)) {
                mismatches++;
            }
        }
    }
    ZT_EQ_U64(mismatches, 0);
    /* 64 chunks, no stray temporary files. */
    for (r = 0; r < TN / TC; r++) {
        char dir[64];
        snprintf(dir, sizeof dir, "a/c/%u", (unsigned)r);
        ZT_EQ_U64(ztest_count_entries(ztest_path(root, dir)), TN / TC);
    }
    zarr_array_free(a);
    zarr_array_free(b);
    zarr_store_free(store);
}

ZTEST(threads_concurrent_disjoint_writes) {
    disjoint_writes(meta("[64,64]", "[8,8]", "int32", "0"));
}

/* The same through compressing and checksumming codecs. */
ZTEST(threads_concurrent_disjoint_writes_compressed) {
    disjoint_writes(meta_full("[64,64]", "[8,8]", "int32", "0",
                              "[{\"name\":\"transpose\",\"configuration\":{\"order\":[1,0]}},"
                              "{\"name\":\"bytes\",\"configuration\":{\"endian\":\"big\"}},"
                              "{\"name\":\"blosc\",\"configuration\":{\"cname\":\"zstd\",\"clevel\":3,"
                              "\"shuffle\":\"bitshuffle\",\"typesize\":4,\"blocksize\":0}},"
                              "{\"name\":\"crc32c\"}]",
                              KEY_DEFAULT, ""));
}

ZTEST(threads_concurrent_reads_compressed) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    static int32_t data[TN * TN];
    uint64_t start[2] = {0, 0}, count[2] = {TN, TN};
    pthread_t threads[4];
    struct reader_task tasks[4];
    int i;
    for (i = 0; i < TN * TN; i++) {
        data[i] = (i % 17) * 3 - 20;
    }
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a",
                            meta_full("[64,64]", "[8,8]", "int32", "0",
                                      "[" "{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}},"
                                      "{\"name\":\"zstd\",\"configuration\":{\"level\":1,\"checksum\":true}},"
                                      "{\"name\":\"gzip\",\"configuration\":{\"level\":1}}]",
                                      KEY_DEFAULT, ""),
                            &a));
    ZT_OK(zarr_array_write(a, 2, start, count, data, sizeof data));
    for (i = 0; i < 4; i++) {
        tasks[i].array = a;
        tasks[i].expected = data;
        tasks[i].seed = 10 + i;
        tasks[i].errors = 0;
        tasks[i].status = ZARR_OK;
        ZT_CHECK(pthread_create(&threads[i], NULL, reader_thread, &tasks[i]) == 0);
    }
    for (i = 0; i < 4; i++) {
        ZT_CHECK(pthread_join(threads[i], NULL) == 0);
    }
    for (i = 0; i < 4; i++) {
        ZT_EQ_U64(tasks[i].errors, 0);
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

struct mixed_task {
    zarr_array *array;
    int id;
    int errors;
};

/* Readers read the left half while writers rewrite chunks of the right half. */
static void *mixed_thread(void *arg) {
    struct mixed_task *t = (struct mixed_task *)arg;
    int32_t buf[TN * TN / 2];
    int round;
    uint64_t r, c;
    for (round = 0; round < 40; round++) {
        if (t->id % 2 == 0) {
            uint64_t start[2] = {0, 0}, count[2] = {TN, TN / 2};
            if (zarr_array_read(t->array, 2, start, count, buf, sizeof buf) != ZARR_OK) {
                t->errors++;
                continue;
            }
            for (r = 0; r < TN; r++) {
                for (c = 0; c < TN / 2; c++) {
                    if (buf[r * (TN / 2) + c] != writer_value(r, c)) {
                        t->errors++;
                    }
                }
            }
        } else {
            int32_t chunk[TC * TC];
            uint64_t idx[2];
            idx[0] = (uint64_t)(round % (TN / TC));
            idx[1] = (uint64_t)(TN / TC / 2 + (t->id / 2) * 2 + round % 2);
            for (r = 0; r < TC * TC; r++) {
                chunk[r] = (int32_t)(round * 100 + t->id);
            }
            if (zarr_array_write_chunk(t->array, 2, idx, chunk, sizeof chunk) != ZARR_OK) {
                t->errors++;
            }
        }
    }
    return NULL;
}

ZTEST(threads_reads_alongside_writes) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    static int32_t data[TN * TN];
    uint64_t start[2] = {0, 0}, count[2] = {TN, TN};
    pthread_t threads[4];
    struct mixed_task tasks[4];
    uint64_t r, c;
    int i;
    for (r = 0; r < TN; r++) {
        for (c = 0; c < TN; c++) {
            data[r * TN + c] = writer_value(r, c);
        }
    }
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[64,64]", "[8,8]", "int32", "0"), &a));
    ZT_OK(zarr_array_write(a, 2, start, count, data, sizeof data));
    for (i = 0; i < 4; i++) {
        tasks[i].array = a;
        tasks[i].id = i;
        tasks[i].errors = 0;
        ZT_CHECK(pthread_create(&threads[i], NULL, mixed_thread, &tasks[i]) == 0);
    }
    for (i = 0; i < 4; i++) {
        ZT_CHECK(pthread_join(threads[i], NULL) == 0);
    }
    for (i = 0; i < 4; i++) {
        ZT_EQ_U64(tasks[i].errors, 0);
    }
    zarr_array_free(a);
    zarr_store_free(store);
}

/* ---- zarr_array_read_double ---- */

/* int16 as xarray packs CF variables: the extremes and the _FillValue -32767 come back as
 * doubles, a chunk never written reads as the fill value (-7), converted; a sub-region
 * reads its elements in C order. */
ZTEST(read_double_int16) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    int16_t data[6] = {-32768, -1, 0, 32767, -32767, 1234};
    double got[12], want[12], part[2];
    uint64_t start[2] = {0, 0}, count[2] = {2, 3}, all[2] = {3, 4};
    uint64_t pstart[2] = {1, 1}, pcount[2] = {1, 2};
    int i;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[3,4]", "[2,3]", "int16", "-7"), &a));
    ZT_OK(zarr_array_write(a, 2, start, count, data, sizeof data));
    for (i = 0; i < 12; i++) want[i] = -7.0;
    want[0] = -32768.0, want[1] = -1.0, want[2] = 0.0;
    want[4] = 32767.0, want[5] = -32767.0, want[6] = 1234.0;
    ZT_OK(zarr_array_read_double(a, 2, start, all, got, 12));
    for (i = 0; i < 12; i++)
        if (got[i] != want[i]) ZT_FAIL_("element %d: %g, expected %g", i, got[i], want[i]);
    ZT_OK(zarr_array_read_double(a, 2, pstart, pcount, part, 2));
    ZT_CHECK(part[0] == -32767.0 && part[1] == 1234.0);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* uint64 beyond 2^53 gives the nearest double; values up to 2^53 are exact. */
ZTEST(read_double_uint64_large) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint64_t data[4] = {UINT64_MAX, (UINT64_C(1) << 53) + 1, UINT64_C(1) << 53, 12345};
    double got[4];
    uint64_t start = 0, count = 4;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[4]", "[3]", "uint64", "0"), &a));
    ZT_OK(zarr_array_write(a, 1, &start, &count, data, sizeof data));
    ZT_OK(zarr_array_read_double(a, 1, &start, &count, got, 4));
    ZT_CHECK(got[0] == 18446744073709551616.0);
    ZT_CHECK(got[1] == 9007199254740992.0);
    ZT_CHECK(got[2] == 9007199254740992.0);
    ZT_CHECK(got[3] == 12345.0);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* float32 converts exactly: 0.1f is (double)0.1f, not 0.1; NaN, infinity and -0 stay. */
ZTEST(read_double_float32) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    float data[5] = {0.1f, -0.0f, 0.0f, 273.15f, 0.0f};
    double got[5];
    uint64_t start = 0, count = 5;
    data[2] = (float)INFINITY;
    data[4] = (float)NAN;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5]", "[2]", "float32", "\"NaN\""), &a));
    ZT_OK(zarr_array_write(a, 1, &start, &count, data, sizeof data));
    ZT_OK(zarr_array_read_double(a, 1, &start, &count, got, 5));
    ZT_CHECK(got[0] == (double)0.1f && got[0] != 0.1);
    ZT_CHECK(got[1] == 0.0 && signbit(got[1]));
    ZT_CHECK(isinf(got[2]) && got[2] > 0);
    ZT_CHECK(got[3] == (double)273.15f);
    ZT_CHECK(isnan(got[4]));
    zarr_array_free(a);
    zarr_store_free(store);
}

/* bool reads as 0 and 1; the unwritten chunk is the fill value true. */
ZTEST(read_double_bool) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint8_t data[3] = {0, 1, 0};
    double got[5];
    uint64_t start = 0, count = 3, all = 5;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[5]", "[3]", "bool", "true"), &a));
    ZT_OK(zarr_array_write(a, 1, &start, &count, data, sizeof data));
    ZT_OK(zarr_array_read_double(a, 1, &start, &all, got, 5));
    ZT_CHECK(got[0] == 0.0 && got[1] == 1.0 && got[2] == 0.0 && got[3] == 1.0 && got[4] == 1.0);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* The other real types, each with an element whose conversion is known exactly. */
ZTEST(read_double_every_real_type) {
    static const struct {
        const char *type, *fill;
        uint8_t bytes[8];
        double want;
    } cases[] = {
        {"int8", "0", {0x80}, -128.0},
        {"uint8", "0", {0xff}, 255.0},
        {"int32", "0", {0}, -2147483648.0}, /* bytes set below (host order) */
        {"uint32", "0", {0}, 4294967295.0},
        {"int64", "0", {0}, -9007199254740996.0}, /* -2^53 - 3: a tie, to even */
        {"uint16", "0", {0}, 65535.0},
        {"float16", "0.0", {0}, -2.0},
        {"bfloat16", "0.0", {0}, 1.0},
        {"float64", "0.0", {0}, 1e300},
        {"float8_e4m3", "0.0", {0x38}, 1.0},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        zarr_store *store = NULL;
        zarr_array *a = NULL;
        uint8_t element[8];
        size_t size = 0;
        double got = 0.0;
        uint64_t start = 0, count = 1;
        int32_t i32 = INT32_MIN;
        uint32_t u32 = UINT32_MAX;
        int64_t i64 = -(INT64_C(1) << 53) - 3;
        uint16_t u16 = 65535, f16 = 0xc000, bf16 = 0x3f80;
        double f64 = 1e300;
        memcpy(element, cases[i].bytes, 8);
        if (!strcmp(cases[i].type, "int32")) memcpy(element, &i32, 4);
        if (!strcmp(cases[i].type, "uint32")) memcpy(element, &u32, 4);
        if (!strcmp(cases[i].type, "int64")) memcpy(element, &i64, 8);
        if (!strcmp(cases[i].type, "uint16")) memcpy(element, &u16, 2);
        if (!strcmp(cases[i].type, "float16")) memcpy(element, &f16, 2);
        if (!strcmp(cases[i].type, "bfloat16")) memcpy(element, &bf16, 2);
        if (!strcmp(cases[i].type, "float64")) memcpy(element, &f64, 8);
        ZT_OK(zarr_store_open_memory(&store));
        ZT_OK(zarr_array_create(store, "/a", meta("[1]", "[1]", cases[i].type, cases[i].fill), &a));
        ZT_OK(zarr_array_element_size(a, &size));
        ZT_OK(zarr_array_write(a, 1, &start, &count, element, size));
        ZT_OK(zarr_array_read_double(a, 1, &start, &count, &got, 1));
        if (got != cases[i].want) {
            ZT_FAIL_("%s: %.17g, expected %.17g", cases[i].type, got, cases[i].want);
        }
        zarr_array_free(a);
        zarr_store_free(store);
    }
}

/* A zero-dimensional array reads its one element; an empty selection reads nothing and
 * accepts (NULL, 0). */
ZTEST(read_double_scalar_and_empty) {
    zarr_store *store = NULL;
    zarr_array *a = NULL, *b = NULL;
    int32_t v = -5;
    double got = 0.0;
    uint64_t start[2] = {0, 0}, count[2] = {0, 2};
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/s", meta("[]", "[]", "int32", "0"), &a));
    ZT_OK(zarr_array_write(a, 0, NULL, NULL, &v, sizeof v));
    ZT_OK(zarr_array_read_double(a, 0, NULL, NULL, &got, 1));
    ZT_CHECK(got == -5.0);
    ZT_OK(zarr_array_create(store, "/e", meta("[3,4]", "[2,2]", "uint8", "0"), &b));
    ZT_OK(zarr_array_read_double(b, 2, start, count, NULL, 0));
    zarr_array_free(a);
    zarr_array_free(b);
    zarr_store_free(store);
}

/* NULL arguments are named; the buffer is left as it was. */
ZTEST(read_double_null_arguments) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    double buf[4] = {9, 9, 9, 9};
    uint64_t start[2] = {0, 0}, count[2] = {2, 2};
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[2,2]", "[2,2]", "int16", "3"), &a));
    ZT_STATUS(zarr_array_read_double(NULL, 2, start, count, buf, 4), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "zarr_array_read_double");
    ZT_STR_CONTAINS(zarr_last_error_message(), "argument 'array' is NULL");
    ZT_STATUS(zarr_array_read_double(a, 2, NULL, count, buf, 4), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "argument 'start' is NULL");
    ZT_STATUS(zarr_array_read_double(a, 2, start, NULL, buf, 4), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "argument 'count' is NULL");
    ZT_STATUS(zarr_array_read_double(a, 2, start, count, NULL, 4), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "argument 'values' is NULL");
    ZT_CHECK(buf[0] == 9 && buf[1] == 9 && buf[2] == 9 && buf[3] == 9);
    ZT_OK(zarr_array_read_double(a, 2, start, count, buf, 4));
    ZT_CHECK(buf[0] == 3 && buf[3] == 3);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* values_len counts doubles and must equal the selection's element count: one less, one
 * more, and the byte count (8 x) are refused with both numbers in the message, the buffer
 * unchanged; an absurd length is INVALID_ARGUMENT. */
ZTEST(read_double_length_mismatch) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    double buf[48];
    uint64_t start[2] = {0, 0}, count[2] = {2, 3};
    int i;
    for (i = 0; i < 48; i++) buf[i] = 42.0;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[2,3]", "[2,3]", "int16", "1"), &a));
    ZT_STATUS(zarr_array_read_double(a, 2, start, count, buf, 5), ZARR_ERROR_BUFFER_SIZE_MISMATCH);
    ZT_STR_CONTAINS(zarr_last_error_message(), "buffer of 5 values does not match the selection's 6 elements");
    ZT_STATUS(zarr_array_read_double(a, 2, start, count, buf, 7), ZARR_ERROR_BUFFER_SIZE_MISMATCH);
    ZT_STR_CONTAINS(zarr_last_error_message(), "7 values");
    ZT_STATUS(zarr_array_read_double(a, 2, start, count, buf, 48), ZARR_ERROR_BUFFER_SIZE_MISMATCH);
    ZT_STR_CONTAINS(zarr_last_error_message(), "48 values");
    for (i = 0; i < 48; i++)
        if (buf[i] != 42.0) ZT_FAIL_("buf[%d] was written: %g", i, buf[i]);
    ZT_STATUS(zarr_array_read_double(a, 2, start, count, buf, SIZE_MAX), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_read_double(a, 2, start, count, NULL, SIZE_MAX / 8), ZARR_ERROR_INVALID_ARGUMENT);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* The wrong rank is INVALID_ARGUMENT; a selection leaving the array (or whose end
 * overflows) is OUT_OF_BOUNDS; nothing is written. */
ZTEST(read_double_rank_and_bounds) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    double buf[6] = {7, 7, 7, 7, 7, 7};
    uint64_t start[2] = {0, 0}, count[2] = {2, 3}, far[2] = {1, 1}, huge[2] = {UINT64_MAX, 0};
    uint64_t one[2] = {1, 1};
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[2,3]", "[2,3]", "uint8", "0"), &a));
    ZT_STATUS(zarr_array_read_double(a, 1, start, count, buf, 6), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "ndim is 1 but the array has 2 dimensions");
    ZT_STATUS(zarr_array_read_double(a, 3, start, count, buf, 6), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_array_read_double(a, 2, far, count, buf, 6), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_STR_CONTAINS(zarr_last_error_message(), "exceeds extent");
    ZT_STATUS(zarr_array_read_double(a, 2, huge, one, buf, 1), ZARR_ERROR_OUT_OF_BOUNDS);
    ZT_CHECK(buf[0] == 7 && buf[5] == 7);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* Elements that are not real numbers are TYPE_MISMATCH, the message naming the data type,
 * the buffer unchanged. */
ZTEST(read_double_type_mismatch) {
    static const struct {
        const char *type, *fill, *codecs;
    } cases[] = {
        {"complex64", "[0.0,0.0]", LE},
        {"complex128", "[0.0,0.0]", LE},
        {"r16", "[0,0]", LE},
        {"string", "\"\"", "[{\"name\":\"vlen-utf8\"}]"},
        {"bytes", "\"\"", "[{\"name\":\"vlen-bytes\"}]"},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        zarr_store *store = NULL;
        zarr_array *a = NULL;
        double buf[2] = {5, 5};
        uint64_t start = 0, count = 2;
        char expected[96];
        ZT_OK(zarr_store_open_memory(&store));
        ZT_OK(zarr_array_create(store, "/a",
                                meta_full("[2]", "[2]", cases[i].type, cases[i].fill, cases[i].codecs,
                                          KEY_DEFAULT, ""),
                                &a));
        ZT_STATUS(zarr_array_read_double(a, 1, &start, &count, buf, 2), ZARR_ERROR_TYPE_MISMATCH);
        snprintf(expected, sizeof expected, "data type %s does not convert to double", cases[i].type);
        ZT_STR_CONTAINS(zarr_last_error_message(), expected);
        ZT_CHECK(buf[0] == 5 && buf[1] == 5);
        zarr_array_free(a);
        zarr_store_free(store);
    }
}

/* A corrupt chunk is CORRUPT_DATA, and the values of the chunks that did decode are not
 * written either: the buffer is unchanged. */
ZTEST(read_double_corrupt_chunk_leaves_buffer) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    int16_t data[4] = {1, 2, 3, 4};
    double buf[4] = {8, 8, 8, 8};
    uint64_t start = 0, count = 4;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a",
                            meta_full("[4]", "[2]", "int16", "0",
                                      "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}},"
                                      "{\"name\":\"zstd\",\"configuration\":{\"level\":1,\"checksum\":false}}]",
                                      KEY_DEFAULT, ""),
                            &a));
    ZT_OK(zarr_array_write(a, 1, &start, &count, data, sizeof data));
    ZT_CHECK(ztest_write_file(ztest_path(root, "a/c/1"), "garbage", 7) == 0);
    ZT_STATUS(zarr_array_read_double(a, 1, &start, &count, buf, 4), ZARR_ERROR_CORRUPT_DATA);
    ZT_CHECK(buf[0] == 8 && buf[1] == 8 && buf[2] == 8 && buf[3] == 8);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* A chunk the store cannot read (a FIFO where its file should be: not a regular file) is
 * IO, and the buffer is unchanged. */
ZTEST(read_double_unreadable_chunk_is_io) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    uint16_t data[4] = {1, 2, 3, 4};
    double buf[4] = {6, 6, 6, 6};
    uint64_t start = 0, count = 4;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", meta("[4]", "[2]", "uint16", "0"), &a));
    ZT_OK(zarr_array_write(a, 1, &start, &count, data, sizeof data));
    ZT_CHECK(remove(ztest_path(root, "a/c/0")) == 0);
    ZT_CHECK(mkfifo(ztest_path(root, "a/c/0"), 0644) == 0);
    ZT_STATUS(zarr_array_read_double(a, 1, &start, &count, buf, 4), ZARR_ERROR_IO);
    ZT_CHECK(buf[0] == 6 && buf[1] == 6 && buf[2] == 6 && buf[3] == 6);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* zarr_data_type_str names every code zarr_array_data_type returns, and any other integer
 * gets a fixed text. */
ZTEST(data_type_str_names) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    zarr_data_type t = 0;
    ZT_CHECK(!strcmp(zarr_data_type_str(ZARR_DATA_TYPE_INT16), "int16"));
    ZT_CHECK(!strcmp(zarr_data_type_str(ZARR_DATA_TYPE_FLOAT32), "float32"));
    ZT_CHECK(!strcmp(zarr_data_type_str(ZARR_DATA_TYPE_BOOL), "bool"));
    ZT_CHECK(!strcmp(zarr_data_type_str(ZARR_DATA_TYPE_BYTES), "bytes"));
    ZT_CHECK(!strcmp(zarr_data_type_str(ZARR_DATA_TYPE_DATETIME64), "numpy.datetime64"));
    ZT_CHECK(!strcmp(zarr_data_type_str(ZARR_DATA_TYPE_RAW), "r<N>"));
    ZT_CHECK(!strcmp(zarr_data_type_str(0), "unknown data type"));
    ZT_CHECK(!strcmp(zarr_data_type_str(-1), "unknown data type"));
    ZT_CHECK(!strcmp(zarr_data_type_str(INT32_MAX), "unknown data type"));
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/a", meta("[1]", "[1]", "float8_e5m2", "0.0"), &a));
    ZT_OK(zarr_array_data_type(a, &t));
    ZT_CHECK(!strcmp(zarr_data_type_str(t), "float8_e5m2"));
    zarr_array_free(a);
    zarr_store_free(store);
}

static const ztest_case ztest_cases[] = {
    ZCASE(create_open_free),
    ZCASE(create_root_array),
    ZCASE(create_null_arguments),
    ZCASE(open_null_arguments),
    ZCASE(create_already_exists),
    ZCASE(create_below_array_is_type_mismatch),
    ZCASE(create_below_root_array_is_type_mismatch),
    ZCASE(node_names_unicode_and_too_long),
    ZCASE(create_storage_transformers),
    ZCASE(open_group_is_type_mismatch),
    ZCASE(open_missing_is_not_found),
    ZCASE(create_hostile_paths_invalid),
    ZCASE(open_hostile_paths_invalid),
    ZCASE(getters_2d),
    ZCASE(getters_0d),
    ZCASE(getters_every_data_type),
    ZCASE(getters_null_arguments),
    ZCASE(shape_wrong_ndim),
    ZCASE(selection_nbytes_values),
    ZCASE(selection_nbytes_errors),
    ZCASE(selection_nbytes_too_large_for_memory),
    ZCASE(region_round_trip_with_edge_chunks),
    ZCASE(region_sub_region_reads),
    ZCASE(region_partial_write_merges),
    ZCASE(region_partial_write_over_fill),
    ZCASE(region_zero_dimensional),
    ZCASE(region_zero_length_dimension),
    ZCASE(region_empty_selection),
    ZCASE(chunk_round_trip_past_the_edge),
    ZCASE(edge_chunk_padding_is_fill),
    ZCASE(chunk_write_2d_then_region_read),
    ZCASE(chunk_read_missing_is_fill),
    ZCASE(chunk_read_larger_buffer),
    ZCASE(chunk_errors),
    ZCASE(missing_chunks_read_as_fill),
    ZCASE(missing_chunks_nan_fill_bitwise),
    ZCASE(fill_value_in_metadata_json),
    ZCASE(fill_chunks_not_stored_and_erased),
    ZCASE(fill_comparison_is_bitwise),
    ZCASE(key_encoding_default_slash),
    ZCASE(key_encoding_default_without_configuration),
    ZCASE(key_encoding_default_dot),
    ZCASE(key_encoding_v2_dot),
    ZCASE(key_encoding_v2_default_separator),
    ZCASE(key_encoding_v2_slash),
    ZCASE(key_encoding_zero_dimensional),
    ZCASE(key_encoding_bad_separator),
    ZCASE(metadata_json_round_trip),
    ZCASE(metadata_json_canonical_codecs),
    ZCASE(metadata_json_null_arguments),
    ZCASE(attributes_default_empty),
    ZCASE(attributes_round_trip),
    ZCASE(set_attributes_keeps_other_metadata),
    ZCASE(set_attributes_invalid_json),
    ZCASE(read_null_arguments),
    ZCASE(write_null_arguments),
    ZCASE(read_write_wrong_ndim),
    ZCASE(read_out_of_bounds),
    ZCASE(read_buffer_too_small_leaves_buffer),
    ZCASE(read_larger_buffer_tail_untouched),
    ZCASE(write_buffer_size_mismatch),
    ZCASE(absurd_buffer_length_with_null_buffer),
    ZCASE(create_malformed_json),
    ZCASE(create_missing_fields),
    ZCASE(create_bad_fill_values),
    ZCASE(create_bad_shapes_and_grids),
    ZCASE(create_bad_documents),
    ZCASE(create_unknown_codec_unsupported),
    ZCASE(create_unknown_data_type_and_grid_unsupported),
    ZCASE(create_unknown_field_must_understand),
    ZCASE(create_zarr_format_4_unsupported),
    ZCASE(create_shape_over_2_64_elements),
    ZCASE(threads_concurrent_reads_of_one_handle),
    ZCASE(threads_concurrent_disjoint_writes),
    ZCASE(threads_concurrent_disjoint_writes_compressed),
    ZCASE(threads_concurrent_reads_compressed),
    ZCASE(threads_reads_alongside_writes),
    ZCASE(read_double_int16),
    ZCASE(read_double_uint64_large),
    ZCASE(read_double_float32),
    ZCASE(read_double_bool),
    ZCASE(read_double_every_real_type),
    ZCASE(read_double_scalar_and_empty),
    ZCASE(read_double_null_arguments),
    ZCASE(read_double_length_mismatch),
    ZCASE(read_double_rank_and_bounds),
    ZCASE(read_double_type_mismatch),
    ZCASE(read_double_corrupt_chunk_leaves_buffer),
    ZCASE(read_double_unreadable_chunk_is_io),
    ZCASE(data_type_str_names),
};

ZTEST_MAIN()
