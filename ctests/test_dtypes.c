/* Data types beyond numbers, and the zfp, pcodec and bitround codecs: for each type, an
 * array is created, written, read back (written elements and unwritten fill values), its
 * type code, element size and metadata checked, and the bytes stored on disk compared with
 * the layout the specification (or numpy, for Zarr v2) gives. Bad input gets a precise
 * status. */
#define _XOPEN_SOURCE 700

#include "ztest.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- helpers ---- */

/* A v3 array document with one chunk grid dimension: shape [n], chunks [c]. */
static const char *v3_doc(const char *data_type, int n, int c, const char *fill, const char *codecs) {
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[%d],\"data_type\":%s,"
             "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[%d]}},"
             "\"chunk_key_encoding\":{\"name\":\"default\",\"configuration\":{\"separator\":\"/\"}},"
             "\"fill_value\":%s,\"codecs\":%s}",
             n, data_type, c, fill, codecs);
    return buf;
}

static const char *v2_doc(const char *dtype, int n, int c, const char *fill) {
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"zarr_format\":2,\"shape\":[%d],\"chunks\":[%d],\"dtype\":%s,\"compressor\":null,"
             "\"fill_value\":%s,\"order\":\"C\",\"filters\":null}",
             n, c, dtype, fill);
    return buf;
}

#define BIG "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"big\"}}]"
#define LITTLE "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}]"
#define PLAIN "[{\"name\":\"bytes\"}]"

/* Fixed-length UTF-32 text of `n` code units in host order. */
static void utf32(uint32_t *out, size_t n, const uint32_t *chars, size_t len) {
    memset(out, 0, n * 4);
    memcpy(out, chars, len * 4);
}

static void check_code_and_size(const zarr_array *a, zarr_data_type code, size_t size, int *ok) {
    zarr_data_type got = 0;
    size_t got_size = 0;
    *ok = 0;
    if (zarr_array_data_type(a, &got) != ZARR_OK) return;
    if (zarr_array_element_size(a, &got_size) != ZARR_OK) return;
    *ok = got == code && got_size == size;
    if (!*ok)
        fprintf(stderr, "data type code %d (expected %d), element size %zu (expected %zu)\n",
                (int)got, (int)code, got_size, size);
}

/* The array's metadata JSON, compacted (caller frees). */
static char *metadata(const zarr_array *a) {
    char *json = NULL;
    if (zarr_array_metadata_json(a, &json) != ZARR_OK) return NULL;
    char *compact = ztest_json_compact(json);
    zarr_string_free(json);
    return compact;
}

/* ---- fixed_length_utf32 ---- */

/* v3, big-endian on disk: written strings read back, the unwritten chunk is the fill
 * value "é", the stored code units are big-endian and zero-padded. */
ZTEST(utf32_v3) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(
        store, "/s",
        v3_doc("{\"name\":\"fixed_length_utf32\",\"configuration\":{\"length_bytes\":12}}", 4, 2,
               "\"\\u00e9\"", BIG),
        &a));
    int ok = 0;
    check_code_and_size(a, ZARR_DATA_TYPE_FIXED_LENGTH_UTF32, 12, &ok);
    ZT_CHECK(ok);
    uint32_t values[2][3];
    const uint32_t ab[2] = {'a', 'b'}, smile[3] = {0x1F600, 'x', 'y'};
    utf32(values[0], 3, ab, 2);
    utf32(values[1], 3, smile, 3);
    uint64_t start = 0, count = 2;
    ZT_OK(zarr_array_write(a, 1, &start, &count, values, sizeof values));
    uint32_t back[4][3];
    memset(back, 0xAB, sizeof back);
    count = 4;
    ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back, values, sizeof values);
    const uint32_t fill[3] = {0xE9, 0, 0};
    ZT_EQ_MEM(back[2], fill, sizeof fill);
    ZT_EQ_MEM(back[3], fill, sizeof fill);
    size_t len = 0;
    unsigned char *chunk = ztest_read_file(ztest_path(root, "s/c/0"), &len);
    const unsigned char stored[24] = {0, 0, 0, 'a', 0, 0, 0, 'b', 0, 0, 0, 0,
                                      0, 1, 0xF6, 0, 0, 0, 0, 'x', 0, 0, 0, 'y'};
    ZT_EQ_U64(len, sizeof stored);
    if (chunk && len == sizeof stored) ZT_EQ_MEM(chunk, stored, sizeof stored);
    free(chunk);
    char *json = metadata(a);
    ZT_CHECK(json != NULL);
    if (json) {
        ZT_STR_CONTAINS(json, "\"data_type\":{\"name\":\"fixed_length_utf32\",\"configuration\":{\"length_bytes\":12}}");
        ZT_STR_CONTAINS(json, "\"fill_value\":\"\xc3\xa9\"");
    }
    free(json);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* Zarr v2 `>U2`: numpy's layout, two big-endian code units per element. */
ZTEST(utf32_v2) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/u", v2_doc("\">U2\"", 3, 3, "\"z\""), &a));
    int ok = 0;
    check_code_and_size(a, ZARR_DATA_TYPE_FIXED_LENGTH_UTF32, 8, &ok);
    ZT_CHECK(ok);
    uint32_t values[2][2] = {{'h', 'i'}, {'o', 0}};
    uint64_t start = 0, count = 2;
    ZT_OK(zarr_array_write(a, 1, &start, &count, values, sizeof values));
    size_t len = 0;
    unsigned char *chunk = ztest_read_file(ztest_path(root, "u/0"), &len);
    const unsigned char stored[24] = {0, 0, 0, 'h', 0, 0, 0, 'i', 0, 0, 0, 'o',
                                      0, 0, 0, 0,   0, 0, 0, 'z', 0, 0, 0, 0};
    ZT_EQ_U64(len, sizeof stored);
    if (chunk && len == sizeof stored) ZT_EQ_MEM(chunk, stored, sizeof stored);
    free(chunk);
    uint32_t back[3][2];
    count = 3;
    ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back, values, sizeof values);
    ZT_CHECK(back[2][0] == 'z' && back[2][1] == 0);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* ---- byte strings ---- */

/* null_terminated_bytes (v3) with a base64 fill value, and v2 `|S3`. */
ZTEST(byte_strings) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(
        store, "/n",
        v3_doc("{\"name\":\"null_terminated_bytes\",\"configuration\":{\"length_bytes\":4}}", 4, 2,
               "\"aGk=\"", PLAIN),
        &a));
    int ok = 0;
    check_code_and_size(a, ZARR_DATA_TYPE_NULL_TERMINATED_BYTES, 4, &ok);
    ZT_CHECK(ok);
    const char values[8] = {'a', 'b', 'c', 'd', 'e', 0, 0, 0};
    uint64_t start = 0, count = 2;
    ZT_OK(zarr_array_write(a, 1, &start, &count, values, sizeof values));
    char back[16];
    count = 4;
    ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back, values, sizeof values);
    ZT_EQ_MEM(back + 8, "hi\0\0hi\0\0", 8);
    char *json = metadata(a);
    if (json) ZT_STR_CONTAINS(json, "\"fill_value\":\"aGkAAA==\"");
    free(json);
    zarr_array_free(a);

    ZT_OK(zarr_array_create(store, "/s", v2_doc("\"|S3\"", 2, 2, "\"eHk=\""), &a));
    check_code_and_size(a, ZARR_DATA_TYPE_NULL_TERMINATED_BYTES, 3, &ok);
    ZT_CHECK(ok);
    char two[6];
    count = 2;
    ZT_OK(zarr_array_read(a, 1, &start, &count, two, sizeof two));
    ZT_EQ_MEM(two, "xy\0xy\0", 6);
    zarr_array_free(a);

    ZT_OK(zarr_array_create(
        store, "/r",
        v3_doc("{\"name\":\"raw_bytes\",\"configuration\":{\"length_bytes\":2}}", 2, 2, "\"AQI=\"",
               PLAIN),
        &a));
    check_code_and_size(a, ZARR_DATA_TYPE_RAW_BYTES, 2, &ok);
    ZT_CHECK(ok);
    unsigned char raw[4];
    ZT_OK(zarr_array_read(a, 1, &start, &count, raw, sizeof raw));
    const unsigned char want[4] = {1, 2, 1, 2};
    ZT_EQ_MEM(raw, want, 4);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* ---- datetime64 / timedelta64 ---- */

ZTEST(datetimes) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(
        store, "/t",
        v3_doc("{\"name\":\"numpy.datetime64\",\"configuration\":{\"unit\":\"ms\",\"scale_factor\":10}}",
               4, 2, "\"NaT\"", BIG),
        &a));
    int ok = 0;
    check_code_and_size(a, ZARR_DATA_TYPE_DATETIME64, 8, &ok);
    ZT_CHECK(ok);
    const int64_t values[2] = {110738880000, -1};
    uint64_t start = 0, count = 2;
    ZT_OK(zarr_array_write(a, 1, &start, &count, values, sizeof values));
    int64_t back[4];
    count = 4;
    ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back, values, sizeof values);
    ZT_CHECK(back[2] == INT64_MIN && back[3] == INT64_MIN);
    size_t len = 0;
    unsigned char *chunk = ztest_read_file(ztest_path(root, "t/c/0"), &len);
    ZT_EQ_U64(len, 16);
    if (chunk && len == 16) ZT_CHECK(chunk[0] == 0 && chunk[7] == (110738880000ll & 0xff) && chunk[8] == 0xff);
    free(chunk);
    char *json = metadata(a);
    if (json) {
        ZT_STR_CONTAINS(json, "\"configuration\":{\"unit\":\"ms\",\"scale_factor\":10}");
        ZT_STR_CONTAINS(json, "\"fill_value\":-9223372036854775808");
    }
    free(json);
    zarr_array_free(a);

    ZT_OK(zarr_array_create(store, "/d", v2_doc("\"<m8[s]\"", 2, 2, "-9223372036854775808"), &a));
    check_code_and_size(a, ZARR_DATA_TYPE_TIMEDELTA64, 8, &ok);
    ZT_CHECK(ok);
    count = 2;
    ZT_OK(zarr_array_read(a, 1, &start, &count, back, 2 * sizeof(int64_t)));
    ZT_CHECK(back[0] == INT64_MIN);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* ---- struct ---- */

#define STRUCT_ABC                                                                          \
    "{\"name\":\"struct\",\"configuration\":{\"fields\":[{\"name\":\"a\",\"data_type\":\"uint16\"},"  \
    "{\"name\":\"b\",\"data_type\":\"int8\"},{\"name\":\"c\",\"data_type\":\"float32\"}]}}"

/* The packed fields in order, each in host order; big-endian on disk field by field. */
ZTEST(struct_v3) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/s",
                            v3_doc(STRUCT_ABC, 3, 3, "{\"a\":513,\"b\":-2,\"c\":1.5}", BIG), &a));
    int ok = 0;
    check_code_and_size(a, ZARR_DATA_TYPE_STRUCT, 7, &ok);
    ZT_CHECK(ok);
    unsigned char element[7];
    const uint16_t av = 0x0102;
    const int8_t bv = 5;
    const float cv = -2.0f;
    memcpy(element, &av, 2);
    memcpy(element + 2, &bv, 1);
    memcpy(element + 3, &cv, 4);
    uint64_t start = 1, count = 1;
    ZT_OK(zarr_array_write(a, 1, &start, &count, element, sizeof element));
    unsigned char back[21];
    start = 0;
    count = 3;
    ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back + 7, element, 7);
    uint16_t fa;
    float fc;
    memcpy(&fa, back, 2);
    memcpy(&fc, back + 3, 4);
    ZT_CHECK(fa == 513 && (int8_t)back[2] == -2 && fc == 1.5f);
    size_t len = 0;
    unsigned char *chunk = ztest_read_file(ztest_path(root, "s/c/0"), &len);
    /* element 1 on disk: 01 02 | 05 | c0 00 00 00 (big-endian -2.0f) */
    const unsigned char stored[7] = {1, 2, 5, 0xC0, 0, 0, 0};
    ZT_EQ_U64(len, 21);
    if (chunk && len == 21) ZT_EQ_MEM(chunk + 7, stored, 7);
    free(chunk);
    char *json = metadata(a);
    if (json) {
        ZT_STR_CONTAINS(json, "\"fields\":[{\"name\":\"a\",\"data_type\":\"uint16\"}");
        ZT_STR_CONTAINS(json, "\"fill_value\":{\"a\":513,\"b\":-2,\"c\":1.5}");
    }
    free(json);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* Zarr v2 structured dtype: per-field byte order and a sub-array field, numpy's layout. */
ZTEST(struct_v2) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(
        store, "/r", v2_doc("[[\"x\",\">u2\"],[\"y\",\"<u2\"],[\"z\",\"|S2\",[2]]]", 1, 1, "null"), &a));
    int ok = 0;
    check_code_and_size(a, ZARR_DATA_TYPE_STRUCT, 8, &ok);
    ZT_CHECK(ok);
    unsigned char element[8];
    const uint16_t x = 0x0102, y = 0x0304;
    memcpy(element, &x, 2);
    memcpy(element + 2, &y, 2);
    memcpy(element + 4, "pqrs", 4);
    uint64_t start = 0, count = 1;
    ZT_OK(zarr_array_write(a, 1, &start, &count, element, sizeof element));
    size_t len = 0;
    unsigned char *chunk = ztest_read_file(ztest_path(root, "r/0"), &len);
    const unsigned char stored[8] = {1, 2, 4, 3, 'p', 'q', 'r', 's'};
    ZT_EQ_U64(len, 8);
    if (chunk && len == 8) ZT_EQ_MEM(chunk, stored, 8);
    free(chunk);
    unsigned char back[8];
    ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
    ZT_EQ_MEM(back, element, 8);
    char *json = metadata(a);
    if (json) ZT_STR_CONTAINS(json, "\"dtype\":[[\"x\",\">u2\"],[\"y\",\"<u2\"],[\"z\",\"|S2\",[2]]]");
    free(json);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* zarr-python 3.1's legacy `structured`: bytes without endian (little), base64 fill. */
ZTEST(legacy_structured_reads) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_CHECK(ztest_write_file(ztest_path(root, "zarr.json"), "{\"zarr_format\":3,\"node_type\":\"group\"}", 38) == 0);
    ZT_CHECK(mkdir(ztest_path(root, "p"), 0755) == 0);
    const char *doc = v3_doc(
        "{\"name\":\"structured\",\"configuration\":{\"fields\":[[\"i\",\"int16\"],[\"f\",\"float32\"]]}}",
        2, 1, "\"AQAAAIA/\"", PLAIN);
    ZT_CHECK(ztest_write_file(ztest_path(root, "p/zarr.json"), doc, strlen(doc)) == 0);
    ZT_CHECK(mkdir(ztest_path(root, "p/c"), 0755) == 0);
    const unsigned char chunk0[6] = {0xFE, 0xFF, 0, 0, 0, 0x40}; /* -2, 2.0f little-endian */
    ZT_CHECK(ztest_write_file(ztest_path(root, "p/c/0"), chunk0, 6) == 0);
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_open(store, "/p", &a));
    unsigned char back[12];
    uint64_t start = 0, count = 2;
    ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
    int16_t i0, i1;
    float f0, f1;
    memcpy(&i0, back, 2);
    memcpy(&f0, back + 2, 4);
    memcpy(&i1, back + 6, 2);
    memcpy(&f1, back + 8, 4);
    ZT_CHECK(i0 == -2 && f0 == 2.0f);
    ZT_CHECK(i1 == 1 && f1 == 1.0f); /* the base64 fill value */
    char *json = metadata(a);
    if (json) ZT_STR_CONTAINS(json, "\"name\":\"structured\"");
    free(json);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* ---- bfloat16 and float8 ---- */

ZTEST(small_floats) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(store, "/b", v3_doc("\"bfloat16\"", 3, 3, "\"NaN\"", LITTLE), &a));
    int ok = 0;
    check_code_and_size(a, ZARR_DATA_TYPE_BFLOAT16, 2, &ok);
    ZT_CHECK(ok);
    uint16_t back[3];
    uint64_t start = 0, count = 3;
    ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
    ZT_CHECK(back[0] == 0x7FC0);
    const uint16_t one = 0x3F80;
    count = 1;
    ZT_OK(zarr_array_write(a, 1, &start, &count, &one, sizeof one));
    count = 3;
    ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
    ZT_CHECK(back[0] == 0x3F80 && back[1] == 0x7FC0);
    zarr_array_free(a);

    static const struct {
        const char *name;
        zarr_data_type code;
        const char *fill;
        unsigned char bits;
    } f8[] = {
        {"\"float8_e4m3\"", ZARR_DATA_TYPE_FLOAT8_E4M3, "1.0", 0x38},
        {"\"float8_e4m3fn\"", ZARR_DATA_TYPE_FLOAT8_E4M3FN, "448", 0x7E},
        {"\"float8_e4m3fnuz\"", ZARR_DATA_TYPE_FLOAT8_E4M3FNUZ, "\"NaN\"", 0x80},
        {"\"float8_e4m3b11fnuz\"", ZARR_DATA_TYPE_FLOAT8_E4M3B11FNUZ, "-0.5", 0xD0},
        {"\"float8_e5m2\"", ZARR_DATA_TYPE_FLOAT8_E5M2, "\"-Infinity\"", 0xFC},
        {"\"float8_e5m2fnuz\"", ZARR_DATA_TYPE_FLOAT8_E5M2FNUZ, "\"0x12\"", 0x12},
        {"\"float8_e3m4\"", ZARR_DATA_TYPE_FLOAT8_E3M4, "2.0", 0x40},
        {"\"float8_e8m0fnu\"", ZARR_DATA_TYPE_FLOAT8_E8M0FNU, "1.0", 0x7F},
    };
    for (size_t i = 0; i < sizeof f8 / sizeof f8[0]; i++) {
        char path[32];
        snprintf(path, sizeof path, "/f%zu", i);
        ZT_OK(zarr_array_create(store, path, v3_doc(f8[i].name, 2, 2, f8[i].fill, PLAIN), &a));
        check_code_and_size(a, f8[i].code, 1, &ok);
        ZT_CHECK(ok);
        unsigned char b[2] = {0, 0};
        count = 2;
        ZT_OK(zarr_array_read(a, 1, &start, &count, b, sizeof b));
        if (b[0] != f8[i].bits) fprintf(stderr, "%s: fill %s is %#x\n", f8[i].name, f8[i].fill, b[0]);
        ZT_CHECK(b[0] == f8[i].bits && b[1] == f8[i].bits);
        zarr_array_free(a);
    }
    zarr_store_free(store);
}

/* ---- codecs ---- */

/* zfp reversible, numcodecs.zfpy, numcodecs.pcodec, packbits (full width) and bitround
 * (all 52 mantissa bits kept): lossless round trips through C. */
ZTEST(zfp_pcodec_bitround_round_trip) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_memory(&store));
    static const char *chains[] = {
        "[{\"name\":\"zfp\",\"configuration\":{\"mode\":\"reversible\"}}]",
        "[{\"name\":\"numcodecs.zfpy\",\"configuration\":{\"mode\":5}}]",
        "[{\"name\":\"numcodecs.pcodec\",\"configuration\":{\"level\":8}}]",
        "[{\"name\":\"packbits\",\"configuration\":{\"padding_encoding\":\"last_byte\"}}]",
        "[{\"name\":\"bitround\",\"configuration\":{\"keepbits\":52}},"
        "{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}},"
        "{\"name\":\"zstd\",\"configuration\":{\"level\":1,\"checksum\":false}}]",
    };
    double values[100];
    for (int i = 0; i < 100; i++) values[i] = sin(i * 0.1) * 1000.0;
    for (size_t c = 0; c < sizeof chains / sizeof chains[0]; c++) {
        char path[16];
        snprintf(path, sizeof path, "/z%zu", c);
        ZT_OK(zarr_array_create(store, path, v3_doc("\"float64\"", 100, 40, "0.0", chains[c]), &a));
        uint64_t start = 0, count = 100;
        ZT_OK(zarr_array_write(a, 1, &start, &count, values, sizeof values));
        double back[100];
        ZT_OK(zarr_array_read(a, 1, &start, &count, back, sizeof back));
        ZT_EQ_MEM(back, values, sizeof values);
        zarr_array_free(a);
    }
    zarr_store_free(store);
}

/* scale_offset and cast_value: exact round trips of integer data, and values the encoding
 * cannot represent refused on write (the caller's data is invalid for the codec). */
ZTEST(scale_offset_and_cast_value) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_memory(&store));
    ZT_OK(zarr_array_create(
        store, "/so",
        v3_doc("\"int32\"", 6, 4, "8",
               "[{\"name\":\"scale_offset\",\"configuration\":{\"offset\":-3,\"scale\":5}},"
               "{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}]"),
        &a));
    const int32_t values[4] = {-20, -13, 1, 500000000};
    int32_t back[6];
    uint64_t start = 0, count = 3, all = 6;
    ZT_OK(zarr_array_write(a, 1, &start, &count, values, 3 * sizeof(int32_t)));
    ZT_OK(zarr_array_read(a, 1, &start, &all, back, sizeof back));
    ZT_EQ_MEM(back, values, 3 * sizeof(int32_t));
    ZT_CHECK(back[4] == 8 && back[5] == 8);
    count = 4; /* (500000000 + 3) * 5 overflows int32 */
    ZT_STATUS(zarr_array_write(a, 1, &start, &count, values, sizeof values), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "outside the range of int32");
    zarr_array_free(a);

    ZT_OK(zarr_array_create(
        store, "/cv",
        v3_doc("\"float64\"", 4, 4, "0.0",
               "[{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"int8\"}},"
               "{\"name\":\"bytes\"}]"),
        &a));
    const double d[4] = {-128.0, 2.5, 3.5, 127.0};
    double dback[4];
    all = 4;
    ZT_OK(zarr_array_write(a, 1, &start, &all, d, sizeof d));
    ZT_OK(zarr_array_read(a, 1, &start, &all, dback, sizeof dback));
    ZT_CHECK(dback[0] == -128.0 && dback[1] == 2.0 && dback[2] == 4.0 && dback[3] == 127.0);
    const double too_big[4] = {0, 0, 0, 128.0};
    ZT_STATUS(zarr_array_write(a, 1, &start, &all, too_big, sizeof too_big), ZARR_ERROR_INVALID_ARGUMENT);
    const double nan4[4] = {NAN, 0, 0, 0};
    ZT_STATUS(zarr_array_write(a, 1, &start, &all, nan4, sizeof nan4), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "NaN cannot be cast to int8");
    zarr_array_free(a);
    /* An invalid configuration is invalid metadata. */
    ZT_STATUS(zarr_array_create(
                  store, "/bad",
                  v3_doc("\"float64\"", 4, 4, "0.0",
                         "[{\"name\":\"cast_value\",\"configuration\":{\"data_type\":\"float32\",\"out_of_range\":\"wrap\"}},"
                         "{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}]"),
                  &a),
              ZARR_ERROR_INVALID_METADATA);
    zarr_store_free(store);
}

/* ---- bad input ---- */

ZTEST(bad_data_types_and_fill_values) {
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_memory(&store));
    /* an unknown datetime unit */
    ZT_STATUS(zarr_array_create(
                  store, "/a",
                  v3_doc("{\"name\":\"numpy.datetime64\",\"configuration\":{\"unit\":\"fortnight\",\"scale_factor\":1}}",
                         2, 2, "0", LITTLE),
                  &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "unknown unit \"fortnight\"");
    ZT_CHECK(a == NULL);
    ZT_STATUS(zarr_array_create(store, "/a", v2_doc("\"<M8[fortnight]\"", 2, 2, "0"), &a),
              ZARR_ERROR_UNSUPPORTED);
    /* a struct with no fields, and one with a field named twice */
    ZT_STATUS(zarr_array_create(store, "/a",
                                v3_doc("{\"name\":\"struct\",\"configuration\":{\"fields\":[]}}", 2, 2,
                                       "{}", LITTLE),
                                &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STATUS(zarr_array_create(store, "/a",
                                v2_doc("[[\"x\",\"<u2\"],[\"x\",\"<u2\"]]", 2, 2, "null"), &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "used twice");
    /* struct fill values whose bytes do not add up to the element, or of the wrong shape */
    ZT_STATUS(zarr_array_create(store, "/a", v3_doc(STRUCT_ABC, 2, 2, "\"AAAA\"", BIG), &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STR_CONTAINS(zarr_last_error_message(), "expected 7 bytes");
    ZT_STATUS(zarr_array_create(store, "/a", v3_doc(STRUCT_ABC, 2, 2, "[1,2,3]", BIG), &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STATUS(zarr_array_create(store, "/a", v3_doc(STRUCT_ABC, 2, 2, "{\"d\":1}", BIG), &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STATUS(zarr_array_create(store, "/a", v2_doc("[[\"x\",\"<u2\"]]", 2, 2, "\"AAAAAA==\""), &a),
              ZARR_ERROR_INVALID_METADATA);
    /* a string longer than the type, a complex fill with three parts */
    ZT_STATUS(zarr_array_create(
                  store, "/a",
                  v3_doc("{\"name\":\"fixed_length_utf32\",\"configuration\":{\"length_bytes\":4}}", 2,
                         2, "\"ab\"", LITTLE),
                  &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_STATUS(zarr_array_create(store, "/a", v3_doc("\"complex64\"", 2, 2, "[1,2,3]", LITTLE), &a),
              ZARR_ERROR_INVALID_METADATA);
    /* multi-byte struct fields need an endian */
    ZT_STATUS(zarr_array_create(store, "/a", v3_doc(STRUCT_ABC, 2, 2, "{}", PLAIN), &a),
              ZARR_ERROR_INVALID_METADATA);
    /* codecs that do not take the type */
    ZT_STATUS(zarr_array_create(store, "/a",
                                v3_doc("\"bool\"", 2, 2, "false",
                                       "[{\"name\":\"zfp\",\"configuration\":{\"mode\":\"reversible\"}}]"),
                                &a),
              ZARR_ERROR_INVALID_METADATA);
    zarr_store_free(store);
}

/* Invalid zfp and pcodec streams are corrupt data, never a crash. */
ZTEST(invalid_streams) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    static const char *chains[] = {
        "[{\"name\":\"zfp\",\"configuration\":{\"mode\":\"fixed_precision\",\"precision\":20}}]",
        "[{\"name\":\"numcodecs.zfpy\",\"configuration\":{\"mode\":4,\"tolerance\":0.1}}]",
        "[{\"name\":\"numcodecs.pcodec\"}]",
    };
    for (size_t c = 0; c < sizeof chains / sizeof chains[0]; c++) {
        char path[16], key[32];
        snprintf(path, sizeof path, "/x%zu", c);
        ZT_OK(zarr_array_create(store, path, v3_doc("\"float32\"", 64, 64, "0.0", chains[c]), &a));
        float values[64];
        for (int i = 0; i < 64; i++) values[i] = (float)i * 0.5f;
        uint64_t start = 0, count = 64;
        ZT_OK(zarr_array_write(a, 1, &start, &count, values, sizeof values));
        snprintf(key, sizeof key, "x%zu/c/0", c);
        size_t len = 0;
        unsigned char *chunk = ztest_read_file(ztest_path(root, key), &len);
        ZT_CHECK(chunk != NULL && len > 8);
        /* truncated */
        if (chunk) ZT_CHECK(ztest_write_file(ztest_path(root, key), chunk, len / 2) == 0);
        float back[64];
        ZT_STATUS(zarr_array_read(a, 1, &start, &count, back, sizeof back), ZARR_ERROR_CORRUPT_DATA);
        /* garbage */
        ZT_CHECK(ztest_write_file(ztest_path(root, key), "garbage!garbage!", 16) == 0);
        ZT_STATUS(zarr_array_read(a, 1, &start, &count, back, sizeof back), ZARR_ERROR_CORRUPT_DATA);
        free(chunk);
        zarr_array_free(a);
    }
    zarr_store_free(store);
}

static const ztest_case ztest_cases[] = {
    ZCASE(utf32_v3),
    ZCASE(utf32_v2),
    ZCASE(byte_strings),
    ZCASE(datetimes),
    ZCASE(struct_v3),
    ZCASE(struct_v2),
    ZCASE(legacy_structured_reads),
    ZCASE(small_floats),
    ZCASE(zfp_pcodec_bitround_round_trip),
    ZCASE(scale_offset_and_cast_value),
    ZCASE(bad_data_types_and_fill_values),
    ZCASE(invalid_streams),
};

ZTEST_MAIN()
