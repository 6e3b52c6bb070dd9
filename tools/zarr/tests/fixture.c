/* fixture.c -- writes the test stores of the zarr command-line tool's tests.
 *
 * usage: zarr_cli_fixture mixed|big|v2|cf|types|packed|vlen|rect DIR
 *   mixed  a v3 hierarchy with one array per data type and known values (see below)
 *   big    a v3 uint8 array of 4000 x 3000 (more than cat's limit), nothing written
 *   v2     Zarr v2 arrays (needs the library's v2 support)
 *   cf     a consolidated v3 dataset laid out as xarray writes one: coordinates time, lat,
 *          lon; tas(time, lat, lon) float32 with a NaN _FillValue; pr packed in int16
 *          with scale_factor, add_offset and _FillValue
 *   types  the fixed-size data types of docs/data-types.md with known values: v3 datetimes
 *          (NaT, before 1970, nanoseconds), timedeltas, strings and byte strings that need
 *          escapes, a struct, bfloat16 and float8; in the group /v2, Zarr v2 datetimes, byte
 *          strings and a structured dtype with a sub-array field; attributes of every JSON
 *          kind on the root group
 *   vlen   variable-length elements: /s (string, needing escapes, one chunk of three
 *          never written: fill "?"), /b (bytes with 0x00 and 0xff), /v2/o (a Zarr v2 object
 *          array with a vlen-utf8 filter and fill value null, as zarr-python 2 wrote them)
 *   rect   a v3 int32 array of 9 x 4 on a rectilinear chunk grid (rows in chunks of 1, 2,
 *          3 and 3, columns by 4), element (r, c) = 10 r + c
 *   packed a gzip-compressed v3 float64 array of 1000 values in 4 chunks, one chunk never
 *          written, that compresses well (for the stored size and ratio)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zarr.h"

static zarr_store *store;

static void die(const char *what) {
    fprintf(stderr, "fixture: %s: %s\n", what, zarr_last_error_message());
    exit(1);
}

#define CODECS_BYTES "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}]"
#define CODECS_ZSTD                                                                        \
    "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}},"                     \
    "{\"name\":\"zstd\",\"configuration\":{\"level\":1,\"checksum\":false}}]"
#define CODECS_GZIP                                                                        \
    "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}},"                     \
    "{\"name\":\"gzip\",\"configuration\":{\"level\":1}}]"

/* Create a v3 array and write all of `data` (when not NULL). `dtype` is a v3 data type name,
 * or a JSON object for the types with a configuration. */
static void array(const char *path, const char *dtype, const char *shape, const char *chunks, const char *fill,
                  const char *codecs, const char *extra, const void *data, size_t nbytes) {
    char doc[4096];
    zarr_array *a = NULL;
    size_t ndim, i;
    uint64_t start[8] = {0}, count[8];
    snprintf(doc, sizeof doc,
             "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":%s,\"data_type\":%s%s%s,"
             "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":%s}},"
             "\"chunk_key_encoding\":{\"name\":\"default\",\"configuration\":{\"separator\":\"/\"}},"
             "\"fill_value\":%s,\"codecs\":%s%s}",
             shape, dtype[0] == '{' ? "" : "\"", dtype, dtype[0] == '{' ? "" : "\"", chunks, fill, codecs,
             extra ? extra : "");
    if (zarr_array_create(store, path, doc, &a) != ZARR_OK) die(path);
    if (data) {
        if (zarr_array_ndim(a, &ndim) != ZARR_OK || zarr_array_shape(a, ndim, count) != ZARR_OK) die(path);
        for (i = 0; i < ndim; i++) start[i] = 0;
        if (zarr_array_write(a, ndim, start, count, data, nbytes) != ZARR_OK) die(path);
    }
    zarr_array_free(a);
}

static void group(const char *path, const char *attrs) {
    zarr_group *g = NULL;
    if (zarr_group_create(store, path, attrs, &g) != ZARR_OK) die(path);
    zarr_group_free(g);
}

static void mixed(void) {
    float f32[12];
    double f64[4] = {0.1, 1e300, -2.5, 1.0 / 3.0};
    float c64[4] = {1.5f, -2.0f, NAN, INFINITY};
    double c128[2] = {0.1, 0.0};
    uint8_t b[4] = {1, 0, 1, 0};
    int64_t i64[2] = {INT64_MIN, INT64_MAX};
    uint64_t u64[1] = {UINT64_MAX};
    uint16_t f16[3] = {0x3E00, 0x8000, 0x7BFF};
    uint8_t r16[4] = {0x01, 0x02, 0xab, 0xcd};
    int32_t scalar = 42;
    static uint16_t grid[100 * 60];
    static int32_t sharded[20 * 30];
    int i;
    for (i = 0; i < 12; i++) f32[i] = (float)i * 0.25f - 1.0f;
    f32[1] = NAN;
    f32[2] = INFINITY;
    f32[3] = -INFINITY;
    f32[5] = 0.1f;
    f32[6] = 3.4028234663852886e38f;
    for (i = 0; i < 100 * 60; i++) grid[i] = (uint16_t)i;
    for (i = 0; i < 20 * 30; i++) sharded[i] = i - 300;

    group("/", "{\"title\":\"fixture\",\"n\":3}");
    array("/f32", "float32", "[3,4]", "[2,3]", "\"NaN\"", CODECS_ZSTD,
          ",\"dimension_names\":[\"y\",\"x\"],\"attributes\":{\"units\":\"K\"}", f32, sizeof f32);
    array("/f64", "float64", "[4]", "[4]", "0.0", CODECS_BYTES, NULL, f64, sizeof f64);
    array("/c64", "complex64", "[2]", "[1]", "[0.0,0.0]", CODECS_BYTES, NULL, c64, sizeof c64);
    array("/c128", "complex128", "[1]", "[1]", "[0.0,0.0]", CODECS_BYTES, NULL, c128, sizeof c128);
    array("/b", "bool", "[4]", "[3]", "false", CODECS_GZIP, NULL, b, sizeof b);
    array("/i64", "int64", "[2]", "[2]", "0", CODECS_BYTES, NULL, i64, sizeof i64);
    array("/u64", "uint64", "[1]", "[1]", "0", CODECS_BYTES, NULL, u64, sizeof u64);
    array("/f16", "float16", "[3]", "[2]", "0.0", CODECS_BYTES, NULL, f16, sizeof f16);
    array("/r16", "r16", "[2]", "[2]", "[0,0]", CODECS_BYTES, NULL, r16, sizeof r16);
    array("/scalar", "int32", "[]", "[]", "0", CODECS_BYTES, NULL, &scalar, sizeof scalar);
    group("/sub", NULL);
    array("/sub/grid", "uint16", "[100,60]", "[10,10]", "0", CODECS_GZIP, NULL, grid, sizeof grid);
    array("/sub/sharded", "int32", "[20,30]", "[10,10]", "0",
          "[{\"name\":\"sharding_indexed\",\"configuration\":{\"chunk_shape\":[5,5],"
          "\"codecs\":" CODECS_ZSTD ",\"index_codecs\":" CODECS_BYTES ",\"index_location\":\"end\"}}]",
          NULL, sharded, sizeof sharded);
    array("/sub/empty", "float64", "[0,5]", "[1,5]", "0.0", CODECS_BYTES, NULL, NULL, 0);
}

static void v2(void) {
    float v[30];
    zarr_array *a = NULL;
    uint64_t start[2] = {0, 0}, count[2] = {6, 5};
    int i;
    for (i = 0; i < 30; i++) v[i] = (float)i * 0.5f;
    if (zarr_array_create(store, "/",
                          "{\"zarr_format\":2,\"shape\":[6,5],\"chunks\":[4,4],\"dtype\":\"<f4\","
                          "\"compressor\":{\"id\":\"zstd\",\"level\":1},\"filters\":null,\"fill_value\":0,"
                          "\"order\":\"C\",\"dimension_separator\":\"/\"}",
                          &a) != ZARR_OK)
        die("v2 array");
    if (zarr_array_write(a, 2, start, count, v, sizeof v) != ZARR_OK) die("v2 write");
    zarr_array_free(a);
}

static void cf(void) {
    int64_t time[4] = {0, 1, 2, 3};
    double lat[3] = {-10.0, 0.0, 10.5}, lon[5] = {0.0, 72.0, 144.0, 216.0, 288.0};
    static float tas[4 * 3 * 5];
    static int16_t pr[4 * 3 * 5];
    zarr_group *root = NULL;
    int i;
    for (i = 0; i < 60; i++) {
        tas[i] = 270.0f + (float)i * 0.25f;
        pr[i] = (int16_t)(i * 10);
    }
    tas[7] = NAN;
    pr[5] = -32767; /* the _FillValue: missing */
    group("/", "{\"title\":\"cf fixture\",\"Conventions\":\"CF-1.8\"}");
    array("/time", "int64", "[4]", "[4]", "0", CODECS_ZSTD,
          ",\"dimension_names\":[\"time\"],\"attributes\":{\"units\":\"days since 2000-01-01\","
          "\"calendar\":\"proleptic_gregorian\"}", time, sizeof time);
    array("/lat", "float64", "[3]", "[3]", "\"NaN\"", CODECS_ZSTD,
          ",\"dimension_names\":[\"lat\"],\"attributes\":{\"units\":\"degrees_north\"}", lat, sizeof lat);
    array("/lon", "float64", "[5]", "[5]", "\"NaN\"", CODECS_ZSTD,
          ",\"dimension_names\":[\"lon\"],\"attributes\":{\"units\":\"degrees_east\"}", lon, sizeof lon);
    array("/tas", "float32", "[4,3,5]", "[2,3,5]", "\"NaN\"", CODECS_ZSTD,
          ",\"dimension_names\":[\"time\",\"lat\",\"lon\"],\"attributes\":{\"units\":\"K\","
          "\"long_name\":\"air temperature\",\"_FillValue\":\"AAAAAAAA+H8=\"}", tas, sizeof tas);
    array("/pr", "int16", "[4,3,5]", "[4,3,5]", "0", CODECS_ZSTD,
          ",\"dimension_names\":[\"time\",\"lat\",\"lon\"],\"attributes\":{\"units\":\"mm/day\","
          "\"scale_factor\":0.01,\"add_offset\":1.5,\"_FillValue\":-32767}", pr, sizeof pr);
    if (zarr_group_open(store, "/", &root) != ZARR_OK || zarr_group_consolidate(root) != ZARR_OK) die("consolidate");
    zarr_group_free(root);
}

static void types(void) {
    int64_t dt[4] = {0, INT64_MIN, 1107403506, -1}, dt_ns[2] = {1, -1}, td[3] = {1, -3, INT64_MIN};
    static const uint32_t str[4][4] = {{'a', '"', 'b', 0}, {0xE9, '\n', 0, 0}, {'\t', '\\', 1, 0}, {0, 0, 0, 0}};
    static const unsigned char bytes[3][4] = {{'a', 'b', 0, 0}, {0, 0xff, 0, 0}, {'q', '"', '\\', 'z'}};
    unsigned char st[2][9]; /* int16 x, float32 y, null_terminated_bytes(3) name: packed */
    uint16_t bf[6] = {0x3f80, 0x3dcd, 0x3eab, 0xff80, 0x7fc0, 0x0001};
    uint8_t f8[6] = {0x00, 0x38, 0x7e, 0x7f, 0x01, 0x80}, f8b[3] = {0x7c, 0xfc, 0x3c};
    int64_t days[3] = {0, 12817, -1};
    unsigned char s3[2][3] = {{'x', 0, 0}, {'y', 'z', 'w'}};
    unsigned char rec[2][12]; /* int32 id, float32 pos[2] */
    int16_t x[2] = {-5, 7};
    float y[2] = {0.5f, -1.25f}, pos[2][2] = {{0.5f, 1.5f}, {2.5f, -1.0f}};
    int32_t id[2] = {1, 2};
    zarr_array *a = NULL;
    uint64_t start[1] = {0}, count[1] = {3};
    int i;
    for (i = 0; i < 2; i++) {
        memcpy(st[i], &x[i], 2);
        memcpy(st[i] + 2, &y[i], 4);
        memcpy(st[i] + 6, i ? "cd" : "ab\0", 3);
        memcpy(rec[i], &id[i], 4);
        memcpy(rec[i] + 4, pos[i], 8);
    }
    group("/", "{\"title\":\"types\",\"flag\":true,\"nothing\":null,\"names\":[\"a\",\"b\"],"
               "\"ratio\":0.25,\"big\":1e300,\"ints\":[1,2,3],\"floats\":[0.5,2],\"nested\":{\"k\":1}}");
    array("/dt", "{\"name\":\"numpy.datetime64\",\"configuration\":{\"unit\":\"s\",\"scale_factor\":1}}", "[4]",
          "[4]", "\"NaT\"", CODECS_BYTES, NULL, dt, sizeof dt);
    array("/dt_ns", "{\"name\":\"numpy.datetime64\",\"configuration\":{\"unit\":\"ns\",\"scale_factor\":1}}",
          "[2]", "[2]", "0", CODECS_BYTES, NULL, dt_ns, sizeof dt_ns);
    array("/td", "{\"name\":\"numpy.timedelta64\",\"configuration\":{\"unit\":\"h\",\"scale_factor\":2}}", "[3]",
          "[3]", "\"NaT\"", CODECS_BYTES, NULL, td, sizeof td);
    array("/str", "{\"name\":\"fixed_length_utf32\",\"configuration\":{\"length_bytes\":16}}", "[4]", "[2]",
          "\"-\"", CODECS_BYTES, NULL, str, sizeof str);
    array("/bytes", "{\"name\":\"null_terminated_bytes\",\"configuration\":{\"length_bytes\":4}}", "[3]", "[3]",
          "\"\"", "[{\"name\":\"bytes\"}]", NULL, bytes, sizeof bytes);
    array("/st",
          "{\"name\":\"struct\",\"configuration\":{\"fields\":[{\"name\":\"x\",\"data_type\":\"int16\"},"
          "{\"name\":\"y\",\"data_type\":\"float32\"},{\"name\":\"name\",\"data_type\":{\"name\":"
          "\"null_terminated_bytes\",\"configuration\":{\"length_bytes\":3}}}]}}",
          "[2]", "[2]", "{\"x\":-1,\"y\":0.5,\"name\":\"YWI=\"}", CODECS_BYTES, NULL, st, sizeof st);
    array("/bf", "bfloat16", "[6]", "[6]", "0", CODECS_BYTES, NULL, bf, sizeof bf);
    array("/f8", "float8_e4m3fn", "[6]", "[6]", "0", "[{\"name\":\"bytes\"}]", NULL, f8, sizeof f8);
    array("/f8b", "float8_e5m2", "[3]", "[3]", "0", "[{\"name\":\"bytes\"}]", NULL, f8b, sizeof f8b);
    {
        zarr_group *g = NULL;
        if (zarr_group_create_with_format(store, "/v2", NULL, 2, &g) != ZARR_OK) die("/v2");
        zarr_group_free(g);
    }
    if (zarr_array_create(store, "/v2/days",
                          "{\"zarr_format\":2,\"shape\":[3],\"chunks\":[3],\"dtype\":\"<M8[D]\",\"compressor\":null,"
                          "\"filters\":null,\"fill_value\":0,\"order\":\"C\"}",
                          &a) != ZARR_OK ||
        zarr_array_write(a, 1, start, count, days, sizeof days) != ZARR_OK)
        die("/v2/days");
    zarr_array_free(a);
    count[0] = 2;
    if (zarr_array_create(store, "/v2/s3",
                          "{\"zarr_format\":2,\"shape\":[2],\"chunks\":[2],\"dtype\":\"|S3\",\"compressor\":null,"
                          "\"filters\":null,\"fill_value\":\"\",\"order\":\"C\"}",
                          &a) != ZARR_OK ||
        zarr_array_write(a, 1, start, count, s3, sizeof s3) != ZARR_OK)
        die("/v2/s3");
    zarr_array_free(a);
    if (zarr_array_create(store, "/v2/rec",
                          "{\"zarr_format\":2,\"shape\":[2],\"chunks\":[2],\"dtype\":[[\"id\",\"<i4\"],"
                          "[\"pos\",\"<f4\",[2]]],\"compressor\":null,\"filters\":null,\"fill_value\":null,"
                          "\"order\":\"C\"}",
                          &a) != ZARR_OK ||
        zarr_array_write(a, 1, start, count, rec, sizeof rec) != ZARR_OK)
        die("/v2/rec");
    zarr_array_free(a);
}

/* Writes the NUL-terminated items as variable-length elements start .. start + n. */
static void write_texts(zarr_array *a, const char *what, uint64_t first, const char *const *items, size_t n) {
    uint64_t offsets[8], start[1] = {first}, count[1] = {n};
    char data[256];
    size_t i, at = 0;
    offsets[0] = 0;
    for (i = 0; i < n; i++) {
        size_t len = strlen(items[i]);
        memcpy(data + at, items[i], len);
        at += len;
        offsets[i + 1] = at;
    }
    if (zarr_array_write_vlen(a, 1, start, count, offsets, n + 1, data, at) != ZARR_OK) die(what);
}

static void vlen(void) {
    static const char *const texts[] = {"plain", "a \"quote\"", "tab\tnew\nline", "\xc3\xa9t\xc3\xa9 \xe6\x9d\xb1", ""};
    static const unsigned char blob[] = {'a', 0x00, 0xff, '"'};
    uint64_t offsets[3] = {0, 4, 4}, start[1] = {0}, count[1] = {2};
    static const char *const objects[] = {"x", "yz"};
    zarr_array *a = NULL;
    zarr_group *g = NULL;
    array("/s", "string", "[7]", "[3]", "\"?\"", "[{\"name\":\"vlen-utf8\"}]", NULL, NULL, 0);
    if (zarr_array_open(store, "/s", &a) != ZARR_OK) die("/s");
    write_texts(a, "/s", 0, texts, 5); /* chunks 0 and 1; chunk 2 (element 6) never written */
    zarr_array_free(a);
    array("/b", "bytes", "[2]", "[2]", "\"\"", "[{\"name\":\"vlen-bytes\"},{\"name\":\"zstd\",\"configuration\":{\"level\":1}}]",
          NULL, NULL, 0);
    if (zarr_array_open(store, "/b", &a) != ZARR_OK ||
        zarr_array_write_vlen(a, 1, start, count, offsets, 3, blob, sizeof blob) != ZARR_OK)
        die("/b");
    zarr_array_free(a);
    if (zarr_group_create_with_format(store, "/v2", NULL, 2, &g) != ZARR_OK) die("/v2");
    zarr_group_free(g);
    if (zarr_array_create(store, "/v2/o",
                          "{\"zarr_format\":2,\"shape\":[3],\"chunks\":[2],\"dtype\":\"|O\",\"compressor\":null,"
                          "\"filters\":[{\"id\":\"vlen-utf8\"}],\"fill_value\":null,\"order\":\"C\"}",
                          &a) != ZARR_OK)
        die("/v2/o");
    write_texts(a, "/v2/o", 0, objects, 2);
    zarr_array_free(a);
}

static void rect(void) {
    int32_t v[9 * 4];
    int i;
    for (i = 0; i < 9 * 4; i++) v[i] = 10 * (i / 4) + i % 4;
    {
        zarr_array *a = NULL;
        uint64_t start[2] = {0, 0}, count[2] = {9, 4};
        if (zarr_array_create(store, "/",
                              "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[9,4],\"data_type\":\"int32\","
                              "\"chunk_grid\":{\"name\":\"rectilinear\",\"configuration\":{\"kind\":\"inline\","
                              "\"chunk_shapes\":[[1,2,[3,2]],4]}},\"chunk_key_encoding\":{\"name\":\"default\"},"
                              "\"fill_value\":0,\"codecs\":" CODECS_ZSTD "}",
                              &a) != ZARR_OK ||
            zarr_array_write(a, 2, start, count, v, sizeof v) != ZARR_OK)
            die("rect");
        zarr_array_free(a);
    }
}

static void packed(void) {
    static double v[1000];
    zarr_array *a = NULL;
    uint64_t start[1] = {0}, count[1] = {750};
    int i;
    for (i = 0; i < 1000; i++) v[i] = (double)(i % 10);
    array("/", "float64", "[1000]", "[250]", "0.0", CODECS_GZIP, NULL, NULL, 0);
    if (zarr_array_open(store, "/", &a) != ZARR_OK || zarr_array_write(a, 1, start, count, v, 750 * sizeof *v) != ZARR_OK)
        die("packed");
    zarr_array_free(a);
}

/* An Icechunk repository created at the absolute path `dir`: the mixed hierarchy,
 * committed as "fixture: mixed", then /f64 rewritten and committed as "second". */
static void icechunk(const char *dir) {
    static char url[4096];
    double f64[4] = {4.0, 3.0, 2.0, 1.0};
    uint64_t start[1] = {0}, count[1] = {4};
    zarr_array *a = NULL;
    char *id = NULL;
    snprintf(url, sizeof url, "icechunk+file://%s", dir);
    if (zarr_store_open_url(url, "{\"create\": true}", &store) != ZARR_OK) die(url);
    mixed();
    if (zarr_store_commit(store, "fixture: mixed", &id) != ZARR_OK) die("commit");
    zarr_string_free(id);
    if (zarr_array_open(store, "/f64", &a) != ZARR_OK || zarr_array_write(a, 1, start, count, f64, sizeof f64) != ZARR_OK ||
        zarr_store_commit(store, "second", &id) != ZARR_OK)
        die("second commit");
    zarr_string_free(id);
    zarr_array_free(a);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: zarr_cli_fixture mixed|big|v2|cf|types|packed|vlen|rect|icechunk DIR\n");
        return 2;
    }
    if (!strcmp(argv[1], "icechunk")) {
        icechunk(argv[2]);
        zarr_store_free(store);
        return 0;
    }
    if (zarr_store_open_filesystem(argv[2], &store) != ZARR_OK) die(argv[2]);
    if (!strcmp(argv[1], "mixed")) mixed();
    else if (!strcmp(argv[1], "big")) array("/", "uint8", "[4000,3000]", "[1000,1000]", "7", CODECS_BYTES, NULL, NULL, 0);
    else if (!strcmp(argv[1], "v2")) v2();
    else if (!strcmp(argv[1], "cf")) cf();
    else if (!strcmp(argv[1], "types")) types();
    else if (!strcmp(argv[1], "packed")) packed();
    else if (!strcmp(argv[1], "vlen")) vlen();
    else if (!strcmp(argv[1], "rect")) rect();
    else {
        fprintf(stderr, "fixture: unknown kind %s\n", argv[1]);
        return 2;
    }
    zarr_store_free(store);
    return 0;
}
