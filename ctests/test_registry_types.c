/* The zarr-extensions registry's sub-byte and complex data types: int2, int4, uint2,
 * uint4, float4_e2m1fn, float6_e2m3fn, float6_e3m2fn and the complex_* types. For each,
 * an array is created, written, read back (written elements and fill values), its code,
 * name and element size checked; then the bytes on disk (bytes and packbits codecs), fill
 * value spellings, the refusal of host bytes with bits above the code, and the int8
 * conversion functions. */
#define _XOPEN_SOURCE 700

#include "ztest.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A v3 array document: shape [n], chunks [c]. */
static const char *doc(const char *data_type, int n, int c, const char *fill, const char *codecs) {
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"zarr_format\":3,\"node_type\":\"array\",\"shape\":[%d],\"data_type\":\"%s\","
             "\"chunk_grid\":{\"name\":\"regular\",\"configuration\":{\"chunk_shape\":[%d]}},"
             "\"chunk_key_encoding\":{\"name\":\"default\",\"configuration\":{\"separator\":\"/\"}},"
             "\"fill_value\":%s,\"codecs\":%s}",
             n, data_type, c, fill, codecs);
    return buf;
}

#define LITTLE "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"little\"}}]"
#define BIG "[{\"name\":\"bytes\",\"configuration\":{\"endian\":\"big\"}}]"
#define PLAIN "[{\"name\":\"bytes\"}]"
#define PACKBITS "[{\"name\":\"packbits\"}]"

/* The array's metadata JSON, compacted (caller frees). */
static char *metadata(const zarr_array *a) {
    char *json = NULL;
    if (zarr_array_metadata_json(a, &json) != ZARR_OK) return NULL;
    char *compact = ztest_json_compact(json);
    zarr_string_free(json);
    return compact;
}

/* One registry type: its code, name, element size, a fill value spelling with the host
 * bytes it means and its canonical spelling, and two elements to write. */
typedef struct {
    zarr_data_type code;
    const char *name;
    size_t size;
    const char *fill;
    uint8_t fill_bytes[16];
    const char *fill_canonical;
    uint8_t values[2][16];
} registry_type;

/* Host bytes of a little-endian-host element are written out byte by byte below; the
 * multi-byte ones (bfloat16, float16, float32, float64 components) are built at run time. */
static const registry_type TYPES[] = {
    {ZARR_DATA_TYPE_INT2, "int2", 1, "-2", {0x02}, "-2", {{0x03}, {0x01}}},
    {ZARR_DATA_TYPE_INT4, "int4", 1, "-1", {0x0f}, "-1", {{0x08}, {0x07}}},
    {ZARR_DATA_TYPE_UINT2, "uint2", 1, "3", {0x03}, "3", {{0x02}, {0x01}}},
    {ZARR_DATA_TYPE_UINT4, "uint4", 1, "15", {0x0f}, "15", {{0x0e}, {0x01}}},
    /* 1.5 is 0b0011; -6 is 0b1111. */
    {ZARR_DATA_TYPE_FLOAT4_E2M1FN, "float4_e2m1fn", 1, "1.5", {0x03}, "1.5", {{0x0f}, {0x08}}},
    /* "0x1f" is 7.5, the largest. */
    {ZARR_DATA_TYPE_FLOAT6_E2M3FN, "float6_e2m3fn", 1, "\"0x1f\"", {0x1f}, "7.5", {{0x3f}, {0x01}}},
    /* 100 saturates to 28 (0x1f), as ml_dtypes does. */
    {ZARR_DATA_TYPE_FLOAT6_E3M2FN, "float6_e3m2fn", 1, "100", {0x1f}, "28.0", {{0x20}, {0x3f}}},
    {ZARR_DATA_TYPE_COMPLEX_BFLOAT16, "complex_bfloat16", 4, "[1.0,-2.0]", {0}, "[1.0,-2.0]", {{0}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT16, "complex_float16", 4, "[1.0,\"0x7e00\"]", {0}, "[1.0,\"NaN\"]", {{0}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT32, "complex_float32", 8, "[0.5,\"Infinity\"]", {0}, "[0.5,\"Infinity\"]", {{0}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT64, "complex_float64", 16, "[-0.25,3]", {0}, "[-0.25,3.0]", {{0}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT4_E2M1FN, "complex_float4_e2m1fn", 2, "[-0.5,\"0x07\"]", {0x09, 0x07}, "[-0.5,6.0]", {{0x0f, 0x00}, {0x01, 0x0e}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT6_E2M3FN, "complex_float6_e2m3fn", 2, "[1.0,0.125]", {0x08, 0x01}, "[1.0,0.125]", {{0x3f, 0x00}, {0x20, 0x1f}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT6_E3M2FN, "complex_float6_e3m2fn", 2, "[28,-0.0625]", {0x1f, 0x21}, "[28.0,-0.0625]", {{0x3f, 0x01}, {0x00, 0x20}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT8_E3M4, "complex_float8_e3m4", 2, "[1.0,\"NaN\"]", {0x30, 0x78}, "[1.0,\"NaN\"]", {{0x01, 0xff}, {0x80, 0x7f}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3, "complex_float8_e4m3", 2, "[1.0,\"-Infinity\"]", {0x38, 0xf8}, "[1.0,\"-Infinity\"]", {{0x01, 0xff}, {0x80, 0x7f}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3B11FNUZ, "complex_float8_e4m3b11fnuz", 2, "[1.0,0]", {0x58, 0x00}, "[1.0,0.0]", {{0x01, 0xff}, {0x80, 0x7f}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT8_E4M3FNUZ, "complex_float8_e4m3fnuz", 2, "[1.0,\"NaN\"]", {0x40, 0x80}, "[1.0,\"NaN\"]", {{0x01, 0xff}, {0x80, 0x7f}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT8_E5M2, "complex_float8_e5m2", 2, "[\"0x3c\",2.0]", {0x3c, 0x40}, "[1.0,2.0]", {{0x01, 0xff}, {0x80, 0x7f}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT8_E5M2FNUZ, "complex_float8_e5m2fnuz", 2, "[1.0,-1.0]", {0x40, 0xc0}, "[1.0,-1.0]", {{0x01, 0xff}, {0x80, 0x7f}}},
    {ZARR_DATA_TYPE_COMPLEX_FLOAT8_E8M0FNU, "complex_float8_e8m0fnu", 2, "[1.0,0.5]", {0x7f, 0x7e}, "[1.0,0.5]", {{0x01, 0xff}, {0x80, 0x7f}}},
};
#define NTYPES (sizeof TYPES / sizeof TYPES[0])

/* The host bytes of the fill value and two elements of the complex types with 2-, 4- and
 * 8-byte components (host byte order, so built here rather than written out). */
static void host_bytes(const registry_type *t, uint8_t fill[16], uint8_t values[2][16]) {
    memcpy(fill, t->fill_bytes, 16);
    memcpy(values, t->values, sizeof t->values);
    if (t->code == ZARR_DATA_TYPE_COMPLEX_BFLOAT16) {
        uint16_t f[2] = {0x3f80, 0xc000}, v[2][2] = {{0x4049, 0x7fc0}, {0x0001, 0xff80}};
        memcpy(fill, f, 4);
        memcpy(values[0], v[0], 4);
        memcpy(values[1], v[1], 4);
    } else if (t->code == ZARR_DATA_TYPE_COMPLEX_FLOAT16) {
        uint16_t f[2] = {0x3c00, 0x7e00}, v[2][2] = {{0x4248, 0xfc00}, {0x0001, 0x8000}};
        memcpy(fill, f, 4);
        memcpy(values[0], v[0], 4);
        memcpy(values[1], v[1], 4);
    } else if (t->code == ZARR_DATA_TYPE_COMPLEX_FLOAT32) {
        float f[2] = {0.5f, INFINITY}, v[2][2] = {{3.25f, -1e30f}, {0.0f, -0.0f}};
        memcpy(fill, f, 8);
        memcpy(values[0], v[0], 8);
        memcpy(values[1], v[1], 8);
    } else if (t->code == ZARR_DATA_TYPE_COMPLEX_FLOAT64) {
        double f[2] = {-0.25, 3.0}, v[2][2] = {{1e300, -2.5}, {0.1, 7.0}};
        memcpy(fill, f, 16);
        memcpy(values[0], v[0], 16);
        memcpy(values[1], v[1], 16);
    }
}

/* Every type: code, name, element size, the fill value (read from an unwritten chunk and
 * written back canonically), and written elements read back (through a reopened handle). */
ZTEST(every_type_round_trips) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    for (size_t i = 0; i < NTYPES; i++) {
        const registry_type *t = &TYPES[i];
        uint8_t fill[16], values[2][16], buf[4 * 16];
        char path[64];
        host_bytes(t, fill, values);
        snprintf(path, sizeof path, "/%s", t->name);
        /* The complex types of 2-, 4- and 8-byte components need an endian. */
        zarr_array *a = NULL;
        ZT_OK(zarr_array_create(store, path, doc(t->name, 4, 2, t->fill, LITTLE), &a));
        zarr_data_type code = 0;
        size_t size = 0;
        ZT_OK(zarr_array_data_type(a, &code));
        ZT_OK(zarr_array_element_size(a, &size));
        if (code != t->code || size != t->size)
            fprintf(stderr, "%s: code %d size %zu\n", t->name, (int)code, size);
        ZT_CHECK(code == t->code);
        ZT_CHECK(size == t->size);
        ZT_CHECK(strcmp(zarr_data_type_str(code), t->name) == 0);
        uint8_t got_fill[16];
        ZT_OK(zarr_array_fill_value(a, got_fill, t->size));
        ZT_EQ_MEM(got_fill, fill, t->size);
        char *json = metadata(a);
        char expect[256];
        snprintf(expect, sizeof expect, "\"data_type\":\"%s\"", t->name);
        ZT_STR_CONTAINS(json, expect);
        snprintf(expect, sizeof expect, "\"fill_value\":%s", t->fill_canonical);
        ZT_STR_CONTAINS(json, expect);
        free(json);
        uint64_t start[1] = {1}, count[1] = {2};
        memcpy(buf, values[0], t->size);
        memcpy(buf + t->size, values[1], t->size);
        ZT_OK(zarr_array_write(a, 1, start, count, buf, 2 * t->size));
        zarr_array_free(a);
        a = NULL;
        ZT_OK(zarr_array_open(store, path, &a));
        uint64_t all_start[1] = {0}, all[1] = {4};
        memset(buf, 0xaa, sizeof buf);
        ZT_OK(zarr_array_read(a, 1, all_start, all, buf, 4 * t->size));
        ZT_EQ_MEM(buf, fill, t->size);
        ZT_EQ_MEM(buf + t->size, values[0], t->size);
        ZT_EQ_MEM(buf + 2 * t->size, values[1], t->size);
        ZT_EQ_MEM(buf + 3 * t->size, fill, t->size);
        zarr_array_free(a);
    }
    zarr_store_free(store);
}

/* int4 as tensorstore stores it: one byte per element, the code with the upper bits zero;
 * a chunk whose bytes are sign-extended (another writer's choice: "upper bits ignored")
 * reads as the masked codes; endian may be omitted. */
ZTEST(int4_bytes_on_disk) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", doc("int4", 4, 4, "0", PLAIN), &a));
    const uint8_t codes[4] = {0x0f, 0x07, 0x08, 0x00}; /* -1, 7, -8, 0 */
    uint64_t start[1] = {0}, count[1] = {4};
    ZT_OK(zarr_array_write(a, 1, start, count, codes, 4));
    size_t len = 0;
    uint8_t *stored = ztest_read_file(ztest_path(root, "a/c/0"), &len);
    ZT_CHECK(stored != NULL && len == 4);
    ZT_EQ_MEM(stored, codes, 4);
    free(stored);
    const uint8_t extended[4] = {0xff, 0x17, 0xf8, 0xf0};
    ZT_CHECK(ztest_write_file(ztest_path(root, "a/c/0"), extended, 4) == 0);
    uint8_t got[4];
    ZT_OK(zarr_array_read(a, 1, start, count, got, 4));
    ZT_EQ_MEM(got, codes, 4);
    double d[4];
    ZT_OK(zarr_array_read_double(a, 1, start, count, d, 4));
    ZT_CHECK(d[0] == -1.0 && d[1] == 7.0 && d[2] == -8.0 && d[3] == 0.0);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* complex_bfloat16 with a big-endian bytes codec swaps each component, not the pair. */
ZTEST(complex_bfloat16_big_endian) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/c", doc("complex_bfloat16", 1, 1, "[0,0]", BIG), &a));
    uint16_t v[2] = {0x3f80, 0xc040}; /* 1 - 3i */
    uint64_t start[1] = {0}, count[1] = {1};
    ZT_OK(zarr_array_write(a, 1, start, count, v, 4));
    size_t len = 0;
    uint8_t *stored = ztest_read_file(ztest_path(root, "c/c/0"), &len);
    const uint8_t expect[4] = {0x3f, 0x80, 0xc0, 0x40};
    ZT_CHECK(stored != NULL && len == 4);
    ZT_EQ_MEM(stored, expect, 4);
    free(stored);
    uint16_t back[2];
    ZT_OK(zarr_array_read(a, 1, start, count, back, 4));
    ZT_EQ_MEM(back, v, 4);
    /* Complex numbers are not real numbers. */
    double d;
    ZT_STATUS(zarr_array_read_double(a, 1, start, count, &d, 1), ZARR_ERROR_TYPE_MISMATCH);
    zarr_array_free(a);
    /* The 2-byte components need an endian; one-byte components do not. */
    ZT_STATUS(zarr_array_create(store, "/d", doc("complex_bfloat16", 1, 1, "[0,0]", PLAIN), &a),
              ZARR_ERROR_INVALID_METADATA);
    ZT_OK(zarr_array_create(store, "/e", doc("complex_float8_e4m3", 1, 1, "[0,0]", PLAIN), &a));
    zarr_array_free(a);
    zarr_store_free(store);
}

/* Fill value spellings: what each format has, and a precise error naming the type for
 * what it has not. */
ZTEST(fill_value_spellings) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    static const struct {
        const char *type, *fill, *message;
    } bad[] = {
        {"float4_e2m1fn", "\"NaN\"", "float4_e2m1fn has no NaN and no infinities"},
        {"float6_e2m3fn", "\"Infinity\"", "float6_e2m3fn has no NaN and no infinities"},
        {"float6_e3m2fn", "\"-Infinity\"", "float6_e3m2fn has no NaN and no infinities"},
        {"float4_e2m1fn", "\"0x10\"", "float4_e2m1fn"},
        {"float6_e3m2fn", "\"0x40\"", "float6_e3m2fn"},
        {"int4", "8", "from -8 to 7"},
        {"int2", "-3", "from -2 to 1"},
        {"uint2", "4", "from 0 to 3"},
        {"uint4", "-1", "from 0 to 15"},
        {"complex_float4_e2m1fn", "1.0", "expected [real, imaginary]"},
        {"complex_float6_e2m3fn", "[1.0,\"NaN\"]", "imaginary part"},
        {"complex_float32", "[1.0]", "expected [real, imaginary]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ZT_STATUS(zarr_array_create(store, "/x", doc(bad[i].type, 2, 2, bad[i].fill, LITTLE), &a),
                  ZARR_ERROR_INVALID_METADATA);
        ZT_STR_CONTAINS(zarr_last_error_message(), bad[i].message);
        ZT_CHECK(a == NULL);
    }
    /* Numbers round to nearest, ties to even: 5 lies between 4 (0x6) and 6 (0x7). */
    ZT_OK(zarr_array_create(store, "/r", doc("float4_e2m1fn", 2, 2, "5", LITTLE), &a));
    uint8_t f = 0;
    ZT_OK(zarr_array_fill_value(a, &f, 1));
    ZT_CHECK(f == 0x06);
    double d = 0;
    ZT_OK(zarr_array_fill_value_double(a, &d));
    ZT_CHECK(d == 4.0);
    zarr_array_free(a);
    /* An unknown complex component is unsupported, not malformed. */
    ZT_STATUS(zarr_array_create(store, "/u", doc("complex_float8_e4m3fn", 2, 2, "[0,0]", LITTLE), &a),
              ZARR_ERROR_UNSUPPORTED);
    zarr_store_free(store);
}

/* packbits: int2 and uint2 2 bits, int4/uint4/float4 4, float6 6, complex per component;
 * LSB first. Decoding gives the host layout (int4 -1 is 0x0f, not sign-extended). */
ZTEST(packbits_round_trip) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    static const struct {
        const char *type;
        size_t n; /* elements (bytes per element: 1, or 2 for the complex type) */
        size_t esize;
        uint8_t host[8];
        size_t packed_len;
        uint8_t packed[8];
    } cases[] = {
        /* int4 -1, 1, -8, 7, 2: nibbles f,1 | 8,7 | 2 */
        {"int4", 5, 1, {0x0f, 0x01, 0x08, 0x07, 0x02}, 3, {0x1f, 0x78, 0x02}},
        {"uint4", 2, 1, {0x0a, 0x05}, 1, {0x5a}},
        /* int2 -2 (0b10), -1 (0b11), 0, 1: 0b01_00_11_10 */
        {"int2", 4, 1, {0x02, 0x03, 0x00, 0x01}, 1, {0x4e}},
        {"uint2", 5, 1, {0x03, 0x00, 0x01, 0x02, 0x03}, 2, {0x93, 0x03}},
        {"float4_e2m1fn", 3, 1, {0x0f, 0x08, 0x03}, 2, {0x8f, 0x03}},
        /* 6-bit codes 0x3f, 0x01: bits 111111 100000 (LSB first) = 0x7f 0x00 */
        {"float6_e2m3fn", 2, 1, {0x3f, 0x01}, 2, {0x7f, 0x00}},
        {"float6_e3m2fn", 4, 1, {0x15, 0x2a, 0x00, 0x3f}, 3, {0x95, 0x0a, 0xfc}},
        {"complex_float4_e2m1fn", 2, 2, {0x01, 0x02, 0x0f, 0x08}, 2, {0x21, 0x8f}},
        {"complex_float8_e5m2", 1, 2, {0x3c, 0xc0}, 2, {0x3c, 0xc0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        zarr_array *a = NULL;
        char path[64];
        snprintf(path, sizeof path, "/%s", cases[i].type);
        const char *fill = strncmp(cases[i].type, "complex_", 8) == 0 ? "[0,0]" : "0";
        ZT_OK(zarr_array_create(store, path, doc(cases[i].type, (int)cases[i].n, (int)cases[i].n, fill, PACKBITS), &a));
        uint64_t start[1] = {0}, count[1] = {cases[i].n};
        size_t nbytes = cases[i].n * cases[i].esize;
        ZT_OK(zarr_array_write(a, 1, start, count, cases[i].host, nbytes));
        size_t len = 0;
        char key[80];
        snprintf(key, sizeof key, "%s/c/0", cases[i].type);
        uint8_t *stored = ztest_read_file(ztest_path(root, key), &len);
        if (stored == NULL || len != cases[i].packed_len || memcmp(stored, cases[i].packed, len) != 0) {
            fprintf(stderr, "%s: stored", cases[i].type);
            for (size_t k = 0; stored && k < len; k++) fprintf(stderr, " %02x", stored[k]);
            fprintf(stderr, "\n");
        }
        ZT_CHECK(stored != NULL && len == cases[i].packed_len);
        ZT_EQ_MEM(stored, cases[i].packed, len);
        free(stored);
        uint8_t back[8];
        memset(back, 0xaa, sizeof back);
        ZT_OK(zarr_array_read(a, 1, start, count, back, nbytes));
        ZT_EQ_MEM(back, cases[i].host, nbytes);
        zarr_array_free(a);
    }
    zarr_store_free(store);
}

/* A host byte with bits above the code (int4 0x1f) is refused by every write function,
 * naming the element; nothing is stored, not even the chunks before it. */
ZTEST(upper_bits_refused) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/a", doc("int4", 6, 2, "0", PLAIN), &a));
    uint8_t data[6] = {0x01, 0x02, 0x03, 0x04, 0x1f, 0x05};
    uint64_t start[1] = {0}, count[1] = {6};
    ZT_STATUS(zarr_array_write(a, 1, start, count, data, 6), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "element at [4]");
    ZT_STR_CONTAINS(zarr_last_error_message(), "0x1f");
    ZT_STR_CONTAINS(zarr_last_error_message(), "int4");
    ZT_CHECK(!ztest_exists(ztest_path(root, "a/c/0")));
    ZT_CHECK(!ztest_exists(ztest_path(root, "a/c/1")));
    /* Coordinates are the array's: a write at offset 3 names element 4 too. */
    uint64_t s3[1] = {3}, c3[1] = {2};
    ZT_STATUS(zarr_array_write(a, 1, s3, c3, data + 3, 2), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "element at [4]");
    /* Strided: every other byte of data; the third element taken is data[4]. */
    int64_t strides[1] = {2};
    uint64_t c_str[1] = {3};
    ZT_STATUS(zarr_array_write_strided(a, 1, start, c_str, strides, data, 6), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "element at [2]");
    uint64_t chunk[1] = {2};
    ZT_STATUS(zarr_array_write_chunk(a, 1, chunk, data + 4, 2), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "element at [4]");
    ZT_CHECK(ztest_count_entries(ztest_path(root, "a")) == 1); /* zarr.json only */
    /* float6: 0x40 is refused, 0x3f taken; complex: each component checked. */
    zarr_array *f = NULL;
    ZT_OK(zarr_array_create(store, "/f", doc("complex_float6_e3m2fn", 2, 2, "[0,0]", PLAIN), &f));
    uint8_t cf[4] = {0x3f, 0x3f, 0x00, 0x40};
    uint64_t two[1] = {2};
    ZT_STATUS(zarr_array_write(f, 1, start, two, cf, 4), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "element at [1]");
    cf[3] = 0x3f;
    ZT_OK(zarr_array_write(f, 1, start, two, cf, 4));
    zarr_array_free(f);
    zarr_array_free(a);
    zarr_store_free(store);
}

/* The int8 conversions: success both ways, in place, count 0 with NULL, and each
 * documented error. */
ZTEST(int8_conversions) {
    const uint8_t codes[6] = {0x0f, 0x08, 0x07, 0x00, 0x1f, 0x01};
    int8_t values[6];
    ZT_OK(zarr_sub_byte_to_int8(ZARR_DATA_TYPE_INT4, codes, values, 6));
    const int8_t expect4[6] = {-1, -8, 7, 0, -1, 1};
    ZT_EQ_MEM(values, expect4, 6);
    const uint8_t codes2[4] = {0x02, 0x03, 0x00, 0x01};
    ZT_OK(zarr_sub_byte_to_int8(ZARR_DATA_TYPE_INT2, codes2, values, 4));
    const int8_t expect2[4] = {-2, -1, 0, 1};
    ZT_EQ_MEM(values, expect2, 4);
    ZT_OK(zarr_sub_byte_to_int8(ZARR_DATA_TYPE_UINT4, codes, values, 3));
    const int8_t expectu4[3] = {15, 8, 7};
    ZT_EQ_MEM(values, expectu4, 3);
    ZT_OK(zarr_sub_byte_to_int8(ZARR_DATA_TYPE_UINT2, codes2, values, 4));
    const int8_t expectu2[4] = {2, 3, 0, 1};
    ZT_EQ_MEM(values, expectu2, 4);

    const int8_t in[5] = {-8, -1, 0, 7, 3};
    uint8_t out[5];
    ZT_OK(zarr_int8_to_sub_byte(ZARR_DATA_TYPE_INT4, in, out, 5));
    const uint8_t expect_codes[5] = {0x08, 0x0f, 0x00, 0x07, 0x03};
    ZT_EQ_MEM(out, expect_codes, 5);
    const int8_t in2[2] = {-2, -1};
    ZT_OK(zarr_int8_to_sub_byte(ZARR_DATA_TYPE_INT2, in2, out, 2));
    ZT_CHECK(out[0] == 0x02 && out[1] == 0x03);

    /* In place, both ways. */
    uint8_t both[3] = {0x0f, 0x08, 0x01};
    ZT_OK(zarr_sub_byte_to_int8(ZARR_DATA_TYPE_INT4, both, (int8_t *)both, 3));
    ZT_CHECK((int8_t)both[0] == -1 && (int8_t)both[1] == -8 && both[2] == 1);
    ZT_OK(zarr_int8_to_sub_byte(ZARR_DATA_TYPE_INT4, (const int8_t *)both, both, 3));
    ZT_CHECK(both[0] == 0x0f && both[1] == 0x08 && both[2] == 0x01);

    /* count 0 with NULL pointers is fine. */
    ZT_OK(zarr_sub_byte_to_int8(ZARR_DATA_TYPE_INT4, NULL, NULL, 0));
    ZT_OK(zarr_int8_to_sub_byte(ZARR_DATA_TYPE_UINT2, NULL, NULL, 0));

    /* Errors, with nothing written. */
    memset(out, 0xaa, sizeof out);
    const int8_t bad[3] = {1, 2, 8};
    ZT_STATUS(zarr_int8_to_sub_byte(ZARR_DATA_TYPE_INT4, bad, out, 3), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "values[2] is 8");
    ZT_CHECK(out[0] == 0xaa && out[1] == 0xaa);
    const int8_t neg[1] = {-1};
    ZT_STATUS(zarr_int8_to_sub_byte(ZARR_DATA_TYPE_UINT4, neg, out, 1), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "uint4");
    ZT_STATUS(zarr_int8_to_sub_byte(ZARR_DATA_TYPE_INT2, in, out, 1), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_int8_to_sub_byte(ZARR_DATA_TYPE_FLOAT4_E2M1FN, in, out, 1), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "float4_e2m1fn");
    ZT_STATUS(zarr_sub_byte_to_int8(ZARR_DATA_TYPE_INT8, codes, values, 1), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_sub_byte_to_int8(999, codes, values, 1), ZARR_ERROR_INVALID_ARGUMENT);
    ZT_STATUS(zarr_sub_byte_to_int8(ZARR_DATA_TYPE_INT4, NULL, values, 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "codes");
    ZT_STATUS(zarr_sub_byte_to_int8(ZARR_DATA_TYPE_INT4, codes, NULL, 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STR_CONTAINS(zarr_last_error_message(), "values");
    ZT_STATUS(zarr_int8_to_sub_byte(ZARR_DATA_TYPE_INT4, NULL, out, 1), ZARR_ERROR_NULL_ARGUMENT);
    ZT_STATUS(zarr_int8_to_sub_byte(ZARR_DATA_TYPE_INT4, in, NULL, 1), ZARR_ERROR_NULL_ARGUMENT);
}

/* float4/float6 read as doubles: every code's value. */
ZTEST(read_double_sub_byte_floats) {
    const char *root = ztest_tmp_dir();
    zarr_store *store = NULL;
    zarr_array *a = NULL;
    ZT_OK(zarr_store_open_filesystem(root, &store));
    ZT_OK(zarr_array_create(store, "/f", doc("float4_e2m1fn", 16, 16, "0", PLAIN), &a));
    uint8_t codes[16];
    for (int i = 0; i < 16; i++) codes[i] = (uint8_t)i;
    uint64_t start[1] = {0}, count[1] = {16};
    ZT_OK(zarr_array_write(a, 1, start, count, codes, 16));
    double d[16];
    ZT_OK(zarr_array_read_double(a, 1, start, count, d, 16));
    const double expect[8] = {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0};
    for (int i = 0; i < 8; i++) {
        ZT_CHECK(d[i] == expect[i]);
        ZT_CHECK(d[i + 8] == -expect[i]);
    }
    ZT_CHECK(signbit(d[8]));
    zarr_array_free(a);
    zarr_store_free(store);
}

ZTEST(codes_and_names) {
    for (size_t i = 0; i < NTYPES; i++) ZT_CHECK(strcmp(zarr_data_type_str(TYPES[i].code), TYPES[i].name) == 0);
    ZT_CHECK(ZARR_DATA_TYPE_INT2 == 33 && ZARR_DATA_TYPE_FLOAT6_E3M2FN == 39);
    ZT_CHECK(ZARR_DATA_TYPE_COMPLEX_BFLOAT16 == 40 && ZARR_DATA_TYPE_COMPLEX_FLOAT8_E8M0FNU == 53);
    ZT_CHECK(strcmp(zarr_data_type_str(54), "unknown data type") == 0);
}

static const ztest_case ztest_cases[] = {
    ZCASE(every_type_round_trips),
    ZCASE(int4_bytes_on_disk),
    ZCASE(complex_bfloat16_big_endian),
    ZCASE(fill_value_spellings),
    ZCASE(codes_and_names),
    ZCASE(packbits_round_trip),
    ZCASE(upper_bits_refused),
    ZCASE(int8_conversions),
    ZCASE(read_double_sub_byte_floats),
};

ZTEST_MAIN()
