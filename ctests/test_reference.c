/* Kerchunk reference stores (zarr_store_open_url with reference+file:// URLs): each case
 * writes the chunks of small Zarr v2 arrays into one data file, at offsets with other
 * bytes between them, then a JSON reference set by hand pointing at those ranges, and
 * reads the arrays back through the C API: values, listing, read-only behaviour, and
 * the status of each kind of bad reference set. (The Python-made fixtures, h5py, netCDF-3
 * and kerchunk's own JSON and Parquet, are tested elsewhere.)
 *
 * The cases http_* and s3_* read reference sets and targets from the loopback servers
 * (fixture url_servers; labels url, http or s3): the set's options reach its targets of
 * the same kind, a Parquet reference directory on S3 (tests/data/reference/refs.parq,
 * made by kerchunk) reads the HDF5 file it points into. */
#define _XOPEN_SOURCE 700

#include "ztest.h"
#include "remote_fixture.h"

#include <stdint.h>
#include <sys/stat.h>
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


/* Options for moto at `endpoint` (as test_url.c gives them). */
static const char *moto_options(const char *endpoint, const char *extra) {
    return fmt("{\"endpoint\": \"%s\", \"access_key_id\": \"test\", \"secret_access_key\": "
               "\"test\", \"region\": \"us-east-1\"%s%s}",
               endpoint, extra[0] ? ", " : "", extra);
}

/* No AWS settings from the environment or profile files, and no instance-metadata probe. */
static void clean_aws_environment(void) {
    const char *names[] = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                           "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL",
                           "AWS_ENDPOINT_URL_S3", "AWS_PROFILE",
                           "AWS_EC2_METADATA_SERVICE_ENDPOINT"};
    size_t i;
    const char *dir = ztest_tmp_dir();
    for (i = 0; i < sizeof names / sizeof names[0]; i++) unsetenv(names[i]);
    setenv("AWS_SHARED_CREDENTIALS_FILE", ztest_path(dir, "no-credentials"), 1);
    setenv("AWS_CONFIG_FILE", ztest_path(dir, "no-config"), 1);
    setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
}

/* Upload `path` (a local file) to `store` at `key`. */
static int upload(zarr_store *store, const char *key, const char *path) {
    size_t len = 0;
    void *data = ztest_read_file(path, &len);
    zarr_status status;
    if (data == NULL) return -1;
    status = zarr_store_set(store, key, data, len);
    free(data);
    return status == ZARR_OK ? 0 : -1;
}

ZTEST(http_reference_set_and_targets) {
    const char *dir = ztest_tmp_dir();
    const char *local = make_data(dir), *name, *site, *data_url;
    char json[8192], options[256];
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    int32_t values[6], be[3];
    const int32_t expected[6] = {1, 2, 3, 4, 5, 6}, be_expected[3] = {100, 200, 300};
    uint64_t start = 0, count = 4;
    SERVER(http, "ZARR_TEST_HTTP");
    SERVER(root, "ZARR_TEST_HTTP_ROOT");
    name = unique("reference");
    site = fmt("%s/%s", root, name);
    ZT_CHECK(mkdir(site, 0755) == 0);
    {   /* the data file, served over HTTP */
        size_t len = 0;
        void *bytes = ztest_read_file(local, &len);
        write_file(fmt("%s/data file.bin", site), bytes, len);
        free(bytes);
    }
    data_url = fmt("%s/%s/data%%20file.bin", http, name);
    /* a/0 over HTTP, a/1 from the local file, be/0 over HTTP; gone/0 is a 404. */
    snprintf(json, sizeof json,
             "{\".zgroup\": {\"zarr_format\": 2}, \"a/.zarray\": %s, \"a/0\": [\"%s\", 7, 16],\n"
             " \"a/1\": [\"%s\", 28, 16], \"be/.zarray\": %s, \"be/0\": [\"%s\", 44, 12],\n"
             " \"gone/.zarray\": %s, \"gone/0\": [\"%s/%s/missing.bin\", 0, 16]}",
             ZARRAY("<i4", "6", "4"), data_url, local, ZARRAY(">i4", "3", "3"), data_url,
             ZARRAY("<i4", "4", "4"), http, name);
    write_text(fmt("%s/refs.json", site), json);
    snprintf(options, sizeof options, "{\"timeout_ms\": 5000, \"max_retries\": 1, \"max_concurrency\": 2}");
    ZT_OK(zarr_store_open_url(fmt("reference+%s/%s/refs.json", http, name), options, &store));
    read_i32(store, "/a", 6, values);
    ZT_EQ_MEM(values, expected, sizeof values);
    read_i32(store, "/be", 3, be);
    ZT_EQ_MEM(be, be_expected, sizeof be);
    ZT_OK(zarr_array_open(store, "/gone", &a));
    ZT_STATUS(zarr_array_read(a, 1, &start, &count, values, sizeof values), ZARR_ERROR_IO);
    ZT_STR_CONTAINS(zarr_last_error_message(), "missing.bin does not exist");
    zarr_array_free(a);
    zarr_store_free(store);
    /* Options of other kinds of store are refused; a missing set is NOT_FOUND. */
    ZT_STATUS(zarr_store_open_url(fmt("reference+%s/%s/refs.json", http, name),
                                  "{\"region\": \"x\"}", &store),
              ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "'region' does not apply to reference+http(s)://");
    ZT_STATUS(zarr_store_open_url(fmt("reference+%s/%s/none.json", http, name), NULL, &store),
              ZARR_ERROR_NOT_FOUND);
    ZT_STR_CONTAINS(zarr_last_error_message(), "none.json");
}

ZTEST(s3_reference_sets_with_the_sets_options) {
    const char *prefix = unique("reference");
    const char *dir = ztest_tmp_dir();
    const char *files[] = {".zmetadata", "s/refs.0.parq", "x/refs.0.parq", "x/refs.1.parq",
                           "y/refs.0.parq"};
    zarr_store *bucket = NULL, *fixture = NULL, *store = NULL;
    zarr_array *a = NULL;
    zarr_group *root = NULL;
    char json[4096], *children = NULL;
    int32_t x[24], values[6];
    double y[5];
    const double y_expected[5] = {0.0, 0.5, 1.0, 1.5, 2.0};
    const int32_t expected[6] = {1, 2, 3, 4, 5, 6};
    uint64_t start[2] = {0, 0}, shape[2] = {4, 6}, five = 5;
    size_t i;
    SERVER(moto, "ZARR_TEST_MOTO");
    clean_aws_environment();
    /* A JSON set on S3 pointing into an object beside it. */
    ZT_OK(zarr_store_open_url(fmt("s3://zarr-test/%s", prefix), moto_options(moto, ""), &bucket));
    ZT_CHECK(upload(bucket, "data.bin", make_data(dir)) == 0);
    snprintf(json, sizeof json,
             "{\".zgroup\": {\"zarr_format\": 2}, \"a/.zarray\": %s,\n"
             " \"a/0\": [\"s3://zarr-test/%s/data.bin\", 7, 16],"
             " \"a/1\": [\"s3://zarr-test/%s/data.bin\", 28, 16]}",
             ZARRAY("<i4", "6", "4"), prefix, prefix);
    ZT_OK(zarr_store_set(bucket, "refs.json", json, strlen(json)));
    ZT_OK(zarr_store_open_url(fmt("reference+s3://zarr-test/%s/refs.json", prefix),
                              moto_options(moto, ""), &store));
    read_i32(store, "/a", 6, values);
    ZT_EQ_MEM(values, expected, sizeof values);
    zarr_store_free(store);
    /* Unsigned requests cannot read the set. */
    ZT_STATUS(zarr_store_open_url(fmt("reference+s3://zarr-test/%s/refs.json", prefix),
                                  fmt("{\"endpoint\": \"%s\", \"anonymous\": true}", moto), &store),
              ZARR_ERROR_ACCESS_DENIED);
    /* Kerchunk's Parquet directory on S3; its targets are s3://fixture/data.h5. */
    for (i = 0; i < sizeof files / sizeof files[0]; i++)
        ZT_CHECK(upload(bucket, fmt("refs.parq/%s", files[i]),
                        fmt("%s/refs.parq/%s", ZTEST_REFERENCE_DIR, files[i])) == 0);
    ZT_OK(zarr_store_open_url("s3://fixture", moto_options(moto, "\"create\": true"), &fixture));
    ZT_CHECK(upload(fixture, "data.h5", ZTEST_REFERENCE_DIR "/data.h5") == 0);
    ZT_OK(zarr_store_open_url(fmt("reference+s3://zarr-test/%s/refs.parq", prefix),
                              moto_options(moto, ""), &store));
    ZT_OK(zarr_array_open(store, "/x", &a));
    ZT_OK(zarr_array_read(a, 2, start, shape, x, sizeof x));
    for (i = 0; i < 24; i++) ZT_EQ_U64((uint64_t)x[i], (uint64_t)i);
    zarr_array_free(a);
    ZT_OK(zarr_array_open(store, "/y", &a));
    ZT_OK(zarr_array_read(a, 1, start, &five, y, sizeof y));
    ZT_EQ_MEM(y, y_expected, sizeof y);
    zarr_array_free(a);
    ZT_OK(zarr_group_open(store, "/", &root));
    ZT_OK(zarr_group_children_json(root, &children));
    ZT_STR_CONTAINS(children, "\"x\"");
    ZT_STR_CONTAINS(children, "\"s\"");
    zarr_string_free(children);
    zarr_group_free(root);
    zarr_store_free(store);
    zarr_store_free(fixture);
    zarr_store_free(bucket);
}

static const ztest_case ztest_cases[] = {
    ZCASE(json_v0_reads_values_and_lists),
    ZCASE(writes_are_read_only),
    ZCASE(json_v1_templates_and_gen),
    ZCASE(bad_reference_sets_at_open),
    ZCASE(bad_references_at_read),
    ZCASE(http_reference_set_and_targets),
    ZCASE(s3_reference_sets_with_the_sets_options),
};

ZTEST_MAIN()
