/* Kerchunk reference stores (zarr_store_open_url with reference+file:// URLs): each case
 * writes the chunks of small Zarr v2 arrays into one data file, at offsets with other
 * bytes between them, then a JSON reference set by hand pointing at those ranges, and
 * reads the arrays back through the C API: values, listing, read-only behaviour, and
 * the status of each kind of bad reference set. (The Python-made fixtures, h5py, netCDF-3
 * and kerchunk's own JSON and Parquet, are tested elsewhere.) */
#define _XOPEN_SOURCE 700

#include "ztest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void write_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
    fclose(f);
}

static void write_text(const char *path, const char *text) { write_file(path, text, strlen(text)); }

/* The data file: 7 junk bytes, chunk 0 of `a` (4 little-endian int32: 1 2 3 4), 5 junk
 * bytes, chunk 1 (5 6 7 8: only 5 and 6 are inside the shape), then chunk 0 of `be`
 * (3 big-endian int32: 100 200 300). Offsets: a/0 at 7, a/1 at 28, be/0 at 44. */
static const char *make_data(const char *dir) {
    unsigned char buf[56];
    int32_t v;
    int i;
    memset(buf, 0xEE, sizeof buf);
    for (i = 0; i < 4; i++) {
        v = i + 1;
        memcpy(buf + 7 + 4 * i, &v, 4); /* the test machines are little-endian */
        v = i + 5;
        memcpy(buf + 28 + 4 * i, &v, 4);
    }
    for (i = 0; i < 3; i++) {
        uint32_t x = (uint32_t)(100 * (i + 1));
        buf[44 + 4 * i] = (unsigned char)(x >> 24);
        buf[45 + 4 * i] = (unsigned char)(x >> 16);
        buf[46 + 4 * i] = (unsigned char)(x >> 8);
        buf[47 + 4 * i] = (unsigned char)x;
    }
    write_file(ztest_path(dir, "data.bin"), buf, sizeof buf);
    return ztest_path(dir, "data.bin");
}

#define ZARRAY(dtype, shape, chunks)                                                              \
    "{\"zarr_format\": 2, \"shape\": [" shape "], \"chunks\": [" chunks "], \"dtype\": \"" dtype \
    "\", \"compressor\": null, \"filters\": null, \"fill_value\": 0, \"order\": \"C\"}"

/* A version 0 reference set over make_data's file: metadata as strings and as objects,
 * ranges by path and by file:// URL, an inline base64 chunk. Returns the set's URL. */
static const char *make_v0(const char *dir) {
    static char url[4096];
    char json[8192];
    const char *data = make_data(dir);
    snprintf(json, sizeof json,
             "{\".zgroup\": \"{\\\"zarr_format\\\": 2}\",\n"
             " \".zattrs\": {\"title\": \"refs\"},\n"
             " \"a/.zarray\": %s,\n"
             " \"a/0\": [\"%s\", 7, 16],\n"
             " \"a/1\": [\"file://%s\", 28, 16],\n"
             " \"be/.zarray\": %s,\n"
             " \"be/0\": [\"%s\", 44, 12],\n"
             " \"g/.zgroup\": {\"zarr_format\": 2},\n"
             " \"g/inline/.zarray\": %s,\n"
             " \"g/inline/0\": \"base64:CQAAAAoAAAA=\"}\n",
             ZARRAY("<i4", "6", "4"), data, data, ZARRAY(">i4", "3", "3"), data,
             ZARRAY("<i4", "2", "2"));
    write_text(ztest_path(dir, "refs.json"), json);
    snprintf(url, sizeof url, "reference+file://%s", ztest_path(dir, "refs.json"));
    return url;
}

static void read_i32(zarr_store *store, const char *path, uint64_t n, int32_t *out) {
    zarr_array *a = NULL;
    uint64_t start = 0;
    ZT_OK(zarr_array_open(store, path, &a));
    ZT_OK(zarr_array_read(a, 1, &start, &n, out, (size_t)n * 4));
    zarr_array_free(a);
}

ZTEST(json_v0_reads_values_and_lists) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_group *root = NULL;
    char *children = NULL;
    int32_t a[6], be[3], inl[2];
    const int32_t a_expected[6] = {1, 2, 3, 4, 5, 6}, be_expected[3] = {100, 200, 300},
                  inl_expected[2] = {9, 10};
    ZT_OK(zarr_store_open_url(make_v0(dir), NULL, &store));
    read_i32(store, "/a", 6, a);
    ZT_EQ_MEM(a, a_expected, sizeof a);
    read_i32(store, "/be", 3, be);
    ZT_EQ_MEM(be, be_expected, sizeof be);
    read_i32(store, "/g/inline", 2, inl);
    ZT_EQ_MEM(inl, inl_expected, sizeof inl);
    ZT_OK(zarr_group_open(store, "/", &root));
    ZT_OK(zarr_group_children_json(root, &children));
    ZT_STR_CONTAINS(children, "\"a\"");
    ZT_STR_CONTAINS(children, "\"be\"");
    ZT_STR_CONTAINS(children, "\"g\"");
    zarr_string_free(children);
    zarr_group_free(root);
    zarr_store_free(store);
}

ZTEST(writes_are_read_only) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    int32_t values[6] = {0};
    uint64_t start = 0, count = 6;
    const char *url = make_v0(dir);
    ZT_OK(zarr_store_open_url(url, "{\"read_only\": true}", &store));
    ZT_STATUS(zarr_store_set(store, "a/0", "x", 1), ZARR_ERROR_READ_ONLY);
    ZT_OK(zarr_array_open(store, "/a", &a));
    ZT_STATUS(zarr_array_write(a, 1, &start, &count, values, sizeof values), ZARR_ERROR_READ_ONLY);
    zarr_array_free(a);
    zarr_store_free(store);
    ZT_STATUS(zarr_store_open_url(url, "{\"read_only\": false}", &store), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "read-only");
    ZT_CHECK(store == NULL);
    ZT_STATUS(zarr_store_open_url(url, "{\"create\": true}", &store), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'create' does not apply");
}

ZTEST(json_v1_templates_and_gen) {
    const char *dir = ztest_tmp_dir();
    const char *data = make_data(dir);
    zarr_store *store = NULL;
    char json[4096], url[4096];
    int32_t a[6];
    const int32_t expected[6] = {1, 2, 3, 4, 5, 6};
    /* Chunk i of `a` is at 7 + 21 * i. */
    snprintf(json, sizeof json,
             "{\"version\": 1, \"templates\": {\"data\": \"%s\"},\n"
             " \"refs\": {\".zgroup\": {\"zarr_format\": 2}, \"a/.zarray\": %s},\n"
             " \"gen\": [{\"key\": \"a/{{ i }}\", \"url\": \"{{data}}\",\n"
             "           \"offset\": \"{{ 7 + 21 * i }}\", \"length\": \"16\",\n"
             "           \"dimensions\": {\"i\": {\"stop\": 2}}}]}\n",
             data, ZARRAY("<i4", "6", "4"));
    write_text(ztest_path(dir, "v1.json"), json);
    snprintf(url, sizeof url, "reference+file://%s", ztest_path(dir, "v1.json"));
    ZT_OK(zarr_store_open_url(url, NULL, &store));
    read_i32(store, "/a", 6, a);
    ZT_EQ_MEM(a, expected, sizeof a);
    zarr_store_free(store);
}

/* Open `json` (written to the case's directory) as a reference set: its status. */
static zarr_status open_json(const char *dir, const char *json, zarr_store **store) {
    char url[4096];
    write_text(ztest_path(dir, "bad.json"), json);
    snprintf(url, sizeof url, "reference+file://%s", ztest_path(dir, "bad.json"));
    return zarr_store_open_url(url, NULL, store);
}

ZTEST(bad_reference_sets_at_open) {
    const char *dir = ztest_tmp_dir();
    zarr_store *store = NULL;
    char url[4096];
    ZT_STATUS(open_json(dir, "{\"a\": ", &store), ZARR_ERROR_CORRUPT_DATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "not valid JSON");
    ZT_STR_CONTAINS(zarr_last_error_message(), "bad.json");
    ZT_CHECK(store == NULL);
    ZT_STATUS(open_json(dir, "{\"a/0\": 42}", &store), ZARR_ERROR_CORRUPT_DATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "key 'a/0' is a number");
    ZT_STATUS(open_json(dir, "{\"a/0\": [\"/x\", -5, 3]}", &store), ZARR_ERROR_CORRUPT_DATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "offset of the reference at key 'a/0' is -5");
    ZT_STATUS(open_json(dir, "{\"a/0\": [\"/x\", 18446744073709551615, 3]}", &store),
              ZARR_ERROR_CORRUPT_DATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "overflows");
    ZT_STATUS(open_json(dir, "{\"../x\": \"v\"}", &store), ZARR_ERROR_CORRUPT_DATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'../x'");
    ZT_STATUS(open_json(dir, "{\"a/0\": [\"data/x.h5\", 0, 3]}", &store), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "key 'a/0'");
    ZT_STR_CONTAINS(zarr_last_error_message(), "relative path");
    ZT_STATUS(open_json(dir, "{\"version\": 1, \"templates\": {\"u\": \"/d\"}, \"refs\": {\"k\": [\"{{u\"]}}", &store),
              ZARR_ERROR_CORRUPT_DATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "never closes");
    ZT_STATUS(open_json(dir,
                        "{\"version\": 1, \"gen\": [{\"key\": \"k{{i}}.{{j}}\", \"url\": \"/u\","
                        " \"dimensions\": {\"i\": {\"stop\": 1000000}, \"j\": {\"stop\": 1000000}}}]}",
                        &store),
              ZARR_ERROR_CORRUPT_DATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "expands to 1000000000000 keys");
    ZT_STATUS(open_json(dir, "{\"version\": 3}", &store), ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "version 3");
    snprintf(url, sizeof url, "reference+file://%s", ztest_path(dir, "none.json"));
    ZT_STATUS(zarr_store_open_url(url, NULL, &store), ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(), "none.json");
    ZT_STATUS(zarr_store_open_url("reference+ftp://h/x.json", NULL, &store), ZARR_ERROR_UNSUPPORTED);
    ZT_CHECK(store == NULL);
}

ZTEST(bad_references_at_read) {
    const char *dir = ztest_tmp_dir();
    const char *data = make_data(dir);
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    char json[8192];
    int32_t values[4];
    uint64_t start = 0, count = 4;
    /* a/0 reaches past the end of the 56-byte file; b/0's file does not exist; c uses a
     * codec this library does not know. */
    snprintf(json, sizeof json,
             "{\".zgroup\": {\"zarr_format\": 2}, \"a/.zarray\": %s, \"a/0\": [\"%s\", 50, 16],\n"
             " \"b/.zarray\": %s, \"b/0\": [\"%s\", 0, 16],\n"
             " \"c/.zarray\": {\"zarr_format\": 2, \"shape\": [4], \"chunks\": [4], \"dtype\": \"<i4\","
             " \"compressor\": {\"id\": \"no-such-codec\"}, \"filters\": null, \"fill_value\": 0,"
             " \"order\": \"C\"}}",
             ZARRAY("<i4", "4", "4"), data, ZARRAY("<i4", "4", "4"), ztest_path(dir, "gone.bin"));
    ZT_OK(open_json(dir, json, &store));
    ZT_OK(zarr_array_open(store, "/a", &a));
    ZT_STATUS(zarr_array_read(a, 1, &start, &count, values, sizeof values), ZARR_ERROR_CORRUPT_DATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "reaches past the end of the target (56 bytes)");
    ZT_STR_CONTAINS(zarr_last_error_message(), "a/0");
    zarr_array_free(a);
    ZT_OK(zarr_array_open(store, "/b", &a));
    ZT_STATUS(zarr_array_read(a, 1, &start, &count, values, sizeof values), ZARR_ERROR_IO);
    ZT_STR_CONTAINS(zarr_last_error_message(), "gone.bin does not exist");
    zarr_array_free(a);
    a = NULL;
    ZT_STATUS(zarr_array_open(store, "/c", &a), ZARR_ERROR_UNSUPPORTED);
    ZT_STR_CONTAINS(zarr_last_error_message(), "no-such-codec");
    ZT_CHECK(a == NULL);
    zarr_store_free(store);
}

static const ztest_case ztest_cases[] = {
    ZCASE(json_v0_reads_values_and_lists),
    ZCASE(writes_are_read_only),
    ZCASE(json_v1_templates_and_gen),
    ZCASE(bad_reference_sets_at_open),
    ZCASE(bad_references_at_read),
};

ZTEST_MAIN()
